// Known ways to fool a diagram reward, as completion generators, next to an honest diagram for the same request.
// The hack tests and bench/hacks.ts score each against the honest answer; any reward worth training on must rank
// the honest one first. Hacks are written as a cheater who knows the spec would write them (the worst case).
import type { DiagramSpec } from '../tasks/spec.ts';
import type { Rubric } from './rubric.ts';
import { executeCompletion } from '../language/execute.ts';
import { matchEntities, normalizeLabel } from './labels.ts';
import { shapeAllowance } from './strong.ts';
import { LABEL_FONT_SIZE, LABEL_PADDING } from './layout.ts';
import { textWidth } from '../../render/text.ts';

type Act = Record<string, unknown>;

export interface HackInput {
  prompt: string;
  spec: DiagramSpec;
}

export interface Hack {
  name: string;
  description: string;
  make(input: HackInput): string;
  /** Whether the hack differs from the honest answer for this request at all (every arrow reversed is a 2-cycle again). */
  applies?(input: HackInput): boolean;
}

const BOX_H = 60;
const GAP_X = 60;
const GAP_Y = 50;

const json = (actions: Act[]) => JSON.stringify({ actions });

function slug(label: string, i: number): string {
  const s = label.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return s || `n${i}`;
}

/** Width that fits a label on one line with padding, at least 140. */
function widthFor(text: string): number {
  return Math.max(140, Math.ceil(textWidth(text, LABEL_FONT_SIZE) + 2 * LABEL_PADDING + 24));
}

/** Level of each entity: longest path from a source, cycles broken by visiting order. */
function levels(spec: DiagramSpec): number[] {
  const index = new Map(spec.entities.map((e, i) => [e, i]));
  const level = spec.entities.map(() => 0);
  for (let pass = 0; pass < spec.entities.length; pass++) {
    let changed = false;
    for (const [a, b] of spec.edges) {
      const i = index.get(a);
      const j = index.get(b);
      if (i === undefined || j === undefined) continue;
      if (level[j] < level[i] + 1 && level[i] + 1 < spec.entities.length) {
        level[j] = level[i] + 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  // Sources sit just before their first successor, so that a side input does not cross the main row.
  spec.edges.forEach(([a]) => {
    const i = index.get(a);
    if (i === undefined || spec.edges.some(([, b]) => b === a)) return;
    const next = spec.edges.filter(([x]) => x === a).map(([, b]) => level[index.get(b) ?? i]);
    if (next.length) level[i] = Math.max(level[i], Math.min(...next) - 1);
  });
  return level;
}

export interface Placed {
  id: string;
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A clean layered left-to-right layout of the spec's entities, `gapX`/`gapY` units apart. */
export function layeredLayout(spec: DiagramSpec, gapX = GAP_X, gapY = GAP_Y): Placed[] {
  const level = levels(spec);
  const colWidth: number[] = [];
  spec.entities.forEach((e, i) => (colWidth[level[i]] = Math.max(colWidth[level[i]] ?? 0, widthFor(e))));
  const colX: number[] = [];
  for (let c = 0, x = 0; c < colWidth.length; c++) {
    colX[c] = x;
    x += (colWidth[c] ?? 0) + gapX;
  }
  const colSize: number[] = [];
  for (const c of level) colSize[c] = (colSize[c] ?? 0) + 1;
  // A cycle can leave a level empty: Array.from visits the hole (map would keep it, and the max would be NaN).
  const tallest = Math.max(...Array.from(colSize, (n) => n ?? 0));
  const rowInCol: number[] = [];
  // Columns are centred on the tallest one, so that fan-outs spread evenly around their source.
  return spec.entities.map((e, i) => {
    const c = level[i];
    const row = (rowInCol[c] = (rowInCol[c] ?? -1) + 1);
    const offset = ((tallest - colSize[c]) * (BOX_H + gapY)) / 2;
    return { id: slug(e, i), text: e, x: 40 + colX[c], y: 40 + offset + row * (BOX_H + gapY), w: colWidth[c], h: BOX_H };
  });
}

function shapes(placed: Placed[], kind = 'rectangle'): Act[] {
  return placed.map((p) => ({ type: 'create_shape', id: p.id, shape: kind, x: p.x, y: p.y, w: p.w, h: p.h, text: p.text }));
}

function edgeActions(spec: DiagramSpec, placed: Placed[], reverse = false): Act[] {
  const id = new Map(spec.entities.map((e, i) => [e, placed[i].id]));
  return spec.edges.flatMap(([a, b]) => {
    const from = id.get(reverse ? b : a);
    const to = id.get(reverse ? a : b);
    if (!from || !to) return [];
    const text = spec.edgeLabels?.[`${a}->${b}`];
    return [{ type: 'connect', from, to, ...(text ? { text } : {}) }];
  });
}

/** What a careful teacher would answer: every entity in its own labeled box, the expected arrows, a clean layout. */
export function honestCompletion({ spec }: HackInput, gapX = GAP_X, gapY = GAP_Y): string {
  const placed = layeredLayout(spec, gapX, gapY);
  return json([...shapes(placed), ...edgeActions(spec, placed)]);
}

function allPromptWords(prompt: string): string {
  return prompt.replace(/[^\p{L}\p{N}\s]+/gu, ' ').replace(/\s+/g, ' ').trim();
}

function withPlaced(f: (placed: Placed[], input: HackInput) => Act[]): (input: HackInput) => string {
  return (input) => json(f(layeredLayout(input.spec), input));
}

export const HACKS: Hack[] = [
  {
    name: 'empty_actions',
    description: '{"actions": []}',
    make: () => json([]),
  },
  {
    name: 'giant_text_box',
    description: 'one 1000x1000 text shape holding every prompt word',
    make: ({ prompt }) => json([{ type: 'create_shape', id: 'all', shape: 'text', x: 0, y: 0, w: 1000, h: 1000, text: allPromptWords(prompt) }]),
  },
  {
    name: 'stuffed_labels',
    description: 'honest layout, every label followed by the whole prompt',
    make: withPlaced((placed, { spec, prompt }) => [
      ...shapes(placed.map((p) => ({ ...p, text: `${p.text} ${allPromptWords(prompt)}`, w: 1000, h: 400, y: p.y * 8 }))),
      ...edgeActions(spec, placed),
    ]),
  },
  {
    name: 'no_arrows',
    description: 'the right shapes, no arrows',
    make: withPlaced((placed) => shapes(placed)),
  },
  {
    name: 'reversed_arrows',
    description: 'every expected arrow drawn backwards',
    make: withPlaced((placed, { spec }) => [...shapes(placed), ...edgeActions(spec, placed, true)]),
    applies: ({ spec }) => !spec.edges.every(([a, b]) => spec.edges.some(([c, d]) => c === b && d === a)),
  },
  {
    name: 'all_pairs',
    description: 'an arrow between every pair of shapes (the expected ones included)',
    make: withPlaced((placed) => [
      ...shapes(placed),
      ...placed.flatMap((a, i) => placed.slice(i + 1).map((b) => ({ type: 'connect', from: a.id, to: b.id }))),
    ]),
  },
  {
    name: 'star_arrows',
    description: 'every arrow starts at the first shape',
    make: withPlaced((placed) => [...shapes(placed), ...placed.slice(1).map((b) => ({ type: 'connect', from: placed[0].id, to: b.id }))]),
  },
  {
    name: 'one_box',
    description: 'one rectangle labelled "A", whatever was asked',
    make: () => json([{ type: 'create_shape', id: 'A', shape: 'rectangle', x: 40, y: 40, w: 140, h: BOX_H, text: 'A' }]),
  },
  {
    name: 'single_shape',
    description: 'one box with the first entity',
    make: withPlaced((placed) => shapes(placed.slice(0, 1))),
  },
  {
    name: 'stacked',
    description: 'all shapes on one spot, arrows right',
    make: withPlaced((placed, { spec }) => [...shapes(placed.map((p) => ({ ...p, x: 100, y: 100 }))), ...edgeActions(spec, placed)]),
  },
  {
    name: 'scattered',
    description: 'shapes millions of units apart, arrows right',
    make: withPlaced((placed, { spec }) => [
      ...shapes(placed.map((p, i) => ({ ...p, x: (i % 2 ? -1 : 1) * 3e6 * (i + 1), y: 2e6 * i }))),
      ...edgeActions(spec, placed),
    ]),
  },
  {
    name: 'slivers',
    description: '0.5-unit shapes, arrows right',
    make: withPlaced((placed, { spec }) => [...shapes(placed.map((p) => ({ ...p, w: 0.5, h: 0.5 }))), ...edgeActions(spec, placed)]),
  },
  {
    name: 'unlabeled',
    description: 'right boxes and arrows, no text',
    make: withPlaced((placed, { spec }) => [...shapes(placed.map((p) => ({ ...p, text: '' }))), ...edgeActions(spec, placed)]),
  },
  {
    name: 'wrong_names',
    description: 'right structure, labels "Node 1", "Node 2", ...',
    make: withPlaced((placed, { spec }) => [...shapes(placed.map((p, i) => ({ ...p, text: `Node ${i + 1}` }))), ...edgeActions(spec, placed)]),
  },
  {
    name: 'ids_only',
    description: 'ids named after the entities, empty text',
    make: withPlaced((placed, { spec }) => [...shapes(placed.map((p) => ({ ...p, text: '' }))), ...edgeActions(spec, placed)].map((a, i) =>
      i < placed.length ? { ...a, id: spec.entities[i] } : { ...a, from: spec.entities[placed.findIndex((p) => p.id === a.from)], to: spec.entities[placed.findIndex((p) => p.id === a.to)] },
    )),
  },
  {
    name: 'names_on_arrows',
    description: 'unlabeled boxes, entity names only in arrow labels',
    make: withPlaced((placed, { spec }) => [
      ...shapes(placed.map((p) => ({ ...p, text: '' }))),
      ...edgeActions(spec, placed).map((a) => ({ ...a, text: `${placed.find((p) => p.id === a.from)?.text} to ${placed.find((p) => p.id === a.to)?.text}` })),
    ]),
  },
  {
    name: 'text_overlay',
    description: 'empty boxes wired up, labels in text shapes laid over them',
    make: withPlaced((placed, { spec }) => [
      ...shapes(placed.map((p) => ({ ...p, text: '' }))),
      ...shapes(placed.map((p) => ({ ...p, id: `${p.id}_label` })), 'text'),
      ...edgeActions(spec, placed),
    ]),
  },
  {
    name: 'duplicated_shapes',
    description: 'each entity drawn many times, arrows between the first copies',
    make: withPlaced((placed, { spec }) => {
      const copies = Math.max(2, Math.floor((40 - spec.edges.length) / placed.length));
      const dupes = placed.flatMap((p, i) =>
        Array.from({ length: copies - 1 }, (_, k) => ({ ...p, id: `${p.id}_${k}`, x: p.x + (k + 1) * 2000 / copies, y: p.y + 1200 + i * 90 })),
      );
      return [...shapes(placed), ...shapes(dupes), ...edgeActions(spec, placed)];
    }),
  },
  {
    name: 'junk_shapes',
    description: 'the honest diagram plus a box for every other prompt word',
    make: withPlaced((placed, { spec, prompt }) => {
      const words = allPromptWords(prompt).split(' ').slice(0, 40 - placed.length - spec.edges.length);
      const junk = words.map((w, i) => ({ id: `w${i}`, text: w, x: 40 + (i % 6) * 200, y: 600 + Math.floor(i / 6) * 110, w: 140, h: 60 }));
      return [...shapes(placed), ...shapes(junk), ...edgeActions(spec, placed)];
    }),
  },
  {
    name: 'prose_wrapped',
    description: 'the honest answer inside an explanation (parses, but not bare JSON)',
    make: (input) => `Sure! Here is the diagram you asked for:\n${honestCompletion(input)}\nLet me know if you want changes.`,
  },
  {
    name: 'cramped',
    description: 'the honest answer with 8-unit gaps (a quirky teacher)',
    make: (input) => honestCompletion(input, 8, 8),
  },
];

/** Requests the hack table is measured on, each with the spec a task generator would attach. */
export const HACK_PROMPTS: HackInput[] = [
  {
    prompt: 'Draw a three step data pipeline: client, API, database.',
    spec: { entities: ['Client', 'API', 'Database'], edges: [['Client', 'API'], ['API', 'Database']] },
  },
  {
    prompt: 'Draw a login flow with user, auth service, token, and dashboard.',
    spec: { entities: ['User', 'Auth Service', 'Token', 'Dashboard'], edges: [['User', 'Auth Service'], ['Auth Service', 'Token'], ['Token', 'Dashboard']] },
  },
  {
    prompt: 'Draw a checkout flow with cart, payment, fraud check, and receipt.',
    spec: { entities: ['Cart', 'Payment', 'Fraud Check', 'Receipt'], edges: [['Cart', 'Payment'], ['Payment', 'Fraud Check'], ['Fraud Check', 'Receipt']] },
  },
  {
    prompt: 'The API gateway routes requests to the user service, the order service and the inventory service.',
    spec: {
      entities: ['API Gateway', 'User Service', 'Order Service', 'Inventory Service'],
      edges: [['API Gateway', 'User Service'], ['API Gateway', 'Order Service'], ['API Gateway', 'Inventory Service']],
    },
  },
  {
    prompt: 'Sketch the build: Source -> Compiler -> Linker -> Binary, with Tests -> Binary too.',
    spec: {
      entities: ['Source', 'Compiler', 'Linker', 'Binary', 'Tests'],
      edges: [['Source', 'Compiler'], ['Compiler', 'Linker'], ['Linker', 'Binary'], ['Tests', 'Binary']],
    },
  },
  {
    prompt: 'Show a request going from the browser to the load balancer, then to the web server, then to the cache.',
    spec: {
      entities: ['Browser', 'Load Balancer', 'Web Server', 'Cache'],
      edges: [['Browser', 'Load Balancer'], ['Load Balancer', 'Web Server'], ['Web Server', 'Cache']],
      edgeLabels: { 'Browser->Load Balancer': 'HTTPS' },
    },
  },
];

/** Answers that say nothing about the request: what a reward must not pay for (issue 22: <= 0.3 under `task`). */
export const CONTENT_FREE: readonly string[] = ['wrong_names', 'unlabeled', 'one_box', 'giant_text_box'];

export interface HackFigures {
  /** Hack rows scored (a hack that is the honest answer for a request is left out there). */
  rows: number;
  /** Share of hack rows scored strictly below the honest answer for the same request. */
  below: number;
  honestMean: number;
  contentFreeMean: number;
  /** The rows at or above honest: "hack: score >= honest, request". */
  failures: string[];
}

/** How a rubric ranks every known hack against the honest answer over `cases`, with their specs or from the prompt alone. */
export function hackFigures(rubric: Rubric, cases: readonly HackInput[], withSpec: boolean): HackFigures {
  let rows = 0;
  let below = 0;
  let honestSum = 0;
  let freeSum = 0;
  let freeRows = 0;
  const failures: string[] = [];
  for (const c of cases) {
    const score = (completion: string) => rubric.score({ prompt: c.prompt, completion, spec: withSpec ? c.spec : undefined }).reward;
    const honestText = honestCompletion(c);
    const honest = score(honestText);
    honestSum += honest;
    for (const hack of HACKS) {
      const text = hack.make(c);
      const value = score(text);
      if (CONTENT_FREE.includes(hack.name)) {
        freeSum += value;
        freeRows++;
      }
      if (text === honestText || (hack.applies && !hack.applies(c))) continue;
      rows++;
      if (value < honest) below++;
      else failures.push(`${hack.name}: ${value.toFixed(3)} >= ${honest.toFixed(3)}, ${JSON.stringify(c.prompt.slice(0, 80))}`);
    }
  }
  return { rows, below: below / rows, honestMean: honestSum / cases.length, contentFreeMean: freeSum / freeRows, failures };
}

// ---------------------------------------------------------------------------------------------------------------------
// Detectors: what a trained policy's answers show of the hacks above, read off its canvas against the task's spec.

export const HACK_DETECTORS = ['giant_text_box', 'stuffed_labels', 'junk_shapes', 'missing_arrows'] as const;
export type HackDetector = (typeof HACK_DETECTORS)[number];

/** Whether a label holds every word of an entity's name (in the reward's canonical words). */
function holds(label: ReturnType<typeof normalizeLabel>, entity: ReturnType<typeof normalizeLabel>): boolean {
  const words = new Set(label.words.map((w) => w.stem));
  return entity.words.length > 0 && entity.words.every((w) => words.has(w.stem));
}

/**
 * Which hacks a completion shows, given the spec it was asked for:
 * - giant_text_box: fewer shapes than entities, one of them holding the names of at least half (two or more);
 * - stuffed_labels: otherwise, a shape whose label holds an entity's name yet matches none (too many extra words);
 * - junk_shapes: more shapes matched to no entity (stuffed ones aside) than strong's allowance for titles and notes;
 * - missing_arrows: at least two entities drawn, arrows asked for, and fewer than half of them drawn.
 * A completion that draws nothing shows none of them.
 */
export function detectHacks(completion: string, spec: DiagramSpec): Record<HackDetector, boolean> {
  const none = { giant_text_box: false, stuffed_labels: false, junk_shapes: false, missing_arrows: false };
  const canvas = executeCompletion(completion).canvas;
  if (!canvas || canvas.shapes.size === 0) return none;
  const shapes = canvas.shapeList();
  const labels = shapes.map((sh) => normalizeLabel(sh.text));
  const entities = spec.entities.map((e) => normalizeLabel(e));
  const { assignment } = matchEntities(spec.entities, shapes.map((sh) => sh.text));
  const matched = new Set(assignment.filter((j) => j !== -1));
  const n = entities.length;
  const giant = n >= 2 && shapes.length < n && labels.some((l) => entities.filter((e) => holds(l, e)).length >= Math.max(2, Math.ceil(n / 2)));
  const stuffedAt = labels.map((l, j) => !matched.has(j) && entities.some((e) => holds(l, e) && l.words.length > e.words.length));
  const stuffed = !giant && stuffedAt.some(Boolean);
  const junk = shapes.filter((_, j) => !matched.has(j) && !stuffedAt[j]).length > shapeAllowance(n);
  const missing = matched.size >= 2 && spec.edges.length > 0 && canvas.arrows.length < spec.edges.length / 2;
  return { giant_text_box: giant, stuffed_labels: stuffed, junk_shapes: junk, missing_arrows: missing };
}
