// executeCompletion's outcome counts and canvas for a single-turn answer, on the WebAssembly reader's records
// (fast-json.ts): what the strong reward scores, without building the JSON or wording errors (executeCompletion
// words them when read). Anything the records cannot settle exactly returns null, and the caller executes the text.
import { DEFAULT_MAX_ACTIONS, SEED_ACTION_TYPES } from '../env/actions.ts';
import { actionVerdict } from '../env/apply.ts';
import { Canvas } from '../env/canvas.ts';
import { DEFAULT_MAX_INPUT_CHARS, fencedRange, type JsonSource } from '../env/parse.ts';
import { FIELD, jsonReader, KIND, SCAN, type JsonReader } from './fast-json.ts';

export interface ExecutionCounts {
  /** Where the JSON was found, also when its actions were then refused; undefined when none was found. */
  source: JsonSource | undefined;
  /** Actions run (0 when the parse was refused). */
  actions: number;
  schemaErrors: number;
  applied: number;
  /** null when the completion did not parse. */
  canvas: Canvas | null;
  /** No parse failure and no refused action: executeCompletion's errors are empty. */
  clean: boolean;
}

// Module constants: tsx compiles modules to CommonJS, where each use of an imported binding is a getter call.
const json = jsonReader as JsonReader;
const Kind = KIND;
const Field = FIELD;
const Scan = SCAN;
const OPTIONS = { allowedTypes: SEED_ACTION_TYPES };
/** Stands for any array or object value: no action field accepts one, so the verdict is the same. */
const COMPOSITE: readonly unknown[] = Object.freeze([]);

/** Scans [start, end) of the loaded text (UTF-16 units) in strict JSON. */
function scanUnits(text: string, bytes: number, start: number, end: number): number {
  const ascii = bytes === text.length;
  const from = ascii ? start : json.byteOffset(start, bytes);
  const to = ascii ? end : json.byteOffset(end, bytes);
  return json.scan(from, to, start, false);
}

/** extractJson's search, on the records: the source the JSON was found at, 'none', or null when unsure. */
function findJson(text: string): JsonSource | 'none' | null {
  const bytes = json.load(text);
  let status = json.scan(0, bytes, 0, false);
  if (status === Scan.ok) return 'whole';
  if (status === Scan.unusual) return null;
  const fence = fencedRange(text);
  if (fence) {
    status = scanUnits(text, bytes, fence.start, fence.end);
    if (status === Scan.ok) return 'fenced';
    if (status === Scan.unusual) return null;
  }
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end === -1 || end <= start) return 'none';
  status = scanUnits(text, bytes, start, end + 1);
  if (status === Scan.ok) return 'span';
  return status === Scan.unusual ? null : 'none';
}

/** A field as JSON.parse gives it, up to what validation can tell apart. */
function value(text: string, i: number, f: number): unknown {
  switch (json.fieldKind(i, f)) {
    case Kind.absent:
      return undefined;
    case Kind.string:
      return json.fieldString(text, i, f);
    case Kind.int:
    case Kind.float:
      return json.fieldNumber(text, i, f);
    case Kind.true:
      return true;
    case Kind.false:
      return false;
    case Kind.null:
      return null;
    default:
      return COMPOSITE;
  }
}

function refused(source: JsonSource | undefined): ExecutionCounts {
  return { source, actions: 0, schemaErrors: 0, applied: 0, canvas: null, clean: false };
}

/** executeCompletion(text) in counts, or null when only the real parse can tell. */
export function executeCountsFast(text: string): ExecutionCounts | null {
  if (text.length > DEFAULT_MAX_INPUT_CHARS) return null;
  const found = findJson(text);
  if (found === null) return null;
  if (found === 'none') return refused(undefined);
  if (json.rootKind() !== Kind.object || json.actionsKind() !== Kind.array) return refused(found);
  const n = json.actionCount();
  if (n === 0 || n > DEFAULT_MAX_ACTIONS) return refused(found);
  for (let i = 0; i < n; i++) if (json.elementKind(i) !== Kind.object) return refused(found);
  const canvas = new Canvas();
  let schemaErrors = 0;
  let applied = 0;
  for (let i = 0; i < n; i++) {
    const action = {
      type: value(text, i, Field.type),
      id: value(text, i, Field.id),
      shape: value(text, i, Field.shape),
      x: value(text, i, Field.x),
      y: value(text, i, Field.y),
      w: value(text, i, Field.w),
      h: value(text, i, Field.h),
      text: value(text, i, Field.text),
      from: value(text, i, Field.from),
      to: value(text, i, Field.to),
    };
    const verdict = actionVerdict(canvas, action, OPTIONS);
    if (verdict === 'applied') applied++;
    else if (verdict === 'schema') schemaErrors++;
  }
  return { source: found, actions: n, schemaErrors, applied, canvas, clean: applied === n };
}
