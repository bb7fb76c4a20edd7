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

const prompt = memory.data(PROMPT_MAX);
const table = memory.data(SLOTS * SLOT_BYTES);
/** The label word being read, lowercased (a word longer than every important word stops being kept). */
const word = memory.data(PROMPT_MAX);
// The canvas: per shape its id's bytes and hash, and its box.
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

// Label reading state.
let wordLength: i32 = 0;
let wordHash: u32 = 0;
let inWord: bool = false;
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

const FNV_OFFSET: u32 = 2166136261;
const FNV_PRIME: u32 = 16777619;

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

/** Slot of a word in the important table, or -1. */
function findWord(at: usize, length: i32, hash: u32): i32 {
  let slot = <i32>(hash & <u32>(SLOTS - 1));
  let s = table + <usize>(slot * SLOT_BYTES);
  while (load<i32>(s) == generation) {
    if (load<i32>(s, 8) == length && load<u32>(s, 12) == hash && memory.compare(prompt + <usize>load<i32>(s, 4), at, length) == 0) return slot;
    slot = (slot + 1) & (SLOTS - 1);
    s = table + <usize>(slot * SLOT_BYTES);
  }
  return -1;
}

/** The prompt's word ends: a word of 4+ characters joins the table once. */
function endPromptWord(from: i32, length: i32, hash: u32): void {
  if (length < 4 || findWord(prompt + <usize>from, length, hash) >= 0) return;
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

/** Characters whose lowercase form holds an ASCII word character (test/reward-seed-kernel checks the list). */
@inline function lowersToAscii(cp: i32): bool {
  return cp == 0x130 || cp == 0x212a;
}

/**
 * Reads the prompt's `length` bytes (copied to promptBase()): its words of 4+ characters, as
 * `re.findall(r"[a-zA-Z][a-zA-Z0-9_-]+", prompt.lower())` finds them. Returns false when the JavaScript path must
 * score this prompt's completions (too many words, or a character that lowers to ASCII).
 */
export function setPrompt(length: i32): bool {
  generation++;
  important = 0;
  longestImportant = 0;
  promptSupported = true;
  let from = 0;
  let n = 0;
  let hash = FNV_OFFSET;
  let i = 0;
  while (i < length) {
    const p = prompt + <usize>i;
    const c = <i32>load<u8>(p);
    let cls = 0;
    if (c >= 0x80) {
      if (lowersToAscii(codePointAt(p, c))) return (promptSupported = false);
    } else {
      cls = wordClass(c);
    }
    if (cls != 0 && (n > 0 || cls == 1)) {
      const lower = cls == 1 ? c | 0x20 : c;
      store<u8>(p, <u8>lower);
      if (n == 0) {
        from = i;
        hash = FNV_OFFSET;
      }
      hash = (hash ^ <u32>lower) * FNV_PRIME;
      n++;
    } else if (n > 0) {
      endPromptWord(from, n, hash);
      n = 0;
    }
    i += <i32>utf8Length(c);
  }
  if (n > 0) endPromptWord(from, n, hash);
  return promptSupported;
}

/** A label word ends: an important word not yet seen in this completion is a hit. */
@inline function endLabelWord(): void {
  if (wordLength >= 4 && wordLength <= longestImportant) {
    const slot = findWord(word, wordLength, wordHash);
    if (slot >= 0) {
      const s = table + <usize>(slot * SLOT_BYTES);
      if (load<i32>(s, 16) != stamp) {
        store<i32>(s, stamp, 16);
        hits++;
      }
    }
  }
  inWord = false;
  wordLength = 0;
}

/** One character of a label after lower(), for the word reader. */
@inline function wordChar(cp: i32): void {
  const cls = cp < 0x80 ? wordClass(cp) : 0;
  if (cls != 0 && (inWord || cls == 1)) {
    const lower = cls == 1 ? cp | 0x20 : cp;
    if (!inWord) {
      inWord = true;
      wordHash = FNV_OFFSET;
    }
    if (wordLength < longestImportant) store<u8>(word + <usize>wordLength, <u8>lower);
    wordHash = (wordHash ^ <u32>lower) * FNV_PRIME;
    wordLength++;
  } else if (inWord) {
    endLabelWord();
  }
}

/**
 * One character of a label, as a code point (or a UTF-16 unit for a \u escape). lower() turns U+0130 into "i" and
 * U+0307, and U+212A into "k": the only characters whose lowercase form holds an ASCII word character.
 */
@inline function labelChar(cp: i32): void {
  if (!isPySpace(cp)) nonSpace = true;
  if (cp == 0x130) {
    wordChar(0x69);
    wordChar(0x307);
  } else {
    wordChar(cp == 0x212a ? 0x6b : cp);
  }
}

@inline function hexValue(c: i32): i32 {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
}

/** Reads a label's bytes [p, end), decoding JSON escapes when `escaped`: its words and whether it has a non-space. */
function readLabel(p: usize, end: usize, escaped: bool): void {
  nonSpace = false;
  inWord = false;
  wordLength = 0;
  while (p < end) {
    const c = <i32>load<u8>(p);
    if (c < 0x80) {
      if (escaped && c == 0x5c) {
        const e = <i32>load<u8>(p + 1);
        if (e == 0x75) {
          labelChar((hexValue(load<u8>(p + 2)) << 12) | (hexValue(load<u8>(p + 3)) << 8) | (hexValue(load<u8>(p + 4)) << 4) | hexValue(load<u8>(p + 5)));
          p += 6;
          continue;
        }
        labelChar(e == 0x6e ? 0x0a : e == 0x74 ? 0x09 : e == 0x72 ? 0x0d : e == 0x62 ? 0x08 : e == 0x66 ? 0x0c : e);
        p += 2;
        continue;
      }
      labelChar(c);
      p++;
    } else {
      labelChar(codePointAt(p, c));
      p += utf8Length(c);
    }
  }
  if (inWord) endLabelWord();
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
 * or U+FFFD (which a lone surrogate also becomes).
 */
export function idKey(r: usize): i64 {
  return flagsOf(r) & FLAG_ESCAPE ? -1 : labelHash(bytesFrom(r), byteLength(r));
}

/**
 * A hash of the bytes [p, p + n), read 8 at a time, or -1 when they hold U+FFFD (which a lone surrogate also becomes,
 * so that the bytes stand for more than one string). A last partial word is masked: the input and the arenas it is
 * used on have 8 bytes or more after any such span.
 */
export function labelHash(p: usize, n: i32): i64 {
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

/** Do the `n` bytes at a and b agree? Read 8 at a time, the last word masked (both lie in the input, with its slack). */
@inline export function bytesEqual(a: usize, b: usize, n: i32): bool {
  let i = 0;
  for (; i + 8 <= n; i += 8) if (load<u64>(a + <usize>i) != load<u64>(b + <usize>i)) return false;
  return i == n || ((load<u64>(a + <usize>i) ^ load<u64>(b + <usize>i)) & lowBytes(n - i)) == 0;
}

/** Index of the shape whose id has these bytes, or -1. */
function shapeIndex(shapes: i32, p: usize, n: i32, h: u32): i32 {
  for (let k = 0; k < shapes; k++) {
    const o = <usize>k << 2;
    if (load<u32>(idHash + o) == h && load<i32>(idLength + o) == n && bytesEqual(base + <usize>load<i32>(idStart + o), p, n)) return k;
  }
  return -1;
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
      if (!allowedShape(shape) || shapeIndex(shapes, idAt, idBytes, h) >= 0 || isNaN(x) || isNaN(y) || !(w > 0 && hh > 0 && w <= 1000 && hh <= 1000)) {
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
      const b = boxes + (<usize>shapes << 5);
      store<f64>(b, x);
      store<f64>(b, y, 8);
      store<f64>(b, w, 16);
      store<f64>(b, hh, 24);
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
      const source = shapeIndex(shapes, fromAt, fromBytes, <u32>fromKey);
      const target = shapeIndex(shapes, toAt, toBytes, <u32>toKey);
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

/** score_layout: the same float operations in the same order as reward.py. */
function layoutScore(shapes: i32, labeled: i32, arrows: i32): f64 {
  if (shapes == 0) return 0.0;
  let score = 1.0;
  for (let i = 0; i < shapes; i++) {
    const a = boxes + (<usize>i << 5);
    const ax = load<f64>(a);
    const ay = load<f64>(a, 8);
    const ax2 = ax + load<f64>(a, 16);
    const ay2 = ay + load<f64>(a, 24);
    for (let j = i + 1; j < shapes; j++) {
      const b = boxes + (<usize>j << 5);
      const bx = load<f64>(b);
      const by = load<f64>(b, 8);
      const bx2 = bx + load<f64>(b, 16);
      const by2 = by + load<f64>(b, 24);
      if (!(ax2 < bx || bx2 < ax || ay2 < by || by2 < ay)) score -= 0.15;
    }
  }
  score += 0.1 * <f64>min(labeled, 5);
  score += 0.1 * <f64>min(arrows, 5);
  return max(0.0, min(1.0, score));
}
