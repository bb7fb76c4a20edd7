// Scoring of data rows `{prompt, completion, spec?}` as the `score` command and the HTTP server both take them:
// the input fields plus `reward`, `components` and `errors`, or an `error` that names the row and what is wrong.
// A row beyond what one row may ask for (src/diagram/tasks/limits.ts) gets an `error` without being scored.
import type { RendererReadback, Rubric, ScoreInput } from './rubric.ts';
import { nestsDeeperThan } from '../../io/json-depth.ts';
import { LIMITS, promptRefusal } from '../tasks/limits.ts';
import { DiagramSpec } from '../tasks/spec.ts';

export type Row = Record<string, unknown>;

/**
 * Scores one already-parsed row; `lineNumber` names it in errors. The score's fields go onto a copy of the row, or
 * with `inPlace` onto the row itself: scoreLine's rows are its own, parsed from their text, and copying each cost
 * about 3 µs, a twentieth of what scoring a row takes with the seed reward.
 */
export function scoreRow(rubric: Rubric, value: unknown, lineNumber: number, readback?: RendererReadback, inPlace = false): { ok: boolean; row: Row } {
  const fail = (why: string, input: Row = {}) => ({ ok: false, row: { ...input, line: lineNumber, error: `line ${lineNumber}: ${why}` } });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('expected a JSON object {"prompt", "completion", "spec"?}');
  const row = value as Row;
  for (const field of ['prompt', 'completion']) {
    if (!(field in row)) return fail(`missing field "${field}"`, row);
    if (typeof row[field] !== 'string') return fail(`field "${field}" must be a string`, row);
  }
  const tooLong = promptRefusal(row.prompt as string);
  if (tooLong !== null) return fail(`field "prompt": ${tooLong}`, row);
  const input: ScoreInput = { prompt: row.prompt as string, completion: row.completion as string, ...(readback ? { readback } : {}) };
  if (row.spec !== undefined) {
    const spec = DiagramSpec.safeParse(row.spec);
    if (!spec.success) {
      const issue = spec.error.issues[0];
      return fail(`invalid field "spec.${issue.path.map(String).join('.')}": ${issue.message}`, row);
    }
    input.spec = spec.data;
  }
  try {
    const { reward, components, errors } = rubric.score(input);
    if (!inPlace) return { ok: true, row: { ...row, reward, components, errors } };
    row.reward = reward;
    row.components = components;
    row.errors = errors;
    return { ok: true, row };
  } catch (err) {
    return fail(`scoring failed: ${(err as Error).message}`, row);
  }
}

const SCORE_FIELDS = ['reward', 'components', 'errors'];

/**
 * A scored row as one JSON line, written from the line it was read from: the input's text up to its closing brace,
 * then the score's fields. The same row as JSON.stringify(row) (the score's fields last there too), without writing
 * the input's fields out again, completions and their escapes included; null when the input has a field of the score's
 * own (the score replaces it in place).
 */
function echoedJson(text: string, hasScoreField: boolean, row: Row): string | null {
  if (hasScoreField) return null;
  let end = text.length - 1;
  while (end > 0 && /\s/.test(text[end])) end--;
  if (text[end] !== '}') return null;
  return `${text.slice(0, end)},"reward":${JSON.stringify(row.reward)},"components":${JSON.stringify(row.components)},"errors":${JSON.stringify(row.errors)}}`;
}

/** Whether a text holds more than `limit` of `{` and `[` at all, inside strings or not: with fewer none nests deeper. */
function opensMoreThan(text: string, limit: number): boolean {
  let count = 0;
  for (const opener of ['{', '[']) {
    for (let i = text.indexOf(opener); i !== -1; i = text.indexOf(opener, i + 1)) if (++count > limit) return true;
  }
  return false;
}

/**
 * The row to write for one JSONL line: its score, or an `error` naming the line; with `json`, the scored row as one
 * JSON line when it can be written from the input's text.
 */
export function scoreLine(rubric: Rubric, text: string, lineNumber: number, readback?: RendererReadback): { ok: boolean; row: Row; json?: string | null } {
  // Too deep a row is not echoed back: writing it would recurse past the stack. Most rows open a few dozen arrays
  // and objects, below the limit: they skip the exact reading, and the copy to bytes it takes.
  if (opensMoreThan(text, LIMITS.jsonDepth) && nestsDeeperThan(Buffer.from(text), LIMITS.jsonDepth)) {
    return { ok: false, row: { line: lineNumber, error: `line ${lineNumber}: nests arrays and objects more than ${LIMITS.jsonDepth} deep, the limit` } };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, row: { line: lineNumber, error: `line ${lineNumber}: not valid JSON (${(err as Error).message})` } };
  }
  // Whether the input has a field of the score's own is asked before the score is written onto it.
  const hasScoreField = typeof value === 'object' && value !== null && SCORE_FIELDS.some((field) => Object.hasOwn(value, field));
  const scored = scoreRow(rubric, value, lineNumber, readback, true);
  return scored.ok ? { ...scored, json: echoedJson(text, hasScoreField, scored.row) } : scored;
}

/** scoreLine for a line of an input file: one that is not text (io/jsonl.ts, `badText: 'mark'`) is an error row. */
export function scoreInputLine(rubric: Rubric, line: { lineNumber: number; text: string; notText?: string }, readback?: RendererReadback): ReturnType<typeof scoreLine> {
  if (line.notText) return { ok: false, row: { line: line.lineNumber, error: `line ${line.lineNumber}: ${line.notText}` } };
  return scoreLine(rubric, line.text, line.lineNumber, readback);
}
