// The decision benchmark: which choices of an answer a student gets wrong, teacher-forced. The scripted teacher answers
// IID held-out tasks, the student reads the teacher's answer, and for every answer token the bench asks whether the
// student's most likely next token is the teacher's. Tokens are grouped by the decision they make: the first token of a
// new shape's id (which entity comes next), of an arrow's `from` and `to` (which entities it joins), whether another
// action follows or the answer ends, the rest of a name (copying), where a name ends, numbers and the JSON around them.
// A valid answer needs every id and arrow end right, so the first groups say which decision holds the student back.
// Teacher forcing hands the student every earlier token, so the same student then also samples answers to the same
// tasks (T=0.7): a variant whose own answers lead it astray shows there, not in the choices.
//
// Two modes:
//   npx tsx bench/decisions.ts --variants base,say,walk [--seeds 2] [--budget-s 300] [--tasks 200] [--out runs/decisions]
//     trains each recipe variant (bench/variants.ts) for a short SFT (the budget in seconds at --tokens-per-s, the
//     default shape's quiet rate: equal tokens, whatever shares the cores), then reads its teacher answers; cells are
//     cached in OUT/results.jsonl, so a rerun adds only what is missing. This is the loop to iterate a mechanism on: it
//     answers in minutes where the default run takes fifteen.
//   npx tsx bench/decisions.ts DIR [DIR...] [--answer VARIANT] [--tasks 200]
//     reads checkpoints (`runs/NAME/sft/final`), the teacher's answers written as the variant writes them.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { renderChat } from '../src/model/chat.ts';
import { loadCheckpoint } from '../src/model/checkpoint.ts';
import { ScriptedPolicy } from '../src/diagram/teacher/scripted.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import { RUN_CONFIGS } from '../src/pipeline/run.ts';
import { sampled, type Figures } from './sampled.ts';
import { trainVariant, variantDir, variantNamed } from './variants.ts';

const { values: args, positionals: dirs } = parseArgs({
  allowPositionals: true,
  options: {
    variants: { type: 'string' },
    answer: { type: 'string', default: 'base' },
    seeds: { type: 'string', default: '2' },
    'budget-s': { type: 'string', default: '300' },
    'tokens-per-s': { type: 'string', default: '9300' },
    tasks: { type: 'string', default: '200' },
    seed: { type: 'string', default: '4242' },
    out: { type: 'string', default: 'runs/decisions' },
  },
});
if (dirs.length === 0 && !args.variants) throw new Error('name checkpoint directories, or --variants to train and compare');

/** New tokens a sampled answer may take: the default run's limit. */
const MAX_TOKENS = RUN_CONFIGS.default.eval.maxTokens;
const tasks = generateTasks({ split: 'heldout', n: Number(args.tasks), seed: Number(args.seed) });
const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
/** The teacher's answers to the tasks as a variant's teacher writes them (walk or not, then the variant's rewrite). */
const answersFor = async (variant: string): Promise<string[]> => {
  const v = variantNamed(variant);
  const teacher = new ScriptedPolicy({ specFor: (p) => specs.get(p), walk: v.walk ?? false });
  const out: string[] = [];
  for (const t of tasks) {
    const [[c]] = await teacher.generate([[{ role: 'user', content: t.prompt }]], { temperature: 0, seed: 0 });
    out.push(v.answer ? v.answer(c.text, t.prompt) : c.text);
  }
  return out;
};

/** The string fields whose values are copied from the request; the key's token ends with `"field":"`. */
const NAME_FIELD = /"(id|from|to|text|say|then)":"$/;
/** The choices a valid answer cannot get wrong, also reported per difficulty. */
const CHOICES = ['id: first token', 'from: first token', 'to: first token', 'another action or the end', "the action's type: an arrow", "the action's type: a shape"];

type Counts = Record<string, { right: number; all: number }>;

/** For each arrow, in the answer's order: where its source stands among what the answer has written before it (the
 *  first that holds), and the ids a student could pick instead, labelled the same way, to tell what a wrong pick was. */
function arrowSources(answer: string): { kind: string; candidates: [string, string][] }[] {
  let actions: { type?: string; id?: string; from?: string; to?: string }[];
  try {
    actions = (JSON.parse(answer) as { actions: typeof actions }).actions;
  } catch {
    return [];
  }
  const shapes: string[] = [];
  let last: { from?: string; to?: string } = {};
  const out: { kind: string; candidates: [string, string][] }[] = [];
  for (const a of actions) {
    if (a.type === 'create_shape' && a.id) shapes.push(a.id);
    if (a.type !== 'connect') continue;
    const candidates: [string, string][] = [
      ["the last arrow's source", last.from ?? ''],
      ['the last shape', shapes.at(-1) ?? ''],
      ["the last arrow's target", last.to ?? ''],
      ['the shape before the last', shapes.at(-2) ?? ''],
      ...shapes.map((id): [string, string] => ['an older shape', id]),
    ];
    out.push({ kind: candidates.find(([, id]) => id === a.from)?.[0] ?? 'not a shape', candidates: candidates.filter(([, id]) => id) });
    last = a;
  }
  return out;
}

/** Teacher-forced accuracy per decision (and per decision and difficulty, as `decision @level`). */
async function decisions(dir: string, answers: string[]): Promise<{ groups: Counts; skipped: number }> {
  const { model, tokenizer: tok } = await loadCheckpoint(dir);
  const groups: Counts = {};
  const count = (group: string, right: boolean) => {
    const g = (groups[group] ??= { right: 0, all: 0 });
    g.right += right ? 1 : 0;
    g.all++;
  };
  const T = model.config.nCtx;
  const V = model.config.vocabSize;
  let skipped = 0;
  try {
    for (let k = 0; k < tasks.length; k++) {
      const { ids, mask } = renderChat(tok, [{ role: 'user', content: tasks[k].prompt }, { role: 'assistant', content: answers[k] }]);
      if (ids.length > T) {
        skipped++;
        continue;
      }
      const input = new Int32Array(T);
      input.set(ids);
      const logits = model.logits(input, 1, T);
      let field = '';
      let inName = 0;
      const sources = arrowSources(answers[k]);
      let arrows = 0;
      let inArrow = false;
      for (let i = 1; i < ids.length; i++) {
        if (!mask[i]) continue;
        const before = tok.decode([ids[i - 1]]);
        const piece = tok.decode([ids[i]]);
        let best = 0;
        for (let v = 1; v < V; v++) if (logits[(i - 1) * V + v] > logits[(i - 1) * V + best]) best = v;
        const m = NAME_FIELD.exec(before);
        if (m) [field, inName] = [m[1], 0];
        let group: string;
        if (field && inName === 0 && !piece.startsWith('"')) group = `${field}: first token`;
        else if (field && !piece.startsWith('"')) group = `${field}: rest of the name`;
        else if (field) {
          // A string that closes and, with it, the action: the token also says whether another action follows.
          group = /^"\}(,|\])/.test(piece) ? 'another action or the end' : `${field}: where the name ends`;
          field = '';
        } else if (/^"?\}(,|\])/.test(piece)) group = 'another action or the end';
        else group = /^\d+$/.test(piece) ? 'numbers' : 'JSON structure';
        inName++;
        const right = best === ids[i];
        if (/"type":"$/.test(before)) {
          inArrow = piece.startsWith('connect');
          group = `the action's type: ${inArrow ? 'an arrow' : 'a shape'}`;
        }
        // An arrow's say (a variant's) holds the choice of its ends: counted apart from the shapes' says.
        if (inArrow && /^(say|then): /.test(group)) group = `arrow ${group}`;
        count(group, right);
        if (group === 'another action or the end') count(`another action or the end: the teacher ${/\]/.test(piece) ? 'ends' : 'goes on'}`, right);
        if (CHOICES.includes(group)) count(`${group} @${tasks[k].spec.difficulty}`, right);
        if (group === 'from: first token' && sources[arrows]) {
          const { kind, candidates } = sources[arrows++];
          count(`from: first token, source = ${kind}`, right);
          count(`from: first token, ${tasks[k].spec.kind}`, right);
          // What a wrong pick starts: the first candidate whose first token it is.
          if (!right) count(`from: wrong picks that start ${candidates.find(([, id]) => tok.encode(id)[0] === best)?.[0] ?? 'no shape id'}`, true);
        }
        count('every answer token', right);
      }
    }
  } finally {
    await model.dispose();
  }
  return { groups, skipped };
}

interface Cell {
  label: string;
  seed?: number;
  steps?: number;
  sft_s?: number;
  load?: string;
  skipped: number;
  groups: Counts;
  /** The same student sampling answers to the same tasks at T=0.7: teacher forcing hands it every earlier token, so
   *  a variant whose answers lead it astray on its own shows here and not in the choices. */
  sampled?: Figures;
}

const cells: Cell[] = [];
if (args.variants) {
  const out = args.out!;
  mkdirSync(out, { recursive: true });
  const resultsPath = join(out, 'results.jsonl');
  const cached: Cell[] = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Cell) : [];
  const names = args.variants.split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) variantNamed(n);
  const seeds = Array.from({ length: Number(args.seeds) }, (_, i) => i);
  const key = `${args.tasks}-${args.seed}-${args['budget-s']}`;
  for (const name of names) {
    const answers = await answersFor(name);
    for (const seed of seeds) {
      const hit = cached.find((c) => c.label === `${name}|${key}` && c.seed === seed);
      if (hit) {
        // A cell measured before the benchmark sampled gets its sampled figures from its checkpoint, where kept.
        const dir = join(variantDir(out, name, seed), 'final');
        if (!hit.sampled && existsSync(dir)) {
          hit.sampled = await sampled(dir, tasks, 0.7, MAX_TOKENS);
          writeFileSync(resultsPath, cached.map((c) => JSON.stringify(c) + '\n').join(''));
        }
        cells.push(hit);
        continue;
      }
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const trained = await trainVariant({ out, name, seed, budgetS: Number(args['budget-s']), tokensPerS: Number(args['tokens-per-s']), log });
      const cell: Cell = { label: `${name}|${key}`, seed, steps: trained.steps, sft_s: trained.sftS, load: loadavg()[0].toFixed(1), ...(await decisions(trained.dir, answers)), sampled: await sampled(trained.dir, tasks, 0.7, MAX_TOKENS) };
      appendFileSync(resultsPath, JSON.stringify(cell) + '\n');
      cells.push(cell);
      log(`${name} seed ${seed}: ${CHOICES.map((c) => `${c} ${pct(cell.groups[c])}`).join(', ')} (SFT ${trained.sftS.toFixed(0)} s, load ${cell.load})`);
    }
  }
} else {
  const answers = await answersFor(args.answer!);
  for (const dir of dirs) cells.push({ label: dir.replace(/\/$/, '').replace(/\/final$/, '').split('/').slice(-2).join('/'), ...(await decisions(dir, answers)), sampled: await sampled(dir, tasks, 0.7, MAX_TOKENS) });
}

function pct(g: { right: number; all: number } | undefined): string {
  return g && g.all ? `${((100 * g.right) / g.all).toFixed(1)}%` : '';
}

const heading = (c: Cell) => `${c.label.split('|')[0]}${c.seed === undefined ? '' : ` s${c.seed}`}`;
const present = new Set(cells.flatMap((c) => Object.keys(c.groups)));
const byLevel = [...present].filter((g) => g.includes(' @')).sort();
const order = [...CHOICES, 'every answer token', ...[...present].filter((g) => !g.includes(' @') && !CHOICES.includes(g) && g !== 'every answer token').sort(), ...byLevel];
console.log(`\nTeacher-forced accuracy (the student's most likely token is the teacher's), ${tasks.length} IID held-out tasks (seed ${args.seed})` +
  `${args.variants ? `, SFT of ${args['budget-s']} s at ${args['tokens-per-s']} tokens/s (${cells[0]?.steps} steps)` : ''}; "@L": tasks of difficulty L\n`);
console.log(`| decision | tokens | ${cells.map(heading).join(' | ')} |`);
console.log(`|---|---|${cells.map(() => '---').join('|')}|`);
for (const name of order) {
  if (!present.has(name)) continue;
  console.log(`| ${name} | ${cells[0].groups[name]?.all ?? ''} | ${cells.map((c) => pct(c.groups[name])).join(' | ')} |`);
}
const f = (c: Cell, k: 'valid' | 'entities' | 'edges') => (c.sampled ? (k === 'valid' ? `${(100 * c.sampled.valid).toFixed(1)}%` : c.sampled[k].toFixed(2)) : '');
for (const k of ['valid', 'entities', 'edges'] as const) console.log(`| sampled at T=0.7: ${k} | ${tasks.length} tasks | ${cells.map((c) => f(c, k)).join(' | ')} |`);
const skipped = cells.filter((c) => c.skipped);
if (skipped.length) console.log(`\nanswers longer than the context, left out: ${skipped.map((c) => `${heading(c)} ${c.skipped}`).join(', ')}`);
if (args.variants) console.log(`\nSFT seconds and load at the end: ${cells.map((c) => `${heading(c)} ${c.sft_s?.toFixed(0)} s (load ${c.load})`).join(', ')}`);
