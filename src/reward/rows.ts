// Scoring of data rows `{prompt, completion, spec?}` as the `score` command and the HTTP server both take them:
// the input fields plus `reward`, `components` and `errors`, or an `error` that names the row and what is wrong.
// A row beyond what one row may ask for (src/tasks/limits.ts) gets an `error` without being scored.
import type { RendererReadback, Rubric, ScoreInput } from './rubric.ts';
import { nestsDeeperThan } from '../io/json-depth.ts';
import { LIMITS, promptRefusal } from '../tasks/limits.ts';
import { DiagramSpec } from '../tasks/spec.ts';

export type Row = Record<string, unknown>;

/** Scores one already-parsed row; `lineNumber` names it in errors. */
export function scoreRow(rubric: Rubric, value: unknown, lineNumber: number, readback?: RendererReadback): { ok: boolean; row: Row } {
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
    return { ok: true, row: { ...row, reward, components, errors } };
  } catch (err) {
    return fail(`scoring failed: ${(err as Error).message}`, row);
  }
}

/** The row to write for one JSONL line: its score, or an `error` naming the line. */
export function scoreLine(rubric: Rubric, text: string, lineNumber: number, readback?: RendererReadback): { ok: boolean; row: Row } {
  // Too deep a row is not echoed back: writing it would recurse past the stack.
  if (nestsDeeperThan(Buffer.from(text), LIMITS.jsonDepth)) {
    return { ok: false, row: { line: lineNumber, error: `line ${lineNumber}: nests arrays and objects more than ${LIMITS.jsonDepth} deep, the limit` } };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, row: { line: lineNumber, error: `line ${lineNumber}: not valid JSON (${(err as Error).message})` } };
  }
  return scoreRow(rubric, value, lineNumber, readback);
}
