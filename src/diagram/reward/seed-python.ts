// The seed's env.py as CPython 3 runs it: json.loads (with NaN/Infinity, int vs float, its error messages),
// str() of any JSON value, str.strip()'s whitespace, parse_actions' brace-span fallback and the canvas checks in
// their order. Only the `seed` reward uses this; the strict environment in src/diagram/language refuses what Python lets through.
// docs/seed-compat.md lists every place where this differs from strict JSON.
import { parseJson, parseJsonCached } from '../language/parse.ts';

/** A Python int read from JSON: exact digits (Python ints are unbounded) and the double `float(i)` would give. */
export class PyInt {
  readonly value: number;
  constructor(readonly digits: string) {
    this.value = Number(digits);
  }
}

/** A value as Python's json module returns it. Objects are Maps: insertion order, and a repeated key keeps its first position. */
export type PyValue = string | number | boolean | null | PyInt | PyValue[] | Map<string, PyValue>;

export type PyErrorType = 'JSONDecodeError' | 'ValueError' | 'RecursionError';
export interface PyError {
  type: PyErrorType;
  message: string;
}
export type PyLoadResult = { ok: true; value: PyValue } | { ok: false; error: PyError };

/** CPython's default int-to-str limit (sys.get_int_max_str_digits()); json refuses longer int literals. */
export const PY_INT_MAX_STR_DIGITS = 4300;
/**
 * Deepest {}/[] nesting the reference parses when called from a shallow script; CPython's limit counts the caller's
 * stack frames too, so this is the figure for python/seed_reference_score.py.
 */
export const PY_MAX_NESTING = 990;

const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

// The throwables below are not Errors on purpose: they are control flow (Python's raise), thrown for every bad
// completion or refused action, and building a stack trace for each would cost more than the parse itself.

class DecodeError {
  constructor(
    readonly type: PyErrorType,
    readonly msg: string,
    readonly pos: number,
  ) {}
}

/** Python reports positions in code points, JavaScript indexes UTF-16 units. */
function codePointIndex(s: string, unit: number): number {
  let n = 0;
  for (let i = 0; i < unit && i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < unit) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** json.JSONDecodeError's text: "msg: line L column C (char P)". */
function decodeErrorMessage(doc: string, msg: string, unit: number): string {
  const pos = codePointIndex(doc, unit);
  let lineno = 1;
  let lastNl = -1;
  for (let i = doc.indexOf('\n'); i !== -1 && i < unit; i = doc.indexOf('\n', i + 1)) {
    lineno++;
    lastNl = i;
  }
  const colno = lastNl === -1 ? pos + 1 : pos - codePointIndex(doc, lastNl);
  return `${msg}: line ${lineno} column ${colno} (char ${pos})`;
}

/**
 * A port of CPython's C scanner (Modules/_json.c): same grammar, same error kinds and positions. Each step returns
 * the index after what it read and leaves the value read in `value`; with `build` false it only checks (no value is
 * made), which is all a refused text's error message needs.
 */
class Scanner {
  private depth = 0;
  value: PyValue = null;
  constructor(private readonly s: string, private readonly build: boolean) {}

  private skipWs(i: number): number {
    while (i < this.s.length && isWs(this.s.charCodeAt(i))) i++;
    return i;
  }

  private word(i: number, word: string, value: PyValue): number {
    this.value = value;
    return i + word.length;
  }

  /** Reads a value at i; one that cannot start there is Python's StopIteration ("Expecting value"). */
  scan(i: number): number {
    const s = this.s;
    if (i >= s.length) throw new DecodeError('JSONDecodeError', 'Expecting value', i);
    const c = s[i];
    switch (c) {
      case '"':
        return this.string(i + 1);
      case '{':
      case '[': {
        if (++this.depth > PY_MAX_NESTING) {
          const what = c === '{' ? 'object' : 'array';
          throw new DecodeError('RecursionError', `maximum recursion depth exceeded while decoding a JSON ${what} from a unicode string`, i);
        }
        const r = c === '{' ? this.object(i + 1) : this.array(i + 1);
        this.depth--;
        return r;
      }
      case 'n':
        if (s.startsWith('null', i)) return this.word(i, 'null', null);
        break;
      case 't':
        if (s.startsWith('true', i)) return this.word(i, 'true', true);
        break;
      case 'f':
        if (s.startsWith('false', i)) return this.word(i, 'false', false);
        break;
      case 'N':
        if (s.startsWith('NaN', i)) return this.word(i, 'NaN', NaN);
        break;
      case 'I':
        if (s.startsWith('Infinity', i)) return this.word(i, 'Infinity', Infinity);
        break;
      case '-':
        if (s.startsWith('-Infinity', i)) return this.word(i, '-Infinity', -Infinity);
        break;
    }
    return this.number(i);
  }

  private number(start: number): number {
    const s = this.s;
    let i = start;
    const negative = s.charCodeAt(i) === 0x2d;
    if (negative) i++;
    const first = s.charCodeAt(i);
    if (first >= 0x31 && first <= 0x39) {
      i++;
      while (isDigit(s.charCodeAt(i))) i++;
    } else if (first === 0x30) {
      i++;
    } else {
      throw new DecodeError('JSONDecodeError', 'Expecting value', start);
    }
    let isFloat = false;
    if (s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      isFloat = true;
      i += 2;
      while (isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      let j = i + 1;
      const sign = s.charCodeAt(j);
      if (sign === 0x2b || sign === 0x2d) j++;
      const digitsFrom = j;
      while (isDigit(s.charCodeAt(j))) j++;
      if (j > digitsFrom) {
        isFloat = true;
        i = j;
      }
    }
    const digits = i - start - (negative ? 1 : 0);
    if (!isFloat && digits > PY_INT_MAX_STR_DIGITS) {
      throw new DecodeError(
        'ValueError',
        `Exceeds the limit (${PY_INT_MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`,
        start,
      );
    }
    if (this.build) {
      const literal = s.slice(start, i);
      this.value = isFloat ? Number(literal) : new PyInt(literal === '-0' ? '0' : literal);
    }
    return i;
  }

  private string(begin: number): number {
    const s = this.s;
    const quoteAt = begin - 1;
    const build = this.build;
    let out = '';
    let i = begin;
    for (;;) {
      let j = i;
      let c = 0;
      for (; j < s.length; j++) {
        c = s.charCodeAt(j);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) throw new DecodeError('JSONDecodeError', 'Invalid control character at', j);
      }
      if (j >= s.length) throw new DecodeError('JSONDecodeError', 'Unterminated string starting at', quoteAt);
      if (build) out += s.slice(i, j);
      if (c === 0x22) {
        this.value = out;
        return j + 1;
      }
      j++;
      if (j >= s.length) throw new DecodeError('JSONDecodeError', 'Unterminated string starting at', quoteAt);
      const esc = s[j];
      if (esc !== 'u') {
        const simple = SIMPLE_ESCAPES[esc];
        if (simple === undefined) throw new DecodeError('JSONDecodeError', 'Invalid \\escape', j - 1);
        if (build) out += simple;
        i = j + 1;
        continue;
      }
      const hexStart = j + 1;
      // CPython wants at least one character after the four hex digits (the closing quote at the least).
      if (hexStart + 4 >= s.length) throw new DecodeError('JSONDecodeError', 'Invalid \\uXXXX escape', j);
      const hex = s.slice(hexStart, hexStart + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new DecodeError('JSONDecodeError', 'Invalid \\uXXXX escape', j);
      const unit = parseInt(hex, 16);
      i = hexStart + 4;
      // A high surrogate followed by an escaped second unit: CPython validates those four hex digits too.
      if (unit >= 0xd800 && unit <= 0xdbff && i + 6 < s.length && s[i] === '\\' && s[i + 1] === 'u') {
        const hex2 = s.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex2)) throw new DecodeError('JSONDecodeError', 'Invalid \\uXXXX escape', i + 1);
        const low = parseInt(hex2, 16);
        if (low >= 0xdc00 && low <= 0xdfff) {
          if (build) out += String.fromCharCode(unit, low);
          i += 6;
          continue;
        }
      }
      if (build) out += String.fromCharCode(unit);
    }
  }

  private object(start: number): number {
    const s = this.s;
    const obj = this.build ? new Map<string, PyValue>() : null;
    let i = this.skipWs(start);
    if (i < s.length && s[i] === '}') {
      this.value = obj;
      return i + 1;
    }
    for (;;) {
      if (i >= s.length || s[i] !== '"') throw new DecodeError('JSONDecodeError', 'Expecting property name enclosed in double quotes', i);
      i = this.string(i + 1);
      const key = this.value as string;
      i = this.skipWs(i);
      if (i >= s.length || s[i] !== ':') throw new DecodeError('JSONDecodeError', "Expecting ':' delimiter", i);
      i = this.scan(this.skipWs(i + 1));
      obj?.set(key, this.value);
      i = this.skipWs(i);
      if (i < s.length && s[i] === '}') {
        this.value = obj;
        return i + 1;
      }
      if (i >= s.length || s[i] !== ',') throw new DecodeError('JSONDecodeError', "Expecting ',' delimiter", i);
      i = this.skipWs(i + 1);
    }
  }

  private array(start: number): number {
    const s = this.s;
    const arr: PyValue[] | null = this.build ? [] : null;
    let i = this.skipWs(start);
    if (i < s.length && s[i] === ']') {
      this.value = arr;
      return i + 1;
    }
    for (;;) {
      i = this.scan(i);
      arr?.push(this.value);
      i = this.skipWs(i);
      if (i < s.length && s[i] === ']') {
        this.value = arr;
        return i + 1;
      }
      if (i >= s.length || s[i] !== ',') throw new DecodeError('JSONDecodeError', "Expecting ',' delimiter", i);
      i = this.skipWs(i + 1);
    }
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Python's `json.loads(s)`, results and failures as values; with `check`, only whether it loads and why not (the value
 *  is then null). */
export function pyJsonLoads(s: string, opts: { check?: boolean } = {}): PyLoadResult {
  if (s.startsWith('\ufeff')) {
    return { ok: false, error: { type: 'JSONDecodeError', message: decodeErrorMessage(s, 'Unexpected UTF-8 BOM (decode using utf-8-sig)', 0) } };
  }
  const scanner = new Scanner(s, !opts.check);
  let i = 0;
  while (i < s.length && isWs(s.charCodeAt(i))) i++;
  try {
    let j = scanner.scan(i);
    const value = scanner.value;
    while (j < s.length && isWs(s.charCodeAt(j))) j++;
    if (j !== s.length) return { ok: false, error: { type: 'JSONDecodeError', message: decodeErrorMessage(s, 'Extra data', j) } };
    return { ok: true, value };
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    const message = err.type === 'JSONDecodeError' ? decodeErrorMessage(s, err.msg, err.pos) : err.msg;
    return { ok: false, error: { type: err.type, message } };
  }
}

// ---- str() and repr() of JSON values ------------------------------------------------------------------------------

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const hex = (c: number, width: number) => c.toString(16).padStart(width, '0');

/** Python's repr() of a str: quote choice, backslash escapes, non-printable code points as \x, \u or \U. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + hex(c, 2);
    else if (c < 0x7f) out += ch;
    else if (!NON_PRINTABLE.test(ch)) out += ch;
    else if (c <= 0xff) out += '\\x' + hex(c, 2);
    else if (c <= 0xffff) out += '\\u' + hex(c, 4);
    else out += '\\U' + hex(c, 8);
  }
  return out + quote;
}

/** Python's repr() of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16, ".0" on integers. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const [mantissa, exp = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const decpt = Number(exp) + 1; // value = 0.<digits> * 10^decpt
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const frac = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${frac}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

/** Python's repr() of a value json.loads returned. */
export function pyRepr(v: PyValue): string {
  if (typeof v === 'string') return pyStrRepr(v);
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return pyFloatRepr(v);
  if (v instanceof PyInt) return v.digits;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${[...v].map(([k, val]) => `${pyStrRepr(k)}: ${pyRepr(val)}`).join(', ')}}`;
}

/** Python's str() of a value json.loads returned: a str is itself, anything else its repr. */
export function pyStr(v: PyValue): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** str.isspace()'s set (Unicode White_Space plus the C0 separators U+001C..U+001F); JavaScript's trim() differs. */
const PY_NOT_SPACE = /[^\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/** `bool(s.strip())` in Python. */
export function pyHasNonSpace(s: string): boolean {
  return PY_NOT_SPACE.test(s);
}

// ---- env.py: parse_actions, Canvas and validate_completion --------------------------------------------------------

export interface SeedShape {
  id: string;
  shape: string;
  x: number;
  y: number;
  w: number;
  h: number;
  text: string;
}
export interface SeedArrow {
  source: string;
  target: string;
  text: string;
}
export interface SeedCanvas {
  /** Insertion order, as a Python dict. */
  shapes: Map<string, SeedShape>;
  arrows: SeedArrow[];
}
export interface SeedValidation {
  /** null when parse_actions raised. */
  canvas: SeedCanvas | null;
  /** The strings env.py's validate_completion returns. */
  errors: string[];
}

/**
 * validate_completion's result with parse_actions' refusal left unworded: its message may be a Python JSON error,
 * which takes the exact reader a pass over the text (see DeferredDecodeError), so it is worded only when read.
 */
export type SeedOutcome = { canvas: SeedCanvas; errors: string[] } | { canvas: null; refusal: { readonly message: string } };

/** Either representation of a Python dict: a Map from pyJsonLoads, or a plain object from JSON.parse. */
type Dict = Map<string, PyValue> | Record<string, unknown>;

const isDict = (v: unknown): v is Dict =>
  v instanceof Map || (typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyInt));

/** `d.get(key)`; undefined when absent (JSON never yields undefined, and no key read here lives on Object.prototype). */
function dictGet(d: Dict, key: string): unknown {
  return d instanceof Map ? d.get(key) : d[key];
}

function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof PyInt) return 'int';
  if (typeof v === 'number') return 'float';
  if (Array.isArray(v)) return 'list';
  return 'dict';
}

/** Raised inside the port exactly where the Python raises; caught where the Python catches. */
class PyException {
  /** A PyError may word its message late (DeferredDecodeError). */
  constructor(private readonly error: string | PyError) {}
  get message(): string {
    return typeof this.error === 'string' ? this.error : this.error.message;
  }
}

/**
 * Thrown by the JSON.parse reading when it lost a distinction Python keeps (int vs float in a non-string text, a
 * non-finite number or a top-level number); the caller redoes the completion with pyJsonLoads.
 */
class NeedsExactTypes {}

interface Mode {
  exact: boolean;
}

function requireStr(obj: Dict, key: string): string {
  const v = dictGet(obj, key);
  if (typeof v !== 'string' || v === '') throw new PyException(`${key} must be a non-empty string`);
  return v;
}

function requireNumber(obj: Dict, key: string, mode: Mode): number {
  const v = dictGet(obj, key);
  if (typeof v === 'boolean') return v ? 1 : 0; // bool is an int subclass
  if (v instanceof PyInt) {
    if (!Number.isFinite(v.value)) throw new PyException('int too large to convert to float');
    return v.value;
  }
  if (typeof v !== 'number') throw new PyException(`${key} must be a finite number`);
  // JSON.parse turns an overlong int literal into Infinity; Python keeps an int and fails differently.
  if (!Number.isFinite(v) && !mode.exact) throw new NeedsExactTypes();
  if (!Number.isFinite(v)) throw new PyException(`${key} must be a finite number`);
  return v;
}

/** `str(action.get("text", ""))`. */
function textOf(action: Dict, mode: Mode): string {
  const v = dictGet(action, 'text');
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (!mode.exact) throw new NeedsExactTypes();
  return pyStr(v as PyValue);
}

const ALLOWED_SHAPES = new Set(['rectangle', 'ellipse', 'diamond', 'text']);

function createShape(canvas: SeedCanvas, action: Dict, mode: Mode): void {
  const id = requireStr(action, 'id');
  const shape = requireStr(action, 'shape');
  if (!ALLOWED_SHAPES.has(shape)) throw new PyException(`unknown shape type: ${shape}`);
  if (canvas.shapes.has(id)) throw new PyException(`duplicate shape id: ${id}`);
  const x = requireNumber(action, 'x', mode);
  const y = requireNumber(action, 'y', mode);
  const w = requireNumber(action, 'w', mode);
  const h = requireNumber(action, 'h', mode);
  if (w <= 0 || h <= 0) throw new PyException('shape width and height must be positive');
  if (w > 1000 || h > 1000) throw new PyException('shape too large');
  canvas.shapes.set(id, { id, shape, x, y, w, h, text: textOf(action, mode) });
}

function connect(canvas: SeedCanvas, action: Dict, mode: Mode): void {
  const source = requireStr(action, 'from');
  const target = requireStr(action, 'to');
  if (!canvas.shapes.has(source)) throw new PyException(`arrow source does not exist: ${source}`);
  if (!canvas.shapes.has(target)) throw new PyException(`arrow target does not exist: ${target}`);
  if (source === target) throw new PyException('arrow cannot connect a shape to itself');
  canvas.arrows.push({ source, target, text: textOf(action, mode) });
}

function applyAction(canvas: SeedCanvas, action: Dict, mode: Mode): void {
  const type = requireStr(action, 'type');
  if (type === 'create_shape') createShape(canvas, action, mode);
  else if (type === 'connect') connect(canvas, action, mode);
  else throw new PyException(`unknown action type: ${type}`);
}

/** A run of more digits than Python turns into an int; the lookbehind makes the regex try each run once. */
const OVERLONG_DIGITS = new RegExp(`(?<![0-9])[0-9]{${PY_INT_MAX_STR_DIGITS + 1}}`);

function countOf(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

/**
 * Could JSON.parse accept what Python refuses? An overlong int literal (a digit run inside a string just sends the
 * text to the exact reader, which agrees), or more openers than Python's nesting limit.
 */
function mayExceedPythonLimits(s: string): boolean {
  if (s.length > PY_INT_MAX_STR_DIGITS && OVERLONG_DIGITS.test(s)) return true;
  return s.length >= 2 * PY_MAX_NESTING && countOf(s, '[') + countOf(s, '{') > PY_MAX_NESTING;
}

type Loaded = { ok: true; value: unknown } | { ok: false; error: PyError };

/**
 * The JSONDecodeError Python raises on a text that JSON.parse refused (within Python's limits, without NaN or
 * Infinity). Its message, positions and all, takes the exact reader a pass over the text, so it is worked out only
 * if someone reads it: a training loop reads the reward of every completion and the errors of few.
 */
class DeferredDecodeError implements PyError {
  readonly type = 'JSONDecodeError';
  constructor(private readonly doc: string) {}
  get message(): string {
    const exact = pyJsonLoads(this.doc, { check: true });
    if (exact.ok) throw new Error('seed-python: the exact reader accepts a text JSON.parse refused within Python limits');
    return exact.error.message;
  }
}

/** What JSON.parse can start a value with after JSON whitespace; anything else fails in Python too ("Expecting value"). */
const JSON_VALUE_START = /^[ \t\n\r]*[-{["0-9tfn]/;

/**
 * json.loads through JSON.parse where that gives the same answer. Within Python's limits JSON.parse accepts exactly
 * what Python accepts minus NaN/Infinity, so a text without those that JSON.parse refuses is refused by Python too
 * (with a JSONDecodeError), and the exact reader runs only for them, for `exact` mode, or for a message when read.
 * The whole completion goes through the environment's remembered parse: the strong reward reads the same text.
 */
function loads(s: string, mode: Mode, whole: boolean): Loaded {
  if (mode.exact || mayExceedPythonLimits(s)) return pyJsonLoads(s);
  if (JSON_VALUE_START.test(s)) {
    const native = whole ? parseJsonCached(s) : parseJson(s);
    if (native.ok) return native;
  }
  if (s.includes('NaN') || s.includes('Infinity')) return pyJsonLoads(s);
  return { ok: false, error: new DeferredDecodeError(s) };
}

/** parse_actions: whole text, else the first `{` to the last `}` (no fenced-block step). */
function parseActions(text: string, mode: Mode): Dict[] {
  let data = loads(text, mode, true);
  if (!data.ok) {
    if (data.error.type !== 'JSONDecodeError') throw new PyException(data.error);
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    if (start === -1 || end === -1 || end <= start) throw new PyException('model output does not contain JSON');
    data = loads(text.slice(start, end + 1), mode, false);
    if (!data.ok) throw new PyException(data.error);
  }
  const value = data.value;
  // JSON.parse cannot tell an int from a float, and the message names the type.
  if (typeof value === 'number' && !mode.exact) throw new NeedsExactTypes();
  if (!isDict(value)) throw new PyException(`'${pyTypeName(value)}' object has no attribute 'get'`);
  const actions = dictGet(value, 'actions');
  if (!Array.isArray(actions)) throw new PyException('missing actions array');
  if (actions.length === 0) throw new PyException('actions array is empty');
  if (actions.length > 40) throw new PyException('too many actions');
  if (!actions.every(isDict)) throw new PyException('each action must be an object');
  return actions as Dict[];
}

function validate(text: string, mode: Mode): SeedOutcome {
  let actions: Dict[];
  try {
    actions = parseActions(text, mode);
  } catch (err) {
    if (err instanceof PyException) return { canvas: null, refusal: err };
    throw err;
  }
  const canvas: SeedCanvas = { shapes: new Map(), arrows: [] };
  const errors: string[] = [];
  actions.forEach((action, i) => {
    try {
      applyAction(canvas, action, mode);
    } catch (err) {
      if (!(err instanceof PyException)) throw err;
      errors.push(`action ${i}: ${err.message}`);
    }
  });
  return { canvas, errors };
}

/** env.py's validate_completion, with a refusal's message worded only when read. */
export function checkCompletion(text: string): SeedOutcome {
  try {
    return validate(text, { exact: false });
  } catch (err) {
    if (!(err instanceof NeedsExactTypes)) throw err;
    return validate(text, { exact: true });
  }
}

/** env.py's validate_completion, result for result and error string for error string. */
export function validateCompletion(text: string): SeedValidation {
  const outcome = checkCompletion(text);
  return outcome.canvas === null ? { canvas: null, errors: [outcome.refusal.message] } : outcome;
}
