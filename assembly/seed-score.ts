// The seed rubric's measurements on json-scan.ts's records (used by src/reward/seed.ts): env.py's canvas checks,
// reward.py's score_layout and score_semantics, without building the canvas in JavaScript. It reads the field bytes
// the scan recorded and answers DONE (results in `results`), REFUSED (parse_actions raises), LABELS (the str() of
// some labels is to be supplied: see `pending`) or FALLBACK: something only the JavaScript path reads exactly (an id
// or type written with escapes, an id holding U+FFFD, which may stand for a lone surrogate; a number the scan did not
// convert; a prompt holding a character whose lowercase form is ASCII). The definition stays src/reward/seed-fast.ts
// and seed.ts, which the tests compare with.
import {
  actionCount,
  actionsKind,
  ARRAY,
  base,
  elementKinds,
  F_FROM,
  F_H,
  F_ID,
  F_SHAPE,
  F_TEXT,
  F_TO,
  F_TYPE,
  F_W,
  F_X,
  F_Y,
  FALSE,
  FIELDS,
  FLAG_ESCAPE,
  FLAG_EXACT,
  FLOAT,
  INF,
  INT,
  NAN,
  NEG_INF,
  NULL,
  OBJECT,
  REC_BYTES,
  records,
  rootKind,
  STRING,
  TRUE,
} from './json-scan';

export const SEED_FALLBACK: i32 = 0;
export const SEED_DONE: i32 = 1;
export const SEED_REFUSED: i32 = 2;
/** Labels that are floats, lists or dicts await their str(), which JavaScript supplies (supplySeedLabels). */
export const SEED_LABELS: i32 = 3;

/** Longest prompt read here, in UTF-8 bytes; a longer one is scored by the JavaScript path. */
const PROMPT_MAX: i32 = 65536;
/** Important-word table: open addressing, at most half full. */
const SLOTS: i32 = 1024;
const MAX_IMPORTANT: i32 = SLOTS / 2;
const SLOT_BYTES: i32 = 20; // generation, offset, length, hash, stamp
const MAX_SHAPES: i32 = 40;

/** The prompt, with 16 bytes of slack that setPrompt's blocks may lower past its end. */
const prompt = memory.data(PROMPT_MAX + 16);
const table = memory.data(SLOTS * SLOT_BYTES);
/** The label word being read, lowercased (a word longer than every important word stops being kept). */
const word = memory.data(PROMPT_MAX);
// The canvas: per shape its id's bytes and hash, and its box as x, y, x + w, y + h.
const idStart = memory.data(MAX_SHAPES * 4);
const idLength = memory.data(MAX_SHAPES * 4);
const idHash = memory.data(MAX_SHAPES * 4);
const boxes = memory.data(MAX_SHAPES * 32);
// Labels whose str() only JavaScript spells (a float's repr, a list's or dict's): the actions that hold them, in the
// order the scorer meets them, then their str() as UTF-8 (end offsets per label), supplied for the next score.
const MAX_PENDING: i32 = 40;
const SUPPLIED_MAX: i32 = 65536;
const pending = memory.data(MAX_PENDING * 4);
const suppliedEnds = memory.data(MAX_PENDING * 4);
const supplied = memory.data(SUPPLIED_MAX);
let pendingCount: i32 = 0;
let labelsSupplied: bool = false;
/** clean (1 or 0), layout, semantics: f64 each. */
const results = memory.data(24);
const NONE_TEXT = memory.data<u8>([0x4e, 0x6f, 0x6e, 0x65]);
const TRUE_TEXT = memory.data<u8>([0x54, 0x72, 0x75, 0x65]);
const FALSE_TEXT = memory.data<u8>([0x46, 0x61, 0x6c, 0x73, 0x65]);

let generation: i32 = 0;
let stamp: i32 = 0;
let important: i32 = 0;
let longestImportant: i32 = 0;
let promptSupported: bool = false;

// Label reading results.
let hits: i32 = 0;
let nonSpace: bool = false;

export function promptBase(): usize {
  return prompt;
}
export function promptCapacity(): i32 {
  return PROMPT_MAX;
}
export function seedResultsBase(): usize {
  return results;
}
export function seedPendingBase(): usize {
  return pending;
}
export function getSeedPendingCount(): i32 {
  return pendingCount;
}
export function seedSuppliedBase(): usize {
  return supplied;
}
export function seedSuppliedEndsBase(): usize {
  return suppliedEnds;
}
export function seedSuppliedCapacity(): i32 {
  return SUPPLIED_MAX;
}
/** The pending labels' str() are in seedSuppliedBase(): the next seedScore reads them there. */
export function supplySeedLabels(): void {
  labelsSupplied = true;
}

/** A-Z lowered; `re`'s [a-zA-Z0-9_-] after lower(): 1 letter, 2 other word character, 0 none. */
@inline function wordClass(c: i32): i32 {
  if (<u32>((c | 0x20) - 0x61) < 26) return 1;
  return <u32>(c - 0x30) < 10 || c == 0x5f || c == 0x2d ? 2 : 0;
}

/** str.isspace() (Python): the Unicode White_Space set plus U+001C..U+001F. */
@inline function isPySpace(cp: i32): bool {
  if (cp < 0x80) return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20);
  return cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/**
 * A hash of a word's `n` lowered bytes at p, read 8 at a time (the last word masked: the prompt and word buffers
 * have more than 8 bytes after any word). Taken at the word's end, so that reading a word is no chain of multiplies.
 */
@inline function wordHash(p: usize, n: i32): u32 {
  let h = <u64>n;
  for (let i = 0; i < n; i += 8) {
    let w = load<u64>(p + <usize>i);
    if (n - i < 8) w &= lowBytes(n - i);
    h = (h ^ w) * 0x9e3779b97f4a7c15;
  }
  return <u32>(h >> 32);
}

/** Slot of a word in the important table, or -1. */
function findWord(at: usize, length: i32, hash: u32): i32 {
  let slot = <i32>(hash & <u32>(SLOTS - 1));
  let s = table + <usize>(slot * SLOT_BYTES);
  while (load<i32>(s) == generation) {
    if (load<i32>(s, 8) == length && load<u32>(s, 12) == hash && bytesEqual(prompt + <usize>load<i32>(s, 4), at, length)) return slot;
    slot = (slot + 1) & (SLOTS - 1);
    s = table + <usize>(slot * SLOT_BYTES);
  }
  return -1;
}

/** The prompt's word at [from, from + length) ends: a word of 4+ characters joins the table once. */
function endPromptWord(from: i32, length: i32): void {
  if (length < 4) return;
  const hash = wordHash(prompt + <usize>from, length);
  if (findWord(prompt + <usize>from, length, hash) >= 0) return;
  if (important == MAX_IMPORTANT) {
    promptSupported = false;
    return;
  }
  let slot = <i32>(hash & <u32>(SLOTS - 1));
  while (load<i32>(table + <usize>(slot * SLOT_BYTES)) == generation) slot = (slot + 1) & (SLOTS - 1);
  const s = table + <usize>(slot * SLOT_BYTES);
  store<i32>(s, generation);
  store<i32>(s, from, 4);
  store<i32>(s, length, 8);
  store<u32>(s, hash, 12);
  store<i32>(s, 0, 16);
  important++;
  if (length > longestImportant) longestImportant = length;
}

/** Code point of the UTF-8 character whose lead byte is at p (valid UTF-8: the input comes from TextEncoder). */
@inline function codePointAt(p: usize, c: i32): i32 {
  if (c < 0xe0) return ((c & 0x1f) << 6) | (load<u8>(p + 1) & 0x3f);
  if (c < 0xf0) return ((c & 0x0f) << 12) | ((load<u8>(p + 1) & 0x3f) << 6) | (load<u8>(p + 2) & 0x3f);
  return ((c & 0x07) << 18) | ((load<u8>(p + 1) & 0x3f) << 12) | ((load<u8>(p + 2) & 0x3f) << 6) | (load<u8>(p + 3) & 0x3f);
}

@inline function utf8Length(c: i32): usize {
  return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/** Is the lead byte at p that of U+0130 (C4 B0) or U+212A (E2 84 AA)? */
@inline function lowersToAsciiAt(p: usize): bool {
  const c = load<u8>(p);
  return (c == 0xc4 && load<u8>(p + 1) == 0xb0) || (c == 0xe2 && load<u8>(p + 1) == 0x84 && load<u8>(p + 2) == 0xaa);
}

/**
 * Reads the prompt's `length` bytes (copied to promptBase()): its words of 4+ characters, as
 * `re.findall(r"[a-zA-Z][a-zA-Z0-9_-]+", prompt.lower())` finds them. Returns false when the JavaScript path must
 * score this prompt's completions (too many words, or a character that lowers to ASCII). 16 bytes at a time: each
 * block is lowered in place and reduced to masks of its letters and word characters; a word starts at a letter and
 * runs over word characters. A byte of a longer character is neither: lower() gives no ASCII word character but for
 * U+0130 and U+212A, whose lead bytes are looked for in the block.
 */
export function setPrompt(length: i32): bool {
  generation++;
  important = 0;
  longestImportant = 0;
  promptSupported = true;
  let n = 0;
  for (let at = 0; at < length; at += 16) {
    const p = prompt + <usize>at;
    const v = v128.load(p);
    const lowered = v128.or(v, v128.and(i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x41)), i8x16.splat(26)), i8x16.splat(0x20)));
    v128.store(p, lowered);
    const letters = i8x16.lt_u(i8x16.sub(lowered, i8x16.splat(0x61)), i8x16.splat(26));
    const others = v128.or(
      i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(10)),
      v128.or(i8x16.eq(v, i8x16.splat(0x5f)), i8x16.eq(v, i8x16.splat(0x2d))),
    );
    const valid: u32 = length - at >= 16 ? 0xffff : (<u32>1 << <u32>(length - at)) - 1;
    let leads = <u32>i8x16.bitmask(v128.or(i8x16.eq(v, i8x16.splat(<i8>0xc4)), i8x16.eq(v, i8x16.splat(<i8>0xe2)))) & valid;
    while (leads != 0) {
      if (lowersToAsciiAt(p + <usize>ctz(leads))) return (promptSupported = false);
      leads &= leads - 1;
    }
    const letter = <u32>i8x16.bitmask(letters) & valid;
    const wordChars = letter | (<u32>i8x16.bitmask(others) & valid);
    let b: u32 = 0;
    for (;;) {
      if (n == 0) {
        const next = letter >> b;
        if (next == 0) break;
        b += ctz(next);
      }
      const run = ctz(~(wordChars >> b));
      n += <i32>run;
      b += run;
      if (b >= 16) break;
      endPromptWord(at + <i32>b - n, n);
      n = 0;
    }
  }
  if (n > 0) endPromptWord(length - n, n);
  return promptSupported;
}

/** A label word of `length` characters (lowered into `word`) ends: an important word not yet seen in this completion is a hit. */
@inline function endLabelWord(length: i32): void {
  if (length >= 4 && length <= longestImportant) {
    const slot = findWord(word, length, wordHash(word, length));
    if (slot >= 0) {
      const s = table + <usize>(slot * SLOT_BYTES);
      if (load<i32>(s, 16) != stamp) {
        store<i32>(s, stamp, 16);
        hits++;
      }
    }
  }
}

/**
 * One character of a label after lower(), for the word reader, in a word of `length` characters so far (0: none);
 * returns the word's new length.
 */
@inline function wordChar(cp: i32, length: i32): i32 {
  const cls = cp < 0x80 ? wordClass(cp) : 0;
  if (cls != 0 && (length > 0 || cls == 1)) {
    if (length < longestImportant) store<u8>(word + <usize>length, <u8>(cls == 1 ? cp | 0x20 : cp));
    return length + 1;
  }
  if (length > 0) endLabelWord(length);
  return 0;
}

@inline function hexValue(c: i32): i32 {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
}

/**
 * Reads a label's bytes [p, end), decoding JSON escapes when `escaped`: its words and whether it has a non-space.
 * Characters are code points (a \u escape gives a UTF-16 unit). lower() turns U+0130 into "i" and U+0307, and U+212A
 * into "k": the only characters whose lowercase form holds an ASCII word character. The state stays in locals.
 */
function readLabel(p: usize, end: usize, escaped: bool): void {
  let any = false;
  let length = 0;
  while (p < end) {
    const c = <i32>load<u8>(p);
    if (c < 0x80 && !(escaped && c == 0x5c)) {
      if (!isPySpace(c)) any = true;
      length = wordChar(c, length);
      p++;
      continue;
    }
    let cp = 0;
    if (c < 0x80) {
      const e = <i32>load<u8>(p + 1);
      if (e == 0x75) {
        cp = (hexValue(load<u8>(p + 2)) << 12) | (hexValue(load<u8>(p + 3)) << 8) | (hexValue(load<u8>(p + 4)) << 4) | hexValue(load<u8>(p + 5));
        p += 6;
      } else {
        cp = e == 0x6e ? 0x0a : e == 0x74 ? 0x09 : e == 0x72 ? 0x0d : e == 0x62 ? 0x08 : e == 0x66 ? 0x0c : e;
        p += 2;
      }
    } else {
      cp = codePointAt(p, c);
      p += utf8Length(c);
    }
    if (!isPySpace(cp)) any = true;
    if (cp == 0x130) {
      length = wordChar(0x69, length);
      length = wordChar(0x307, length);
    } else {
      length = wordChar(cp == 0x212a ? 0x6b : cp, length);
    }
  }
  if (length > 0) endLabelWord(length);
  nonSpace = any;
}

@inline export function rec(i: i32, f: i32): usize {
  return records + <usize>((i * FIELDS + f) * REC_BYTES);
}
@inline export function kindOf(r: usize): i32 {
  return load<i32>(r);
}
@inline export function flagsOf(r: usize): i32 {
  return load<i32>(r, 12);
}
@inline export function bytesFrom(r: usize): usize {
  return base + <usize>load<i32>(r, 16);
}
@inline export function byteLength(r: usize): i32 {
  return load<i32>(r, 20) - load<i32>(r, 16);
}

/** require_str: a non-empty string. */
@inline function isStr(r: usize): bool {
  return kindOf(r) == STRING && load<i32>(r, 8) > load<i32>(r, 4);
}

/** The low `n` bytes (n <= 8) of a little-endian word. */
@inline function lowBytes(n: i32): u64 {
  return n >= 8 ? <u64>-1 : (<u64>1 << (<u64>n * 8)) - 1;
}

/**
 * A string field equal to an ASCII word of `n` (<= 16) bytes, given as two little-endian words (the caller has ruled
 * escapes out). Reads up to 16 bytes from the field's start: the input's slack covers a short field at its end.
 */
@inline export function bytesIs(r: usize, n: i32, lo: u64, hi: u64): bool {
  if (byteLength(r) != n) return false;
  const p = bytesFrom(r);
  if ((load<u64>(p) & lowBytes(n)) != lo) return false;
  return n <= 8 || (load<u64>(p, 8) & lowBytes(n - 8)) == hi;
}

/** Do the bytes [p, p + n) hold U+FFFD (EF BF BD)? */
function holdsReplacement(p: usize, n: i32): bool {
  for (let i = 0; i + 2 < n; i++) {
    if (load<u8>(p + <usize>i) == 0xef && load<u8>(p + <usize>i + 1) == 0xbf && load<u8>(p + <usize>i + 2) == 0xbd) return true;
  }
  return false;
}

/**
 * A hash of an id's bytes, or -1 when the bytes do not compare like the JavaScript string they came from: an escape,
 * or U+FFFD (which a lone surrogate also becomes). It, labelHash and findShapeId are inlined: called four to six
 * times an action, the calls took 0.05 µs a row of the strong rubric (strongCheck on a valid row: 631 to 558 ns).
 */
@inline export function idKey(r: usize): i64 {
  return flagsOf(r) & FLAG_ESCAPE ? -1 : labelHash(bytesFrom(r), byteLength(r));
}

/**
 * A hash of the bytes [p, p + n), read 8 at a time, or -1 when they hold U+FFFD (which a lone surrogate also becomes,
 * so that the bytes stand for more than one string). A last partial word is masked: the input and the arenas it is
 * used on have 8 bytes or more after any such span.
 */
@inline export function labelHash(p: usize, n: i32): i64 {
  let h = <u64>n;
  let high: u64 = 0;
  for (let i = 0; i < n; i += 8) {
    let w = load<u64>(p + <usize>i);
    if (n - i < 8) w &= lowBytes(n - i);
    high |= w;
    h = (h ^ w) * 0x9e3779b97f4a7c15;
    h ^= h >> 29;
  }
  if (high & 0x8080808080808080 && holdsReplacement(p, n)) return -1;
  return <i64>(h & 0xffffffff);
}

/** Do the `n` bytes at a and b agree? Read 8 at a time, the last word masked (both lie in the input, with its slack, or in the prompt and word buffers, which have more). */
@inline export function bytesEqual(a: usize, b: usize, n: i32): bool {
  let i = 0;
  for (; i + 8 <= n; i += 8) if (load<u64>(a + <usize>i) != load<u64>(b + <usize>i)) return false;
  return i == n || ((load<u64>(a + <usize>i) ^ load<u64>(b + <usize>i)) & lowBytes(n - i)) == 0;
}

/**
 * Shapes by id hash, for this scorer and strong-check.ts (one completion at a time): open addressing over ID_SLOTS
 * (at most 40 shapes), a slot holding the completion's stamp and a shape index; the ids' bytes, lengths and hashes
 * are the caller's arrays. Without it each create_shape and connect compared with every shape before it.
 */
const ID_SLOTS: i32 = 128;
const idTable = memory.data(ID_SLOTS * 8);
let idStamp: i32 = 0;

/** A new completion: every slot is free again (the table is cleared when the stamp wraps around). */
export function clearShapeIds(): void {
  idStamp++;
  if (idStamp == 0) {
    memory.fill(idTable, 0, ID_SLOTS * 8);
    idStamp = 1;
  }
}

@inline function idSlot(h: u32): i32 {
  return <i32>((h ^ (h >> 16)) & <u32>(ID_SLOTS - 1));
}

/**
 * Index of the shape whose id has the bytes [p, p + n) (hash h), or -1; the shapes' id offsets (into the input),
 * lengths and hashes are i32 arrays at starts, lengths and hashes.
 */
@inline export function findShapeId(starts: usize, lengths: usize, hashes: usize, p: usize, n: i32, h: u32): i32 {
  let slot = idSlot(h);
  for (let probes = 0; probes < ID_SLOTS; probes++) {
    const e = idTable + <usize>(slot << 3);
    if (load<i32>(e) != idStamp) return -1;
    const k = load<i32>(e, 4);
    const o = <usize>k << 2;
    if (load<u32>(hashes + o) == h && load<i32>(lengths + o) == n && bytesEqual(base + <usize>load<i32>(starts + o), p, n)) return k;
    slot = (slot + 1) & (ID_SLOTS - 1);
  }
  return -1;
}

/** Files shape k (its id hash h): its id is new in this completion. */
export function addShapeId(k: i32, h: u32): void {
  let slot = idSlot(h);
  for (let probes = 0; probes < ID_SLOTS; probes++) {
    const e = idTable + <usize>(slot << 3);
    if (load<i32>(e) != idStamp) {
      store<i32>(e, idStamp);
      store<i32>(e, k, 4);
      return;
    }
    slot = (slot + 1) & (ID_SLOTS - 1);
  }
}

@inline function shapeIndex(p: usize, n: i32, h: u32): i32 {
  return findShapeId(idStart, idLength, idHash, p, n, h);
}

/**
 * require_number: the value, NaN where it raises (a float beyond the range reads as inf and fails, an int too large
 * for a float raises). `numberOk` turns false on a token nobody converted (the reader's settleNumbers does that).
 */
let numberOk: bool = true;
@inline function numberOf(r: usize): f64 {
  const k = kindOf(r);
  if (k == TRUE) return 1;
  if (k == FALSE) return 0;
  if (k == INT || k == FLOAT) {
    if (flagsOf(r) & FLAG_EXACT) {
      const v = load<f64>(r, 24);
      return isFinite(v) ? v : NaN;
    }
    numberOk = false;
  }
  return NaN;
}

/** The allowed shape kinds of env.py: rectangle, ellipse, diamond, text. */
@inline function allowedShape(r: usize): bool {
  return bytesIs(r, 9, 0x6c676e6174636572, 0x65) || bytesIs(r, 7, 0x657370696c6c65, 0) || bytesIs(r, 7, 0x646e6f6d616964, 0) || bytesIs(r, 4, 0x74786574, 0);
}

/**
 * validate_completion, score_layout and score_semantics on the last scan (Python's grammar) and the last prompt.
 * DONE leaves clean, layout and semantics in seedResultsBase().
 */
export function seedScore(): i32 {
  if (rootKind != OBJECT || actionsKind != ARRAY) return SEED_REFUSED;
  const n = actionCount;
  if (n == 0 || n > 40) return SEED_REFUSED;
  for (let i = 0; i < n; i++) if (load<i32>(elementKinds + (<usize>i << 2)) != OBJECT) return SEED_REFUSED;
  if (!promptSupported) return SEED_FALLBACK;
  const useSupplied = labelsSupplied;
  labelsSupplied = false;
  pendingCount = 0;
  let nextSupplied = 0;
  stamp++;
  clearShapeIds();
  hits = 0;
  numberOk = true;
  let clean = true;
  let shapes = 0;
  let arrows = 0;
  let labeled = 0;
  for (let i = 0; i < n; i++) {
    const type = rec(i, F_TYPE);
    if (!isStr(type)) {
      clean = false;
      continue;
    }
    if (flagsOf(type) & FLAG_ESCAPE) return SEED_FALLBACK;
    // "create_shape" and "connect" as little-endian words.
    if (bytesIs(type, 12, 0x735f657461657263, 0x65706168)) {
      const id = rec(i, F_ID);
      const shape = rec(i, F_SHAPE);
      if (!isStr(id) || !isStr(shape)) {
        clean = false;
        continue;
      }
      const key = idKey(id);
      if (key < 0 || flagsOf(shape) & FLAG_ESCAPE) return SEED_FALLBACK;
      const idAt = bytesFrom(id);
      const idBytes = byteLength(id);
      const h = <u32>key;
      const x = numberOf(rec(i, F_X));
      const y = numberOf(rec(i, F_Y));
      const w = numberOf(rec(i, F_W));
      const hh = numberOf(rec(i, F_H));
      if (!numberOk) return SEED_FALLBACK;
      if (!allowedShape(shape) || shapeIndex(idAt, idBytes, h) >= 0 || isNaN(x) || isNaN(y) || !(w > 0 && hh > 0 && w <= 1000 && hh <= 1000)) {
        clean = false;
        continue;
      }
      // str(text): a string; None, True or False written out; an int's digits or nan, inf, -inf, which hold no
      // word of two letters. A float's repr may ("1e-05"), a list or dict may: those are left to JavaScript.
      const text = rec(i, F_TEXT);
      const tk = kindOf(text);
      if (tk == STRING) readLabel(bytesFrom(text), bytesFrom(text) + <usize>byteLength(text), (flagsOf(text) & FLAG_ESCAPE) != 0);
      else if (tk == NULL) readLabel(NONE_TEXT, NONE_TEXT + 4, false);
      else if (tk == TRUE) readLabel(TRUE_TEXT, TRUE_TEXT + 4, false);
      else if (tk == FALSE) readLabel(FALSE_TEXT, FALSE_TEXT + 5, false);
      else if (tk == 0) nonSpace = false;
      else if (tk == INT || tk == NAN || tk == INF || tk == NEG_INF) nonSpace = true;
      else if (useSupplied) {
        const from = nextSupplied == 0 ? 0 : load<i32>(suppliedEnds + (<usize>(nextSupplied - 1) << 2));
        const to = load<i32>(suppliedEnds + (<usize>nextSupplied << 2));
        nextSupplied++;
        readLabel(supplied + <usize>from, supplied + <usize>to, false);
      } else {
        // A float, list or dict: its str() comes from JavaScript, and the score is taken again.
        store<i32>(pending + (<usize>pendingCount << 2), i);
        pendingCount++;
      }
      if (nonSpace) labeled++;
      const o = <usize>shapes << 2;
      store<i32>(idStart + o, <i32>(idAt - base));
      store<i32>(idLength + o, idBytes);
      store<u32>(idHash + o, h);
      addShapeId(shapes, h);
      const b = boxes + (<usize>shapes << 5);
      store<f64>(b, x);
      store<f64>(b, y, 8);
      // The far corner as score_layout computes it (a.x + a.w), once per shape instead of once per pair.
      store<f64>(b, x + w, 16);
      store<f64>(b, y + hh, 24);
      shapes++;
    } else if (bytesIs(type, 7, 0x7463656e6e6f63, 0)) {
      const from = rec(i, F_FROM);
      const to = rec(i, F_TO);
      if (!isStr(from) || !isStr(to)) {
        clean = false;
        continue;
      }
      const fromKey = idKey(from);
      const toKey = idKey(to);
      if (fromKey < 0 || toKey < 0) return SEED_FALLBACK;
      const fromAt = bytesFrom(from);
      const fromBytes = byteLength(from);
      const toAt = bytesFrom(to);
      const toBytes = byteLength(to);
      const source = shapeIndex(fromAt, fromBytes, <u32>fromKey);
      const target = shapeIndex(toAt, toBytes, <u32>toKey);
      if (source < 0 || target < 0 || source == target) {
        clean = false;
        continue;
      }
      arrows++;
    } else {
      clean = false;
    }
  }
  if (pendingCount > 0) return SEED_LABELS;
  store<f64>(results, clean ? 1 : 0);
  store<f64>(results, layoutScore(shapes, labeled, arrows), 8);
  store<f64>(results, important == 0 ? 0.5 : max(0.0, min(1.0, <f64>hits / <f64>max(1, important))), 16);
  return SEED_DONE;
}

/**
 * score_layout: the same float operations in the same order as reward.py. Every touching or overlapping pair
 * subtracts the same 0.15, so the pairs are counted without a branch each, then subtracted one by one.
 */
function layoutScore(shapes: i32, labeled: i32, arrows: i32): f64 {
  if (shapes == 0) return 0.0;
  let overlaps = 0;
  for (let i = 0; i < shapes; i++) {
    const a = boxes + (<usize>i << 5);
    const ax = load<f64>(a);
    const ay = load<f64>(a, 8);
    const ax2 = load<f64>(a, 16);
    const ay2 = load<f64>(a, 24);
    for (let j = i + 1; j < shapes; j++) {
      const b = boxes + (<usize>j << 5);
      // !(ax2 < bx || bx2 < ax || ay2 < by || by2 < ay), NaN included.
      overlaps += <i32>(!(ax2 < load<f64>(b)) & !(load<f64>(b, 16) < ax) & !(ay2 < load<f64>(b, 8)) & !(load<f64>(b, 24) < ay));
    }
  }
  let score = 1.0;
  for (let k = 0; k < overlaps; k++) score -= 0.15;
  score += 0.1 * <f64>min(labeled, 5);
  score += 0.1 * <f64>min(arrows, 5);
  return max(0.0, min(1.0, score));
}
