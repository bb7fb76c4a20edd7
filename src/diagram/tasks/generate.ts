// Draws tasks from a split. The space of distinct tasks is finite and enumerated exactly: every (instance, template,
// variant) triple of a vocabulary, plus the hand-written seed tasks in train. A draw is balanced over kinds, then
// levels, then scenarios (so one long pipeline cannot crowd out a domain), samples without replacement, and depends
// only on the seed. The IID `heldout` split draws train's task space again and renames every entity from the held-out
// name pool (synthetic-names.ts), so its names never occur in training data.
import { DIAGRAM_KINDS, type DiagramKind, type Task } from './spec.ts';
import { LEVELS, LEVEL_VARIANTS, MAX_LEVEL, type Variant } from './difficulty.ts';
import { decode, instanceRefs, type InstanceRef } from './instances.ts';
import { SPLITS, vocabOf, type Split, type Vocab } from './scenarios.ts';
import { templatesFor, type Template } from './phrasing-templates.ts';
import { renderTask } from './render.ts';
import { SEED_TASKS } from './seed-tasks.ts';
import { hash32, rng, sampleDistinct, shuffle, type Rng } from '../../random.ts';
import { withSyntheticNames } from './synthetic-names.ts';
import { taskId } from './render.ts';

export interface TaskFilter {
  /** One level, 0..MAX_LEVEL; all levels when absent. */
  difficulty?: number;
  /** Only these kinds; all when absent. */
  kinds?: readonly DiagramKind[];
}

export interface GenerateOptions extends TaskFilter {
  split: Split;
  n: number;
  seed?: number;
  /** Share of the tasks, in [0, 1], whose entities get made-up names (training data for students that must learn to
   *  copy names; see synthetic-names.ts). 0 by default. */
  syntheticNames?: number;
}

/** A request the suite cannot serve (unknown split or kind, level out of range, more tasks than exist). */
export class TaskRequestError extends Error {}

/** A block of the task space: some consecutive instances of one scenario at one level, times templates and variants. */
interface Cell {
  size: number;
  task(i: number): Task;
}

interface Stratum {
  kind: DiagramKind;
  level: number;
  cells: Cell[];
}

function instanceCell(split: Vocab, refs: InstanceRef[], templates: Template[], variants: Variant[], level: number): Cell {
  const T = templates.length;
  const V = variants.length;
  return {
    size: refs.length * T * V,
    task(i) {
      const ref = refs[Math.floor(i / (T * V))];
      return renderTask(split, decode(ref.scenario, ref.code), templates[Math.floor(i / V) % T], variants[i % V], level);
    },
  };
}

const strataCache = new Map<Split, Stratum[]>();

/** Every (kind, level) stratum of a split, in a fixed order. `heldout` has train's strata without the hand-written
 *  seed tasks (their names are real and fixed). */
export function strata(split: Split): Stratum[] {
  const cached = strataCache.get(split);
  if (cached) return cached;
  const vocab = vocabOf(split);
  const refs = instanceRefs(vocab);
  const out: Stratum[] = [];
  for (const kind of DIAGRAM_KINDS) {
    const templates = templatesFor(vocab, kind);
    for (const level of LEVELS) {
      const cells: Cell[] = [];
      const mine = refs.filter((r) => r.scenario.kind === kind && r.level === level);
      for (const scenario of new Set(mine.map((r) => r.scenario))) {
        cells.push(instanceCell(vocab, mine.filter((r) => r.scenario === scenario), templates, LEVEL_VARIANTS[level], level));
      }
      const seeds = split === 'train' ? SEED_TASKS.filter((t) => t.spec.kind === kind && t.spec.difficulty === level) : [];
      if (seeds.length > 0) cells.push({ size: seeds.length, task: (i) => seeds[i] });
      if (cells.length > 0) out.push({ kind, level, cells });
    }
  }
  strataCache.set(split, out);
  return out;
}

function checkRequest(split: string, filter: TaskFilter): asserts split is Split {
  if (!(SPLITS as readonly string[]).includes(split)) throw new TaskRequestError(`unknown split ${JSON.stringify(split)}: use ${SPLITS.join(' or ')}`);
  const d = filter.difficulty;
  if (d !== undefined && !(Number.isInteger(d) && d >= 0 && d <= MAX_LEVEL)) {
    throw new TaskRequestError(`difficulty must be an integer from 0 to ${MAX_LEVEL}, got ${d}`);
  }
  const bad = filter.kinds?.find((k) => !(DIAGRAM_KINDS as readonly string[]).includes(k));
  if (bad !== undefined) throw new TaskRequestError(`unknown kind ${JSON.stringify(bad)}: kinds are ${DIAGRAM_KINDS.join(', ')}`);
  if (filter.kinds && filter.kinds.length === 0) throw new TaskRequestError('kinds is empty: name at least one kind');
}

function selected(split: Split, filter: TaskFilter): Stratum[] {
  return strata(split).filter((s) => (filter.difficulty === undefined || s.level === filter.difficulty) && (!filter.kinds || filter.kinds.includes(s.kind)));
}

/** How many distinct tasks a split holds under a filter: the most `generateTasks` can return. */
export function maxDistinct(split: Split, filter: TaskFilter = {}): number {
  checkRequest(split, filter);
  return selected(split, filter).reduce((n, s) => n + s.cells.reduce((m, c) => m + c.size, 0), 0);
}

/** Shares `n` as evenly as capacities allow; leftovers go to randomly chosen groups that still have room. */
export function allocate(n: number, caps: number[], r: Rng): number[] {
  const out = caps.map(() => 0);
  let left = n;
  let open = caps.map((_, i) => i).filter((i) => caps[i] > 0);
  while (left > 0 && open.length > 0) {
    const share = Math.floor(left / open.length);
    if (share === 0) {
      for (const i of shuffle(r, open).slice(0, left)) out[i]++;
      break;
    }
    for (const i of open) {
      const add = Math.min(share, caps[i] - out[i]);
      out[i] += add;
      left -= add;
    }
    open = open.filter((i) => out[i] < caps[i]);
  }
  return out;
}

/** `n` distinct tasks from a split, balanced over kinds, levels and scenarios; the same seed gives the same tasks. */
export function generateTasks(opts: GenerateOptions): Task[] {
  const { split, n, seed = 0 } = opts;
  checkRequest(split, opts);
  if (!Number.isInteger(n) || n < 0) throw new TaskRequestError(`n must be a non-negative integer, got ${n}`);
  const max = maxDistinct(split, opts);
  if (n > max) throw new TaskRequestError(`asked for ${n} tasks but the ${split} split has only ${max} distinct tasks${describeFilter(opts)}`);
  if (split === 'heldout') return heldoutTasks({ ...opts, n, seed }, max);
  const share = opts.syntheticNames ?? 0;
  if (!(share >= 0 && share <= 1)) throw new TaskRequestError(`syntheticNames must be a share in [0, 1], got ${share}`);
  const pick = rng(hash32(`synthetic-names|${seed}`));
  return drawStrata(split, { ...opts, n, seed }).map((t) => (pick.next() < share ? withSyntheticNames(t, split, seed) : t));
}

/** `n` distinct tasks of a split's strata, balanced and shuffled: `generateTasks` before any renaming. */
function drawStrata(split: Split, opts: TaskFilter & { n: number; seed: number }): Task[] {
  const { n, seed } = opts;
  const r = rng(seed);
  const chosen = selected(split, opts);
  const kinds = [...new Set(chosen.map((s) => s.kind))];
  const cellSize = (cells: Cell[]) => cells.reduce((m, c) => m + c.size, 0);
  const perKind = allocate(n, kinds.map((k) => cellSize(chosen.filter((s) => s.kind === k).flatMap((s) => s.cells))), r);
  const tasks: Task[] = [];
  kinds.forEach((kind, ki) => {
    const levels = chosen.filter((s) => s.kind === kind);
    const perLevel = allocate(perKind[ki], levels.map((s) => cellSize(s.cells)), r);
    levels.forEach((s, li) => {
      const perCell = allocate(perLevel[li], s.cells.map((c) => c.size), r);
      s.cells.forEach((cell, ci) => {
        for (const i of sampleDistinct(r, cell.size, perCell[ci])) tasks.push(cell.task(i));
      });
    });
  });
  const ids = new Set<string>();
  for (const t of tasks) {
    if (ids.has(t.id)) throw new Error(`task generator produced duplicate id ${t.id}: two coordinates render the same task`);
    ids.add(t.id);
  }
  return shuffle(r, tasks);
}

/** Renaming keeps a name the prompt only mentions by a short form ("DB"), and a real name could also be in training
 *  data: such tasks are left out, which is why a draw takes more than `n` and keeps the first `n` that qualify. */
function heldoutTasks(opts: GenerateOptions & { n: number; seed: number }, max: number): Task[] {
  const { n, seed } = opts;
  const picked: Task[] = [];
  if (n === 0) return picked;
  for (let want = Math.min(max, Math.ceil(n * 1.25) + 8); ; want = Math.min(max, want * 2)) {
    const drawn = drawStrata('heldout', { ...opts, n: want, seed: hash32(`heldout|${seed}`) });
    picked.length = 0;
    for (const t of drawn) {
      const renamed = withSyntheticNames(t, 'heldout', seed);
      if (renamed.spec.entities.every((e) => !t.spec.entities.includes(e))) picked.push({ ...renamed, id: taskId('heldout', renamed.spec.kind ?? 'task', renamed.prompt, renamed.spec) });
      if (picked.length === n) return picked;
    }
    if (want === max) throw new TaskRequestError(`asked for ${n} tasks but the heldout split has only ${picked.length} distinct tasks${describeFilter(opts)}`);
  }
}

function describeFilter(f: TaskFilter): string {
  const parts = [f.difficulty !== undefined ? `difficulty ${f.difficulty}` : '', f.kinds ? `kinds ${f.kinds.join(',')}` : ''].filter(Boolean);
  return parts.length ? ` for ${parts.join(' and ')}` : '';
}
