// The scripted teacher: the offline default policy. It reads the task's spec (looked up by prompt, or extracted from
// a free-form prompt), sizes each shape to its label, lays the graph out with ELK and writes compact JSON in the
// seed's action language. Optional quirks make it behave like an imperfect teacher model.
import { DEFAULT_MAX_ACTIONS, type CreateShape, type Connect, type ShapeKind } from '../language/actions.ts';
import { LINE_HEIGHT, textWidth } from '../../render/text.ts';
import { overLimit, promptRefusal } from '../tasks/limits.ts';
import type { DiagramKind, DiagramSpec } from '../tasks/spec.ts';
import { mentionRegExp } from '../tasks/mentions.ts';
import type { ChatMessage, Completion, Policy, SamplingOptions } from '../../policy/policy.ts';
import { userPrompt } from '../../model/chat.ts';
import { scoreLayoutGeometry } from '../reward/layout.ts';
import { circularLayout, layeredLayout, NODE_PLACEMENTS, nudge, type Direction, type EdgeRef, type NodeBox, type PlacedNode } from './layout.ts';
import { abbreviateLabel, drawQuirks, wrapInProse, type QuirkName, type QuirkRates } from './quirks.ts';
import { hashSeed, seededRandom } from '../../random.ts';
import { gridPlaces, letterShapes, walkRequest } from './walk.ts';

/** Font size the teacher sizes labels for; generous, so that labels fit at the renderer's size too. */
export const LABEL_FONT_SIZE = 18;
const EDGE_FONT_SIZE = 14;
const PAD_X = 18;
const PAD_Y = 16;
const MIN_W = 110;
const NODE_GAP = 60;
const LAYER_GAP = 90;
const CRAMPED_GAP = 10;
const MARGIN = 40;
/** Coordinates and sizes are written on this grid: a student learns a few dozen number tokens instead of every integer. */
export const GRID = 10;

/** Finds the spec for a prompt; returns undefined when the prompt is not a known task. */
export type SpecLookup = (prompt: string) => DiagramSpec | undefined;

export interface ScriptedOptions {
  /** Known tasks' specs by prompt. */
  specFor?: SpecLookup;
  /** Spec for a prompt the lookup does not know (free-form requests). */
  extract?: (prompt: string) => DiagramSpec;
  quirks?: QuirkRates;
  /** The walked answer (walk.ts): each shape says the request's words up to and through its name, shapes are lettered
   *  in the order drawn and arrows name their target first. */
  walk?: boolean;
}

export interface ScriptedSample {
  text: string;
  quirks: QuirkName[];
}

/** Optional per-entity shape hints a spec may carry (`spec.shapes`), e.g. {"Valid?": "diamond"}. */
function shapeHints(spec: DiagramSpec): Record<string, ShapeKind> {
  const hints = (spec as { shapes?: unknown }).shapes;
  return hints && typeof hints === 'object' ? (hints as Record<string, ShapeKind>) : {};
}

const BRANCH_LABEL = /^(yes|no|true|false|y|n|pass|fail(ed)?|ok|approved?|rejected?|valid|invalid|accept(ed)?|denied|deny|allow(ed)?|success|failure|hit|miss)$/i;
const DECISION_WORDS = /\?|\b(check|decide|decision|valid|approve[ds]?|approval|is|has|can|should|review|test|condition|if|whether|ok)\b/i;
const TERMINAL = /^(start|end|begin|finish|stop|done)$/i;

export function shapeFor(entity: string, spec: DiagramSpec): ShapeKind {
  const hint = shapeHints(spec)[entity];
  if (hint) return hint;
  if (entity.trim().endsWith('?')) return 'diamond';
  const out = spec.edges.filter(([from]) => from === entity);
  if (out.length >= 2) {
    const labels = out.map(([from, to]) => spec.edgeLabels?.[`${from}->${to}`] ?? '');
    if (labels.filter((l) => BRANCH_LABEL.test(l.trim())).length >= 2) return 'diamond';
    if (spec.kind === 'decision' && DECISION_WORDS.test(entity)) return 'diamond';
  }
  if (TERMINAL.test(entity.trim())) return 'ellipse';
  return 'rectangle';
}

/** The entity a decision task branches on when no label says so: the one with the most outgoing edges. */
function decisionEntity(spec: DiagramSpec): string | undefined {
  if (spec.kind !== 'decision') return undefined;
  let best: string | undefined;
  let most = 1;
  for (const e of spec.entities) {
    const out = spec.edges.filter(([from]) => from === e).length;
    if (out > most) [best, most] = [e, out];
  }
  return best;
}

/** The bases made unique in order: a repeated base gets `${base}${separator}2`, then 3, ... */
function distinct(bases: string[], separator: string): string[] {
  const seen = new Set<string>();
  return bases.map((base) => {
    let id = base;
    for (let k = 2; seen.has(id); k++) id = `${base}${separator}${k}`;
    seen.add(id);
    return id;
  });
}

/** Slug ids for a canvas the user message shows (editing tasks): "Auth Service" -> "auth_service", deduplicated with a
 *  numeric suffix. */
export function idsFor(labels: string[]): string[] {
  const slugs = labels.map((label) => {
    const base = label
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 32)
      .replace(/_+$/, '');
    if (!base) return 'node';
    return /^[0-9]/.test(base) ? `n_${base}` : base;
  });
  return distinct(slugs, '_');
}

/** The teacher's ids are its labels, deduplicated with a numeric suffix: a shape's id, its text and the prompt's name for
 *  it are then the same characters, so a student learns one skill, copying, instead of also slugifying names. */
export function labelIds(labels: string[]): string[] {
  return distinct(labels.map((label) => label.trim() || 'node'), ' ');
}

/** An entity's name as the prompt spells it ("data collection" in a lower-case request for "Data Collection"): labels
 *  copied letter for letter from the request are what a student can learn to write for names it has never seen. The
 *  spec's spelling when the prompt does not name the entity (it may use a short form). */
export function spelledAsIn(prompt: string | undefined, name: string): string {
  if (!prompt || prompt.includes(name)) return name;
  const m = mentionRegExp([name]).exec(prompt);
  return m ? m[0] : name;
}

/** A box that holds its label on one line with padding; diamonds and ellipses need room for their slanted sides. */
export function boxFor(label: string, shape: ShapeKind): { w: number; h: number } {
  const tw = textWidth(label, LABEL_FONT_SIZE);
  const th = LABEL_FONT_SIZE * LINE_HEIGHT;
  let w = Math.max(MIN_W, tw + 2 * PAD_X);
  let h = th + 2 * PAD_Y;
  // A label of size (tw, th) fits a diamond when tw/w + th/h <= 1 (here about 0.9); an ellipse, at 1/sqrt(2) of each side.
  if (shape === 'diamond') [w, h] = [1.8 * (tw + PAD_X), 2.2 * (th + PAD_Y / 2)];
  if (shape === 'ellipse') [w, h] = [Math.max(MIN_W, Math.SQRT2 * (tw + PAD_X)), Math.SQRT2 * (th + PAD_Y)];
  return { w: Math.ceil(Math.min(w, 1000)), h: Math.ceil(Math.min(h, 1000)) };
}

/** Chains, pipelines and loops read left to right; trees, fans and architectures read top to bottom. */
export function preferredDirection(kind: DiagramKind | undefined, entities: number): Direction {
  switch (kind) {
    case 'tree':
    case 'layered':
    case 'fan_out':
    case 'fan_in':
      return 'DOWN';
    case 'chain':
    case 'cycle':
    case 'decision':
      return entities > 6 ? 'DOWN' : 'RIGHT';
    default:
      return entities > 6 ? 'DOWN' : 'RIGHT';
  }
}

function hasCycle(ids: string[], edges: EdgeRef[]): boolean {
  const next = new Map(ids.map((id) => [id, [] as string[]]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  const state = new Map<string, 1 | 2>();
  const visit = (id: string): boolean => {
    state.set(id, 1);
    for (const to of next.get(id) ?? []) {
      const s = state.get(to);
      if (s === 1 || (s === undefined && visit(to))) return true;
    }
    state.set(id, 2);
    return false;
  };
  return ids.some((id) => !state.has(id) && visit(id));
}

/** Longer than a screen (1600) and over 3:1 either way; a short chain in a row is fine. */
function lopsided(nodes: PlacedNode[]): boolean {
  const w = Math.max(...nodes.map((n) => n.x + n.w)) - Math.min(...nodes.map((n) => n.x));
  const h = Math.max(...nodes.map((n) => n.y + n.h)) - Math.min(...nodes.map((n) => n.y));
  return Math.max(w, h) > 1600 && Math.max(w / h, h / w) > 3;
}

/** Total centre-to-centre length of the arrows. */
function arrowLength(nodes: PlacedNode[], edges: EdgeRef[]): number {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  let total = 0;
  for (const e of edges) {
    const a = byId.get(e.from)!, b = byId.get(e.to)!;
    total += Math.hypot(a.x + a.w / 2 - (b.x + b.w / 2), a.y + a.h / 2 - (b.y + b.h / 2));
  }
  return total;
}

/** The strong reward's layout score of placed nodes with straight arrows: what the candidates compete on. */
function layoutScore(nodes: PlacedNode[], edges: EdgeRef[]): number {
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const links = edges.map((e) => ({ from: index.get(e.from)!, to: index.get(e.to)! }));
  return scoreLayoutGeometry(nodes.map((n) => ({ ...n, text: n.label })), links).score;
}

/**
 * Tries ELK's node placements in the kind's direction; only when none of them is clean, the other direction and,
 * for graphs with a loop, a circle. Each candidate is nudged, then compared on the reward's layout measure, then
 * on shape (a drawing over 3:1 reads badly: ten fan-in sources in one row), then on the direction, then on arrow
 * length (parents centred over their children).
 */
async function bestLayout(nodes: NodeBox[], edges: EdgeRef[], direction: Direction, nodeGap: number, layerGap: number, polish: boolean): Promise<PlacedNode[]> {
  const score = (n: PlacedNode[]) => layoutScore(n, edges);
  let best: PlacedNode[] = [];
  let bestCost = Infinity;
  const consider = (raw: PlacedNode[], dir: Direction) => {
    const c = polish ? nudge(raw, score, { direction: dir, step: Math.round(nodeGap / 2 + 20), margin: MARGIN }) : raw;
    const cost = Math.round((1 - score(c)) * 1e4) * 1e10 + (dir === direction ? 0 : 1e8) + (lopsided(c) ? 2e8 : 0) + arrowLength(c, edges);
    if (cost < bestCost) [best, bestCost] = [c, cost];
  };
  const layered = async (dir: Direction) => {
    for (const placement of NODE_PLACEMENTS) consider(await layeredLayout(nodes, edges, { direction: dir, placement, nodeGap, layerGap, margin: MARGIN }), dir);
  };
  await layered(direction);
  // Clean, in the kind's direction and not lopsided: nothing left to try for.
  if (bestCost < 1e8) return best;
  await layered(direction === 'RIGHT' ? 'DOWN' : 'RIGHT');
  if (hasCycle(nodes.map((n) => n.id), edges)) {
    // A loop can read best as a ring; the circle follows the edges' order, which walks the loop.
    consider(circularLayout(loopOrder(nodes, edges), { nodeGap, margin: MARGIN }), direction);
  }
  return best;
}

const layoutCache = new Map<string, PlacedNode[]>();
const LAYOUT_CACHE_LIMIT = 512;

/** bestLayout, remembered: the attempts at one task share a layout and differ in spread (ELK is the slow part). */
async function cachedLayout(nodes: NodeBox[], edges: EdgeRef[], direction: Direction, nodeGap: number, layerGap: number, polish: boolean): Promise<PlacedNode[]> {
  const key = JSON.stringify([nodes, edges, direction, nodeGap, layerGap, polish]);
  const hit = layoutCache.get(key);
  if (hit) return hit;
  const placed = await bestLayout(nodes, edges, direction, nodeGap, layerGap, polish);
  if (layoutCache.size >= LAYOUT_CACHE_LIMIT) layoutCache.clear();
  layoutCache.set(key, placed);
  return placed;
}

/** Moves shape centres away from the drawing's corner by `factor` >= 1: every gap widens, nothing else changes. */
function spreadOut(nodes: PlacedNode[], factor: number): PlacedNode[] {
  if (factor === 1) return nodes;
  return nodes.map((n) => ({
    ...n,
    x: Math.round(MARGIN + (n.x + n.w / 2 - MARGIN) * factor - n.w / 2),
    y: Math.round(MARGIN + (n.y + n.h / 2 - MARGIN) * factor - n.h / 2),
  }));
}

/** Nodes in the order a walk along the edges first meets them, the rest after. */
function loopOrder(nodes: NodeBox[], edges: EdgeRef[]): NodeBox[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    order.push(id);
    for (const e of edges) if (e.from === id) visit(e.to);
  };
  for (const n of nodes) visit(n.id);
  return order.map((id) => byId.get(id)!);
}

/** Positions rounded to the grid, sizes rounded up (a label keeps its room), both within the action language's limits. */
function snapToGrid(nodes: PlacedNode[]): PlacedNode[] {
  const round = (v: number) => Math.round(v / GRID) * GRID;
  return nodes.map((n) => ({ ...n, x: round(n.x), y: round(n.y), w: gridUp(n.w), h: gridUp(n.h) }));
}

const gridUp = (v: number) => Math.min(1000, Math.ceil(v / GRID) * GRID);

/** Pushes one shape halfway onto a neighbour it is drawn next to. */
function pushOntoNeighbour(nodes: PlacedNode[], edges: EdgeRef[], u: number): PlacedNode[] {
  if (edges.length === 0 || nodes.length < 2) return nodes;
  const e = edges[Math.min(edges.length - 1, Math.floor(u * edges.length))];
  const a = nodes.find((n) => n.id === e.from)!;
  const b = nodes.find((n) => n.id === e.to)!;
  const moved = { ...b, x: a.x + Math.round(a.w / 2 / GRID) * GRID, y: a.y + Math.round(a.h / 3 / GRID) * GRID };
  return nodes.map((n) => (n.id === b.id ? moved : n));
}

/** The shapes in the order the request first names their entities (the rest after, in spec order). A student writes the
 *  shapes one after another and must not repeat or skip one: "the next name the request brings up" is a rule it can
 *  learn from the request, where the spec's order is not (it matched the request's order in 157 of 200 tasks). */
function inMentionOrder(placed: PlacedNode[], entities: string[], ids: string[], prompt: string | undefined): PlacedNode[] {
  if (!prompt) return placed;
  const first = new Map<string, number>();
  const byName = new Map(entities.map((e) => [e.toLowerCase(), e]));
  // One pass with every name, longest first, so that "API" inside "API Gateway" is not taken for a mention of "API".
  const names = [...entities].sort((a, b) => b.length - a.length);
  for (const m of prompt.matchAll(mentionRegExp(names, 'giu'))) {
    const e = byName.get(m[0].toLowerCase());
    if (e !== undefined && !first.has(e)) first.set(e, m.index);
  }
  const entityOf = new Map(ids.map((id, i) => [id, entities[i]]));
  const at = (n: PlacedNode) => first.get(entityOf.get(n.id)!) ?? Number.MAX_SAFE_INTEGER;
  return [...placed].sort((a, b) => at(a) - at(b));
}

/** What the answer to a spec draws: each entity once, and each edge between two different entities of it once. */
function drawnGraph(spec: DiagramSpec): { entities: string[]; edges: [string, string][] } {
  const entities = [...new Set(spec.entities)];
  const known = new Set(entities);
  const seen = new Set<string>();
  const edges: [string, string][] = [];
  for (const [from, to] of spec.edges) {
    const key = JSON.stringify([from, to]);
    if (!known.has(from) || !known.has(to) || from === to || seen.has(key)) continue;
    seen.add(key);
    edges.push([from, to]);
  }
  return { entities, edges };
}

/**
 * Why the scripted teacher does not answer a spec, or null: an answer writes an action per entity and per edge, and
 * one of more actions than an answer may hold is refused whole, so that laying it out (ELK, then nudging: 34 s for
 * 200 entities) would buy nothing.
 */
export function scriptRefusal(spec: DiagramSpec): string | null {
  const { entities, edges } = drawnGraph(spec);
  const actions = entities.length + edges.length;
  return actions > DEFAULT_MAX_ACTIONS ? `the diagram takes ${overLimit(actions, 'actions', DEFAULT_MAX_ACTIONS)} per answer` : null;
}

/**
 * One completion for a spec that scriptRefusal accepts. `sample` 0 at temperature 0 is the canonical diagram; other
 * samples vary the spacing.
 */
export async function scriptCompletion(
  spec: DiagramSpec,
  opts: { seed: number; sample: number; temperature: number; quirks?: QuirkRates; key?: string; prompt?: string; walk?: boolean },
): Promise<ScriptedSample> {
  const random = seededRandom(hashSeed(opts.seed, opts.key ?? spec.entities.join('|'), opts.sample));
  const fired = drawQuirks(opts.quirks ?? {}, random);
  const jitter = opts.temperature > 0 ? Math.min(1, opts.temperature) : 0;
  const spread = 1 + 0.35 * jitter * random();

  const graph = drawnGraph(spec);
  const entities = graph.entities;
  const spelled = entities.map((e) => spelledAsIn(opts.prompt, e));
  const labels = fired.has('abbrev') ? spelled.map(abbreviateLabel) : spelled;
  if (fired.has('abbrev') && labels.every((l, i) => l === spelled[i])) fired.delete('abbrev');
  const ids = labelIds(labels);
  const idOf = new Map(entities.map((e, i) => [e, ids[i]]));
  const decision = decisionEntity(spec);
  const nodes: NodeBox[] = entities.map((e, i) => {
    const shape = e === decision && !(e in shapeHints(spec)) ? 'diamond' : shapeFor(e, spec);
    const box = boxFor(labels[i], shape);
    // Sizes on the grid before layout, so that ELK's positions (margin + sizes + gaps) mostly land on it too.
    return { id: ids[i], label: labels[i], shape, w: gridUp(box.w), h: gridUp(box.h) };
  });

  let edges: EdgeRef[] = [];
  for (const [from, to] of graph.edges) {
    const a = idOf.get(from)!, b = idOf.get(to)!;
    const label = spec.edgeLabels?.[`${from}->${to}`];
    edges.push(
      label
        ? { from: a, to: b, label, labelW: Math.ceil(textWidth(label, EDGE_FONT_SIZE)) + 8, labelH: Math.ceil(EDGE_FONT_SIZE * LINE_HEIGHT) }
        : { from: a, to: b },
    );
  }

  const cramped = fired.has('cramped');
  const gap = cramped ? CRAMPED_GAP : NODE_GAP;
  // A cramped teacher does not tidy up: no nudging, which would pull shapes apart again.
  const layered = await cachedLayout(nodes, edges, preferredDirection(spec.kind, nodes.length), gap, cramped ? CRAMPED_GAP : LAYER_GAP, !cramped);
  let placed = snapToGrid(cramped ? layered : spreadOut(layered, spread));

  const u = random();
  if (fired.has('overlap')) {
    if (edges.length > 0) placed = pushOntoNeighbour(placed, edges, u);
    else fired.delete('overlap');
  }
  const v = random();
  if (fired.has('missing_edge')) {
    if (edges.length >= 2) edges = edges.filter((_, i) => i !== Math.floor(v * edges.length));
    else fired.delete('missing_edge');
  }

  placed = inMentionOrder(placed, entities, ids, opts.prompt);
  // Each arrow right after the later of its two shapes, the arrows of one shape by the other end's place: the shape
  // just written is one end of every arrow that follows it, so a student copies a name from a few tokens back instead
  // of finding it among all the shapes.
  const drawn = new Map(placed.map((n, i) => [n.id, i]));
  const arrowsAfter = placed.map(() => [] as EdgeRef[]);
  for (const e of edges) arrowsAfter[Math.max(drawn.get(e.from)!, drawn.get(e.to)!)].push(e);
  const otherEnd = (e: EdgeRef) => Math.min(drawn.get(e.from)!, drawn.get(e.to)!);
  const actions: (CreateShape | Connect)[] = placed.flatMap((n, i) => [
    { type: 'create_shape', id: n.id, shape: n.shape, x: n.x, y: n.y, w: n.w, h: n.h, text: n.label } as CreateShape,
    ...arrowsAfter[i].sort((a, b) => otherEnd(a) - otherEnd(b)).map((e): Connect => ({ type: 'connect', from: e.from, to: e.to, ...(e.label ? { text: e.label } : {}) })),
  ]);
  // The walk finds each shape by the request's spelling of its entity, which an abbreviated label no longer is.
  const spelledOf = new Map(ids.map((id, i) => [id, spelled[i]]));
  const walked = opts.walk && opts.prompt ? letterShapes(gridPlaces(walkRequest(actions, opts.prompt, (a) => (a.type === 'create_shape' ? spelledOf.get(a.id) : undefined)))) : actions;
  // The walk's grid replaces the layout, and with it what a cramped or overlapping teacher did to it.
  if (walked !== actions) for (const q of ['cramped', 'overlap'] as const) fired.delete(q);
  const json = JSON.stringify({ actions: walked });
  const w = random();
  const text = fired.has('prose') ? wrapInProse(json, w) : json;
  return { text, quirks: QUIRK_ORDER.filter((q) => fired.has(q)) };
}

const QUIRK_ORDER: QuirkName[] = ['abbrev', 'cramped', 'overlap', 'missing_edge', 'prose'];

export class ScriptedPolicy implements Policy {
  readonly name = 'scripted';
  constructor(private readonly options: ScriptedOptions = {}) {}

  private specOf(prompt: string): DiagramSpec {
    const known = this.options.specFor?.(prompt);
    if (known) return known;
    if (!this.options.extract) throw new Error(`scripted teacher: no spec for prompt ${JSON.stringify(prompt.slice(0, 80))} and no extractor`);
    return this.options.extract(prompt);
  }

  async generate(conversations: ChatMessage[][], opts: SamplingOptions = {}): Promise<Completion[][]> {
    const n = opts.n ?? 1;
    const out: Completion[][] = [];
    for (const conversation of conversations) {
      const prompt = userPrompt(conversation);
      const tooLong = promptRefusal(prompt);
      const spec = tooLong === null ? this.specOf(prompt) : undefined;
      const refusal = spec === undefined ? `the prompt is ${tooLong}` : scriptRefusal(spec);
      if (spec === undefined || refusal !== null) {
        out.push(Array.from({ length: n }, (): Completion => ({ text: '', finishReason: 'error', error: `scripted teacher: ${refusal}` })));
        continue;
      }
      const samples: Completion[] = [];
      for (let sample = 0; sample < n; sample++) {
        const s = await scriptCompletion(spec, {
          seed: opts.seed ?? 0,
          sample,
          temperature: opts.temperature ?? 1,
          quirks: this.options.quirks,
          key: prompt,
          prompt,
          walk: this.options.walk ?? false,
        });
        samples.push({ text: s.text, finishReason: 'stop', quirks: s.quirks });
      }
      out.push(samples);
    }
    return out;
  }
}
