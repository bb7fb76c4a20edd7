// The rewards' JSON reader: assembly/json-scan.ts compiled to WebAssembly (npm run build:wasm, with the seed
// rubric's scorer assembly/seed-score.ts in the same module, assembly/reward.ts). It checks a
// completion's grammar and records where each action's fields lie, without building any JavaScript object, so a
// reward reads only the few values it scores. Scans answer ok, invalid (the text is not JSON in the chosen grammar:
// JSON.parse refuses it, or in Python's grammar json.loads raises JSONDecodeError), pyLimit (Python's grammar only:
// json.loads raises RecursionError or ValueError at a limit) or unusual (the caller's exact path must decide). One document is loaded at a time; the accessors read the last scan.
import { existsSync, readFileSync } from 'node:fs';
import { GEOMETRY_CONSTANTS, LABEL_CONSTANTS } from './layout.ts';

export const SCAN = { ok: 0, invalid: 1, unusual: 2, pyLimit: 3, noSpan: 4 } as const;

export const KIND = {
  absent: 0,
  string: 1,
  int: 2,
  float: 3,
  true: 4,
  false: 5,
  null: 6,
  object: 7,
  array: 8,
  nan: 9,
  infinity: 10,
  negInfinity: 11,
} as const;

export const FIELD = { type: 0, id: 1, shape: 2, x: 3, y: 4, w: 5, h: 6, text: 7, from: 8, to: 9 } as const;
const FIELDS = 10;
/** Actions recorded field by field; a longer actions array is only counted (the rewards refuse more than 40). */
export const MAX_RECORDED = 41;
/** Labels the seed scorer can leave to JavaScript's str(): one per action of the 40 it accepts. */
const MAX_PENDING = 40;
const REC_INTS = 8; // 32 bytes: kind, start, end, flags, byte start, byte end, f64
const FLAG_ESCAPE = 1;
const FLAG_EXACT = 2;

interface Exports {
  memory: WebAssembly.Memory;
  inputBase(): number;
  recordsBase(): number;
  elementKindsBase(): number;
  getRootKind(): number;
  getActionsKind(): number;
  getActionCount(): number;
  getDocStart(): number;
  getDocEnd(): number;
  inexactBase(): number;
  inexactCountBase(): number;
  scan(from: number, to: number, utf16From: number, python: number): number;
  utf16ToUtf8(from: number, units: number, to: number): number;
  byteOffset(unit: number, length: number): number;
  firstOpenBrace(length: number): number;
  lastCloseBrace(length: number): number;
  promptBase(): number;
  promptCapacity(): number;
  seedResultsBase(): number;
  setPrompt(length: number): number;
  seedScore(): number;
  seedPendingBase(): number;
  getSeedPendingCount(): number;
  seedSuppliedBase(): number;
  seedSuppliedEndsBase(): number;
  seedSuppliedCapacity(): number;
  supplySeedLabels(): void;
  strongResultsBase(): number;
  strongCheck(): number;
  usableActions(max: number): number;
  setLayoutConstants(...constants: number[]): void;
  setMatchConstants(abbreviation: number, extraWord: number, wrongShape: number): void;
  labelInfoBase(): number;
  labelWordsBase(): number;
  namesBase(): number;
  nameWordsBase(): number;
  specEntitiesBase(): number;
  specEdgesBase(): number;
  matchOutBase(): number;
  strongMatch(entities: number, edges: number, fromInput: number): number;
  setOverflowConstants(...constants: number[]): void;
  measureInfoBase(): number;
  measureCountsBase(): number;
  measureAdvancesBase(): number;
  measureWidestBase(): number;
  layoutPenalty(): number;
}

/**
 * What the seed scorer answers: its results are in seedResults(), or parse_actions raises, or JavaScript must score,
 * or some labels' str() is to be supplied (seedPending, supplySeedLabels) before scoring again.
 */
export const SEED = { fallback: 0, done: 1, refused: 2, labels: 3 } as const;

/** The strong action checks' results (assembly/strong-check.ts): i32 slots, the boxes as f64 from byte 832. */
export const STRONG = {
  /** i32 indexes: the counts, then per shape and per arrow arrays of MAX_ACTIONS (40) slots. */
  actions: 0,
  schemaErrors: 1,
  applied: 2,
  shapes: 3,
  arrows: 4,
  /** Changes when the label intern table starts over: ids of an earlier epoch name nothing. */
  internEpoch: 5,
  shapeAction: 8,
  shapeKind: 48,
  arrowFrom: 88,
  arrowTo: 128,
  arrowAction: 168,
  /** Each shape's label: an intern id (>= 0), labelAbsent or labelUninterned. */
  shapeLabel: 540,
  labelAbsent: -2,
  labelUninterned: -1,
  /** f64 indexes into strongBoxes(): x, y, w, h arrays, then the layout's 6 geometric tallies (strong-layout.ts). */
  x: 0,
  y: 40,
  w: 80,
  h: 120,
  geometry: 160,
} as const;
/**
 * The strong entity matching's tables (assembly/strong-match.ts): per interned label (LABEL_STRIDE i32: words at,
 * word count or -1, abbreviations, stem mask, canonical atom) and its words; per spec name (NAME_STRIDE i32: words
 * at, word count, abbreviations, stem mask, canonical atom, name atom) and its words; per spec entity 2 i32 (its
 * name's index, the wanted kind); per spec edge 2 i32 (its ends' name indexes). Capacities: larger specs and labels
 * take JavaScript's path.
 */
export const MATCH = {
  labels: 2048,
  labelStride: 5,
  labelWords: 8192,
  maxLabelWords: 1024,
  nameStride: 8,
  maxNames: 512,
  nameWords: 2048,
  maxEntities: 64,
  maxEdges: 256,
} as const;
/**
 * The label measures' tables (assembly/strong-overflow.ts): per interned label (2 i32: where its counts start, -1
 * when not handed over; where its advances start; and in a table of its own, MeasuredLabel.widest); the counts
 * (paragraphs, then per paragraph its words and each word's characters) and each character's advance in em, sized
 * to hold an intern epoch's labels.
 */
export const MEASURE = { counts: 73728, advances: 65536 } as const;
const STRONG_INTS = 580;
const STRONG_BOXES_AT = 832;

const WASM_URL = new URL('../../assembly/build/reward.wasm', import.meta.url);

function load(): Exports | null {
  if (!existsSync(WASM_URL)) return null;
  const module = new WebAssembly.Module(readFileSync(WASM_URL));
  return new WebAssembly.Instance(module, {}).exports as unknown as Exports;
}

/**
 * Buffer's UTF-16 write itself, without `write`'s handling of its arguments and encoding name (0.05 µs a text):
 * `ucs2Write` is not documented but has been on Buffer's prototype since Node's first releases; `write` where not.
 */
const writeUnits: (this: Buffer, text: string, offset: number) => number =
  (Buffer.prototype as unknown as { ucs2Write?: (this: Buffer, text: string, offset: number) => number }).ucs2Write ??
  function (this: Buffer, text: string, offset: number): number {
    return this.write(text, offset, 'utf16le');
  };

/**
 * The loaded reader. One document at a time: `load` copies a text in, `scan` checks a byte range of it, and the
 * accessors read the last scan's records. Methods on one object: callers keep it in a module constant, which V8
 * inlines, where an imported function would cost a getter call per use (tsx compiles modules to CommonJS).
 */
export class JsonReader {
  private readonly encoder = new TextEncoder();
  private input = new Uint8Array(0);
  /** The input region as a Buffer, for Buffer.write's UTF-16 copy. */
  private inputBuffer = Buffer.alloc(0);
  private inputAt = 0;
  private ints = new Int32Array(0);
  private floats = new Float64Array(0);
  private kinds = new Int32Array(0);
  private inexact = new Int32Array(0);
  private inexactCount = new Int32Array(0);
  private promptBytes = new Uint8Array(0);
  private seedOut = new Float64Array(0);
  private pending = new Int32Array(0);
  private supplied = new Uint8Array(0);
  private suppliedEnds = new Int32Array(0);
  private strongInts = new Int32Array(0);
  private strongFloats = new Float64Array(0);
  private labelInfoView = new Int32Array(0);
  private labelWordsView = new Int32Array(0);
  private namesView = new Int32Array(0);
  private nameWordsView = new Int32Array(0);
  private specEntitiesView = new Int32Array(0);
  private specEdgesView = new Int32Array(0);
  private matchOutView = new Float64Array(0);
  private matchAssignmentView = new Int32Array(0);
  private measureInfoView = new Int32Array(0);
  private measureCountsView = new Int32Array(0);
  private measureAdvancesView = new Float64Array(0);
  private measureWidestView = new Float64Array(0);
  private loadedPrompt: string | null = null;
  private promptOk = false;
  private loadedText: string | null = null;
  private loadedBytes = 0;

  constructor(private readonly w: Exports) {
    w.setLayoutConstants(...GEOMETRY_CONSTANTS);
    w.setOverflowConstants(...LABEL_CONSTANTS);
    // The tables kept past the static data (json-scan.ts RESERVED_BYTES), and a first input region.
    const short = w.inputBase() + 65536 - w.memory.buffer.byteLength;
    if (short > 0) w.memory.grow(Math.ceil(short / 65536));
    this.refreshViews();
  }

  /**
   * Views of the module's memory, made anew when load() grows it: nothing else grows it (the module has no
   * allocator), so no call checks the buffer (its getter costs about 15 ns, a WebAssembly call about 10).
   */
  private refreshViews(): void {
    const buffer = this.w.memory.buffer;
    const inputAt = this.w.inputBase();
    this.inputAt = inputAt;
    this.input = new Uint8Array(buffer, inputAt, buffer.byteLength - inputAt);
    this.inputBuffer = Buffer.from(buffer, inputAt, buffer.byteLength - inputAt);
    const records = this.w.recordsBase();
    this.ints = new Int32Array(buffer, records, MAX_RECORDED * FIELDS * REC_INTS);
    this.floats = new Float64Array(buffer, records, (MAX_RECORDED * FIELDS * REC_INTS) / 2);
    this.kinds = new Int32Array(buffer, this.w.elementKindsBase(), MAX_RECORDED);
    this.inexact = new Int32Array(buffer, this.w.inexactBase(), MAX_RECORDED * FIELDS);
    this.inexactCount = new Int32Array(buffer, this.w.inexactCountBase(), 1);
    this.promptBytes = new Uint8Array(buffer, this.w.promptBase(), this.w.promptCapacity());
    this.seedOut = new Float64Array(buffer, this.w.seedResultsBase(), 3);
    this.pending = new Int32Array(buffer, this.w.seedPendingBase(), MAX_PENDING);
    this.supplied = new Uint8Array(buffer, this.w.seedSuppliedBase(), this.w.seedSuppliedCapacity());
    this.suppliedEnds = new Int32Array(buffer, this.w.seedSuppliedEndsBase(), MAX_PENDING);
    const strong = this.w.strongResultsBase();
    this.strongInts = new Int32Array(buffer, strong, STRONG_INTS);
    this.strongFloats = new Float64Array(buffer, strong + STRONG_BOXES_AT, 166);
    this.labelInfoView = new Int32Array(buffer, this.w.labelInfoBase(), MATCH.labels * MATCH.labelStride);
    this.labelWordsView = new Int32Array(buffer, this.w.labelWordsBase(), MATCH.labelWords);
    this.namesView = new Int32Array(buffer, this.w.namesBase(), MATCH.maxNames * MATCH.nameStride);
    this.nameWordsView = new Int32Array(buffer, this.w.nameWordsBase(), MATCH.nameWords);
    this.specEntitiesView = new Int32Array(buffer, this.w.specEntitiesBase(), MATCH.maxEntities * 2);
    this.specEdgesView = new Int32Array(buffer, this.w.specEdgesBase(), MATCH.maxEdges * 2);
    const matchOut = this.w.matchOutBase();
    this.matchOutView = new Float64Array(buffer, matchOut, 2);
    this.matchAssignmentView = new Int32Array(buffer, matchOut + 16, MATCH.maxEntities);
    this.measureInfoView = new Int32Array(buffer, this.w.measureInfoBase(), MATCH.labels * 2);
    this.measureCountsView = new Int32Array(buffer, this.w.measureCountsBase(), MEASURE.counts);
    this.measureAdvancesView = new Float64Array(buffer, this.w.measureAdvancesBase(), MEASURE.advances);
    this.measureWidestView = new Float64Array(buffer, this.w.measureWidestBase(), MATCH.labels);
  }

  /**
   * Copies `text` in as UTF-8 (a lone surrogate becomes U+FFFD, also one UTF-16 unit); returns its byte length.
   * The memory keeps 16 bytes past the text, which the scan's 16-byte blocks may read. The text goes in as UTF-16
   * (Buffer.write, a copy of its units) past the UTF-8's room, and WebAssembly writes the UTF-8 (utf16ToUtf8, as
   * TextEncoder does): 0.2 µs for a 1.4 KB text, where encodeInto takes 0.14 for ASCII and 1.2 for any other.
   */
  load(text: string): number {
    if (this.loadedText === text) return this.loadedBytes;
    const units = text.length;
    const staged = (3 * units + 31) & ~15;
    const need = staged + 2 * units;
    if (this.input.length < need) {
      this.w.memory.grow(Math.ceil((need - this.input.length) / 65536));
      this.refreshViews();
    }
    writeUnits.call(this.inputBuffer, text, staged);
    this.loadedBytes = this.w.utf16ToUtf8(this.inputAt + staged, units, this.inputAt);
    this.loadedText = text;
    return this.loadedBytes;
  }

  /** The loaded text's UTF-8 bytes: a view of the module's memory, valid until the next load. */
  loadedUtf8(): Uint8Array {
    return this.input.subarray(0, this.loadedBytes);
  }

  /** Scans loaded bytes [from, to), whose first byte is UTF-16 index `unitFrom`, in JSON's or Python's grammar. */
  scan(from: number, to: number, unitFrom: number, python: boolean): number {
    return this.w.scan(from, to, unitFrom, python ? 1 : 0);
  }

  /** Byte offset of a UTF-16 index of the loaded text (`bytes` long). */
  byteOffset(unit: number, bytes: number): number {
    return unit === 0 ? 0 : this.w.byteOffset(unit, bytes);
  }

  /** Byte offset of the loaded text's (`bytes` long) first '{', or -1: the byte of its first '{' unit. */
  firstOpenBrace(bytes: number): number {
    return this.w.firstOpenBrace(bytes);
  }

  /** Byte offset of the loaded text's last '}', or -1. */
  lastCloseBrace(bytes: number): number {
    return this.w.lastCloseBrace(bytes);
  }

  /**
   * Scans the loaded text's brace span (its first '{' to its last '}'), the last resort of extractJson and of
   * parse_actions, after a scan of the whole text found no document there: a SCAN status, or SCAN.noSpan when the
   * text has no such span. `docStart` and `docEnd` are that scan's; `recordsKept`, whether its records are still
   * the loaded ones (no other scan since).
   */
  scanBraceSpan(text: string, bytes: number, python: boolean, docStart: number, docEnd: number, recordsKept: boolean): number {
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    if (start === -1 || end === -1 || end <= start) return SCAN.noSpan;
    const ascii = bytes === text.length;
    // An ASCII byte never occurs inside a longer character: the first '{' byte is the first '{' unit's, and so on.
    const from = ascii ? start : this.w.firstOpenBrace(bytes);
    const to = ascii ? end + 1 : this.w.lastCloseBrace(bytes) + 1;
    // A span that starts where the text's document did reads the same bytes, to the same decisions, as long as its
    // tokens lie inside it (none looks past its end): it parses only if that document closed at the span's end, and
    // then the whole text's records are the span's (only the text after the document failed it).
    if (docStart === from) {
      if (docEnd !== to) return SCAN.invalid;
      if (recordsKept) return SCAN.ok;
    }
    return this.w.scan(from, to, start, python ? 1 : 0);
  }

  rootKind(): number {
    return this.w.getRootKind();
  }
  actionsKind(): number {
    return this.w.getActionsKind();
  }
  /** Byte offset where the last scan's document began, after leading whitespace. */
  docStart(): number {
    return this.w.getDocStart();
  }
  /** Byte offset just past the last scan's document, or -1 when it never closed. */
  docEnd(): number {
    return this.w.getDocEnd();
  }
  /** Elements of the last "actions" array (meaningful when actionsKind() is array). */
  actionCount(): number {
    return this.w.getActionCount();
  }
  /** The last scan's action count when its root is an object whose "actions" is an array of 1 to `max` objects, else 0. */
  usableActions(max: number): number {
    return this.w.usableActions(max);
  }
  elementKind(i: number): number {
    return this.kinds[i];
  }
  fieldKind(i: number, f: number): number {
    return this.ints[(i * FIELDS + f) * REC_INTS];
  }
  /** UTF-16 index where the field's value starts: a string's first character, any other value's first character. */
  fieldStart(i: number, f: number): number {
    return this.ints[(i * FIELDS + f) * REC_INTS + 1];
  }
  /** UTF-16 index just past the field's value (before a string's closing quote). */
  fieldEnd(i: number, f: number): number {
    return this.ints[(i * FIELDS + f) * REC_INTS + 2];
  }

  /** A string field's value: its text, or JSON.parse of it when it holds escapes (Python decodes them alike). */
  fieldString(text: string, i: number, f: number): string {
    const r = (i * FIELDS + f) * REC_INTS;
    const s = this.ints[r + 1];
    const e = this.ints[r + 2];
    return this.ints[r + 3] & FLAG_ESCAPE ? (JSON.parse(text.slice(s - 1, e + 1)) as string) : text.slice(s, e);
  }

  /** Does a string field equal `word` (an escape-free literal)? Compared in place, without slicing. */
  fieldIs(text: string, i: number, f: number, word: string): boolean {
    const r = (i * FIELDS + f) * REC_INTS;
    const s = this.ints[r + 1];
    if (this.ints[r + 3] & FLAG_ESCAPE) return this.fieldString(text, i, f) === word;
    return this.ints[r + 2] - s === word.length && text.startsWith(word, s);
  }

  /** A number field's value (kind int or float): the double JSON.parse and Python's float() give for its token. */
  fieldNumber(text: string, i: number, f: number): number {
    const r = (i * FIELDS + f) * REC_INTS;
    return this.ints[r + 3] & FLAG_EXACT ? this.floats[r / 2 + 3] : Number(text.slice(this.ints[r + 1], this.ints[r + 2]));
  }

  /**
   * Converts the action fields' numbers the scan left unconverted (more than 15 digits, or a power of ten beyond
   * 1e22) as fieldNumber does, into their records, so that the seed scorer reads every number from the records.
   */
  settleNumbers(text: string): void {
    const n = this.inexactCount[0];
    for (let k = 0; k < n; k++) {
      const r = this.inexact[k] * REC_INTS;
      const kind = this.ints[r];
      if ((kind !== KIND.int && kind !== KIND.float) || this.ints[r + 3] & FLAG_EXACT) continue;
      this.floats[r / 2 + 3] = Number(text.slice(this.ints[r + 1], this.ints[r + 2]));
      this.ints[r + 3] |= FLAG_EXACT;
    }
  }

  /**
   * Reads a prompt's words for the seed scorer, once per prompt (GRPO scores a group of completions per prompt).
   * False when the scorer leaves this prompt to JavaScript (longer than its buffer, or see seed-score.ts).
   */
  seedPrompt(prompt: string): boolean {
    if (prompt === this.loadedPrompt) return this.promptOk;
    const { read, written } = this.encoder.encodeInto(prompt, this.promptBytes);
    this.promptOk = read === prompt.length && this.w.setPrompt(written) !== 0;
    this.loadedPrompt = prompt;
    return this.promptOk;
  }

  /** The seed scorer on the last scan and prompt: SEED.done leaves clean, layout and semantics in seedResults(). */
  seedScore(): number {
    return this.w.seedScore();
  }
  /**
   * The strong action checks on the last scan (strict grammar; root an object whose actions are 1 to 40 objects,
   * numbers settled): true leaves the counts and canvas in strongResults() and strongBoxes() (see STRONG), false
   * leaves the completion to strong-fast.ts's JavaScript checks.
   */
  strongCheck(): boolean {
    return this.w.strongCheck() !== 0;
  }
  strongResults(): Int32Array {
    return this.strongInts;
  }
  strongBoxes(): Float64Array {
    return this.strongFloats;
  }

  /** The weights strong-match.ts scores with (labels.ts and strong-values.ts define them): once, at load. */
  setMatchConstants(abbreviation: number, extraWord: number, wrongShape: number): void {
    this.w.setMatchConstants(abbreviation, extraWord, wrongShape);
  }
  /** Views of strong-match.ts's tables (see MATCH), valid until the next load. */
  labelInfo(): Int32Array {
    return this.labelInfoView;
  }
  labelWords(): Int32Array {
    return this.labelWordsView;
  }
  names(): Int32Array {
    return this.namesView;
  }
  nameWords(): Int32Array {
    return this.nameWordsView;
  }
  specEntities(): Int32Array {
    return this.specEntitiesView;
  }
  specEdges(): Int32Array {
    return this.specEdgesView;
  }
  /**
   * The entity matching on the last strongCheck's canvas (at least one shape) against the spec in specEntities and
   * specEdges: true leaves entities_present and the edges' structure in matchOut(), each entity's shape in
   * matchAssignment(); false when a label's words are not in the tables.
   */
  strongMatch(entities: number, edges: number, fromInput: boolean): boolean {
    return this.w.strongMatch(entities, edges, fromInput ? 1 : 0) !== 0;
  }
  matchOut(): Float64Array {
    return this.matchOutView;
  }
  matchAssignment(): Int32Array {
    return this.matchAssignmentView;
  }
  /** Views of strong-overflow.ts's tables (see MEASURE), valid until the next load. */
  measureInfo(): Int32Array {
    return this.measureInfoView;
  }
  measureCounts(): Int32Array {
    return this.measureCountsView;
  }
  measureAdvances(): Float64Array {
    return this.measureAdvancesView;
  }
  measureWidest(): Float64Array {
    return this.measureWidestView;
  }
  /**
   * layoutScoreFromGeometry's total penalty (before Math.exp) on the last strongCheck's canvas, its labels' measures
   * handed over (measureInfo), or -1 when one is not.
   */
  layoutPenalty(): number {
    return this.w.layoutPenalty();
  }

  /** After SEED.labels: how many labels await their str(), and (seedPendingAction) the action holding each. */
  seedPendingCount(): number {
    return this.w.getSeedPendingCount();
  }
  seedPendingAction(k: number): number {
    return this.pending[k];
  }

  /**
   * Hands the seed scorer the str() of each pending label, in order, for its next seedScore. False when they do not
   * fit its buffer (the caller then scores in JavaScript).
   */
  supplySeedLabels(labels: string[]): boolean {
    let at = 0;
    for (let k = 0; k < labels.length; k++) {
      const { read, written } = this.encoder.encodeInto(labels[k], this.supplied.subarray(at));
      if (read !== labels[k].length) return false;
      at += written;
      this.suppliedEnds[k] = at;
    }
    this.w.supplySeedLabels();
    return true;
  }

  /** clean (1 or 0), layout, semantics of the last SEED.done. */
  seedResults(): Float64Array {
    return this.seedOut;
  }
}

const wasm = load();
/** The reader, or null without the build: the rewards then take their exact paths (same scores, slower). */
export const jsonReader: JsonReader | null = wasm ? new JsonReader(wasm) : null;
