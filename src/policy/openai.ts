// A policy served over the OpenAI chat-completions protocol: OpenAI itself, vLLM, llama.cpp server, Ollama, or
// Gemini's OpenAI-compatible endpoint. Structured output through `response_format: json_schema`.
import type OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ChatMessage, Completion, FinishReason, Policy, SamplingOptions } from './policy.ts';
import { callWithRetries, Limiter, portableResponseSchema, RemoteError, withDefaults, type Endpoint, type RemoteOptions, type ResponseSchema } from './remote.ts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIPolicyOptions extends RemoteOptions {
  model: string;
  /** Defaults to OPENAI_BASE_URL, then OpenAI's own API. */
  baseURL?: string;
  /** Defaults to OPENAI_API_KEY. A local server (any base URL other than OpenAI's) may go without one. */
  apiKey?: string;
  /** The schema answers must follow, sent as `response_format` (structured output); without one, answers are free
   *  text, for servers without structured output. */
  responseSchema?: ResponseSchema;
  /** Ask for one choice per request even when n > 1 (for servers that refuse `n`, such as llama.cpp). */
  singleChoice?: boolean;
  env?: NodeJS.ProcessEnv;
}

function finishReason(r: string | null | undefined): FinishReason {
  return r === 'length' ? 'length' : 'stop';
}

export class OpenAIPolicy implements Policy {
  readonly name: string;
  private readonly client: Promise<OpenAI>;
  private readonly limiter: Limiter;
  private readonly endpoint: Endpoint;
  private readonly schema: Record<string, unknown> | undefined;

  constructor(private readonly options: OpenAIPolicyOptions) {
    this.schema = options.responseSchema && portableResponseSchema(options.responseSchema.schema);
    const env = options.env ?? process.env;
    if (!options.model) throw new Error('openai policy: a model name is required (openai:MODEL)');
    const baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    let apiKey = options.apiKey ?? env.OPENAI_API_KEY;
    if (!apiKey) {
      if (baseURL === OPENAI_DEFAULT_BASE_URL) {
        throw new RemoteError(`openai:${options.model}: no API key; set OPENAI_API_KEY or pass --api-key (or point --base-url at a local server)`, 'auth');
      }
      // vLLM, llama.cpp and Ollama accept any key; the SDK insists on having one.
      apiKey = 'no-key';
    }
    this.name = `openai:${options.model}`;
    this.endpoint = { policy: this.name, baseUrl: baseURL, model: options.model, keyHint: 'OPENAI_API_KEY or --api-key' };
    // Retries and timeouts are ours (remote.ts), the same for every protocol; the SDK's own are switched off.
    // The SDK loads with the first client (a few hundred ms): what never asks a remote model does not pay for it.
    this.client = import('openai').then(({ default: SDK }) => new SDK({ apiKey, baseURL, maxRetries: 0, timeout: withDefaults(options).timeoutMs + 1_000 }));
    this.limiter = new Limiter(withDefaults(options).concurrency);
  }

  async generate(conversations: ChatMessage[][], opts: SamplingOptions = {}): Promise<Completion[][]> {
    return Promise.all(conversations.map((c) => this.complete(c, opts)));
  }

  /** n completions for one conversation; servers that return fewer choices than asked are asked again for the rest. */
  private async complete(conversation: ChatMessage[], opts: SamplingOptions): Promise<Completion[]> {
    const n = opts.n ?? 1;
    const out: Completion[] = [];
    while (out.length < n) {
      const want = this.options.singleChoice ? 1 : n - out.length;
      let response: ChatCompletion;
      try {
        response = await this.limiter.run(() => callWithRetries((signal) => this.request(conversation, opts, want, signal), this.endpoint, this.options));
      } catch (err) {
        if (err instanceof RemoteError && !err.fatal) {
          while (out.length < n) out.push({ text: '', finishReason: 'error', error: err.message });
          break;
        }
        throw err;
      }
      if (response.choices.length === 0) {
        while (out.length < n) out.push({ text: '', finishReason: 'error', error: `${this.name}: the server returned no choices` });
        break;
      }
      const single = response.choices.length === 1;
      for (const choice of response.choices.slice(0, n - out.length)) {
        out.push({
          text: choice.message.content ?? '',
          finishReason: finishReason(choice.finish_reason),
          promptTokens: response.usage?.prompt_tokens,
          // Usage is per request; per completion only when the request held one choice.
          completionTokens: single ? response.usage?.completion_tokens : undefined,
        });
      }
    }
    return out;
  }

  private async request(conversation: ChatMessage[], opts: SamplingOptions, n: number, signal: AbortSignal): Promise<ChatCompletion> {
    const { responseSchema } = this.options;
    return (await this.client).chat.completions.create(
      {
        model: this.options.model,
        messages: conversation.map((m) => ({ role: m.role, content: m.content })),
        stream: false,
        ...(n > 1 ? { n } : {}),
        ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
        ...(opts.topP !== undefined ? { top_p: opts.topP } : {}),
        ...(opts.maxTokens !== undefined ? { max_tokens: opts.maxTokens } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...(responseSchema && this.schema
          ? { response_format: { type: 'json_schema' as const, json_schema: { name: responseSchema.name, schema: this.schema, strict: false } } }
          : {}),
      },
      { signal },
    );
  }
}
