// Reward over HTTP: POST /reward scores rows exactly as `canvasgym score` does (same row function), and
// POST /get_reward speaks OpenRLHF's remote reward-model protocol.
import { scoreRow } from '../diagram/reward/rows.ts';
import { getRubric } from '../diagram/reward/presets.ts';
import type { Rubric } from '../diagram/reward/rubric.ts';
import { promptRefusal } from '../diagram/tasks/limits.ts';
import { DiagramSpec } from '../diagram/tasks/spec.ts';
import { checkBatch, HttpError, isObject, requireField } from './http.ts';

export interface RowResult {
  reward: number;
  components: Record<string, number>;
  errors: string[];
}

export function rubricByName(name: string): Rubric {
  try {
    return getRubric(name);
  } catch (err) {
    throw new HttpError(400, 'unknown_reward', (err as Error).message);
  }
}

/** End-of-turn tokens of the chat templates trainers use (canvasgym's, ChatML, Llama 2, GPT-2, Llama 3): a trainer that
 *  decodes with special tokens (OpenRLHF does) leaves one at the end of the completion, and it is no part of the answer. */
export const END_TOKENS = ['<|end|>', '<|im_end|>', '</s>', '<|endoftext|>', '<|eot_id|>'];

/** The completion without the end tokens (and the whitespace between them) that close it. */
export function stripEndTokens(completion: string): string {
  let text = completion;
  for (let cut = true; cut; ) {
    cut = false;
    const trimmed = text.trimEnd();
    for (const t of END_TOKENS) {
      if (trimmed.endsWith(t)) {
        text = trimmed.slice(0, -t.length);
        cut = true;
      }
    }
  }
  return text;
}

/** Scores `{prompt, completion, spec?}` rows in order; a bad row fails the request with its index, before any scoring. */
export function scoreRows(rubric: Rubric, body: unknown, maxBatch: number): { results: RowResult[] } {
  if (!Array.isArray(body)) {
    if (isObject(body) && Array.isArray(body.rows)) throw new HttpError(400, 'invalid_body', 'request body must be the JSON array of rows itself, not {"rows": [...]}');
    throw new HttpError(400, 'invalid_body', 'request body must be a JSON array of {"prompt", "completion", "spec"?} rows');
  }
  checkBatch(body.length, maxBatch, 'the rows array');
  const scored = body.map((row, i) => {
    // The `score` command's own row function: same validation, same reward, components and errors.
    const input = isObject(row) && typeof row.completion === 'string' ? { ...row, completion: stripEndTokens(row.completion) } : row;
    const { ok, row: out } = scoreRow(rubric, input, i);
    if (!ok) throw new HttpError(400, 'invalid_row', `row ${i}: ${String(out.error).replace(/^line \d+: /, '')}`);
    return { reward: out.reward as number, components: out.components as Record<string, number>, errors: out.errors as string[] };
  });
  return { results: scored };
}

// Chat templates whose last user turn is the request: canvasgym's own, ChatML (Qwen), Llama 3, as [opening, closing].
const USER_TURNS: [string, string][] = [
  ['<|user|>', '<|end|>'],
  ['<|im_start|>user\n', '<|im_end|>'],
  ['<|start_header_id|>user<|end_header_id|>\n\n', '<|eot_id|>'],
];

/**
 * The user's request inside a rendered chat prompt (its last user turn), or the prompt itself when no template matches.
 * Turns are found as /open([\s\S]*?)close/g finds them, by indexOf: the regular expression scans to the end of the
 * prompt from every opening that has no closing, which took 2.6 s for 16,000 openings.
 */
export function userRequest(prompt: string): string {
  for (const [open, close] of USER_TURNS) {
    let turn: string | undefined;
    for (let at = prompt.indexOf(open); at !== -1; ) {
      const start = at + open.length;
      const end = prompt.indexOf(close, start);
      // No closing after this opening means none after a later one either.
      if (end === -1) break;
      turn = prompt.slice(start, end);
      at = prompt.indexOf(open, end + close.length);
    }
    if (turn !== undefined) return turn.trim();
  }
  return prompt;
}

function labelSpec(label: unknown, i: number): DiagramSpec | undefined {
  if (label === undefined || label === null || label === '') return undefined;
  let value = label;
  if (typeof label === 'string') {
    try {
      value = JSON.parse(label);
    } catch (err) {
      throw new HttpError(400, 'invalid_field', `labels[${i}]: not a JSON DiagramSpec (${(err as Error).message}); send "" for none`);
    }
  }
  const spec = DiagramSpec.safeParse(value);
  if (!spec.success) {
    const issue = spec.error.issues[0];
    throw new HttpError(400, 'invalid_field', `labels[${i}]: invalid spec field "${issue.path.map(String).join('.')}": ${issue.message}`);
  }
  return spec.data;
}

/**
 * OpenRLHF's remote reward protocol: `query` holds prompt + response as the trainer decoded them, `prompts` the prompt
 * part, `labels` the dataset's label column (here a DiagramSpec as JSON, or "" for none). `rewards` drive the
 * advantage and `scores` the dynamic filtering; both are the reward. `extra_logs` carries each component per sample.
 */
export function openRlhfReward(rubric: Rubric, body: Record<string, unknown>, maxBatch: number) {
  const query = requireField(body, 'query', 'array') as unknown[];
  checkBatch(query.length, maxBatch, 'query');
  if (body.prompts === undefined) throw new HttpError(400, 'missing_field', 'missing field "prompts": the prompt of each query (OpenRLHF sends them), which holds the request the diagram is scored against');
  const prompts = requireField(body, 'prompts', 'array') as unknown[];
  const labels = body.labels === undefined ? undefined : (requireField(body, 'labels', 'array') as unknown[]);
  for (const [name, list] of [['prompts', prompts], ['labels', labels]] as const) {
    if (list && list.length !== query.length) throw new HttpError(400, 'length_mismatch', `${name} has ${list.length} items but query has ${query.length}: they go together one to one`);
  }
  query.forEach((q, i) => {
    if (typeof q !== 'string') throw new HttpError(400, 'invalid_field', `query[${i}] must be a string`);
    if (typeof prompts[i] !== 'string') throw new HttpError(400, 'invalid_field', `prompts[${i}] must be a string`);
    if (userRequest(prompts[i] as string) === '') throw new HttpError(400, 'invalid_field', `prompts[${i}] holds no request: the prompt (or its last user turn) is empty, and a diagram cannot be scored against nothing`);
  });
  const rewards: number[] = [];
  const extra: Record<string, number[]> = {};
  query.forEach((q, i) => {
    const text = q as string;
    const prompt = prompts[i] as string;
    const completion = stripEndTokens(text.startsWith(prompt) ? text.slice(prompt.length) : text);
    const request = userRequest(prompt);
    const tooLong = promptRefusal(request);
    if (tooLong !== null) throw new HttpError(400, 'invalid_field', `prompts[${i}]: the user's request is ${tooLong}`);
    const score = rubric.score({ prompt: request, completion, spec: labelSpec(labels?.[i], i) });
    rewards.push(score.reward);
    for (const [k, v] of Object.entries(score.components)) (extra[k] ??= []).push(v);
  });
  return { rewards, scores: rewards, extra_logs: extra };
}
