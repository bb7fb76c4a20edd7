// OpenAI-compatible serving of a policy: POST /v1/chat/completions, POST /v1/completions, GET /v1/models.
// The student is decoded token by token (decoder.ts): streaming, log-probs, stop strings, n, seed and guided
// `response_format` all come from its sampler. Any other Policy (the scripted teacher in tests) answers chats with
// whole texts: no log-probs, no guided decoding, no raw prompts, each refused with a 400 that says so.
import { randomInt, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { responseJsonSchema } from '../diagram/language/actions.ts';
import { renderGenerationPrompt } from '../model/chat.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import type { ChatMessage, Policy } from '../policy/policy.ts';
import { portableResponseSchema } from '../policy/remote.ts';
import { StudentPolicy } from '../policy/student.ts';
import { BatchDecoder, type ChoiceDelta, type DecodeJob, type FinishReason, type JobChoice, type TokenLogprob } from './decoder.ts';
import { errorBody, HttpError, isObject, requireField } from './http.ts';

export interface ServeOptions {
  /** The id clients pass as `model`, listed by GET /v1/models. */
  modelId: string;
  maxN: number;
  /** How long an idle model waits for more requests to decode with the first. */
  batchWindowMs: number;
  /** Sequences (requests x n) decoded together at most. */
  maxSequences: number;
}

/** An answer the route writes itself (a stream of server-sent events). */
export class Streamed {
  constructor(readonly write: (res: ServerResponse, headers: Record<string, string>) => Promise<void>) {}
}

type Kind = 'chat' | 'completions';

interface Request {
  kind: Kind;
  n: number;
  temperature: number;
  topP?: number;
  maxTokens?: number;
  seed: number;
  stop: string[];
  logprobs: number | null;
  stream: boolean;
  includeUsage: boolean;
  guided: boolean;
}

const ROLES = new Set(['system', 'user', 'assistant']);
/** OpenAI's own bounds. */
const MAX_STOP = 4;
const MAX_TOP_LOGPROBS = { chat: 20, completions: 5 };
const DEFAULT_TEMPERATURE = 1;

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

const unsupported = (what: string) => new HttpError(400, 'unsupported', `${what} is not supported by this server`);

/** Fields this server does not implement: a request that uses one is refused rather than answered as if it had not. */
function refuseUnsupported(body: Record<string, unknown>, kind: Kind): void {
  const used = (k: string) => body[k] !== undefined && body[k] !== null;
  for (const k of ['tools', 'functions']) if (used(k) && !(Array.isArray(body[k]) && (body[k] as unknown[]).length === 0)) throw unsupported(`${k} (tool calling)`);
  for (const k of ['tool_choice', 'function_call']) if (used(k) && body[k] !== 'none') throw unsupported(`${k} (tool calling)`);
  for (const k of ['frequency_penalty', 'presence_penalty']) if (used(k) && body[k] !== 0) throw unsupported(`${k} (the sampler has no penalties)`);
  if (used('logit_bias') && !(isObject(body.logit_bias) && Object.keys(body.logit_bias).length === 0)) throw unsupported('logit_bias');
  if (used('audio') || (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text'))) throw unsupported('audio output');
  if (used('prediction')) throw unsupported('prediction (predicted outputs)');
  if (kind === 'completions') {
    if (used('echo') && body.echo !== false) throw unsupported('echo');
    if (used('suffix') && body.suffix !== '') throw unsupported('suffix');
    if (used('best_of') && body.best_of !== 1 && body.best_of !== body.n) throw unsupported('best_of other than n');
  }
}

function stopOf(body: Record<string, unknown>): string[] {
  const v = body.stop;
  if (v === undefined || v === null) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.length > MAX_STOP || !list.every((s) => typeof s === 'string' && s.length > 0)) {
    throw new HttpError(400, 'invalid_field', `stop must be a non-empty string or an array of up to ${MAX_STOP} of them, got ${JSON.stringify(v).slice(0, 200)}`);
  }
  return list as string[];
}

/** Top alternatives per token, or null for no log-probs. Chat: `logprobs: true` with `top_logprobs` 0-20;
 *  completions: `logprobs` 0-5. */
function logprobsOf(body: Record<string, unknown>, kind: Kind): number | null {
  const max = MAX_TOP_LOGPROBS[kind];
  if (kind === 'completions') return numberField(body, 'logprobs', (v) => Number.isInteger(v) && v >= 0 && v <= max, `an integer from 0 to ${max}`) ?? null;
  if (body.logprobs !== undefined && body.logprobs !== null && typeof body.logprobs !== 'boolean') throw new HttpError(400, 'invalid_field', `logprobs must be a boolean, got ${JSON.stringify(body.logprobs)}`);
  const top = numberField(body, 'top_logprobs', (v) => Number.isInteger(v) && v >= 0 && v <= max, `an integer from 0 to ${max}`);
  if (body.logprobs !== true) {
    if (top !== undefined) throw new HttpError(400, 'invalid_field', 'top_logprobs needs logprobs: true');
    return null;
  }
  return top ?? 0;
}

/** JSON with object keys sorted, so that two schemas compare by content. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}
/** The action schema as GET /schema publishes it, and as canvasgym's own openai: policy sends it (remote.ts). */
const ACTION_SCHEMAS = new Set([canonical(responseJsonSchema()), canonical(portableResponseSchema(responseJsonSchema()))]);

/** Whether `response_format` asks for guided decoding. The guide knows one language, the actions: `json_object` gets an
 *  object in it, `json_schema` must be the action schema (GET /schema's `action`); other schemas cannot be guided. */
function guidedBy(body: Record<string, unknown>): boolean {
  const rf = body.response_format;
  if (rf === undefined || rf === null) return false;
  if (!isObject(rf)) throw new HttpError(400, 'invalid_field', 'response_format must be an object {type, json_schema?}');
  if (rf.type === 'text') return false;
  if (rf.type === 'json_object') return true;
  if (rf.type !== 'json_schema') throw new HttpError(400, 'invalid_field', `response_format.type must be text, json_object or json_schema, got ${JSON.stringify(rf.type)}`);
  const js = requireField(rf, 'json_schema', 'object', 'response_format.') as Record<string, unknown>;
  const schema = requireField(js, 'schema', 'object', 'response_format.json_schema.');
  if (!ACTION_SCHEMAS.has(canonical(schema))) {
    throw new HttpError(400, 'unsupported_schema', 'response_format.json_schema.schema: decoding here is guided by the action language only; send the schema GET /schema publishes as "action" (or response_format json_object)');
  }
  return true;
}

export class ChatService {
  readonly decoder?: BatchDecoder;

  constructor(
    readonly policy: Policy,
    readonly opts: ServeOptions,
  ) {
    if (policy instanceof StudentPolicy) this.decoder = new BatchDecoder(policy, { windowMs: opts.batchWindowMs, maxSequences: opts.maxSequences });
  }

  models() {
    return { object: 'list', data: [{ id: this.opts.modelId, object: 'model', created: 0, owned_by: 'canvasgym', root: this.policy.name }] };
  }

  private parse(body: Record<string, unknown>, kind: Kind): Request {
    const model = requireField(body, 'model', 'string') as string;
    if (model !== this.opts.modelId) throw new HttpError(404, 'model_not_found', `model ${JSON.stringify(model)} is not served here; GET /v1/models lists ${JSON.stringify(this.opts.modelId)}`);
    refuseUnsupported(body, kind);
    if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw new HttpError(400, 'invalid_field', `stream must be a boolean, got ${JSON.stringify(body.stream)}`);
    const stream = body.stream === true;
    const so = body.stream_options;
    if (so !== undefined && so !== null) {
      if (!stream) throw new HttpError(400, 'invalid_field', 'stream_options needs stream: true');
      if (!isObject(so)) throw new HttpError(400, 'invalid_field', 'stream_options must be an object {include_usage?}');
    }
    const n = numberField(body, 'n', (v) => Number.isInteger(v) && v >= 1 && v <= this.opts.maxN, `an integer from 1 to ${this.opts.maxN}`) ?? 1;
    const positive = (name: string) => numberField(body, name, (v) => Number.isInteger(v) && v >= 1, 'a positive integer');
    const req: Request = {
      kind,
      n,
      temperature: numberField(body, 'temperature', (v) => v >= 0 && v <= 2, 'a number from 0 to 2') ?? DEFAULT_TEMPERATURE,
      topP: numberField(body, 'top_p', (v) => v > 0 && v <= 1, 'a number in (0, 1]'),
      maxTokens: (kind === 'chat' ? positive('max_completion_tokens') : undefined) ?? positive('max_tokens'),
      // Without a seed each request draws its own, as OpenAI's API does; with one, the same request answers the same.
      seed: numberField(body, 'seed', (v) => Number.isInteger(v) && v >= 0 && v < 2 ** 31, 'an integer from 0 to 2^31-1') ?? randomInt(2 ** 31),
      stop: stopOf(body),
      logprobs: logprobsOf(body, kind),
      stream,
      includeUsage: isObject(so) && so.include_usage === true,
      guided: kind === 'chat' && guidedBy(body),
    };
    if (!this.decoder) {
      const why = `the served policy (${this.policy.name}) answers with whole texts`;
      if (req.logprobs !== null) throw new HttpError(400, 'unsupported', `logprobs: ${why}, without token log-probabilities`);
      if (req.guided) throw new HttpError(400, 'unsupported', `response_format: ${why}; guided decoding needs the student`);
    }
    return req;
  }

  async chat(body: Record<string, unknown>) {
    const req = this.parse(body, 'chat');
    const messages = messagesOf(body);
    if (!this.decoder) return this.answer(req, (emit) => this.wholeTexts(messages, req, emit));
    return this.answer(req, this.tokens(Int32Array.from(renderGenerationPrompt(this.decoder.student.tokenizer, messages)), req, 'messages'));
  }

  async completions(body: Record<string, unknown>) {
    const req = this.parse(body, 'completions');
    if (!this.decoder) throw new HttpError(400, 'unsupported', `/v1/completions needs the student: the served policy (${this.policy.name}) answers chats only`);
    const p = body.prompt;
    if (typeof p !== 'string' && !(Array.isArray(p) && p.length === 1 && typeof p[0] === 'string')) {
      throw new HttpError(400, 'invalid_field', 'prompt must be a string (or an array holding one string); token arrays and several prompts per request are not supported');
    }
    const text = typeof p === 'string' ? p : (p[0] as string);
    if (text === '') throw new HttpError(400, 'invalid_field', 'prompt is empty');
    return this.answer(req, this.tokens(Int32Array.from(encodeRaw(this.decoder.student.tokenizer, text)), req, 'prompt'));
  }

  /** The student's run on a prompt; a prompt that leaves no room in its context is refused now, before any answer. */
  private tokens(prompt: Int32Array, req: Request, field: string): Run {
    const { model, structuredOutput } = this.decoder!.student;
    const nCtx = model.config.nCtx;
    if (prompt.length >= nCtx) throw new HttpError(400, 'context_length_exceeded', `${field}: prompt is ${prompt.length} tokens; the model's context is ${nCtx}`);
    return async (emit, cancelled) => {
      const job: DecodeJob = {
      prompt,
      n: req.n,
      // The sampler also stops each sequence at the end of the context.
      maxTokens: req.maxTokens ?? nCtx,
      temperature: req.temperature,
      topP: req.topP,
      seed: req.seed,
      stop: req.stop,
      logprobs: req.logprobs,
      guided: req.guided || structuredOutput,
      onDelta: emit,
      cancelled,
      };
      return { choices: await this.decoder!.run(job), promptTokens: prompt.length };
    };
  }

  /** A whole-text policy's answers, cut at the first stop string. */
  private async wholeTexts(messages: ChatMessage[], req: Request, emit: Emit | undefined): Promise<RunResult> {
    const [completions] = await this.policy.generate([messages], { n: req.n, temperature: req.temperature, topP: req.topP, maxTokens: req.maxTokens, seed: req.seed });
    const failed = completions.find((c) => c.finishReason === 'error');
    if (failed) throw new HttpError(400, 'invalid_request', `messages: ${failed.error}`);
    const choices = completions.slice(0, req.n).map((c, i): JobChoice => {
      const cut = Math.min(...req.stop.map((s) => c.text.indexOf(s)).filter((at) => at !== -1));
      const text = Number.isFinite(cut) ? c.text.slice(0, cut) : c.text;
      emit?.(i, { text, logprobs: [] });
      return { text, logprobs: [], finishReason: Number.isFinite(cut) || c.finishReason !== 'length' ? 'stop' : 'length', completionTokens: c.completionTokens ?? 0 };
    });
    return { choices, promptTokens: completions[0]?.promptTokens ?? 0 };
  }

  /** The answer as one JSON object, or as server-sent events while it is decoded. */
  private answer(req: Request, run: Run) {
    const id = `${req.kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const head = { id, object: req.kind === 'chat' ? 'chat.completion' : 'text_completion', created, model: this.opts.modelId };
    const usage = ({ choices, promptTokens }: RunResult) => {
      const completion = choices.reduce((s, c) => s + c.completionTokens, 0);
      return { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
    };
    if (!req.stream) {
      return run(undefined, () => false).then((result) => ({
        ...head,
        ...(req.kind === 'chat' ? { system_fingerprint: null } : {}),
        choices: result.choices.map((c, index) =>
          req.kind === 'chat'
            ? { index, message: { role: 'assistant', content: c.text, refusal: null }, logprobs: req.logprobs === null ? null : chatLogprobs(c.logprobs), finish_reason: c.finishReason }
            : { index, text: c.text, logprobs: req.logprobs === null ? null : completionLogprobs(c.logprobs), finish_reason: c.finishReason },
        ),
        usage: usage(result),
      }));
    }
    return new Streamed(async (res, headers) => {
      let gone = false;
      res.on('close', () => (gone = !res.writableFinished));
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      const chunkHead = { ...head, object: req.kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', ...(req.kind === 'chat' ? { system_fingerprint: null } : {}) };
      const send = (choices: unknown[], extra: Record<string, unknown> = {}) => {
        if (!gone) res.write(`data: ${JSON.stringify({ ...chunkHead, choices, ...(req.includeUsage ? { usage: null } : {}), ...extra })}\n\n`);
      };
      const choice = (index: number, d: ChoiceDelta | null, finish: FinishReason | null) =>
        req.kind === 'chat'
          ? { index, delta: d === null ? {} : { content: d.text }, logprobs: d && req.logprobs !== null ? chatLogprobs(d.logprobs) : null, finish_reason: finish }
          : { index, text: d?.text ?? '', logprobs: d && req.logprobs !== null ? completionLogprobs(d.logprobs) : null, finish_reason: finish };
      if (req.kind === 'chat') send(Array.from({ length: req.n }, (_, index) => ({ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null })));
      try {
        const result = await run((i, d) => send([choice(i, d, null)]), () => gone);
        send(result.choices.map((c, i) => choice(i, null, c.finishReason)));
        if (req.includeUsage && !gone) res.write(`data: ${JSON.stringify({ ...chunkHead, choices: [], usage: usage(result) })}\n\n`);
      } catch (err) {
        // The status went out with the first event; the error goes in the stream, as OpenAI's does.
        const e = err instanceof HttpError ? err : new HttpError(500, 'internal_error', `internal error: ${(err as Error).message}`);
        if (!(err instanceof HttpError)) process.stderr.write(`canvasgym serve: streaming failed: ${(err as Error).stack ?? err}\n`);
        if (!gone) res.write(`data: ${JSON.stringify(errorBody(e.status, e.code, e.message))}\n\n`);
      }
      if (!gone) res.end('data: [DONE]\n\n');
    });
  }
}

type Emit = (choice: number, delta: ChoiceDelta) => void;
interface RunResult {
  choices: JobChoice[];
  promptTokens: number;
}
/** Produces an answer's choices, sending each piece of text to `emit` (when streaming) as it is final. */
type Run = (emit: Emit | undefined, cancelled: () => boolean) => Promise<RunResult>;

function chatLogprobs(lps: TokenLogprob[]) {
  return {
    content: lps.map((t) => ({ token: t.token, logprob: t.logprob, bytes: t.bytes, top_logprobs: t.top.map((x) => ({ token: x.token, logprob: x.logprob, bytes: x.bytes })) })),
    refusal: null,
  };
}

/** The legacy completions shape: parallel lists, alternatives as {token: logprob} maps. */
function completionLogprobs(lps: TokenLogprob[]) {
  return {
    tokens: lps.map((t) => t.token),
    token_logprobs: lps.map((t) => t.logprob),
    top_logprobs: lps.map((t) => Object.fromEntries(t.top.map((x) => [x.token, x.logprob]))),
    text_offset: lps.map((t) => t.offset),
  };
}

/** A raw prompt as token ids: the chat template's special tokens written out in it (`<|user|>`, `<|end|>`,
 *  `<|assistant|>`) are those tokens, the rest is text. */
export function encodeRaw(tok: Tokenizer, text: string): number[] {
  const specials = Object.keys(tok.specialIds);
  const pattern = new RegExp(specials.map((s) => s.replace(/[|\\^$.*+?()[\]{}]/g, '\\$&')).join('|'), 'g');
  const ids: number[] = [];
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > at) ids.push(...tok.encode(text.slice(at, m.index)));
    ids.push(tok.specialIds[m[0] as keyof typeof tok.specialIds]);
    at = m.index + m[0].length;
  }
  if (at < text.length) ids.push(...tok.encode(text.slice(at)));
  return ids;
}
