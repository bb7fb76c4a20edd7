// OpenAI-compatible serving of a policy (the trained student): POST /v1/chat/completions and GET /v1/models.
// `response_format: json_schema` is honoured by validation with resampling: choices that do not match the schema are
// sampled again (other seeds) up to `schemaRetries` times; any still invalid come back with
// `canvasgym.schema_valid = false` and the first problem, so a client can tell.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ChatMessage, Completion, Policy, SamplingOptions } from '../policy/policy.ts';
import { HttpError, isObject, requireField } from './http.ts';

export interface ServeOptions {
  /** The id clients pass as `model`, listed by GET /v1/models. */
  modelId: string;
  maxN: number;
  /** Extra sampling rounds for choices that miss a requested JSON schema. */
  schemaRetries: number;
}

const ROLES = new Set(['system', 'user', 'assistant']);

function messagesOf(body: Record<string, unknown>): ChatMessage[] {
  const raw = requireField(body, 'messages', 'array') as unknown[];
  if (raw.length === 0) throw new HttpError(400, 'invalid_field', 'messages is empty: send at least one message');
  return raw.map((m, i) => {
    if (!isObject(m)) throw new HttpError(400, 'invalid_field', `messages[${i}] must be an object {role, content}`);
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) throw new HttpError(400, 'invalid_field', `messages[${i}].role must be system, user or assistant, got ${JSON.stringify(m.role)}`);
    let content = m.content;
    // The SDK's content parts: text parts are joined; anything else (images, audio) the student cannot read.
    if (Array.isArray(content)) {
      content = content
        .map((p, j) => {
          if (isObject(p) && p.type === 'text' && typeof p.text === 'string') return p.text;
          throw new HttpError(400, 'invalid_field', `messages[${i}].content[${j}]: only text parts are supported`);
        })
        .join('');
    }
    if (typeof content !== 'string') throw new HttpError(400, 'invalid_field', `messages[${i}].content must be a string or text parts`);
    return { role: m.role as ChatMessage['role'], content };
  });
}

function numberField(body: Record<string, unknown>, name: string, check: (v: number) => boolean, want: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !check(v)) throw new HttpError(400, 'invalid_field', `${name} must be ${want}, got ${JSON.stringify(v)}`);
  return v;
}

type Format = { kind: 'text' } | { kind: 'json_object' } | { kind: 'json_schema'; name: string; schema: z.ZodType };

function formatOf(body: Record<string, unknown>): Format {
  const rf = body.response_format;
  if (rf === undefined || rf === null) return { kind: 'text' };
  if (!isObject(rf)) throw new HttpError(400, 'invalid_field', 'response_format must be an object {type, json_schema?}');
  if (rf.type === 'text') return { kind: 'text' };
  if (rf.type === 'json_object') return { kind: 'json_object' };
  if (rf.type !== 'json_schema') throw new HttpError(400, 'invalid_field', `response_format.type must be text, json_object or json_schema, got ${JSON.stringify(rf.type)}`);
  const js = requireField(rf, 'json_schema', 'object', 'response_format.') as Record<string, unknown>;
  const schema = requireField(js, 'schema', 'object', 'response_format.json_schema.') as Record<string, unknown>;
  try {
    return { kind: 'json_schema', name: typeof js.name === 'string' ? js.name : 'response', schema: z.fromJSONSchema(schema as never) };
  } catch (err) {
    throw new HttpError(400, 'invalid_field', `response_format.json_schema.schema cannot be used: ${(err as Error).message}`);
  }
}

/** Why a completion misses the format, or null when it matches. */
function formatProblem(format: Format, text: string): string | null {
  if (format.kind === 'text') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `not valid JSON: ${(err as Error).message}`;
  }
  if (format.kind === 'json_object') return isObject(value) ? null : 'not a JSON object';
  const r = format.schema.safeParse(value);
  if (r.success) return null;
  const issue = r.error.issues[0];
  return `does not match schema ${format.name}: ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`;
}

/** One model, one generation at a time: requests queue here rather than share the model's buffers. */
export class ChatService {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly policy: Policy,
    readonly opts: ServeOptions,
  ) {}

  models() {
    return { object: 'list', data: [{ id: this.opts.modelId, object: 'model', created: 0, owned_by: 'canvasgym', root: this.policy.name }] };
  }

  async complete(body: Record<string, unknown>) {
    if (body.stream === true) throw new HttpError(400, 'unsupported', 'stream: true is not supported; ask without streaming');
    const model = requireField(body, 'model', 'string') as string;
    if (model !== this.opts.modelId) throw new HttpError(404, 'model_not_found', `model ${JSON.stringify(model)} is not served here; GET /v1/models lists ${JSON.stringify(this.opts.modelId)}`);
    const messages = messagesOf(body);
    const n = numberField(body, 'n', (v) => Number.isInteger(v) && v >= 1 && v <= this.opts.maxN, `an integer from 1 to ${this.opts.maxN}`) ?? 1;
    const sampling: SamplingOptions = {
      n,
      temperature: numberField(body, 'temperature', (v) => v >= 0 && v <= 2, 'a number from 0 to 2'),
      topP: numberField(body, 'top_p', (v) => v > 0 && v <= 1, 'a number in (0, 1]'),
      maxTokens:
        numberField(body, 'max_completion_tokens', (v) => Number.isInteger(v) && v >= 1, 'a positive integer') ??
        numberField(body, 'max_tokens', (v) => Number.isInteger(v) && v >= 1, 'a positive integer'),
      seed: numberField(body, 'seed', (v) => Number.isInteger(v) && v >= 0 && v < 2 ** 31, 'an integer from 0 to 2^31-1'),
    };
    const format = formatOf(body);
    const run = this.queue.then(() => this.sample(messages, sampling, format));
    this.queue = run.catch(() => {});
    const { choices, attempts } = await run;
    const error = choices.find((c) => c.completion.finishReason === 'error');
    if (error) throw new HttpError(400, 'context_length_exceeded', `messages: ${error.completion.error}`);
    const promptTokens = choices[0].completion.promptTokens ?? 0;
    const completionTokens = choices.reduce((s, c) => s + (c.completion.completionTokens ?? 0), 0);
    return {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: this.opts.modelId,
      system_fingerprint: null,
      choices: choices.map((c, index) => ({
        index,
        message: { role: 'assistant', content: c.completion.text, refusal: null },
        logprobs: null,
        finish_reason: c.completion.finishReason === 'length' ? 'length' : 'stop',
        ...(format.kind === 'text' ? {} : { canvasgym: { schema_valid: c.problem === null, attempts: c.attempts, ...(c.problem ? { schema_error: c.problem } : {}) } }),
      })),
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      ...(format.kind === 'text' ? {} : { canvasgym: { sampling_rounds: attempts } }),
    };
  }

  private async sample(messages: ChatMessage[], sampling: SamplingOptions, format: Format) {
    const n = sampling.n ?? 1;
    const [first] = await this.policy.generate([messages], sampling);
    const choices = first.map((completion) => ({ completion, problem: formatProblem(format, completion.text), attempts: 1 }));
    let round = 1;
    for (; round <= this.opts.schemaRetries; round++) {
      const bad = choices.flatMap((c, i) => (c.problem !== null && c.completion.finishReason !== 'error' ? [i] : []));
      if (bad.length === 0 || format.kind === 'text') break;
      // A different seed per round keeps a seeded request reproducible while giving the retries fresh samples.
      const [again] = await this.policy.generate([messages], { ...sampling, n: bad.length, seed: (sampling.seed ?? 0) + 7919 * round });
      bad.forEach((i, k) => {
        const c: Completion = again[k];
        choices[i] = { completion: c, problem: formatProblem(format, c.text), attempts: round + 1 };
      });
    }
    return { choices: choices.slice(0, n), attempts: round };
  }
}
