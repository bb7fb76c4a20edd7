// env.py's validate_completion on the WebAssembly reader's records (fast-json.ts): the canvas Python builds and
// whether any error occurred, without the error strings (the exact port in seed-python.ts words those when read).
// Anything the records cannot settle exactly returns null, and the caller takes the exact port.
import { FIELD, jsonReader, KIND, SCAN, SEED, type JsonReader } from './fast-json.ts';
import { pyJsonLoads, pyStr, type SeedCanvas } from './seed-python.ts';

/** validate_completion's verdict: the canvas (null when parse_actions raised) and whether every action applied. */
export interface SeedCheck {
  canvas: SeedCanvas | null;
  clean: boolean;
}

// Module constants: tsx compiles modules to CommonJS, where each use of an imported binding is a getter call.
const json = jsonReader as JsonReader;
const Kind = KIND;
const Field = FIELD;
const Scan = SCAN;
const Seed = SEED;
const REFUSED: SeedCheck = { canvas: null, clean: false };
const ALLOWED_SHAPES = new Set(['rectangle', 'ellipse', 'diamond', 'text']);

/**
 * parse_actions' reading of the text: true when the scan (of the whole text or of its brace span) left records of a
 * JSON document, false when json.loads raises, null when unsure.
 */
export function scanSeed(text: string): boolean | null {
  const bytes = json.load(text);
  let status = json.scan(0, bytes, 0, true);
  if (status === Scan.unusual) return null;
  // json.loads raised something else than JSONDecodeError: parse_actions does not retry the brace span.
  if (status === Scan.pyLimit) return false;
  if (status === Scan.invalid) {
    status = json.scanBraceSpan(text, bytes, true, json.docStart(), json.docEnd(), true);
    if (status !== Scan.ok) return status === Scan.unusual ? null : false;
  }
  json.settleNumbers(text);
  return true;
}

/** parse_actions on the scanned records: does the document hold a usable actions list? */
function actionsUsable(): boolean {
  return json.usableActions(40) !== 0;
}

/** require_str: a non-empty string (an escape always stands for at least one character). */
const isStr = (i: number, f: number) => json.fieldKind(i, f) === Kind.string && json.fieldEnd(i, f) > json.fieldStart(i, f);

/** require_number's value, or NaN where it raises (bool is an int; a non-finite float or an int too large for one fails). */
function numberOf(text: string, i: number, f: number): number {
  switch (json.fieldKind(i, f)) {
    case Kind.true:
      return 1;
    case Kind.false:
      return 0;
    case Kind.int:
    case Kind.float: {
      // An int too large for a float raises OverflowError; a float literal beyond the range reads as inf and fails.
      // "-0" gives -0 as in the exact port's JSON.parse reading (Python's 0.0 compares and adds the same).
      const v = json.fieldNumber(text, i, f);
      return Number.isFinite(v) ? v : NaN;
    }
    default:
      return NaN;
  }
}

/** `str(action.get("text", ""))`. */
function textOf(text: string, i: number): string {
  switch (json.fieldKind(i, Field.text)) {
    case Kind.absent:
      return '';
    case Kind.string:
      return json.fieldString(text, i, Field.text);
    case Kind.null:
      return 'None';
    case Kind.true:
      return 'True';
    case Kind.false:
      return 'False';
    case Kind.array: {
      const src = text.slice(json.fieldStart(i, Field.text), json.fieldEnd(i, Field.text));
      const plain = plainListStr(src);
      if (plain !== null) return plain;
      return pyStrOfValue(src);
    }
    default:
      // Numbers and dicts: str() of what json.loads makes of the value's own text.
      return pyStrOfValue(text.slice(json.fieldStart(i, Field.text), json.fieldEnd(i, Field.text)));
  }
}

function pyStrOfValue(src: string): string {
  const value = pyJsonLoads(src);
  if (!value.ok) throw new Error('seed-fast: a recorded value does not parse on its own');
  return pyStr(value.value);
}

/**
 * A list holding only lists, ints and strings of printable ASCII without quotes or backslashes (JSON's grammar is
 * the scan's business; this only checks the characters): its repr is its own text respelled, without parsing.
 */
const PLAIN_LIST = /^[ \t\n\r[\],\d-]*(?:"[ !#-&(-[\]-~]*"[ \t\n\r[\],\d-]*)*$/;
/** Outside strings: whitespace goes, a comma takes a space, -0 is 0; strings take single quotes. */
const LIST_TOKEN = /"[^"]*"|[ \t\n\r]+|,|-0(?!\d)/g;

function respell(token: string): string {
  if (token === ',') return ', ';
  if (token === '-0') return '0';
  if (token.charCodeAt(0) === 0x22) return `'${token.slice(1, -1)}'`;
  return '';
}

/** str() of a JSON list of lists, ints and plain strings, from its text; null for any other list. */
export function plainListStr(src: string): string | null {
  return PLAIN_LIST.test(src) ? src.replace(LIST_TOKEN, respell) : null;
}

/**
 * The WebAssembly seed scorer on the records scanSeed has just read from `text` (and the loaded prompt): labels
 * whose str() it cannot spell (floats, lists, dicts) are spelled here (textOf) and handed to it for a second pass.
 * Returns its verdict (SEED).
 */
export function seedScoreRecords(text: string): number {
  const verdict = json.seedScore();
  if (verdict !== Seed.labels) return verdict;
  const labels: string[] = [];
  const n = json.seedPendingCount();
  for (let k = 0; k < n; k++) labels.push(textOf(text, json.seedPendingAction(k)));
  return json.supplySeedLabels(labels) ? json.seedScore() : Seed.fallback;
}

/** validate_completion's canvas and verdict, or null when only the exact port can tell. */
export function checkSeedFast(text: string): SeedCheck | null {
  const scanned = scanSeed(text);
  if (scanned === null) return null;
  return scanned ? seedCanvasOfRecords(text) : REFUSED;
}

/** validate_completion's canvas and verdict from the records of `text`, which scanSeed has just read. */
export function seedCanvasOfRecords(text: string): SeedCheck {
  if (!actionsUsable()) return REFUSED;
  const canvas: SeedCanvas = { shapes: new Map(), arrows: [] };
  let clean = true;
  const n = json.actionCount();
  for (let i = 0; i < n; i++) {
    if (!isStr(i, Field.type)) {
      clean = false;
    } else if (json.fieldIs(text, i, Field.type, 'create_shape')) {
      if (!isStr(i, Field.id) || !isStr(i, Field.shape)) {
        clean = false;
        continue;
      }
      const id = json.fieldString(text, i, Field.id);
      const shape = json.fieldString(text, i, Field.shape);
      const x = numberOf(text, i, Field.x);
      const y = numberOf(text, i, Field.y);
      const w = numberOf(text, i, Field.w);
      const h = numberOf(text, i, Field.h);
      // NaN fails every comparison: a coordinate that raised is caught by the isNaN tests.
      if (!ALLOWED_SHAPES.has(shape) || canvas.shapes.has(id) || Number.isNaN(x) || Number.isNaN(y) || !(w > 0 && h > 0 && w <= 1000 && h <= 1000)) {
        clean = false;
        continue;
      }
      canvas.shapes.set(id, { id, shape, x, y, w, h, text: textOf(text, i) });
    } else if (json.fieldIs(text, i, Field.type, 'connect')) {
      if (!isStr(i, Field.from) || !isStr(i, Field.to)) {
        clean = false;
        continue;
      }
      const source = json.fieldString(text, i, Field.from);
      const target = json.fieldString(text, i, Field.to);
      if (!canvas.shapes.has(source) || !canvas.shapes.has(target) || source === target) {
        clean = false;
        continue;
      }
      canvas.arrows.push({ source, target, text: textOf(text, i) });
    } else {
      clean = false;
    }
  }
  return { canvas, clean };
}
