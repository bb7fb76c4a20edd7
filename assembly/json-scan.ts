// A JSON validator that reads a diagram answer without building it (npm run build:wasm; used by
// src/reward/fast-json.ts). It scans UTF-8 bytes once, checks the grammar, and records only what the rewards read:
// the top-level value's kind, the top-level "actions" value, and for each of its first MAX_RECORDED elements the kind
// and position of the ten action fields. Two grammars: strict (JSON.parse's) and Python's json module (the same plus
// NaN, Infinity and -Infinity). In Python's grammar, nesting deeper than Python's limit or an int literal longer than
// it converts makes json.loads raise something other than JSONDecodeError: the scan answers PY_LIMIT. Anything the
// caller could not read back exactly from the records makes it answer UNUSUAL, and the caller takes its exact path:
// a top-level or action key written with an escape, (strict grammar) nesting deeper than STRICT_MAX_DEPTH, or more
// unconverted numbers in action fields than there are fields (duplicate keys).

export const OK: i32 = 0;
export const INVALID: i32 = 1;
export const UNUSUAL: i32 = 2;
export const PY_LIMIT: i32 = 3;

// Value kinds.
export const STRING: i32 = 1;
export const INT: i32 = 2;
export const FLOAT: i32 = 3;
export const TRUE: i32 = 4;
export const FALSE: i32 = 5;
export const NULL: i32 = 6;
export const OBJECT: i32 = 7;
export const ARRAY: i32 = 8;
export const NAN: i32 = 9;
export const INF: i32 = 10;
export const NEG_INF: i32 = 11;

// Action fields, in the order of src/reward/fast-json.ts's FIELD.
export const F_TYPE: i32 = 0;
export const F_ID: i32 = 1;
export const F_SHAPE: i32 = 2;
export const F_X: i32 = 3;
export const F_Y: i32 = 4;
export const F_W: i32 = 5;
export const F_H: i32 = 6;
export const F_TEXT: i32 = 7;
export const F_FROM: i32 = 8;
export const F_TO: i32 = 9;
export const FIELDS: i32 = 10;

/** Actions recorded field by field: one past the rewards' limit of 40, whose length check refuses the rest. */
export const MAX_RECORDED: i32 = 41;
/** Deepest {}/[] nesting Python's json accepts from a shallow caller (see seed-python.ts). */
const PY_MAX_DEPTH: i32 = 990;
/** Deepest nesting read in the strict grammar, which has no limit (deeper answers take the exact path): scanNested's stack. */
const STRICT_MAX_DEPTH: i32 = 10000;
/** Python's int-to-str digit limit. */
const MAX_INT_DIGITS: i32 = 4300;

// A field record: kind, start and end (UTF-16 indexes of the JavaScript string: a string's contents between its
// quotes, any other value's token), flags, the same start and end as offsets of the input bytes (for the scorers in
// this module's neighbours, which read the bytes), then the number's value as f64. 32 bytes.
export const REC_BYTES: i32 = 32;
export const FLAG_ESCAPE: i32 = 1;
/** The number's f64 was computed exactly here; otherwise the caller converts the token itself. */
export const FLAG_EXACT: i32 = 2;

export const records = memory.data(MAX_RECORDED * FIELDS * REC_BYTES);
export const elementKinds = memory.data(MAX_RECORDED * 4);
/** Records of numbers not converted here (FLAG_EXACT unset), by index: the caller converts their tokens. */
const inexact = memory.data(MAX_RECORDED * FIELDS * 4);
let inexactCount: i32 = 0;
/** inexactCount as the last scan left it, in memory: JavaScript reads it there without a call. */
const inexactCountSlot = memory.data(4);
const POW10 = memory.data<f64>([1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]);

let pos: usize = 0;
let end: usize = 0;
/** UTF-16 index minus byte offset at `pos`: each continuation byte takes one away, each 4-byte lead adds one. */
let adj: i32 = 0;
let python: bool = false;
let status: i32 = OK;
let depth: i32 = 0;
let maxDepth: i32 = 0;

// Where the last scanned token lay (UTF-16 indexes), its flags and its number value.
let tokStart: i32 = 0;
let tokEnd: i32 = 0;
let tokByteStart: i32 = 0;
let tokByteEnd: i32 = 0;
let tokFlags: i32 = 0;
let tokNumber: f64 = 0;

export let rootKind: i32 = 0;
/** Byte offsets where the last scan's document began (after leading whitespace) and ended (-1: it never closed). */
let docStart: i32 = 0;
let docEnd: i32 = -1;
export let actionsKind: i32 = 0;
export let actionCount: i32 = 0;

/**
 * Bytes kept past the static data for tables that do not fit the module's initial memory (strong-overflow.ts's
 * label measures, at reservedBase()); the input starts after them, and the reader grows the memory to hold them.
 */
export const RESERVED_BYTES: usize = 851968;
export function reservedBase(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}
/**
 * Where the input starts: at a fixed address past the static data and RESERVED_BYTES, so that an offset into it is a
 * difference with a constant (with a mutable global it was a load at every use). Asking for it traps if the data
 * and tables ever grow past it.
 */
export const base: usize = 0x200000;
export function inputBase(): usize {
  if (reservedBase() + RESERVED_BYTES > base) unreachable();
  return base;
}
export function recordsBase(): usize {
  return records;
}
export function elementKindsBase(): usize {
  return elementKinds;
}
export function getRootKind(): i32 {
  return rootKind;
}
export function getActionsKind(): i32 {
  return actionsKind;
}
export function getActionCount(): i32 {
  return actionCount;
}
export function getDocStart(): i32 {
  return docStart;
}
export function getDocEnd(): i32 {
  return docEnd;
}
/**
 * The actions the rewards run, in one call: the last scan's "actions" count when its root is an object whose
 * "actions" is an array of 1 to `max` objects, else 0.
 */
export function usableActions(max: i32): i32 {
  if (rootKind != OBJECT || actionsKind != ARRAY) return 0;
  const n = actionCount;
  if (n == 0 || n > max) return 0;
  for (let i = 0; i < n; i++) if (load<i32>(elementKinds + (<usize>i << 2)) != OBJECT) return 0;
  return n;
}
export function inexactBase(): usize {
  return inexact;
}
export function inexactCountBase(): usize {
  return inexactCountSlot;
}

@inline function u16At(p: usize): i32 {
  return <i32>(p - base) + adj;
}

/** Records that the last token lay at bytes [from, to) (pointers), in UTF-16 indexes and in byte offsets. */
@inline function token(from: usize, to: usize, fromU16: i32): void {
  tokStart = fromU16;
  tokEnd = u16At(to);
  tokByteStart = <i32>(from - base);
  tokByteEnd = <i32>(to - base);
}

@inline function peek(): i32 {
  return pos < end ? <i32>load<u8>(pos) : -1;
}

/**
 * Whitespace at p (input ends at e): JSON's four characters; runs (indentation) are skipped 16 bytes at a time.
 * Returns the position after it. The hot loops keep their position in a local and pass it here: a WebAssembly global
 * is a memory access on every use, a local can stay in a register.
 */
@inline function skipWsAt(p: usize, e: usize): usize {
  if (p >= e || load<u8>(p) > 0x20) return p;
  // One space, as after a compact answer's colons and commas, needs no block.
  if (p + 1 < e && load<u8>(p + 1) > 0x20) {
    const c = load<u8>(p);
    return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09 ? p + 1 : p;
  }
  while (p < e) {
    const v = v128.load(p);
    const ws = v128.or(
      v128.or(i8x16.eq(v, i8x16.splat(0x20)), i8x16.eq(v, i8x16.splat(0x0a))),
      v128.or(i8x16.eq(v, i8x16.splat(0x0d)), i8x16.eq(v, i8x16.splat(0x09))),
    );
    const other = ~i8x16.bitmask(ws) & 0xffff;
    if (other != 0) {
      p += <usize>ctz(other);
      break;
    }
    p += 16;
  }
  return p < e ? p : e;
}

@inline function skipWs(): void {
  pos = skipWsAt(pos, end);
}

@inline function isDigit(c: i32): bool {
  return <u32>(c - 0x30) < 10;
}

@inline function isHex(c: i32): bool {
  return <u32>(c - 0x30) < 10 || <u32>((c | 0x20) - 0x61) < 6;
}

/** The bytes of a block where a string's plain run stops: a quote, a backslash, a control character or a byte past 0x7F. */
@inline function stringStops(v: v128): v128 {
  // Bytes outside 0x20..0x7f wrap below 0x20 or land at 0x60 and above after subtracting 0x20.
  return v128.or(
    v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))),
    i8x16.ge_u(i8x16.sub(v, i8x16.splat(0x20)), i8x16.splat(0x60)),
  );
}

/**
 * A string whose opening quote is at q; returns the position after the closing quote. Plain ASCII runs are skipped 16 bytes
 * at a time: a block stops at a quote, a backslash, a control character or a byte of a longer character. The input
 * has 16 bytes of slack past its end (fast-json.ts), so a block may read beyond `end`; nothing there is used.
 * Inlined: V8 does not inline WebAssembly calls, and a key or value string costs a call otherwise (0.05 µs a text).
 */
@inline function scanStringAt(q: usize): usize {
  let p = q + 1;
  let a = adj;
  tokStart = <i32>(p - base) + a;
  tokByteStart = <i32>(p - base);
  let flags = 0;
  for (;;) {
    const mask = i8x16.bitmask(stringStops(v128.load(p)));
    if (mask == 0) {
      p += 16;
      if (p >= end) break;
      continue;
    }
    p += <usize>ctz(mask);
    if (p >= end) break;
    const c = <i32>load<u8>(p);
    if (c == 0x22) {
      tokEnd = <i32>(p - base) + a;
      tokByteEnd = <i32>(p - base);
      tokFlags = flags;
      adj = a;
      return p + 1;
    }
    if (c == 0x5c) {
      flags = FLAG_ESCAPE;
      if (p + 1 >= end) break;
      const e = <i32>load<u8>(p + 1);
      if (e == 0x75) {
        if (p + 5 >= end) break;
        if (!(isHex(load<u8>(p + 2)) && isHex(load<u8>(p + 3)) && isHex(load<u8>(p + 4)) && isHex(load<u8>(p + 5)))) break;
        p += 6;
        continue;
      }
      if (e != 0x22 && e != 0x5c && e != 0x2f && e != 0x62 && e != 0x66 && e != 0x6e && e != 0x72 && e != 0x74) break;
      p += 2;
      continue;
    }
    if (c < 0x20) break;
    // A byte of a multi-byte character: continuation bytes take a UTF-16 unit away, a 4-byte lead adds one.
    if ((c & 0xc0) == 0x80) a--;
    else if (c >= 0xf0) a++;
    p++;
  }
  adj = a;
  status = INVALID;
  return p < end ? p : end;
}

@inline function scanString(): void {
  pos = scanStringAt(pos);
}

@inline function matchWord(word: u64, len: i32): bool {
  // `word` holds the literal's bytes little-endian; compares `len` (<= 8) bytes at pos.
  if (pos + <usize>len > end) return false;
  for (let i = 0; i < len; i++) {
    if (<u64>load<u8>(pos + <usize>i) != ((word >> (<u64>i * 8)) & 0xff)) return false;
  }
  return true;
}

/** A number at pos (after an optional '-'), Python's and JSON's grammar: sets tokNumber and returns INT or FLOAT. */
function scanNumber(): i32 {
  const start = pos;
  const e = end;
  let p = start;
  let negative = false;
  if (load<u8>(p) == 0x2d) {
    negative = true;
    p++;
  }
  let c = p < e ? <i32>load<u8>(p) : -1;
  let mantissa: u64 = 0;
  let digits = 0;
  let intDigits = 0;
  if (c == 0x30) {
    p++;
    intDigits = 1;
  } else if (c >= 0x31 && c <= 0x39) {
    while (p < e) {
      const d = <u32>load<u8>(p) - 0x30;
      if (d >= 10) break;
      if (digits < 19) mantissa = mantissa * 10 + <u64>d;
      digits++;
      p++;
      // Past the digits the mantissa keeps, a long run (an int of hundreds of digits) is counted 16 at a time.
      if (digits >= 19) {
        while (p + 16 <= e && i8x16.all_true(i8x16.lt_u(i8x16.sub(v128.load(p), i8x16.splat(0x30)), i8x16.splat(10)))) {
          digits += 16;
          p += 16;
        }
      }
    }
    intDigits = digits;
  } else {
    pos = p;
    status = INVALID;
    return 0;
  }
  let kind = INT;
  let fracDigits = 0;
  if (p + 1 < e && load<u8>(p) == 0x2e && isDigit(load<u8>(p + 1))) {
    kind = FLOAT;
    p++;
    while (p < e) {
      const d = <u32>load<u8>(p) - 0x30;
      if (d >= 10) break;
      if (digits < 19) {
        mantissa = mantissa * 10 + <u64>d;
        fracDigits++;
      }
      if (mantissa != 0) digits++;
      p++;
    }
  }
  let exp = 0;
  let expOk = true;
  let scaled = false;
  c = p < e ? <i32>load<u8>(p) : -1;
  if (c == 0x65 || c == 0x45) {
    let q = p + 1;
    let expNegative = false;
    if (q < e && (load<u8>(q) == 0x2b || load<u8>(q) == 0x2d)) {
      expNegative = load<u8>(q) == 0x2d;
      q++;
    }
    const from = q;
    while (q < e && isDigit(load<u8>(q))) {
      if (exp < 100000) exp = exp * 10 + <i32>(load<u8>(q) - 0x30);
      q++;
    }
    if (q > from) {
      kind = FLOAT;
      scaled = true;
      p = q;
      if (exp >= 100000) expOk = false;
      if (expNegative) exp = -exp;
    }
  }
  if (kind == INT && intDigits > MAX_INT_DIGITS && python) status = PY_LIMIT;
  pos = p;
  token(start, p, u16At(start));
  // Exact when the digits fit in 53 bits and the power of ten is exact: one correctly rounded multiply or divide.
  const e10 = exp - fracDigits;
  if (digits <= 15 && expOk && e10 >= -22 && e10 <= 22) {
    let v = <f64>mantissa;
    if (e10 >= 0) v *= load<f64>(POW10 + (<usize>e10 << 3));
    else v /= load<f64>(POW10 + (<usize>(-e10) << 3));
    tokNumber = negative ? -v : v;
    tokFlags = FLAG_EXACT;
  } else if (!python && !scaled && intDigits > 309) {
    // 10^309 or more without an exponent: past the largest double, Number() reads it as Infinity.
    tokNumber = negative ? -Infinity : Infinity;
    tokFlags = FLAG_EXACT;
  } else {
    tokFlags = 0;
  }
  return kind;
}

/**
 * A positive int of 1 to 9 digits at p, whose first digit (1-9) is `v`, ended by none of ".eE" or a digit (what
 * coordinates mostly are), recorded at r as scanNumber would leave its token; returns the position after it, or 0
 * for scanNumber to read.
 */
@inline function shortInt(p: usize, e: usize, v: i32, r: usize): usize {
  let q = p + 1;
  let m = v - 0x30;
  let c = q < e ? <i32>load<u8>(q) : -1;
  while (<u32>(c - 0x30) < 10) {
    if (q - p == 9) return 0;
    m = m * 10 + (c - 0x30);
    q++;
    c = q < e ? <i32>load<u8>(q) : -1;
  }
  if (c == 0x2e || (c | 0x20) == 0x65) return 0;
  store<i32>(r, INT);
  store<i32>(r, u16At(p), 4);
  store<i32>(r, u16At(q), 8);
  store<i32>(r, FLAG_EXACT, 12);
  store<i32>(r, <i32>(p - base), 16);
  store<i32>(r, <i32>(q - base), 20);
  store<f64>(r, <f64>m, 24);
  return q;
}

/** Any value at pos; returns its kind (0 with status set on failure). */
function scanValue(): i32 {
  const c = peek();
  if (c == 0x22) {
    scanString();
    return STRING;
  }
  if (c == 0x7b || c == 0x5b) return scanNested();
  const start = pos;
  if (c == 0x74 && matchWord(0x65757274, 4)) {
    pos += 4;
    return literal(start, TRUE);
  }
  if (c == 0x66 && matchWord(0x65736c6166, 5)) {
    pos += 5;
    return literal(start, FALSE);
  }
  if (c == 0x6e && matchWord(0x6c6c756e, 4)) {
    pos += 4;
    return literal(start, NULL);
  }
  if (python) {
    if (c == 0x4e && matchWord(0x4e614e, 3)) {
      pos += 3;
      return literal(start, NAN);
    }
    if (c == 0x49 && matchWord(0x7974696e69666e49, 8)) {
      pos += 8;
      return literal(start, INF);
    }
    if (c == 0x2d && pos + 1 < end && load<u8>(pos + 1) == 0x49) {
      pos++;
      if (matchWord(0x7974696e69666e49, 8)) {
        pos += 8;
        return literal(start, NEG_INF);
      }
      status = INVALID;
      return 0;
    }
  }
  if (c == 0x2d || isDigit(c)) return scanNumber();
  status = INVALID;
  return 0;
}

@inline function literal(start: usize, kind: i32): i32 {
  token(start, pos, u16At(start));
  tokFlags = 0;
  return kind;
}

/** Which action field a key names, or -1. The key's bytes are [s, s + n). */
function fieldOf(s: usize, n: usize): i32 {
  if (n == 1) {
    const c = load<u8>(s);
    if (c == 0x78) return F_X;
    if (c == 0x79) return F_Y;
    if (c == 0x77) return F_W;
    if (c == 0x68) return F_H;
    return -1;
  }
  if (n == 2) {
    const v = load<u16>(s);
    if (v == 0x6469) return F_ID;
    if (v == 0x6f74) return F_TO;
    return -1;
  }
  if (n == 4) {
    const v = load<u32>(s);
    if (v == 0x65707974) return F_TYPE;
    if (v == 0x74786574) return F_TEXT;
    if (v == 0x6d6f7266) return F_FROM;
    return -1;
  }
  if (n == 5 && load<u32>(s) == 0x70616873 && load<u8>(s + 4) == 0x65) return F_SHAPE;
  return -1;
}

/** Key lengths of the action fields, by field. */
const FIELD_KEY_LENGTH = memory.data<u8>([4, 2, 5, 1, 1, 1, 1, 4, 4, 2]);

/**
 * The action field whose key, closing quote included, starts at `s` (the bytes after the opening quote), or -1: the
 * usual keys recognised in one 8-byte load, without a string scan (an escape or a longer key never matches).
 */
@inline function knownField(s: usize): i32 {
  const w = load<u64>(s);
  const w2 = w & 0xffff;
  if (w2 == 0x2278) return F_X;
  if (w2 == 0x2279) return F_Y;
  if (w2 == 0x2277) return F_W;
  if (w2 == 0x2268) return F_H;
  const w3 = w & 0xffffff;
  if (w3 == 0x226469) return F_ID;
  if (w3 == 0x226f74) return F_TO;
  const w5 = w & 0xffffffffff;
  if (w5 == 0x2265707974) return F_TYPE;
  if (w5 == 0x2274786574) return F_TEXT;
  if (w5 == 0x226d6f7266) return F_FROM;
  if ((w & 0xffffffffffff) == 0x226570616873) return F_SHAPE;
  return -1;
}

// Separator templates: the bytes between an action field's value and the next field's value (",\n      \"shape\": "
// in a pretty-printed answer, ",\"shape\":" in a compact one) as the last general parse read them, with the field
// they lead to, kept from one scan to the next (a model writes every action alike). Where the bytes after a value
// equal its field's template and the byte after them is no whitespace, the general parse would make the same
// decisions on them (whitespace, the comma, the key, the colon: a known key's closing quote lies inside, and no
// step looks further than one byte past whitespace) and stop at the same place, so the scan jumps there. That cuts
// the chain of dependent steps a field costs: the next value's position no longer waits on each separator byte.
const TEMPLATE_BYTES: i32 = 32;
/** The template of an action's opening: from its "{" to its first field's value. */
const OPENING: i32 = FIELDS;
const templates = memory.data((FIELDS + 1) * TEMPLATE_BYTES, 16);
const templateLength = memory.data((FIELDS + 1) * 4);
const templateNext = memory.data((FIELDS + 1) * 4);

/** Keeps [from, to) (to at the value of field `next`) as field `field`'s template, if it fits. */
@inline function learnTemplate(field: i32, from: usize, to: usize, next: i32): void {
  const n = <i32>(to - from);
  if (n > TEMPLATE_BYTES) return;
  const t = templates + <usize>(field * TEMPLATE_BYTES);
  v128.store(t, v128.load(from));
  v128.store(t, v128.load(from, 16), 16);
  store<i32>(templateLength + (<usize>field << 2), n);
  store<i32>(templateNext + (<usize>field << 2), next);
}

/** The length of field `field`'s template when the bytes at p (input ends at e) match it and a value follows, else 0. */
@inline function templateAt(p: usize, field: i32, e: usize): usize {
  const n = <usize>load<i32>(templateLength + (<usize>field << 2));
  if (n == 0 || p + n >= e) return 0;
  const t = templates + <usize>(field * TEMPLATE_BYTES);
  let equal = <u32>i8x16.bitmask(i8x16.eq(v128.load(p), v128.load(t)));
  if (n > 16) equal |= <u32>i8x16.bitmask(i8x16.eq(v128.load(p, 16), v128.load(t, 16))) << 16;
  const want = <u32>0xffffffff >>> <u32>(32 - <i32>n);
  return (equal & want) == want && load<u8>(p + n) > 0x20 ? n : 0;
}

/**
 * The top-level object at pos: its "actions" value is read (scanActions), any other value scanned. Keys there may
 * not hold escapes: "\u0061ctions" is "actions" to a JSON reader.
 */
function scanObject(): i32 {
  if (++depth > maxDepth) {
    status = python ? PY_LIMIT : UNUSUAL;
    return 0;
  }
  const e = end;
  const open = pos;
  let p = skipWsAt(open + 1, e);
  if (p < e && load<u8>(p) == 0x7d) return closed(open, p + 1, u16At(open), OBJECT);
  const openU16 = u16At(open);
  for (;;) {
    if (p >= e || load<u8>(p) != 0x22) return fail(p, INVALID);
    const keyBytes = p + 1;
    p = scanStringAt(p);
    if (status != OK) return fail(p, status);
    const keyLen = p - 1 - keyBytes;
    const keyEscaped = (tokFlags & FLAG_ESCAPE) != 0;
    p = skipWsAt(p, e);
    if (p >= e || load<u8>(p) != 0x3a) return fail(p, INVALID);
    p = skipWsAt(p + 1, e);
    if (keyEscaped) return fail(p, UNUSUAL);
    pos = p;
    if (keyLen == 7 && load<u32>(keyBytes) == 0x69746361 && load<u16>(keyBytes + 4) == 0x6e6f && load<u8>(keyBytes + 6) == 0x73) {
      actionsKind = p < e && load<u8>(p) == 0x5b ? scanActions() : scanValue();
    } else {
      scanValue();
    }
    p = pos;
    if (status != OK) return fail(p, status);
    p = skipWsAt(p, e);
    const c = p < e ? <i32>load<u8>(p) : -1;
    if (c == 0x7d) return closed(open, p + 1, openU16, OBJECT);
    if (c != 0x2c) return fail(p, INVALID);
    p = skipWsAt(p + 1, e);
  }
  return 0;
}

/**
 * An action at pos, an object whose fields are recorded in action `slot`. Keys there may not hold escapes:
 * "t\u0079pe" is "type" to a JSON reader. Inlined into scanActions' loop: a call an action cost 0.05-0.08 µs a
 * completion.
 */
@inline function scanAction(slot: i32): i32 {
  if (++depth > maxDepth) {
    status = python ? PY_LIMIT : UNUSUAL;
    return 0;
  }
  const e = end;
  const open = pos;
  // An action's first field found by OPENING's template, its value at p; -1 to read the key.
  let pending = -1;
  let p: usize = 0;
  const skip = templateAt(open + 1, OPENING, e);
  if (skip != 0) {
    pending = load<i32>(templateNext + (<usize>OPENING << 2));
    p = open + 1 + skip;
  }
  if (pending < 0) {
    p = skipWsAt(open + 1, e);
    if (p < e && load<u8>(p) == 0x7d) return closed(open, p + 1, u16At(open), OBJECT);
  }
  const openU16 = u16At(open);
  // The field whose value was read last (OPENING before the first; -1 after a key that is no field) and where that
  // value ended.
  let last = OPENING;
  let lastEnd = open + 1;
  for (;;) {
    let f = pending;
    pending = -1;
    if (f < 0) {
      if (p >= e || load<u8>(p) != 0x22) return fail(p, INVALID);
      const keyBytes = p + 1;
      let known = knownField(keyBytes);
      let keyLen: usize = 0;
      let keyEscaped = false;
      if (known >= 0 && keyBytes + <usize>load<u8>(FIELD_KEY_LENGTH + <usize>known) < e) {
        keyLen = <usize>load<u8>(FIELD_KEY_LENGTH + <usize>known);
        p = keyBytes + keyLen + 1;
      } else {
        known = -1;
        p = scanStringAt(p);
        if (status != OK) return fail(p, status);
        keyLen = p - 1 - keyBytes;
        keyEscaped = (tokFlags & FLAG_ESCAPE) != 0;
      }
      p = skipWsAt(p, e);
      if (p >= e || load<u8>(p) != 0x3a) return fail(p, INVALID);
      p = skipWsAt(p + 1, e);
      if (keyEscaped) return fail(p, UNUSUAL);
      f = known >= 0 ? known : fieldOf(keyBytes, keyLen);
      if (f >= 0 && last >= 0) learnTemplate(last, lastEnd, p, f);
    }
    // An action's field (f: -1 for a key that is no field), then those its templates lead to.
    for (;;) {
      const v = p < e ? <i32>load<u8>(p) : -1;
      const r = records + <usize>((slot * FIELDS + f) * REC_BYTES);
      // A field's string of plain ASCII that ends within 16 bytes (ids, kinds, most labels) goes straight into its
      // record, as scanStringAt would leave it (no escape, no flag, the UTF-16 offset unchanged).
      let recorded = false;
      if (v == 0x22 && f >= 0) {
        const from = p + 1;
        const mask = i8x16.bitmask(stringStops(v128.load(from)));
        const q = from + <usize>ctz(mask);
        if (mask != 0 && q < e && load<u8>(q) == 0x22) {
          const a = adj;
          store<i32>(r, STRING);
          store<i32>(r, <i32>(from - base) + a, 4);
          store<i32>(r, <i32>(q - base) + a, 8);
          store<i32>(r, 0, 12);
          store<i32>(r, <i32>(from - base), 16);
          store<i32>(r, <i32>(q - base), 20);
          p = q + 1;
          recorded = true;
        }
      } else if (f >= 0 && <u32>(v - 0x31) < 9) {
        const q = shortInt(p, e, v, r);
        if (q != 0) {
          p = q;
          recorded = true;
        }
      }
      if (!recorded) {
        // The usual values, a string or a number, without scanValue's dispatch.
        let kind = 0;
        if (v == 0x22) {
          p = scanStringAt(p);
          kind = STRING;
        } else {
          pos = p;
          kind = isDigit(v) ? scanNumber() : scanValue();
          p = pos;
        }
        if (status != OK) return fail(p, status);
        if (f < 0) break;
        store<i32>(r, kind);
        store<i32>(r, tokStart, 4);
        store<i32>(r, tokEnd, 8);
        store<i32>(r, tokFlags, 12);
        store<i32>(r, tokByteStart, 16);
        store<i32>(r, tokByteEnd, 20);
        store<f64>(r, tokNumber, 24);
        if ((kind == INT || kind == FLOAT) && !(tokFlags & FLAG_EXACT)) {
          // Only duplicate keys can fill the list: such a document is left to the exact path.
          if (inexactCount == MAX_RECORDED * FIELDS) return fail(p, UNUSUAL);
          store<i32>(inexact + (<usize>inexactCount << 2), slot * FIELDS + f);
          inexactCount++;
        }
      }
      const skip = templateAt(p, f, e);
      if (skip == 0) break;
      f = load<i32>(templateNext + (<usize>f << 2));
      p += skip;
    }
    last = f;
    lastEnd = p;
    p = skipWsAt(p, e);
    const c = p < e ? <i32>load<u8>(p) : -1;
    if (c == 0x7d) return closed(open, p + 1, openU16, OBJECT);
    if (c != 0x2c) return fail(p, INVALID);
    p = skipWsAt(p + 1, e);
  }
  return 0;
}

/** The "actions" array at pos: its elements are counted, and the first MAX_RECORDED objects' fields recorded. */
function scanActions(): i32 {
  if (++depth > maxDepth) {
    status = python ? PY_LIMIT : UNUSUAL;
    return 0;
  }
  const e = end;
  const open = pos;
  let p = skipWsAt(open + 1, e);
  let n = 0;
  actionCount = 0;
  if (p < e && load<u8>(p) == 0x5d) return closed(open, p + 1, u16At(open), ARRAY);
  const openU16 = u16At(open);
  for (;;) {
    pos = p;
    if (n < MAX_RECORDED) {
      const r = records + <usize>(n * FIELDS * REC_BYTES);
      for (let f = 0; f < FIELDS; f++) store<i32>(r + <usize>(f * REC_BYTES), 0);
      const kind = p < e && load<u8>(p) == 0x7b ? scanAction(n) : scanValue();
      store<i32>(elementKinds + (<usize>n << 2), kind);
    } else {
      scanValue();
    }
    p = pos;
    if (status != OK) return 0;
    n++;
    p = skipWsAt(p, e);
    const c = p < e ? <i32>load<u8>(p) : -1;
    if (c == 0x5d) {
      actionCount = n;
      return closed(open, p + 1, openU16, ARRAY);
    }
    if (c != 0x2c) return fail(p, INVALID);
    p = skipWsAt(p + 1, e);
  }
  return 0;
}

/** One bit per open array (0) or object (1) of scanNested: as deep as either grammar reads. */
const nesting = memory.data((STRICT_MAX_DEPTH >> 3) + 8, 8);

@inline function openObject(level: i32): bool {
  return ((<i32>load<u8>(nesting + <usize>(level >> 3)) >> (level & 7)) & 1) != 0;
}

/**
 * An array or object at pos whose insides nobody records (a label written as a list, a top-level array), scanned
 * without recursion: a call and a return per level cost about 9 ns, most of it returns mispredicted past the
 * processor's return stack, on a label nested 1,000 deep. The same grammar, limits and token as a recursive descent.
 */
function scanNested(): i32 {
  const e = end;
  const open = pos;
  const openU16 = u16At(open);
  let p = open;
  let top = 0;
  // 0: p is at an opening bracket; 1: an element (an object's key first) is due; 2: a value just ended.
  let state = 0;
  for (;;) {
    if (state == 0) {
      // A run of "[" opens that many arrays: each but the last is pushed, meets neither whitespace nor "]", and an
      // array's element that opens the next. They are pushed in a tight loop; the last goes the usual way.
      let q = p;
      while (load<u8>(q) == 0x5b && load<u8>(q + 1) == 0x5b && q + 1 < e && depth + 1 < maxDepth) {
        depth++;
        const at = nesting + <usize>(top >> 3);
        store<u8>(at, load<u8>(at) & ~(<u8>1 << <u8>(top & 7)));
        top++;
        q++;
      }
      p = q;
      if (++depth > maxDepth) {
        status = python ? PY_LIMIT : UNUSUAL;
        return 0;
      }
      const bracket = <i32>load<u8>(p);
      const at = nesting + <usize>(top >> 3);
      const bit = 1 << (top & 7);
      store<u8>(at, bracket == 0x7b ? load<u8>(at) | bit : load<u8>(at) & ~bit);
      top++;
      p = skipWsAt(p + 1, e);
      // "]" is "[" + 2, "}" is "{" + 2.
      if (p < e && <i32>load<u8>(p) == bracket + 2) {
        p++;
        depth--;
        top--;
        state = 2;
      } else {
        state = 1;
      }
    } else if (state == 1) {
      if (openObject(top - 1)) {
        if (p >= e || load<u8>(p) != 0x22) return fail(p, INVALID);
        p = scanStringAt(p);
        if (status != OK) return fail(p, status);
        p = skipWsAt(p, e);
        if (p >= e || load<u8>(p) != 0x3a) return fail(p, INVALID);
        p = skipWsAt(p + 1, e);
      }
      const v = p < e ? <i32>load<u8>(p) : -1;
      if (v == 0x5b || v == 0x7b) {
        state = 0;
        continue;
      }
      pos = p;
      scanValue();
      if (status != OK) return 0;
      p = pos;
      state = 2;
    } else {
      if (top == 0) break;
      p = skipWsAt(p, e);
      const c = p < e ? <i32>load<u8>(p) : -1;
      if (c == 0x2c) {
        p = skipWsAt(p + 1, e);
        state = 1;
      } else if (c == 0x5d && !openObject(top - 1)) {
        // A run of "]" closes arrays in a tight loop, while the levels it closes are arrays and one is open.
        p++;
        depth--;
        top--;
        while (top > 0 && p < e && load<u8>(p) == 0x5d && !openObject(top - 1)) {
          p++;
          depth--;
          top--;
        }
      } else if (c == (openObject(top - 1) ? 0x7d : 0x5d)) {
        p++;
        depth--;
        top--;
      } else {
        return fail(p, INVALID);
      }
    }
  }
  pos = p;
  token(open, p, openU16);
  tokFlags = 0;
  return load<u8>(open) == 0x5b ? ARRAY : OBJECT;
}

/** Closes the object or array opened at `open` (UTF-16 index `openU16`) just before `after`: its token, and `kind`. */
@inline function closed(open: usize, after: usize, openU16: i32, kind: i32): i32 {
  pos = after;
  depth--;
  token(open, after, openU16);
  tokFlags = 0;
  return kind;
}

/** Leaves the scan at p with `code` (not OK) as its status; the kind answered with it, 0. */
@inline function fail(p: usize, code: i32): i32 {
  pos = p;
  status = code;
  return 0;
}

/**
 * Scans input bytes [from, to) as one JSON document. `utf16From` is the UTF-16 index of byte `from` in the caller's
 * string. `pythonGrammar` accepts NaN and the infinities and applies Python's limits. Returns OK, INVALID, UNUSUAL
 * or PY_LIMIT.
 */
export function scan(from: usize, to: usize, utf16From: i32, pythonGrammar: bool): i32 {
  const result = scanDocument(from, to, utf16From, pythonGrammar);
  store<i32>(inexactCountSlot, inexactCount);
  return result;
}

function scanDocument(from: usize, to: usize, utf16From: i32, pythonGrammar: bool): i32 {
  pos = base + from;
  end = base + to;
  adj = utf16From - <i32>from;
  python = pythonGrammar;
  maxDepth = python ? PY_MAX_DEPTH : STRICT_MAX_DEPTH;
  status = OK;
  depth = 0;
  rootKind = 0;
  actionsKind = 0;
  actionCount = 0;
  inexactCount = 0;
  skipWs();
  docStart = <i32>(pos - base);
  docEnd = -1;
  const c = peek();
  rootKind = c == 0x7b ? scanObject() : scanValue();
  if (status != OK) return status;
  docEnd = <i32>(pos - base);
  skipWs();
  if (pos != end) return INVALID;
  return OK;
}

/**
 * The `units` UTF-16 units at `from` (little-endian, as JavaScript's Buffer writes 'utf16le') as UTF-8 at `to`,
 * as TextEncoder encodes them: a surrogate pair is one 4-byte character, a lone surrogate becomes U+FFFD. Returns
 * the bytes written (at most 3 per unit; the caller keeps `to`'s bytes clear of `from`'s). Runs of 16 ASCII units
 * are narrowed 16 at a time: TextEncoder.encodeInto takes about 1.2 µs for a 1.4 KB text that is not all ASCII.
 */
export function utf16ToUtf8(from: usize, units: i32, to: usize): i32 {
  let s = from;
  const se = from + (<usize>units << 1);
  let d = to;
  const high = i16x8.splat(<i16>0xff80);
  for (;;) {
    while (s + 64 <= se) {
      const a = v128.load(s);
      const b = v128.load(s, 16);
      const c = v128.load(s, 32);
      const e = v128.load(s, 48);
      if (v128.any_true(v128.and(v128.or(v128.or(a, b), v128.or(c, e)), high))) break;
      v128.store(d, i8x16.narrow_i16x8_u(a, b));
      v128.store(d, i8x16.narrow_i16x8_u(c, e), 16);
      s += 64;
      d += 32;
    }
    while (s + 32 <= se) {
      const a = v128.load(s);
      const b = v128.load(s, 16);
      if (v128.any_true(v128.and(v128.or(a, b), high))) break;
      v128.store(d, i8x16.narrow_i16x8_u(a, b));
      s += 32;
      d += 16;
    }
    if (s >= se) break;
    // The block that held a longer character (or the last units), one unit at a time.
    const stop = min(s + 32, se);
    while (s < stop) {
      const c = <u32>load<u16>(s);
      if (c < 0x80) {
        store<u8>(d, <u8>c);
        d++;
      } else if (c < 0x800) {
        store<u8>(d, <u8>(0xc0 | (c >> 6)));
        store<u8>(d, <u8>(0x80 | (c & 0x3f)), 1);
        d += 2;
      } else if ((c & 0xf800) != 0xd800) {
        store<u8>(d, <u8>(0xe0 | (c >> 12)));
        store<u8>(d, <u8>(0x80 | ((c >> 6) & 0x3f)), 1);
        store<u8>(d, <u8>(0x80 | (c & 0x3f)), 2);
        d += 3;
      } else if (c < 0xdc00 && s + 2 < se && (<u32>load<u16>(s, 2) & 0xfc00) == 0xdc00) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (<u32>load<u16>(s, 2) - 0xdc00);
        store<u8>(d, <u8>(0xf0 | (cp >> 18)));
        store<u8>(d, <u8>(0x80 | ((cp >> 12) & 0x3f)), 1);
        store<u8>(d, <u8>(0x80 | ((cp >> 6) & 0x3f)), 2);
        store<u8>(d, <u8>(0x80 | (cp & 0x3f)), 3);
        d += 4;
        s += 2;
      } else {
        store<u8>(d, 0xef);
        store<u8>(d, 0xbf, 1);
        store<u8>(d, 0xbd, 2);
        d += 3;
      }
      s += 2;
    }
  }
  return <i32>(d - to);
}

/**
 * Byte offset of UTF-16 index `unit` in input bytes [0, length): for spans found on the JavaScript string. Whole
 * blocks of 16 bytes are counted at once (a character's first byte is a unit, a 4-byte one's two; continuation bytes
 * none) while the index lies past them; then byte by byte, a character's continuation bytes skipped with it.
 */
export function byteOffset(unit: i32, length: usize): usize {
  const b = inputBase();
  let u = 0;
  let i: usize = 0;
  while (i + 16 <= length) {
    const v = v128.load(b + i);
    const continuation = popcnt(i8x16.bitmask(i8x16.eq(v128.and(v, i8x16.splat(<i8>0xc0)), i8x16.splat(<i8>0x80))));
    const four = popcnt(i8x16.bitmask(i8x16.ge_u(v, i8x16.splat(<i8>0xf0))));
    const units = 16 - continuation + four;
    if (u + units > unit) break;
    u += units;
    i += 16;
  }
  for (; i < length; i++) {
    const c = load<u8>(b + i);
    if ((c & 0xc0) == 0x80) continue;
    if (u >= unit) break;
    u += c >= 0xf0 ? 2 : 1;
  }
  return i;
}

/** Byte offset of the first '{' in input bytes [0, length), or -1 (an ASCII byte never occurs inside a longer character). */
export function firstOpenBrace(length: usize): i32 {
  const b = inputBase();
  for (let i: usize = 0; i < length; i++) if (load<u8>(b + i) == 0x7b) return <i32>i;
  return -1;
}
/** Byte offset of the last '}' in input bytes [0, length), or -1. */
export function lastCloseBrace(length: usize): i32 {
  const b = inputBase();
  for (let i = <i32>length - 1; i >= 0; i--) if (load<u8>(b + <usize>i) == 0x7d) return i;
  return -1;
}
