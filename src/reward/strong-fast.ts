// executeCompletion's outcome counts and canvas for a single-turn answer, on the WebAssembly reader's records
// (fast-json.ts): what the strong reward scores, without building the JSON, an object per action, or wording errors
// (executeCompletion words them when read). The canvas is kept as parallel arrays (StrongCanvas), reused from one
// call to the next. Anything the records cannot settle exactly returns null, and the caller executes the text.
import { DEFAULT_MAX_ACTIONS, MAX_SIDE, SHAPE_KINDS } from '../env/actions.ts';
import { DEFAULT_MAX_INPUT_CHARS, fencedRange as fenced, PARSE_MESSAGES, type JsonSource } from '../env/parse.ts';
import { FIELD, jsonReader, KIND, MEASURE, SCAN, STRONG, type JsonReader } from './fast-json.ts';
import { normalizeLabel as normalize, type NormalizedLabel } from './labels.ts';
import { layoutArrays, measureLabel as measure, type LayoutArrays, type MeasuredLabel } from './layout.ts';
import { atomsKept as keptAtoms, handOverLabel as handOver, startLabelWords as startWords } from './strong-values.ts';

/**
 * The canvas of a single-turn answer as arrays: shapes in creation order (ids, kinds, boxes, labels), arrows as shape
 * indexes with their labels. Only create_shape and connect run, so shapes are never removed and an id names one index.
 */
export interface StrongCanvas extends LayoutArrays {
  /** The ids, when the JavaScript checks ran; otherwise `idText` slices (nothing scored reads ids: see shapeId). */
  ids: string[];
  /** The completion whose [idStart, idEnd) slices are the ids (escape-free there), or null when `ids` holds them. */
  idText: string | null;
  idStart: Int32Array;
  idEnd: Int32Array;
  arrowText: string[];
  /** Each shape's label normalised (normalizeLabel) and measured (measureLabel). */
  norm: NormalizedLabel[];
  measures: MeasuredLabel[];
  /** The layout's geometric tallies from assembly/strong-layout.ts (layoutScoreFromGeometry), when `tallied`. */
  geometry: Float64Array;
  tallied: boolean;
  /**
   * Fills the arrays of a canvas from the WebAssembly checks, which only JavaScript's values and logs read (the
   * counts, `geometry` and `tallied` are filled at once). Call it before reading them, and before the next
   * executeCountsFast: it reads the records.
   */
  complete(): void;
}

export interface ExecutionCounts {
  /** Where the JSON was found, also when its actions were then refused; undefined when none was found. */
  source: JsonSource | undefined;
  /** Actions run (0 when the parse was refused). */
  actions: number;
  schemaErrors: number;
  applied: number;
  /** null when the completion did not parse. The same object on every call: read it before the next. */
  canvas: StrongCanvas | null;
  /** No parse failure and no refused action: executeCompletion's errors are empty. */
  clean: boolean;
  /**
   * executeCompletion's one error for a parse refused for what the records tell (no JSON, no actions array, too many
   * actions, ...); null when the completion is clean, refused actions, or failed in JSON.parse's own words.
   */
  refusal: string | null;
  /** Who ran the action checks: assembly/strong-check.ts, or this module's JavaScript (also when none ran). */
  checks: 'wasm' | 'js';
}

// Module constants: tsx compiles modules to CommonJS, where each use of an imported binding is a getter call.
const json = jsonReader as JsonReader;
const Kind = KIND;
const Field = FIELD;
const Scan = SCAN;
const Strong = STRONG;
const MAX_ACTIONS = DEFAULT_MAX_ACTIONS;
const MAX_INPUT_CHARS = DEFAULT_MAX_INPUT_CHARS;
const fencedRange = fenced;
const SIDE = MAX_SIDE;
const KINDS: readonly string[] = SHAPE_KINDS;
const normalizeLabel = normalize;
const measureLabel = measure;
const atomsKept = keptAtoms;
const handOverLabel = handOver;
const startLabelWords = startWords;
const canvas: StrongCanvas = { ...layoutArrays(MAX_ACTIONS, MAX_ACTIONS), ids: [],
  idText: null,
  idStart: new Int32Array(MAX_ACTIONS),
  idEnd: new Int32Array(MAX_ACTIONS),
  arrowText: [],
  norm: [],
  measures: [],
  geometry: new Float64Array(6),
  tallied: false,
  complete: completeCanvas,
};
/** Whether the canvas's ids, normalised labels and arrow labels are filled (see StrongCanvas.complete). */
let canvasComplete = true;
const counts: ExecutionCounts = { source: undefined, actions: 0, schemaErrors: 0, applied: 0, canvas: null, clean: false, refusal: null, checks: 'js' };
const MESSAGES = PARSE_MESSAGES;

/**
 * extractJson's search, on the records: the source the JSON was found at, 'absent' when the text holds no JSON to
 * try (no brace span), 'invalid' when every try failed, or null when unsure.
 */
function findJson(text: string): JsonSource | 'absent' | 'invalid' | null {
  const bytes = json.load(text);
  let status = json.scan(0, bytes, 0, false);
  if (status === Scan.ok) return 'whole';
  if (status === Scan.unusual) return null;
  const docStart = json.docStart();
  const docEnd = json.docEnd();
  const fence = fencedRange(text);
  if (fence) {
    const ascii = bytes === text.length;
    const from = ascii ? fence.start : json.byteOffset(fence.start, bytes);
    const to = ascii ? fence.end : json.byteOffset(fence.end, bytes);
    status = json.scan(from, to, fence.start, false);
    if (status === Scan.ok) return 'fenced';
    if (status === Scan.unusual) return null;
  }
  status = json.scanBraceSpan(text, bytes, false, docStart, docEnd, fence === null);
  if (status === Scan.ok) return 'span';
  if (status === Scan.noSpan) return 'absent';
  return status === Scan.unusual ? null : 'invalid';
}

// The action schemas (env/actions.ts CreateShape and Connect) field by field, on the records. They read what the
// zod-derived check (env/fast-check.ts) reads: test/reward-strong-fast.test.ts holds the two to the same verdicts.

/** z.string().min(1): the value, or null. */
function idOf(text: string, i: number, f: number): string | null {
  if (json.fieldKind(i, f) !== Kind.string) return null;
  const s = json.fieldString(text, i, f);
  return s.length > 0 ? s : null;
}

/** A finite number (z.number()), or NaN when the field is anything else. */
function numberOf(text: string, i: number, f: number): number {
  const k = json.fieldKind(i, f);
  if (k !== Kind.int && k !== Kind.float) return NaN;
  const v = json.fieldNumber(text, i, f);
  return v - v === 0 ? v : NaN;
}

/** label.optional(): the text ('' when absent), or null when the field is not a string. */
function labelOf(text: string, i: number, f: number): string | null {
  const k = json.fieldKind(i, f);
  if (k === Kind.absent) return '';
  return k === Kind.string ? json.fieldString(text, i, f) : null;
}

/** The index of the shape with this id, or -1. */
function shapeIndex(id: string): number {
  const ids = canvas.ids;
  for (let s = canvas.count - 1; s >= 0; s--) if (ids[s] === id) return s;
  return -1;
}

const APPLIED = 0;
const SCHEMA = 1;
const REFUSED = 2;

/** create_shape on the arrays: APPLIED, SCHEMA (the schema refuses it) or REFUSED (a duplicate id). */
function createShape(text: string, i: number): number {
  const id = idOf(text, i, Field.id);
  if (id === null || json.fieldKind(i, Field.shape) !== Kind.string) return SCHEMA;
  let kind: string | null = null;
  for (let k = 0; k < KINDS.length; k++) {
    if (json.fieldIs(text, i, Field.shape, KINDS[k])) {
      kind = KINDS[k];
      break;
    }
  }
  if (kind === null) return SCHEMA;
  const x = numberOf(text, i, Field.x);
  const y = numberOf(text, i, Field.y);
  const w = numberOf(text, i, Field.w);
  const h = numberOf(text, i, Field.h);
  // NaN fails every comparison: a missing, non-numeric or infinite coordinate refuses the action.
  if (!(x === x && y === y && w > 0 && w <= SIDE && h > 0 && h <= SIDE)) return SCHEMA;
  const label = labelOf(text, i, Field.text);
  if (label === null) return SCHEMA;
  if (shapeIndex(id) !== -1) return REFUSED;
  const s = canvas.count++;
  canvas.ids[s] = id;
  canvas.shape[s] = kind;
  canvas.x[s] = x;
  canvas.y[s] = y;
  canvas.w[s] = w;
  canvas.h[s] = h;
  canvas.text[s] = label;
  canvas.norm[s] = normalizeLabel(label);
  canvas.measures[s] = measureLabel(label);
  return APPLIED;
}

/** connect on the arrays: APPLIED, SCHEMA, or REFUSED (a missing shape, or a shape to itself). */
function connect(text: string, i: number): number {
  const from = idOf(text, i, Field.from);
  const to = idOf(text, i, Field.to);
  const label = labelOf(text, i, Field.text);
  if (from === null || to === null || label === null) return SCHEMA;
  const a = shapeIndex(from);
  const b = shapeIndex(to);
  if (a === -1 || b === -1 || a === b) return REFUSED;
  const k = canvas.links++;
  canvas.from[k] = a;
  canvas.to[k] = b;
  canvas.arrowText[k] = label;
  return APPLIED;
}

function refused(source: JsonSource | undefined, refusal: string | null): ExecutionCounts {
  counts.source = source;
  counts.actions = 0;
  counts.schemaErrors = 0;
  counts.applied = 0;
  counts.canvas = null;
  counts.clean = false;
  counts.refusal = refusal;
  counts.checks = 'js';
  return counts;
}

/** describeJson of a value of this kind (a refused action is no object). */
function describeKind(kind: number): string {
  if (kind === Kind.null) return 'null';
  if (kind === Kind.array) return 'an array';
  if (kind === Kind.string) return 'a string';
  return kind === Kind.true || kind === Kind.false ? 'a boolean' : 'a number';
}

/** parseCompletion's message for the last scan's JSON when it has no actions to run (usableActions answered 0). */
function unusable(): string | null {
  if (json.rootKind() !== Kind.object) return MESSAGES.notAnObject;
  if (json.actionsKind() !== Kind.array) return MESSAGES.missingActions;
  const count = json.actionCount();
  if (count === 0) return MESSAGES.emptyActions;
  if (count > MAX_ACTIONS) return MESSAGES.tooManyActions(count, MAX_ACTIONS);
  for (let i = 0; i < count; i++) {
    const kind = json.elementKind(i);
    if (kind !== Kind.object) return MESSAGES.actionNotObject(i, describeKind(kind));
  }
  return null;
}

/**
 * executeCompletion(text) in counts, or null when only the real parse can tell. The same object on every call.
 * The action checks run in WebAssembly where its bytes can settle them; `checks: 'js'` runs this module's
 * JavaScript checks instead (the tests hold the two to each other).
 */
export function executeCountsFast(text: string, checks: 'auto' | 'js' = 'auto'): ExecutionCounts | null {
  if (text.length > MAX_INPUT_CHARS) return null;
  const found = findJson(text);
  if (found === null) return null;
  if (found === 'invalid') return refused(undefined, null);
  if (found === 'absent') return refused(undefined, MESSAGES.noJson);
  const n = json.usableActions(MAX_ACTIONS);
  if (n === 0) return refused(found, unusable());
  json.settleNumbers(text);
  if (checks === 'auto' && json.strongCheck()) return fromWasm(text, found);
  canvas.count = 0;
  canvas.links = 0;
  canvas.idText = null;
  canvas.tallied = false;
  canvasComplete = true;
  let schemaErrors = 0;
  let applied = 0;
  for (let i = 0; i < n; i++) {
    let verdict = SCHEMA;
    if (json.fieldKind(i, Field.type) === Kind.string) {
      if (json.fieldIs(text, i, Field.type, 'create_shape')) verdict = createShape(text, i);
      else if (json.fieldIs(text, i, Field.type, 'connect')) verdict = connect(text, i);
    }
    if (verdict === APPLIED) applied++;
    else if (verdict === SCHEMA) schemaErrors++;
  }
  return done(found, n, schemaErrors, applied, 'js');
}

function done(found: JsonSource, n: number, schemaErrors: number, applied: number, checks: 'wasm' | 'js'): ExecutionCounts {
  counts.source = found;
  counts.actions = n;
  counts.schemaErrors = schemaErrors;
  counts.applied = applied;
  counts.canvas = canvas;
  counts.clean = applied === n;
  counts.refusal = null;
  counts.checks = checks;
  return counts;
}

// The interned labels of the current epoch, by id: the text, normalised and measured, made when first met.
let internEpoch = -1;
const internText: string[] = [];
const internNorm: NormalizedLabel[] = [];
const internMeasures: MeasuredLabel[] = [];
// What the epoch's measures use of strong-overflow.ts's tables.
let measureCountsUsed = 0;
let measureAdvancesUsed = 0;

/**
 * Hands interned label `id`'s measure to assembly/strong-overflow.ts, once per epoch; one that did not fit its
 * tables would be marked, and the layout of a canvas that shows it scored in JavaScript.
 */
function handOverMeasure(id: number, label: MeasuredLabel): void {
  const info = json.measureInfo();
  const paragraphs = label.paragraphs;
  let needCounts = 1;
  let needAdvances = 0;
  for (let p = 0; p < paragraphs.length; p++) {
    const words = paragraphs[p];
    needCounts += 1 + words.length;
    for (let k = 0; k < words.length; k++) needAdvances += words[k].length;
  }
  // Sized to hold an epoch's labels (the intern arena's bytes): a guard, should the arena grow past them.
  if (measureCountsUsed + needCounts > MEASURE.counts || measureAdvancesUsed + needAdvances > MEASURE.advances) {
    info[2 * id] = -1;
    return;
  }
  const counts = json.measureCounts();
  const advances = json.measureAdvances();
  let c = measureCountsUsed;
  let a = measureAdvancesUsed;
  counts[c++] = paragraphs.length;
  for (let p = 0; p < paragraphs.length; p++) {
    const words = paragraphs[p];
    counts[c++] = words.length;
    for (let k = 0; k < words.length; k++) {
      const chars = words[k];
      counts[c++] = chars.length;
      for (let i = 0; i < chars.length; i++) advances[a + i] = chars[i];
      a += chars.length;
    }
  }
  info[2 * id] = measureCountsUsed;
  info[2 * id + 1] = measureAdvancesUsed;
  json.measureWidest()[id] = label.widest;
  measureCountsUsed = c;
  measureAdvancesUsed = a;
}

/** Interned label `id` (action `i`'s text): sliced, normalised, measured and handed over when new to the epoch. */
function internedLabel(text: string, i: number, id: number): void {
  if (internText[id] !== undefined) return;
  const label = json.fieldString(text, i, Field.text);
  internText[id] = label;
  internNorm[id] = normalizeLabel(label);
  internMeasures[id] = measureLabel(label);
  handOverLabel(id, label);
  handOverMeasure(id, internMeasures[id]);
}

/** A label field as labelOf reads it, once the checks have accepted it (absent or a string). */
function acceptedLabel(text: string, i: number): string {
  return json.fieldKind(i, Field.text) === Kind.string ? json.fieldString(text, i, Field.text) : '';
}

/**
 * The canvas from assembly/strong-check.ts's results: the counts and the layout's tallies, and each label new to the
 * intern epoch handed over (strong-match.ts and strong-overflow.ts read them next). The arrays are left to
 * completeCanvas: when WebAssembly scores the entities, edges and layout, nothing reads them.
 */
function fromWasm(text: string, found: JsonSource): ExecutionCounts {
  const r = json.strongResults();
  const f = json.strongBoxes();
  const shapes = r[Strong.shapes];
  // A new epoch, or atoms started over (strong-values.ts): every label is met anew and handed to strong-match.ts.
  if (r[Strong.internEpoch] !== internEpoch || !atomsKept()) {
    internEpoch = r[Strong.internEpoch];
    internText.length = 0;
    internNorm.length = 0;
    internMeasures.length = 0;
    startLabelWords();
    measureCountsUsed = 0;
    measureAdvancesUsed = 0;
  }
  for (let s = 0; s < shapes; s++) {
    const id = r[Strong.shapeLabel + s];
    if (id >= 0) internedLabel(text, r[Strong.shapeAction + s], id);
  }
  canvas.count = shapes;
  canvas.links = r[Strong.arrows];
  canvas.idText = text;
  for (let k = 0; k < 6; k++) canvas.geometry[k] = f[Strong.geometry + k];
  canvas.tallied = true;
  canvasComplete = false;
  return done(found, r[Strong.actions], r[Strong.schemaErrors], r[Strong.applied], 'wasm');
}

/** StrongCanvas.complete: the arrays of a canvas from fromWasm, from the results and records. */
function completeCanvas(): void {
  if (canvasComplete) return;
  canvasComplete = true;
  const r = json.strongResults();
  const f = json.strongBoxes();
  const text = canvas.idText!;
  for (let s = 0; s < canvas.count; s++) {
    const i = r[Strong.shapeAction + s];
    canvas.shape[s] = KINDS[r[Strong.shapeKind + s]];
    canvas.x[s] = f[Strong.x + s];
    canvas.y[s] = f[Strong.y + s];
    canvas.w[s] = f[Strong.w + s];
    canvas.h[s] = f[Strong.h + s];
    canvas.idStart[s] = json.fieldStart(i, Field.id);
    canvas.idEnd[s] = json.fieldEnd(i, Field.id);
    const id = r[Strong.shapeLabel + s];
    if (id >= 0) {
      canvas.text[s] = internText[id];
      canvas.norm[s] = internNorm[id];
      canvas.measures[s] = internMeasures[id];
    } else {
      const label = id === Strong.labelAbsent ? '' : json.fieldString(text, i, Field.text);
      canvas.text[s] = label;
      canvas.norm[s] = normalizeLabel(label);
      canvas.measures[s] = measureLabel(label);
    }
  }
  for (let k = 0; k < canvas.links; k++) {
    canvas.from[k] = r[Strong.arrowFrom + k];
    canvas.to[k] = r[Strong.arrowTo + k];
    canvas.arrowText[k] = acceptedLabel(text, r[Strong.arrowAction + k]);
  }
}

/** The id of shape `s`. */
function shapeId(c: StrongCanvas, s: number): string {
  return c.idText === null ? c.ids[s] : c.idText.slice(c.idStart[s], c.idEnd[s]);
}

/** The arrays as Canvas.toJSON() writes a canvas: for tests and logs. */
export function strongCanvasJson(c: StrongCanvas): { shapes: { id: string; shape: string; x: number; y: number; w: number; h: number; text: string }[]; arrows: { from: string; to: string; text: string }[] } {
  c.complete();
  const shapes = [];
  for (let s = 0; s < c.count; s++) shapes.push({ id: shapeId(c, s), shape: c.shape[s], x: c.x[s], y: c.y[s], w: c.w[s], h: c.h[s], text: c.text[s] });
  const arrows = [];
  for (let k = 0; k < c.links; k++) arrows.push({ from: shapeId(c, c.from[k]), to: shapeId(c, c.to[k]), text: c.arrowText[k] });
  return { shapes, arrows };
}
