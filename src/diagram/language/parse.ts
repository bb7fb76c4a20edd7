// Turns raw model text into a list of action objects, or a parse failure as a value.
import { DEFAULT_MAX_ACTIONS } from './actions.ts';

export type ParseErrorCode =
  | 'input_too_large'
  | 'no_json'
  | 'invalid_json'
  | 'missing_actions'
  | 'empty_actions'
  | 'too_many_actions'
  | 'action_not_object';

export interface ParseError {
  code: ParseErrorCode;
  message: string;
}

/** Where the JSON was found: the whole text, a fenced ```json block, or the first `{` to the last `}`. */
export type JsonSource = 'whole' | 'fenced' | 'span';

export type ParseResult =
  | { ok: true; actions: Record<string, unknown>[]; source: JsonSource }
  | { ok: false; error: ParseError; source?: JsonSource };

export interface ParseOptions {
  maxActions?: number;
  /** Characters; longer completions are refused before any parsing work. */
  maxInputChars?: number;
}

export const DEFAULT_MAX_INPUT_CHARS = 200_000;

/** The messages of the parse failures that need nothing of JSON.parse's own. */
const PARSE_MESSAGES = {
  noJson: 'model output does not contain JSON',
  notAnObject: 'missing actions array: the JSON is not an object',
  missingActions: 'missing actions array',
  emptyActions: 'actions array is empty',
  tooManyActions: (count: number, max: number) => `too many actions: ${count}, the limit is ${max}`,
  actionNotObject: (index: number, what: string) => `each action must be an object: action ${index} is ${what}`,
};

/** A fence's opening line; the block runs to the next three backticks (the rule: /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)```/). */
const FENCE_OPEN = /```(?:json|JSON)?[ \t]*\r?\n/g;

/**
 * Where the first fenced block's contents lie in `text` ([start, end) in UTF-16 units), or null: extractJson's rule.
 * The block's end is found by indexOf: the rule's lazy `[\s\S]*?` tries the closing fence at every character
 * (about 1.3 µs for a 1.5 KB block). An opening line holds no backtick, so a later one lies past this block's
 * start: when this one has no closing fence, none has.
 */
export function fencedRange(text: string): { start: number; end: number } | null {
  if (!text.includes('```')) return null;
  FENCE_OPEN.lastIndex = 0;
  const open = FENCE_OPEN.exec(text);
  if (open === null) return null;
  const start = open.index + open[0].length;
  const end = text.indexOf('```', start);
  return end === -1 ? null : { start, end };
}

export type JsonAttempt = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * JSON.parse as a value. Most refused texts are expected (prose, truncation), so the thrown SyntaxError is built
 * without a stack trace: capturing one costs about as much as parsing a typical completion.
 */
export function parseJson(text: string): JsonAttempt {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  } finally {
    Error.stackTraceLimit = limit;
  }
}

// The last few texts parsed whole, newest last: the seed and strong rewards, and callers that execute a completion
// before scoring it, read the same text in turn, and a GRPO group repeats completions.
const RECENT_SIZE = 4;
const recentTexts: string[] = [];
const recentResults: JsonAttempt[] = [];

/**
 * parseJson, remembered for the last few texts. The parsed value is shared between callers:
 * everything downstream reads it and none may change it.
 */
export function parseJsonCached(text: string): JsonAttempt {
  for (let i = recentTexts.length - 1; i >= 0; i--) if (recentTexts[i] === text) return recentResults[i];
  const result = parseJson(text);
  if (recentTexts.length === RECENT_SIZE) {
    recentTexts.shift();
    recentResults.shift();
  }
  recentTexts.push(text);
  recentResults.push(result);
  return result;
}

/** Finds the JSON value in a completion: whole text, else a fenced block, else the brace span (the seed's rule). */
export function extractJson(text: string): { ok: true; value: unknown; source: JsonSource } | { ok: false; error: ParseError } {
  const whole = parseJsonCached(text);
  if (whole.ok) return { ok: true, value: whole.value, source: 'whole' };
  const fence = fencedRange(text);
  if (fence) {
    const fenced = parseJson(text.slice(fence.start, fence.end));
    if (fenced.ok) return { ok: true, value: fenced.value, source: 'fenced' };
  }
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end === -1 || end <= start) {
    return { ok: false, error: { code: 'no_json', message: PARSE_MESSAGES.noJson } };
  }
  const span = parseJson(text.slice(start, end + 1));
  if (span.ok) return { ok: true, value: span.value, source: 'span' };
  return { ok: false, error: { code: 'invalid_json', message: `invalid JSON: ${span.message}` } };
}

export function parseCompletion(text: string, opts: ParseOptions = {}): ParseResult {
  const maxChars = opts.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
  const maxActions = opts.maxActions ?? DEFAULT_MAX_ACTIONS;
  if (text.length > maxChars) {
    return {
      ok: false,
      error: { code: 'input_too_large', message: `input is ${text.length} characters; the cap is ${maxChars}` },
    };
  }
  const found = extractJson(text);
  if (!found.ok) return found;
  const { value, source } = found;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refused(source, 'missing_actions', PARSE_MESSAGES.notAnObject);
  }
  const actions = (value as Record<string, unknown>).actions;
  if (!Array.isArray(actions)) return refused(source, 'missing_actions', PARSE_MESSAGES.missingActions);
  if (actions.length === 0) return refused(source, 'empty_actions', PARSE_MESSAGES.emptyActions);
  if (actions.length > maxActions) return refused(source, 'too_many_actions', PARSE_MESSAGES.tooManyActions(actions.length, maxActions));
  for (let i = 0; i < actions.length; i++) {
    const a: unknown = actions[i];
    if (typeof a !== 'object' || a === null || Array.isArray(a)) {
      return refused(source, 'action_not_object', PARSE_MESSAGES.actionNotObject(i, describeJson(a)));
    }
  }
  return { ok: true, actions: actions as Record<string, unknown>[], source };
}

function refused(source: JsonSource, code: ParseErrorCode, message: string): ParseResult {
  return { ok: false, error: { code, message }, source };
}

export function describeJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}
