// The strong rubric's action checks on json-scan.ts's records (used by src/reward/strong-fast.ts): create_shape and
// connect as the action schemas (src/env/actions.ts) and the canvas judge them, in strict JSON's grammar, without a
// JavaScript string per id. It answers the outcome counts and the canvas (per shape the action it came from, its kind
// and box, and its label as an id interned across completions; per arrow its ends and action; the layout's geometric
// tallies, strong-layout.ts), from which JavaScript slices only arrow labels and labels it has not met before. What
// bytes cannot compare as JavaScript compares strings (a type, id or shape written with escapes; an id holding
// U+FFFD, which may stand for a lone surrogate) or a number the scan left unconverted makes it answer
// STRONG_FALLBACK: strong-fast.ts then runs the same checks in JavaScript on the same records, which stay the
// definition the tests hold this to.
import { actionCount, base, F_FROM, F_H, F_ID, F_SHAPE, F_TEXT, F_TO, F_TYPE, F_W, F_X, F_Y, FLAG_ESCAPE, FLAG_EXACT, FLOAT, INT, STRING } from './json-scan';
import { layoutGeometry } from './strong-layout';
import { addShapeId, byteLength, bytesEqual, bytesFrom, bytesIs, clearShapeIds, findShapeId, flagsOf, idKey, kindOf, labelHash, rec } from './seed-score';

export const STRONG_FALLBACK: i32 = 0;
export const STRONG_DONE: i32 = 1;

export const MAX_SHAPES: i32 = 40;
const MAX_SIDE: f64 = 1000;

// Results, one block that strong-fast.ts views as i32 and f64: the counts (actions, schema errors, applied, shapes,
// arrows; 8 slots), then per shape its action and kind index (SHAPE_KINDS order), per arrow its ends and action,
// then the boxes as four f64 arrays (x, y, w, h), then the layout's geometric tallies (strong-layout.ts, 6 f64), then
// each shape's interned label (see internLabel). Counts slot 5 holds the intern table's epoch.
const results = memory.data(32 + 5 * MAX_SHAPES * 4 + 4 * MAX_SHAPES * 8 + 6 * 8 + MAX_SHAPES * 4, 16);
export const counts = results;
const shapeAction = results + 32;
export const shapeKind = shapeAction + MAX_SHAPES * 4;
export const arrowFrom = shapeKind + MAX_SHAPES * 4;
export const arrowTo = arrowFrom + MAX_SHAPES * 4;
const arrowAction = arrowTo + MAX_SHAPES * 4;
const boxX = arrowAction + MAX_SHAPES * 4;
const boxY = boxX + MAX_SHAPES * 8;
export const boxW = boxY + MAX_SHAPES * 8;
export const boxH = boxW + MAX_SHAPES * 8;
export const geometry = boxH + MAX_SHAPES * 8;
export const shapeLabel = geometry + 6 * 8;

// Labels interned across completions (a GRPO group, and training, repeat them): each distinct label's bytes get an
// id, so that JavaScript slices and normalises it once. The table starts over (a new epoch) when nearly full.
const INTERN_SLOTS: i32 = 4096;
export const INTERN_MAX: i32 = INTERN_SLOTS / 2;
const ARENA_BYTES: i32 = 1 << 16;
const internTable = memory.data(INTERN_SLOTS * 20, 16); // epoch, arena offset, length, hash, id
const arena = memory.data(ARENA_BYTES, 16);
let internEpoch: i32 = 1;
let internCount: i32 = 0;
let arenaUsed: i32 = 0;
/** A label with no text field. */
export const LABEL_ABSENT: i32 = -2;
/**
 * A label that bytes cannot stand for (U+FFFD, which a lone surrogate also becomes), or that does not fit what is
 * left of the arena: JavaScript slices it.
 */
export const LABEL_UNINTERNED: i32 = -1;

/** Before a completion: a new epoch when its labels might not fit. */
function startInterning(): void {
  if (internCount > INTERN_MAX - MAX_SHAPES || arenaUsed > ARENA_BYTES / 2) {
    internEpoch++;
    internCount = 0;
    arenaUsed = 0;
  }
}

/**
 * The id of a string label's bytes (escapes included: the same bytes decode to the same string), or
 * LABEL_UNINTERNED.
 */
function internLabel(r: usize): i32 {
  const p = bytesFrom(r);
  const n = byteLength(r);
  const h = labelHash(p, n);
  // The table starts over only between completions (startInterning), so that one completion's ids share an epoch.
  if (h < 0 || arenaUsed + n > ARENA_BYTES) return LABEL_UNINTERNED;
  let slot = <i32>(<u32>h & <u32>(INTERN_SLOTS - 1));
  let e = internTable + <usize>(slot * 20);
  while (load<i32>(e) == internEpoch) {
    if (load<i32>(e, 8) == n && load<u32>(e, 12) == <u32>h && bytesEqual(arena + <usize>load<i32>(e, 4), p, n)) return load<i32>(e, 16);
    slot = (slot + 1) & (INTERN_SLOTS - 1);
    e = internTable + <usize>(slot * 20);
  }
  memory.copy(arena + <usize>arenaUsed, p, n);
  store<i32>(e, internEpoch);
  store<i32>(e, arenaUsed, 4);
  store<i32>(e, n, 8);
  store<u32>(e, <u32>h, 12);
  store<i32>(e, internCount, 16);
  arenaUsed += n;
  return internCount++;
}
const idStart = memory.data(MAX_SHAPES * 4);
const idLength = memory.data(MAX_SHAPES * 4);
const idHash = memory.data(MAX_SHAPES * 4);

export function strongResultsBase(): usize {
  return counts;
}

/** z.string().min(1): a string of at least one UTF-16 unit (an escape decodes to at least one). */
@inline function isId(r: usize): bool {
  return kindOf(r) == STRING && load<i32>(r, 8) > load<i32>(r, 4);
}

/** z.number(): an int or float token (the scan has converted it: FLAG_EXACT); the value, NaN when not finite. */
let numberOk: bool = true;
@inline function numberOf(r: usize): f64 {
  const k = kindOf(r);
  if (k != INT && k != FLOAT) return NaN;
  if (!(flagsOf(r) & FLAG_EXACT)) {
    numberOk = false;
    return NaN;
  }
  const v = load<f64>(r, 24);
  return v - v == 0 ? v : NaN;
}

/** Index of the shape whose id has these bytes, or -1 (ids on the canvas are unique: a duplicate is refused). */
@inline function shapeIndex(p: usize, n: i32, h: u32): i32 {
  return findShapeId(idStart, idLength, idHash, p, n, h);
}

/**
 * The shape kind's index in SHAPE_KINDS (rectangle, ellipse, diamond, text), or -1: the four tests made at once and
 * summed (at most one holds), where a chain of branches is missed whenever the kind changes from shape to shape. The
 * 9 bytes read may run past the string: the input keeps 16 bytes of slack, and the length test comes with them.
 */
@inline function kindIndex(r: usize): i32 {
  const n = byteLength(r);
  const p = bytesFrom(r);
  const lo = load<u64>(p);
  const seven = lo & 0xffffffffffffff;
  const rectangle = <i32>(n == 9) & <i32>(lo == 0x6c676e6174636572) & <i32>(load<u8>(p, 8) == 0x65);
  const ellipse = <i32>(n == 7) & <i32>(seven == 0x657370696c6c65);
  const diamond = <i32>(n == 7) & <i32>(seven == 0x646e6f6d616964);
  const text = <i32>(n == 4) & <i32>((lo & 0xffffffff) == 0x74786574);
  return rectangle + 2 * ellipse + 3 * diamond + 4 * text - 1;
}

/**
 * The actions of the last scan (strict grammar; the caller has checked that the root is an object whose "actions"
 * is an array of 1 to 40 objects) run on an empty canvas. STRONG_DONE leaves the counts and canvas in
 * strongResultsBase().
 */
export function strongCheck(): i32 {
  const n = actionCount;
  startInterning();
  clearShapeIds();
  numberOk = true;
  let schemaErrors = 0;
  let applied = 0;
  let shapes = 0;
  let arrows = 0;
  for (let i = 0; i < n; i++) {
    const type = rec(i, F_TYPE);
    if (kindOf(type) != STRING) {
      schemaErrors++;
      continue;
    }
    if (flagsOf(type) & FLAG_ESCAPE) return STRONG_FALLBACK;
    const text = rec(i, F_TEXT);
    const tk = kindOf(text);
    // label.optional(): absent or a string.
    const labelOk = tk == 0 || tk == STRING;
    // "create_shape" and "connect" as little-endian words.
    if (bytesIs(type, 12, 0x735f657461657263, 0x65706168)) {
      const id = rec(i, F_ID);
      const shape = rec(i, F_SHAPE);
      if (!isId(id) || kindOf(shape) != STRING) {
        schemaErrors++;
        continue;
      }
      if (flagsOf(shape) & FLAG_ESCAPE) return STRONG_FALLBACK;
      const kind = kindIndex(shape);
      const x = numberOf(rec(i, F_X));
      const y = numberOf(rec(i, F_Y));
      const w = numberOf(rec(i, F_W));
      const h = numberOf(rec(i, F_H));
      if (!numberOk) return STRONG_FALLBACK;
      // NaN fails every comparison: a missing, non-numeric or infinite coordinate refuses the action.
      if (kind < 0 || !(x == x && y == y && w > 0 && w <= MAX_SIDE && h > 0 && h <= MAX_SIDE) || !labelOk) {
        schemaErrors++;
        continue;
      }
      const key = idKey(id);
      if (key < 0) return STRONG_FALLBACK;
      const idAt = bytesFrom(id);
      const idBytes = byteLength(id);
      const hash = <u32>key;
      // A duplicate id: the canvas refuses it.
      if (shapeIndex(idAt, idBytes, hash) >= 0) continue;
      const o = <usize>shapes << 2;
      const b = <usize>shapes << 3;
      store<i32>(idStart + o, <i32>(idAt - base));
      store<i32>(idLength + o, idBytes);
      store<u32>(idHash + o, hash);
      addShapeId(shapes, hash);
      store<i32>(shapeAction + o, i);
      store<i32>(shapeKind + o, kind);
      store<i32>(shapeLabel + o, tk == STRING ? internLabel(text) : LABEL_ABSENT);
      store<f64>(boxX + b, x);
      store<f64>(boxY + b, y);
      store<f64>(boxW + b, w);
      store<f64>(boxH + b, h);
      shapes++;
      applied++;
    } else if (bytesIs(type, 7, 0x7463656e6e6f63, 0)) {
      const from = rec(i, F_FROM);
      const to = rec(i, F_TO);
      if (!isId(from) || !isId(to) || !labelOk) {
        schemaErrors++;
        continue;
      }
      const fromKey = idKey(from);
      const toKey = idKey(to);
      if (fromKey < 0 || toKey < 0) return STRONG_FALLBACK;
      const fromAt = bytesFrom(from);
      const fromBytes = byteLength(from);
      const toAt = bytesFrom(to);
      const toBytes = byteLength(to);
      const a = shapeIndex(fromAt, fromBytes, <u32>fromKey);
      const c = shapeIndex(toAt, toBytes, <u32>toKey);
      // A missing end or a shape to itself: the canvas refuses it.
      if (a < 0 || c < 0 || a == c) continue;
      const o = <usize>arrows << 2;
      store<i32>(arrowFrom + o, a);
      store<i32>(arrowTo + o, c);
      store<i32>(arrowAction + o, i);
      arrows++;
      applied++;
    } else {
      schemaErrors++;
    }
  }
  store<i32>(counts, n);
  store<i32>(counts, schemaErrors, 4);
  store<i32>(counts, applied, 8);
  store<i32>(counts, shapes, 12);
  store<i32>(counts, arrows, 16);
  store<i32>(counts, internEpoch, 20);
  layoutGeometry(shapes, arrows, boxX, boxY, boxW, boxH, arrowFrom, arrowTo, geometry);
  return STRONG_DONE;
}
