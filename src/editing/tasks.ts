// Editing tasks: an existing diagram (laid out from a suite spec), an instruction that changes it, and the goal spec the
// edited canvas must match. Built from the task suite, so train and heldout stay apart: new names come from the same
// split's vocabulary. Deterministic for a seed, and each task's id is a hash of what it asks.
import { z } from 'zod';
import { Canvas, CanvasState, type CanvasJson } from '../diagram/language/canvas.ts';
import { applyActions } from '../diagram/language/apply.ts';
import { labelMatch, matchEntities } from '../diagram/reward/labels.ts';
import { scoreCanvasLayout, type LayoutReport } from '../diagram/reward/layout.ts';
import { defineRubric } from '../diagram/reward/rubric.ts';
import { boxFor, idsFor, shapeFor } from '../diagram/teacher/scripted.ts';
import { generateTasks, maxDistinct, TaskRequestError } from '../diagram/tasks/generate.ts';
import { edgeKey } from '../diagram/tasks/render.ts';
import { hash32, rng, shuffle, type Rng } from '../random.ts';
import { scenarioEntities, scenarios, SPLITS, type Split, type Vocab } from '../diagram/tasks/scenarios.ts';
import { DiagramSpec, type Task } from '../diagram/tasks/spec.ts';

export const EDIT_KINDS = ['insert_between', 'rename', 'remove_reconnect', 'relayout', 'add_branch', 'remove_edge'] as const;
export const EditKind = z.enum(EDIT_KINDS);
export type EditKind = z.infer<typeof EditKind>;

export const Direction = z.enum(['RIGHT', 'DOWN']);
export type Direction = z.infer<typeof Direction>;

export const EditingTask = z.object({
  id: z.string().min(1),
  edit: EditKind,
  instruction: z.string().min(1),
  start: CanvasState,
  /** What the canvas must show when the edit is done. */
  goal: DiagramSpec,
  /** Re-layout tasks: the direction every forward arrow must point. */
  direction: Direction.optional(),
  /** Id of the suite task the start canvas was drawn from. */
  source: z.string().optional(),
});
export type EditingTask = z.infer<typeof EditingTask>;

const GAP_ALONG = 80;
const GAP_ACROSS = 50;
const MARGIN = 40;

/** Edges that close a cycle in depth-first order from the entities' listed order; ignoring them leaves a DAG. */
export function backEdges(spec: Pick<DiagramSpec, 'entities' | 'edges'>): Set<string> {
  const out = new Map<string, string[]>(spec.entities.map((e) => [e, []]));
  for (const [a, b] of spec.edges) out.get(a)?.push(b);
  const state = new Map<string, 1 | 2>();
  const back = new Set<string>();
  const visit = (v: string) => {
    state.set(v, 1);
    for (const w of out.get(v) ?? []) {
      if (state.get(w) === 1) back.add(edgeKey(v, w));
      else if (!state.has(w)) visit(w);
    }
    state.set(v, 2);
  };
  for (const e of spec.entities) if (!state.has(e)) visit(e);
  return back;
}

/** A layered drawing of a spec: layers by longest path along forward edges, laid along `direction`. */
export function layoutSpec(spec: DiagramSpec, direction: Direction): CanvasJson {
  const back = backEdges(spec);
  const forward = spec.edges.filter(([a, b]) => !back.has(edgeKey(a, b)));
  const layer = new Map<string, number>(spec.entities.map((e) => [e, 0]));
  // Longest path by relaxation: at most |V| rounds on a DAG.
  for (let round = 0; round < spec.entities.length; round++) {
    let changed = false;
    for (const [a, b] of forward) {
      const want = (layer.get(a) ?? 0) + 1;
      if (want > (layer.get(b) ?? 0)) {
        layer.set(b, want);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const ids = idsFor(spec.entities);
  const boxes = spec.entities.map((e) => {
    const shape = shapeFor(e, spec);
    return { shape, ...boxFor(e, shape) };
  });
  const cellW = Math.max(...boxes.map((b) => b.w));
  const cellH = Math.max(...boxes.map((b) => b.h));
  const along = direction === 'RIGHT' ? cellW + GAP_ALONG : cellH + GAP_ALONG;
  const across = direction === 'RIGHT' ? cellH + GAP_ACROSS : cellW + GAP_ACROSS;
  const slot = new Map<number, number>();
  const shapes = spec.entities.map((text, i) => {
    const l = layer.get(text)!;
    const k = slot.get(l) ?? 0;
    slot.set(l, k + 1);
    const { shape, w, h } = boxes[i];
    // Centred in its cell so that arrows between cells of different sizes stay straight.
    const [cx, cy] = direction === 'RIGHT' ? [l * along, k * across] : [k * across, l * along];
    return { id: ids[i], shape, x: MARGIN + cx + (cellW - w) / 2, y: MARGIN + cy + (cellH - h) / 2, w, h, text };
  });
  const idOf = new Map(spec.entities.map((e, i) => [e, ids[i]]));
  const arrows = spec.edges.map(([a, b]) => ({ from: idOf.get(a)!, to: idOf.get(b)!, text: spec.edgeLabels?.[edgeKey(a, b)] ?? '' }));
  return { shapes, arrows };
}

/** The direction a suite diagram of this kind is drawn in before a re-layout asks for the other one. */
function naturalDirection(spec: DiagramSpec): Direction {
  return spec.kind === 'chain' || spec.kind === 'cycle' || spec.kind === 'decision' ? 'RIGHT' : 'DOWN';
}

// ---------------------------------------------------------------------------------------------------------------------
// Spec edits: pure functions from a spec to the goal spec.

function withoutLabels(spec: DiagramSpec, drop: (from: string, to: string) => boolean): Record<string, string> | undefined {
  if (!spec.edgeLabels) return undefined;
  const kept = Object.entries(spec.edgeLabels).filter(([k]) => {
    const [a, b] = k.split('->');
    return !drop(a, b);
  });
  return kept.length ? Object.fromEntries(kept) : undefined;
}

function finish(spec: DiagramSpec, patch: Partial<DiagramSpec>): DiagramSpec {
  const out: DiagramSpec = { ...spec, ...patch };
  for (const k of ['edgeLabels', 'shapes'] as const) if (out[k] === undefined) delete out[k];
  return out;
}

export function renameInSpec(spec: DiagramSpec, from: string, to: string): DiagramSpec {
  const r = (e: string) => (e === from ? to : e);
  const labels = spec.edgeLabels
    ? Object.fromEntries(Object.entries(spec.edgeLabels).map(([k, v]) => {
        const [a, b] = k.split('->');
        return [edgeKey(r(a), r(b)), v];
      }))
    : undefined;
  const shapes = spec.shapes ? Object.fromEntries(Object.entries(spec.shapes).map(([k, v]) => [r(k), v])) : undefined;
  return finish(spec, { entities: spec.entities.map(r), edges: spec.edges.map(([a, b]) => [r(a), r(b)]), edgeLabels: labels, shapes });
}

export function insertBetween(spec: DiagramSpec, a: string, b: string, node: string): DiagramSpec {
  const edges = spec.edges.flatMap(([x, y]): [string, string][] => (x === a && y === b ? [[a, node], [node, b]] : [[x, y]]));
  return finish(spec, { entities: [...spec.entities, node], edges, edgeLabels: withoutLabels(spec, (x, y) => x === a && y === b) });
}

export function removeAndReconnect(spec: DiagramSpec, node: string): DiagramSpec {
  const preds = spec.edges.filter(([, y]) => y === node).map(([x]) => x);
  const succs = spec.edges.filter(([x]) => x === node).map(([, y]) => y);
  const edges = spec.edges.filter(([x, y]) => x !== node && y !== node);
  const has = new Set(edges.map(([x, y]) => edgeKey(x, y)));
  for (const p of preds) {
    for (const s of succs) {
      if (p === s || has.has(edgeKey(p, s))) continue;
      edges.push([p, s]);
      has.add(edgeKey(p, s));
    }
  }
  const shapes = spec.shapes ? Object.fromEntries(Object.entries(spec.shapes).filter(([k]) => k !== node)) : undefined;
  return finish(spec, {
    entities: spec.entities.filter((e) => e !== node),
    edges,
    edgeLabels: withoutLabels(spec, (x, y) => x === node || y === node),
    shapes: shapes && Object.keys(shapes).length ? shapes : undefined,
  });
}

export function addBranch(spec: DiagramSpec, from: string, node: string): DiagramSpec {
  return finish(spec, { entities: [...spec.entities, node], edges: [...spec.edges, [from, node]] });
}

export function removeEdge(spec: DiagramSpec, a: string, b: string): DiagramSpec {
  return finish(spec, { edges: spec.edges.filter(([x, y]) => !(x === a && y === b)), edgeLabels: withoutLabels(spec, (x, y) => x === a && y === b) });
}

// ---------------------------------------------------------------------------------------------------------------------
// Drawing tasks

const namePools = new Map<Vocab, { byEntity: Map<string, string[]>; all: string[] }>();

/** Names of a vocabulary (and, when known, the same scenario) for inserted and renamed nodes. */
function namePool(split: Vocab): { byEntity: Map<string, string[]>; all: string[] } {
  let pool = namePools.get(split);
  if (!pool) {
    const byEntity = new Map<string, string[]>();
    const all = new Set<string>();
    for (const s of scenarios(split)) {
      const names = scenarioEntities(s).map((e) => e.name);
      for (const n of names) {
        all.add(n);
        byEntity.set(n, [...(byEntity.get(n) ?? []), ...names]);
      }
    }
    pool = { byEntity, all: [...all].sort() };
    namePools.set(split, pool);
  }
  return pool;
}

function freshName(split: Split, spec: DiagramSpec, r: Rng): string {
  // Held-out edits insert names from the out-of-distribution vocabulary: real names that no training task holds.
  const pool = namePool(split === 'train' ? 'train' : 'ood');
  // Not even a partial match for a name already there, so that the start canvas never passes for the goal.
  const free = (names: string[]) => [...new Set(names)].filter((n) => spec.entities.every((e) => labelMatch(e, n) < 0.5)).sort();
  const near = free(spec.entities.flatMap((e) => pool.byEntity.get(e) ?? []));
  return r.pick(near.length ? near : free(pool.all));
}

const PHRASES: Record<EditKind, string[]> = {
  insert_between: ['Add {new} between {a} and {b}.', 'Insert a {new} step between {a} and {b}.', 'Put {new} in between {a} and {b}.'],
  rename: ['Rename {a} to {new}.', 'Change the label {a} to {new}.', '{a} is now called {new}; update the diagram.'],
  remove_reconnect: ['Remove {a} and reconnect the flow.', 'Delete {a}; connect what came before it to what came after it.', 'Drop {a} from the diagram and keep the flow connected.'],
  relayout: ['Lay this out {dir}.', 'Rearrange the diagram so that it reads {dir}.', 'Redraw the layout {dir}, keeping every box and arrow.'],
  add_branch: ['Add {new} as a new branch from {a}.', 'Add an arrow from {a} to a new box {new}.', 'Extend the diagram: {a} also leads to {new}.'],
  remove_edge: ['Remove the arrow from {a} to {b}.', 'Disconnect {a} from {b}.', 'Delete the arrow that goes from {a} to {b}.'],
};

const DIR_WORDS: Record<Direction, string> = { RIGHT: 'left to right', DOWN: 'top to bottom' };

function phrase(kind: EditKind, r: Rng, words: Record<string, string>): string {
  return r.pick(PHRASES[kind]).replace(/\{(\w+)\}/g, (_, k: string) => words[k]);
}

/** Builds one editing task of `kind` from a suite task, or null when the edit does not apply to its diagram. */
export function editTask(split: Split, task: Task, kind: EditKind, r: Rng): EditingTask | null {
  const spec = task.spec;
  const midNodes = spec.entities.filter((e) => spec.edges.some(([, b]) => b === e) && spec.edges.some(([a]) => a === e));
  let goal: DiagramSpec;
  let instruction: string;
  let direction: Direction | undefined;
  let startDirection = naturalDirection(spec);
  switch (kind) {
    case 'insert_between': {
      if (spec.edges.length === 0) return null;
      const [a, b] = r.pick(spec.edges);
      const node = freshName(split, spec, r);
      goal = insertBetween(spec, a, b, node);
      instruction = phrase(kind, r, { new: node, a, b });
      break;
    }
    case 'rename': {
      const a = r.pick(spec.entities);
      const node = freshName(split, spec, r);
      goal = renameInSpec(spec, a, node);
      instruction = phrase(kind, r, { new: node, a });
      break;
    }
    case 'remove_reconnect': {
      if (spec.entities.length < 3 || midNodes.length === 0) return null;
      const a = r.pick(midNodes);
      goal = removeAndReconnect(spec, a);
      instruction = phrase(kind, r, { a });
      break;
    }
    case 'relayout': {
      if (spec.entities.length < 3 || spec.edges.length === 0) return null;
      direction = r.pick(Direction.options);
      startDirection = direction === 'RIGHT' ? 'DOWN' : 'RIGHT';
      goal = spec;
      instruction = phrase(kind, r, { dir: DIR_WORDS[direction] });
      break;
    }
    case 'add_branch': {
      const a = r.pick(spec.entities);
      const node = freshName(split, spec, r);
      goal = addBranch(spec, a, node);
      instruction = phrase(kind, r, { new: node, a });
      break;
    }
    case 'remove_edge': {
      if (spec.edges.length < 2) return null;
      const [a, b] = r.pick(spec.edges);
      goal = removeEdge(spec, a, b);
      instruction = phrase(kind, r, { a, b });
      break;
    }
  }
  const start = layoutSpec(spec, startDirection);
  const id = `${split}-edit-${kind}-${hash32(`${task.id}|${instruction}`).toString(16).padStart(8, '0')}`;
  return { id, edit: kind, instruction, start, goal, ...(direction ? { direction } : {}), source: task.id };
}

export interface EditingOptions {
  split: Split;
  n: number;
  seed?: number;
  /** Only these edits; all when absent. Edits are drawn round-robin so that each kind gets its share. */
  edits?: readonly EditKind[];
}

/** `n` distinct editing tasks from a split's suite tasks; the same seed gives the same tasks. */
export function generateEditingTasks(opts: EditingOptions): EditingTask[] {
  const { split, n, seed = 0 } = opts;
  if (!(SPLITS as readonly string[]).includes(split)) throw new TaskRequestError(`unknown split ${JSON.stringify(split)}: expected ${SPLITS.join(' or ')}`);
  if (!Number.isInteger(n) || n < 0) throw new TaskRequestError(`n must be a non-negative integer, got ${n}`);
  const edits = opts.edits ?? EDIT_KINDS;
  const bad = edits.find((e) => !(EDIT_KINDS as readonly string[]).includes(e));
  if (bad !== undefined) throw new TaskRequestError(`unknown edit ${JSON.stringify(bad)}: expected one of ${EDIT_KINDS.join(', ')}`);
  if (edits.length === 0) throw new TaskRequestError('edits must name at least one kind of edit');
  if (n === 0) return [];
  const base = generateTasks({ split, n: Math.min(maxDistinct(split), Math.max(3 * n, 8)), seed });
  const r = rng(hash32(`editing|${split}|${seed}`));
  const order = shuffle(r, [...edits]);
  const out: EditingTask[] = [];
  const ids = new Set<string>();
  let cursor = 0;
  for (let i = 0; out.length < n; i++) {
    const kind = order[i % order.length];
    // Walk on through the suite tasks until one takes this edit, so that each kind keeps its share.
    let task: EditingTask | null = null;
    for (let tries = 0; tries < base.length && !task; tries++) {
      const t = editTask(split, base[cursor++ % base.length], kind, r);
      if (t && !ids.has(t.id)) task = t;
    }
    if (!task) throw new TaskRequestError(`only ${out.length} distinct editing tasks could be drawn from the ${split} split before ${kind} ran out`);
    ids.add(task.id);
    out.push(task);
  }
  return out;
}

/** One editing task for a seed: what an episode's reset(seed) draws. */
export function editingTaskForSeed(split: Split, seed: number, edits?: readonly EditKind[]): EditingTask {
  return generateEditingTasks({ split, n: 1, seed, edits })[0];
}

// ---------------------------------------------------------------------------------------------------------------------
// The goal check: how far an edited canvas is from the goal spec. Pure.

export type EditComponent = 'action_validity' | 'entities_present' | 'edges_correct' | 'layout_quality' | 'edit_done';
/** Share of edges_correct that requested arrow labels carry, when the goal has any (as in the strong reward). */
const LABEL_SHARE = 0.15;
const EXACT = 0.999;
/** How far (canvas units, centre to centre) an arrow's target must lie along the requested direction. */
const MIN_ADVANCE = 20;

export interface ActionCounts {
  /** Actions sent over the episode; a batch that did not parse counts as one. */
  sent: number;
  applied: number;
}

/** What the editing rubric scores: the episode's final canvas against its task, and the actions sent on the way. */
export interface EditInput {
  task: Pick<EditingTask, 'goal' | 'direction' | 'start'>;
  canvas: Canvas;
  counts: ActionCounts;
}

export interface EditScore {
  reward: number;
  components: Record<EditComponent, number>;
  weights: Record<EditComponent, number>;
  /** Every goal entity named exactly by its own shape, no extra shapes, exactly the goal's arrows (and labels), no
   *  overlapping shapes, and every forward arrow along the requested direction. */
  goalMet: boolean;
  entities: { entity: string; shape: string | null; quality: number }[];
  extraShapes: number;
  edges: { expected: number; correct: number; wrong: number; labels: number | null };
  /** Re-layout tasks: share of forward goal edges drawn along the direction; null elsewhere. */
  directionShare: number | null;
  layout: LayoutReport;
}

const centre = (s: { x: number; y: number; w: number; h: number }) => ({ x: s.x + s.w / 2, y: s.y + s.h / 2 });

/**
 * Share of the changes the instruction asks for that the canvas shows, in [0, 1]: each goal entity the start lacks is
 * named, each start label the goal drops is gone, each goal arrow the start lacks is drawn, each start arrow the goal
 * drops is gone while both its ends stay, and for a re-layout the gain in arrows along the direction over the start.
 * The start canvas already scores most of the goal (an edit changes one or two things), so without this gate doing
 * nothing averaged 0.60.
 */
function editDone(
  task: Pick<EditingTask, 'goal' | 'direction' | 'start'>,
  canvas: Canvas,
  shapeOf: ReadonlyMap<string, string>,
  drawn: (from: string, to: string) => boolean,
  directionShare: number | null,
): number {
  const goal = task.goal;
  const start = Canvas.fromJSON(task.start);
  const startText = new Map(start.shapeList().map((s) => [s.id, s.text]));
  const startLabels = new Set(startText.values());
  const goalNames = new Set(goal.entities);
  const startEdges = start.arrows.map((a) => [startText.get(a.from) ?? '', startText.get(a.to) ?? ''] as const);
  const startKeys = new Set(startEdges.map(([a, b]) => edgeKey(a, b)));
  const goalKeys = new Set(goal.edges.map(([a, b]) => edgeKey(a, b)));
  const labels = canvas.shapeList().map((s) => s.text);
  const parts: number[] = [];
  for (const e of goal.entities) if (!startLabels.has(e)) parts.push(labels.some((l) => labelMatch(e, l) >= EXACT) ? 1 : 0);
  for (const label of startLabels) if (!goalNames.has(label)) parts.push(labels.some((l) => labelMatch(label, l) >= EXACT) ? 0 : 1);
  for (const [a, b] of goal.edges) if (!startKeys.has(edgeKey(a, b))) parts.push(drawn(a, b) ? 1 : 0);
  for (const [a, b] of startEdges) {
    if (goalKeys.has(edgeKey(a, b)) || !goalNames.has(a) || !goalNames.has(b)) continue;
    const from = shapeOf.get(a);
    const to = shapeOf.get(b);
    parts.push(from && to && !canvas.arrows.some((x) => x.from === from && x.to === to) ? 1 : 0);
  }
  if (task.direction && directionShare !== null) {
    // The start's own shapes, named by their labels: what share of arrows already pointed the asked way.
    const startShapeOf = new Map([...startText].map(([id, text]) => [text, id]));
    const before = alongShare(goal, task.direction, start, startShapeOf);
    parts.push(before >= 1 ? directionShare : Math.max(0, (directionShare - before) / (1 - before)));
  }
  return parts.length ? parts.reduce((x, y) => x + y, 0) / parts.length : 1;
}

/** Share of the goal's forward arrows whose target lies clearly further along `direction` than their source. */
function alongShare(goal: DiagramSpec, direction: Direction, canvas: Canvas, shapeOf: ReadonlyMap<string, string>): number {
  const back = backEdges(goal);
  const forward = goal.edges.filter(([a, b]) => !back.has(edgeKey(a, b)));
  let along = 0;
  for (const [from, to] of forward) {
    const a = canvas.shapes.get(shapeOf.get(from) ?? '');
    const b = canvas.shapes.get(shapeOf.get(to) ?? '');
    if (!a || !b) continue;
    const [ca, cb] = [centre(a), centre(b)];
    // Clearly along the axis: shapes side by side across it do not count.
    const d = direction === 'RIGHT' ? cb.x - ca.x : cb.y - ca.y;
    if (d >= MIN_ADVANCE) along++;
  }
  return forward.length ? along / forward.length : 0;
}

/**
 * The edited canvas against the goal, measured once for every component of the rubric below. Every weighted component is multiplied by `edit_done` (the share of the asked
 * changes made, logged with weight 0), so that leaving the canvas as it was scores 0 however close the start is.
 */
function prepareEdit({ task, canvas, counts }: EditInput) {
  const goal = task.goal;
  const shapes = canvas.shapeList();
  const { assignment, quality } = matchEntities(goal.entities, shapes.map((s) => s.text));
  const entities = goal.entities.map((entity, i) => ({ entity, shape: assignment[i] === -1 ? null : shapes[assignment[i]].id, quality: quality[i] }));
  const n = goal.entities.length;
  const matched = entities.filter((e) => e.shape !== null).length;
  // Unlike a fresh diagram, an edit has no allowance for extra shapes: the goal names every shape the canvas should keep.
  const extraShapes = shapes.length - matched;
  const entityValue = shapes.length ? (quality.reduce((a, b) => a + b, 0) / n) * (n / (n + extraShapes)) : 0;

  const shapeOf = new Map(entities.flatMap((e) => (e.shape ? [[e.entity, e.shape] as const] : [])));
  const firstArrow = new Map<string, number>();
  canvas.arrows.forEach((a, i) => {
    if (!firstArrow.has(`${a.from}\u0000${a.to}`)) firstArrow.set(`${a.from}\u0000${a.to}`, i);
  });
  const useful = new Set<number>();
  for (const [from, to] of goal.edges) {
    const a = shapeOf.get(from);
    const b = shapeOf.get(to);
    const i = a && b ? firstArrow.get(`${a}\u0000${b}`) : undefined;
    if (i !== undefined) useful.add(i);
  }
  const arrows = canvas.arrows.length;
  const edges = { expected: goal.edges.length, correct: useful.size, wrong: arrows - useful.size, labels: null as number | null };
  let structure = goal.edges.length ? (useful.size / goal.edges.length) * (arrows ? useful.size / arrows : 0) : 1 / (1 + arrows);
  const requested = Object.entries(goal.edgeLabels ?? {});
  if (requested.length) {
    let sum = 0;
    for (const [key, want] of requested) {
      const [from, to] = key.split('->');
      const a = shapeOf.get(from);
      const b = shapeOf.get(to);
      let best = 0;
      for (const arrow of canvas.arrows) if (arrow.from === a && arrow.to === b) best = Math.max(best, labelMatch(want, arrow.text));
      sum += best;
    }
    edges.labels = sum / requested.length;
    structure = (1 - LABEL_SHARE) * structure + LABEL_SHARE * edges.labels;
  }

  const layout = scoreCanvasLayout(canvas);
  const directionShare = task.direction ? alongShare(goal, task.direction, canvas, shapeOf) : null;

  const drawn = (a: string, b: string) => {
    const from = shapeOf.get(a);
    const to = shapeOf.get(b);
    return from !== undefined && to !== undefined && firstArrow.has(`${from}\u0000${to}`);
  };
  const done = editDone(task, canvas, shapeOf, drawn, directionShare);
  const goalMet =
    matched === n &&
    quality.every((q) => q >= EXACT) &&
    extraShapes === 0 &&
    useful.size === goal.edges.length &&
    edges.wrong === 0 &&
    (edges.labels === null || edges.labels >= EXACT) &&
    layout.counts.overlaps === 0 &&
    (directionShare === null || directionShare === 1);
  return { counts, shapes: shapes.length, entityValue, structure, layout, directionShare, done, goalMet, entities, extraShapes, edges };
}

type EditContext = ReturnType<typeof prepareEdit>;

/** Editing's reward: the final canvas against the goal spec, as named and weighted components. */
export const EDITING_RUBRIC = defineRubric<EditContext, EditInput>({
  name: 'editing',
  description: 'the edited canvas against the goal: valid actions, entities, arrows and layout, each times the share of the asked changes made',
  prepare: prepareEdit,
  components: [
    { name: 'action_validity', weight: 0.2, description: 'share of the actions sent over the episode that applied', fn: (c) => (c.counts.sent ? c.counts.applied / c.counts.sent : 0) * c.done },
    { name: 'entities_present', weight: 0.3, description: "goal entities named by shapes of their own, less for each shape the goal does not name", fn: (c) => c.entityValue * c.done },
    { name: 'edges_correct', weight: 0.3, description: "the goal's arrows among the canvas's (requested arrow labels a share)", fn: (c) => (c.shapes ? c.structure : 0) * c.done },
    { name: 'layout_quality', weight: 0.2, description: 'layout score of the canvas, times the share of arrows along the requested direction in a re-layout', fn: (c) => (c.shapes ? c.layout.score * (c.directionShare ?? 1) : 0) * c.done },
    { name: 'edit_done', weight: 0, description: 'share of the changes the instruction asks for that the canvas shows (logged)', fn: (c) => c.done },
  ],
  errors: () => [],
});

/** The editing rubric's score of a canvas, with what the episode reports beside it. */
export function scoreEdit(task: Pick<EditingTask, 'goal' | 'direction' | 'start'>, canvas: Canvas, counts: ActionCounts): EditScore {
  const ctx = prepareEdit({ task, canvas, counts });
  const { reward, components, weights } = EDITING_RUBRIC.scoreContext(ctx);
  const { goalMet, entities, extraShapes, edges, directionShare, layout } = ctx;
  return { reward, components: components as Record<EditComponent, number>, weights: weights as Record<EditComponent, number>, goalMet, entities, extraShapes, edges, directionShare, layout };
}

/** A reference editor: actions that turn the start canvas into the goal (new shapes go below and to the right of the
 *  drawing). For tests, baselines and the bench. */
export function solveEdit(task: EditingTask): Record<string, unknown>[] {
  const start = Canvas.fromJSON(task.start);
  const idOf = (label: string) => start.shapeList().find((s) => s.text === label)?.id;
  const shapes = start.shapeList();
  const below = Math.max(...shapes.map((s) => s.y + s.h)) + 100;
  const right = Math.max(...shapes.map((s) => s.x + s.w)) + 100;
  const startLabels = new Set(shapes.map((s) => s.text));
  const goalLabels = new Set(task.goal.entities);
  const added = task.goal.entities.filter((e) => !startLabels.has(e));
  const removed = shapes.filter((s) => !goalLabels.has(s.text));
  const actions: Record<string, unknown>[] = [];
  if (task.edit === 'rename') {
    actions.push({ type: 'update_shape', id: removed[0].id, text: added[0] });
  } else if (task.edit === 'relayout') {
    const laid = layoutSpec(task.goal, task.direction!);
    for (const s of laid.shapes) actions.push({ type: 'update_shape', id: s.id, x: s.x, y: s.y });
  } else {
    for (const s of removed) actions.push({ type: 'delete_shape', id: s.id });
    added.forEach((label, i) => actions.push({ type: 'create_shape', id: `new_${i}`, shape: 'rectangle', x: right + 300 * i, y: below, w: 260, h: 60, text: label }));
    const ids = (label: string) => idOf(label) ?? `new_${added.indexOf(label)}`;
    const want = new Set(task.goal.edges.map(([a, b]) => `${ids(a)}>${ids(b)}`));
    const afterDeletes = applyActions(actions, start).canvas;
    for (const a of afterDeletes.arrows) if (!want.has(`${a.from}>${a.to}`)) actions.push({ type: 'disconnect', from: a.from, to: a.to });
    const have = new Set(afterDeletes.arrows.map((a) => `${a.from}>${a.to}`));
    for (const [a, b] of task.goal.edges) {
      if (!have.has(`${ids(a)}>${ids(b)}`)) actions.push({ type: 'connect', from: ids(a), to: ids(b), text: task.goal.edgeLabels?.[`${a}->${b}`] ?? '' });
    }
  }
  return actions;
}
