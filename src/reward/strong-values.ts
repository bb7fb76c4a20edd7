// The strong rubric's entity, edge and layout values on the fast path's canvas arrays (strong-fast.ts): the same
// numbers as strong.ts measures on a Canvas, without a report object per entity or a map per completion. On a canvas
// from the WebAssembly checks, the matching and the edges' structure run in assembly/strong-match.ts, on words handed
// over as atoms (labels once per intern epoch, the spec once per spec); otherwise, and for arrow labels, here. What a
// spec asks for is worked out once per spec and kept for the next completion: GRPO scores a group per task.
// test/reward-strong-fast.test.ts and the reward-speed tests hold these values to strong.ts's.
import { SHAPE_KINDS } from '../env/actions.ts';
import type { DiagramSpec } from '../tasks/spec.ts';
import { jsonReader, MATCH } from './fast-json.ts';
import {
  ABBREVIATION_CREDIT,
  bestAssignment as assignBest,
  EXTRA_WORD_COST,
  labelMatch as matchLabel,
  normalizeLabel as normalize,
  type NormalizedLabel,
} from './labels.ts';
import { layoutScore as scoreLayout, layoutScoreFromGeometry as scoreFromGeometry } from './layout.ts';
import type { StrongCanvas } from './strong-fast.ts';

// Module constants: tsx compiles modules to CommonJS, where each use of an imported binding is a getter call.
const normalizeLabel = normalize;
const labelMatch = matchLabel;
const bestAssignment = assignBest;
const layoutScore = scoreLayout;
const layoutScoreFromGeometry = scoreFromGeometry;
const json = jsonReader;
const Match = MATCH;
const KINDS: readonly unknown[] = SHAPE_KINDS;

/** Share of edges_correct that requested arrow labels carry, when the spec asks for any. */
export const EDGE_LABEL_SHARE = 0.15;
/** entities_present when the prompt names no entity the extractor recognises: half credit for any labeled shape. */
export const UNKNOWN_ENTITIES_CREDIT = 0.5;
/** Share of an entity's credit kept when the spec asks for a shape kind and the diagram draws another. */
export const WRONG_SHAPE_CREDIT = 0.75;

/** Unmatched shapes a diagram may have for free (a title, a legend), growing slowly with its size. */
export function shapeAllowance(entities: number): number {
  return 1 + Math.floor(entities / 3);
}

if (json) json.setMatchConstants(ABBREVIATION_CREDIT, EXTRA_WORD_COST, WRONG_SHAPE_CREDIT);

// Atoms: a number for each distinct string (stem, name, canonical form) handed to assembly/strong-match.ts, which
// compares them as i32. Started over only between completions (atomsKept), with the tables that hold them.
const ATOM_LIMIT = 1 << 16;
let atoms = new Map<string, number>();
let atomGeneration = 0;

function atomOf(text: string): number {
  let atom = atoms.get(text);
  if (atom === undefined) {
    atom = atoms.size;
    atoms.set(text, atom);
  }
  return atom;
}

/** A name or label as strong-match.ts reads it: normalizeLabel's words as atoms (times 2, plus 1 when abbreviated). */
interface NameCode {
  atom: number;
  compactAtom: number;
  words: Int32Array;
  abbreviations: number;
  stemMask: number;
}

const CODE_LIMIT = 20_000;
let codes = new Map<string, NameCode>();

function codeOf(text: string): NameCode {
  let code = codes.get(text);
  if (code !== undefined) return code;
  const norm = normalizeLabel(text);
  const words = new Int32Array(norm.words.length);
  for (let k = 0; k < words.length; k++) words[k] = atomOf(norm.words[k].stem) * 2 + (norm.words[k].abbreviated ? 1 : 0);
  code = { atom: atomOf(text), compactAtom: atomOf(norm.compact), words, abbreviations: norm.abbreviations, stemMask: norm.stemMask };
  if (codes.size >= CODE_LIMIT) codes.clear();
  codes.set(text, code);
  return code;
}

/**
 * Before a completion's labels are handed over (strong-fast.ts): false when the atoms have just started over, so
 * that every interned label must be handed over anew (their atoms, and the spec's, name nothing now).
 */
export function atomsKept(): boolean {
  if (atoms.size < ATOM_LIMIT) return true;
  atoms = new Map();
  codes = new Map();
  atomGeneration++;
  return false;
}

let labelWordsUsed = 0;

/** A new intern epoch (or atoms): strong-match.ts's label words start over. */
export function startLabelWords(): void {
  labelWordsUsed = 0;
}

/** Hands interned label `id` (its text `label`) to strong-match.ts, once per epoch; too many words leave it to JavaScript. */
export function handOverLabel(id: number, label: string): void {
  const info = json!.labelInfo();
  const at = id * Match.labelStride;
  const code = codeOf(label);
  const k = code.words.length;
  if (k > Match.maxLabelWords || labelWordsUsed + k > Match.labelWords) {
    info[at + 1] = -1;
    return;
  }
  json!.labelWords().set(code.words, labelWordsUsed);
  info[at] = labelWordsUsed;
  info[at + 1] = k;
  info[at + 2] = code.abbreviations;
  info[at + 3] = code.stemMask;
  info[at + 4] = code.compactAtom;
  labelWordsUsed += k;
}

/** spec.shapes?.[name] as strong-match.ts compares it: -1 asks for no kind, 4 for none that a shape can be. */
function wantedKind(wanted: unknown): number {
  if (!wanted) return -1;
  const k = KINDS.indexOf(wanted);
  return k === -1 ? 4 : k;
}

// Spec names in strong-match.ts's name table, by index: kept from spec to spec, started over with the atoms (their
// records hold atoms) or when full. Found by a hash of a name's length and three of its characters, probed linearly
// in slots four times the table's size. A row hands over a dozen names or more, and with a Map (a builtin call and
// the string's hash per lookup) the strong rubric took 0.07-0.13 µs a row longer on the bench's corpus.
const NAME_SLOTS = 4 * Match.maxNames;
let slotNames: (string | undefined)[] = new Array<string | undefined>(NAME_SLOTS).fill(undefined);
const slotIndexes = new Int32Array(NAME_SLOTS);
let namesUsed = 0;
let nameWordsUsed = 0;
let namesGeneration = -1;

function startNames(): void {
  slotNames = new Array<string | undefined>(NAME_SLOTS).fill(undefined);
  namesUsed = 0;
  nameWordsUsed = 0;
  namesGeneration = atomGeneration;
}

/** A name's first slot. */
function nameSlot(name: string): number {
  const n = name.length;
  if (n === 0) return 0;
  const h = Math.imul(n, 0x9e3779b1) ^ Math.imul(name.charCodeAt(0), 0x85ebca6b) ^ Math.imul(name.charCodeAt(n - 1), 0xc2b2ae35) ^ Math.imul(name.charCodeAt(n >> 1), 0x27d4eb2f);
  return (h ^ (h >>> 15)) & (NAME_SLOTS - 1);
}

/** The index of `name`'s record in strong-match.ts's name table, written when new; -1 when the table is full. */
function nameIndexOf(name: string): number {
  let slot = nameSlot(name);
  for (let key = slotNames[slot]; key !== undefined; key = slotNames[slot]) {
    if (key === name) return slotIndexes[slot];
    slot = (slot + 1) & (NAME_SLOTS - 1);
  }
  const code = codeOf(name);
  const k = code.words.length;
  if (namesUsed === Match.maxNames || nameWordsUsed + k > Match.nameWords) return -1;
  const records = json!.names();
  const at = namesUsed * Match.nameStride;
  records[at] = nameWordsUsed;
  records[at + 1] = k;
  records[at + 2] = code.abbreviations;
  records[at + 3] = code.stemMask;
  records[at + 4] = code.compactAtom;
  records[at + 5] = code.atom;
  json!.nameWords().set(code.words, nameWordsUsed);
  nameWordsUsed += k;
  slotNames[slot] = name;
  slotIndexes[slot] = namesUsed;
  return namesUsed++;
}

// The spec in strong-match.ts's tables: the last one handed over (entities 0 when it does not fit them).
let matchSpec: DiagramSpec | null = null;
let matchGeneration = -1;
let matchEntities = 0;
let matchEdges = 0;

/** The spec's entities and edge ends as name indexes; false when the name table is full. */
function handOverNames(spec: DiagramSpec): boolean {
  const names = spec.entities;
  const edges = spec.edges;
  const shapes = spec.shapes;
  const entities = json!.specEntities();
  for (let i = 0; i < names.length; i++) {
    const index = nameIndexOf(names[i]);
    if (index === -1) return false;
    entities[2 * i] = index;
    entities[2 * i + 1] = wantedKind(shapes?.[names[i]]);
  }
  const ends = json!.specEdges();
  for (let e = 0; e < edges.length; e++) {
    const edge = edges[e];
    const a = endIndexOf(names, entities, edge[0]);
    const b = endIndexOf(names, entities, edge[1]);
    if (a === -1 || b === -1) return false;
    ends[2 * e] = a;
    ends[2 * e + 1] = b;
  }
  return true;
}

/**
 * An edge end's name index: the entity's it names, just handed over at `entities` (an end is nearly always one of
 * the spec's entities, mostly the very string), else looked up. A few compares of strings, against a hash and a
 * table slot met cold: in place on the bench's corpus the hand-over went from 0.30 to 0.25 µs a row.
 */
function endIndexOf(names: readonly string[], entities: Int32Array, end: string): number {
  for (let i = 0; i < names.length; i++) if (names[i] === end) return entities[2 * i];
  return nameIndexOf(end);
}

/** Hands the spec to strong-match.ts, once per spec (the last one is kept); false when it does not fit the tables. */
function specHandedOver(spec: DiagramSpec): boolean {
  if (spec === matchSpec && matchGeneration === atomGeneration) return matchEntities > 0;
  matchSpec = spec;
  matchGeneration = atomGeneration;
  matchEntities = 0;
  const n = spec.entities.length;
  const edges = spec.edges.length;
  if (n === 0 || n > Match.maxEntities || edges > Match.maxEdges) return false;
  if (namesGeneration !== atomGeneration) startNames();
  // A full table starts over once; a spec that alone names more than the table holds takes JavaScript's path.
  if (!handOverNames(spec)) {
    startNames();
    if (!handOverNames(spec)) return false;
  }
  matchEntities = n;
  matchEdges = edges;
  return true;
}

interface SpecPlan {
  spec: DiagramSpec;
  entities: NormalizedLabel[];
  /** The entities' canonical forms, under which strong.ts also files their shapes. */
  compacts: string[];
  /** spec.shapes?.[entity] for each entity, as strong.ts reads it. */
  wanted: unknown[];
  /** Each edge's ends in canonical form, two an edge, worked out when edgesValue first needs them. */
  edgeCompacts: string[] | null;
  /** Requested arrow labels: the ends' names (null where the key has no "->"), their canonical forms and the wanted label. */
  labelFrom: (string | null)[];
  labelTo: (string | null)[];
  labelFromCompact: string[];
  labelToCompact: string[];
  labelWant: string[];
}

let lastPlan: SpecPlan | null = null;

/**
 * What the spec asks for, worked out once per spec: the last one is kept (a GRPO group shares its task's spec), so
 * a spec must not be changed in place between scores. Plain loops: tsx wraps each arrow function created here in a
 * naming call, which costs more than the work.
 */
function planOf(spec: DiagramSpec): SpecPlan {
  if (lastPlan !== null && lastPlan.spec === spec) return lastPlan;
  const names = spec.entities;
  const plan: SpecPlan = {
    spec,
    entities: [],
    compacts: [],
    wanted: [],
    edgeCompacts: null,
    labelFrom: [],
    labelTo: [],
    labelFromCompact: [],
    labelToCompact: [],
    labelWant: [],
  };
  for (let i = 0; i < names.length; i++) {
    const entity = normalizeLabel(names[i]);
    plan.entities.push(entity);
    plan.compacts.push(entity.compact);
    plan.wanted.push(spec.shapes?.[names[i]]);
  }
  if (spec.edgeLabels) {
    for (const [key, want] of Object.entries(spec.edgeLabels)) {
      const [from, to] = key.split('->');
      plan.labelFrom.push(from === undefined ? null : from.trim());
      plan.labelTo.push(to === undefined ? null : to.trim());
      plan.labelFromCompact.push(from === undefined ? '' : normalizeLabel(from.trim()).compact);
      plan.labelToCompact.push(to === undefined ? '' : normalizeLabel(to.trim()).compact);
      plan.labelWant.push(want);
    }
  }
  lastPlan = plan;
  return plan;
}

/** plan.edgeCompacts, worked out once per spec (normalizeLabel has met an end that names an entity already). */
function edgeCompactsOf(plan: SpecPlan): string[] {
  if (plan.edgeCompacts !== null) return plan.edgeCompacts;
  const edges = plan.spec.edges;
  const out: string[] = [];
  for (let e = 0; e < edges.length; e++) out.push(normalizeLabel(edges[e][0]).compact, normalizeLabel(edges[e][1]).compact);
  plan.edgeCompacts = out;
  return out;
}

// Per-completion scratch, sized for the most shapes a completion can draw and grown for larger specs.
let assignment = new Int32Array(64);
let quality = new Float64Array(64);
let weights = new Float64Array(64 * 64);
const useful = new Uint8Array(64);
const parent = new Int32Array(64);
/** The matched entities, the last first (fileMatched): no more than the shapes, so that a lookup costs the shapes, not the spec. */
let filed = new Int32Array(64);
let filedCount = 0;

/** Files the entities `assignment` matches, for lastMatched; after every change to the assignment. */
function fileMatched(n: number): void {
  if (filed.length < n) filed = new Int32Array(n);
  let c = 0;
  for (let i = n - 1; i >= 0; i--) if (assignment[i] !== -1) filed[c++] = i;
  filedCount = c;
}

/** The shape of the last matched entity named `key` or canonically `key`, or -1. */
function lastMatched(plan: SpecPlan, key: string): number {
  const names = plan.spec.entities;
  const compacts = plan.compacts;
  for (let k = 0; k < filedCount; k++) {
    const i = filed[k];
    if (names[i] === key || compacts[i] === key) return assignment[i];
  }
  return -1;
}

/**
 * The shape a spec name (`compact` its canonical form) resolves to, or -1. strong.ts files each matched entity's
 * shape under its name and its canonical form, the last entity filed under a key winning, and looks a name up as
 * written, then canonically.
 */
function shapeNamed(plan: SpecPlan, name: string, compact: string): number {
  const s = lastMatched(plan, name);
  return s !== -1 ? s : lastMatched(plan, compact);
}

/**
 * matchEntities (labels.ts) on the arrays: fills `assignment` and `quality` for the plan's entities. When every
 * entity has at most one positive match and no shape is wanted twice, those pairs are the best assignment (as
 * bestAssignment finds first); otherwise bestAssignment itself decides.
 */
function matchShapes(plan: SpecPlan, c: StrongCanvas): void {
  const n = plan.entities.length;
  const m = c.count;
  if (assignment.length < n) {
    assignment = new Int32Array(n);
    quality = new Float64Array(n);
  }
  if (weights.length < n * m) weights = new Float64Array(n * m);
  weights.fill(0, 0, n * m);
  assignment.fill(-1, 0, n);
  // Contested: an entity with two positive matches, or a shape with two. Only pairs that share a stem or a
  // canonical form (hash) are asked (labelMatch answers 0 for the others, first thing); the rest stay 0.
  let contested = false;
  const entities = plan.entities;
  for (let j = 0; j < m; j++) {
    const label = c.norm[j];
    const mask = label.stemMask;
    const compact = label.compactHash;
    let owner = -1;
    for (let i = 0; i < n; i++) {
      const e = entities[i];
      if ((e.stemMask & mask) === 0 && e.compactHash !== compact) continue;
      const w = labelMatch(e, label);
      weights[i * m + j] = w;
      if (!(w > 0)) continue;
      if (owner !== -1 || assignment[i] !== -1) contested = true;
      owner = i;
      assignment[i] = j;
    }
  }
  if (contested) {
    const rows: number[][] = [];
    for (let i = 0; i < n; i++) rows.push(Array.from(weights.subarray(i * m, i * m + m)));
    const best = bestAssignment(rows);
    for (let i = 0; i < n; i++) assignment[i] = best[i];
  }
  for (let i = 0; i < n; i++) quality[i] = assignment[i] === -1 ? 0 : weights[i * m + assignment[i]];
  fileMatched(n);
}

/** entities_present (strong.ts entitiesPresent); leaves the entity-to-shape assignment for the edges. */
function entitiesValue(plan: SpecPlan, c: StrongCanvas): number {
  const n = plan.entities.length;
  if (n === 0) {
    fileMatched(0);
    let labeled = 0;
    for (let s = 0; s < c.count; s++) if (c.text[s].trim()) labeled++;
    return c.count ? (UNKNOWN_ENTITIES_CREDIT * labeled) / c.count : 0;
  }
  matchShapes(plan, c);
  let matched = 0;
  let recall = 0;
  for (let i = 0; i < n; i++) {
    const s = assignment[i];
    if (s !== -1) matched++;
    // A spec that asks for a kind of shape (a decision as a diamond) pays less for the right label in the wrong shape.
    const wanted = plan.wanted[i];
    const kindFactor = s !== -1 && wanted && c.shape[s] !== wanted ? WRONG_SHAPE_CREDIT : 1;
    recall += quality[i] * kindFactor;
  }
  recall /= n;
  const excess = Math.max(0, c.count - matched - shapeAllowance(n));
  return (recall * n) / (n + excess);
}

/** Union-find root. */
function rootOf(s: number): number {
  let r = s;
  while (parent[r] !== r) r = parent[r];
  return r;
}

/** connectivityScore (strong.ts): how far the arrows join the matched entities' shapes into one piece. */
function connectivity(plan: SpecPlan, c: StrongCanvas): number {
  const arrows = c.links;
  parent.fill(-1, 0, c.count);
  let n = 0;
  for (let i = 0; i < plan.entities.length; i++) {
    const s = assignment[i];
    if (s === -1) continue;
    parent[s] = s;
    n++;
  }
  if (n < 2 || arrows === 0) return 0;
  let components = n;
  let inside = 0;
  for (let k = 0; k < arrows; k++) {
    const a = c.from[k];
    const b = c.to[k];
    if (parent[a] === -1 || parent[b] === -1) continue;
    inside++;
    const ra = rootOf(a);
    const rb = rootOf(b);
    if (ra !== rb) {
      parent[ra] = rb;
      components--;
    }
  }
  const connected = (n - components) / (n - 1);
  const budget = 1.5 * (n - 1);
  return connected * Math.min(1, budget / arrows) * (inside / arrows);
}

/** edges_correct (strong.ts edgesCorrect), after entitiesValue's assignment. */
function edgesValue(plan: SpecPlan, specSource: 'input' | 'prompt', c: StrongCanvas): number {
  const arrows = c.links;
  const { from, to } = c;
  const edges = plan.spec.edges;
  const expected = edges.length;
  let structure: number;
  if (expected > 0) {
    useful.fill(0, 0, arrows);
    let correct = 0;
    let usefulCount = 0;
    const compacts = edgeCompactsOf(plan);
    for (let e = 0; e < expected; e++) {
      const a = shapeNamed(plan, edges[e][0], compacts[2 * e]);
      const b = shapeNamed(plan, edges[e][1], compacts[2 * e + 1]);
      if (a === -1 || b === -1) continue;
      let fwd = -1;
      for (let k = 0; k < arrows; k++) {
        if (from[k] === a && to[k] === b) {
          fwd = k;
          break;
        }
      }
      if (fwd === -1) continue;
      correct++;
      if (!useful[fwd]) {
        useful[fwd] = 1;
        usefulCount++;
      }
    }
    const recall = correct / expected;
    const precision = arrows ? usefulCount / arrows : 0;
    structure = recall * precision;
  } else if (specSource === 'input') {
    structure = 1 / (1 + arrows);
  } else {
    structure = connectivity(plan, c);
  }
  return withArrowLabels(plan, c, structure);
}

/** edges_correct from the edges' structure: with the requested arrow labels' credit, when the spec asks for any. */
function withArrowLabels(plan: SpecPlan, c: StrongCanvas, structure: number): number {
  const { from, to } = c;
  const arrows = c.links;
  const requested = plan.labelWant.length;
  if (requested === 0) return structure;
  let labelSum = 0;
  for (let r = 0; r < requested; r++) {
    const fromName = plan.labelFrom[r];
    const toName = plan.labelTo[r];
    const a = fromName === null ? -1 : shapeNamed(plan, fromName, plan.labelFromCompact[r]);
    const b = toName === null ? -1 : shapeNamed(plan, toName, plan.labelToCompact[r]);
    if (a === -1 || b === -1) continue;
    let best = 0;
    for (let k = 0; k < arrows; k++) if (from[k] === a && to[k] === b) best = Math.max(best, labelMatch(plan.labelWant[r], c.arrowText[k]));
    labelSum += best;
  }
  return (1 - EDGE_LABEL_SHARE) * structure + EDGE_LABEL_SHARE * (labelSum / requested);
}

/** entities_present, edges_correct and layout_quality of a canvas, written into `out` at 0, 1 and 2. */
export function strongValues(spec: DiagramSpec, specSource: 'input' | 'prompt', c: StrongCanvas | null, out: Float64Array): void {
  if (c === null || c.count === 0) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    return;
  }
  if (c.tallied && specHandedOver(spec) && json!.strongMatch(matchEntities, matchEdges, specSource === 'input')) {
    // strong-match.ts matched on the WebAssembly canvas (tallied: strong-check.ts built it); arrow labels stay here.
    const r = json!.matchOut();
    out[0] = r[0];
    if (spec.edgeLabels === undefined) out[1] = r[1];
    else {
      c.complete();
      const plan = planOf(spec);
      const shapes = json!.matchAssignment();
      const n = matchEntities;
      if (assignment.length < n) assignment = new Int32Array(n);
      for (let i = 0; i < n; i++) assignment[i] = shapes[i];
      fileMatched(n);
      out[1] = withArrowLabels(plan, c, r[1]);
    }
  } else {
    c.complete();
    const plan = planOf(spec);
    out[0] = entitiesValue(plan, c);
    out[1] = edgesValue(plan, specSource, c);
  }
  if (!c.tallied) out[2] = layoutScore(c);
  else {
    // strong-overflow.ts adds the label overflow to the geometry; -1 when a label's measure is not in its tables.
    const penalty = json!.layoutPenalty();
    if (penalty >= 0) out[2] = Math.exp(-penalty);
    else {
      c.complete();
      out[2] = layoutScoreFromGeometry(c.geometry, 0, c, c.measures);
    }
  }
}
