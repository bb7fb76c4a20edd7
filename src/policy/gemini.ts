// A Gemini policy through Google's SDK, as in the seed's teacher_generate.py: JSON out via
// `responseMimeType: application/json` with the response JSON Schema. The system prompt goes in `systemInstruction`.
import type { Content, GenerateContentResponse, GoogleGenAI } from '@google/genai';
import type { ChatMessage, Completion, FinishReason, Policy, SamplingOptions } from './policy.ts';
import { callWithRetries, Limiter, portableResponseSchema, RemoteError, withDefaults, type Endpoint, type RemoteOptions, type ResponseSchema } from './remote.ts';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';

export interface GeminiPolicyOptions extends RemoteOptions {
  model: string;
  /** Defaults to GEMINI_API_KEY. */
  apiKey?: string;
  /** Another host speaking the Gemini API (a proxy, or a local test server). */
  baseUrl?: string;
  /** The schema answers must follow (JSON mime type and `responseJsonSchema`); without one, answers are free text. */
  responseSchema?: ResponseSchema;
  env?: NodeJS.ProcessEnv;
}

function finishReason(r: string | undefined): FinishReason {
  return r === 'MAX_TOKENS' ? 'length' : 'stop';
}

/** Gemini has no system role inside `contents`: system text goes to systemInstruction, assistant turns are `model`. */
export function toGeminiContents(conversation: ChatMessage[]): { system: string | undefined; contents: Content[] } {
  const system = conversation.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n') || undefined;
  const contents = conversation
    .filter((m) => m.role !== 'system')
    .map((m): Content => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] }));
  return { system, contents };
}

export class GeminiPolicy implements Policy {
  readonly name: string;
  private readonly ai: Promise<GoogleGenAI>;
  private readonly limiter: Limiter;
  private readonly endpoint: Endpoint;
  private readonly schema: Record<string, unknown> | undefined;

  constructor(private readonly options: GeminiPolicyOptions) {
    this.schema = options.responseSchema && portableResponseSchema(options.responseSchema.schema);
    const env = options.env ?? process.env;
    if (!options.model) throw new Error('gemini policy: a model name is required (gemini:MODEL)');
    this.name = `gemini:${options.model}`;
    const apiKey = options.apiKey ?? env.GEMINI_API_KEY;
    if (!apiKey) throw new RemoteError(`${this.name}: no API key; set GEMINI_API_KEY or pass --api-key`, 'auth');
    const baseUrl = options.baseUrl?.replace(/\/+$/, '');
    this.endpoint = { policy: this.name, baseUrl: baseUrl ?? GEMINI_DEFAULT_BASE_URL, model: options.model, keyHint: 'GEMINI_API_KEY or --api-key' };
    // No SDK retries (none without retryOptions) and no SDK timeout: remote.ts handles both for every protocol.
    // The SDK loads with the first client (most of a second): what never asks Gemini does not pay for it.
    this.ai = import('@google/genai').then(({ GoogleGenAI: SDK }) => new SDK({ apiKey, ...(baseUrl ? { httpOptions: { baseUrl } } : {}) }));
    this.limiter = new Limiter(withDefaults(options).concurrency);
  }

  async generate(conversations: ChatMessage[][], opts: SamplingOptions = {}): Promise<Completion[][]> {
    return Promise.all(conversations.map((c) => this.complete(c, opts)));
  }

  /** n completions as candidates of one request; asks again when the model returns fewer candidates than asked. */
  private async complete(conversation: ChatMessage[], opts: SamplingOptions): Promise<Completion[]> {
    const n = opts.n ?? 1;
    const out: Completion[] = [];
    while (out.length < n) {
      let response: GenerateContentResponse;
      try {
        response = await this.limiter.run(() =>
          callWithRetries((signal) => this.request(conversation, opts, n - out.length, signal), this.endpoint, this.options),
        );
      } catch (err) {
        if (err instanceof RemoteError && !err.fatal) {
          while (out.length < n) out.push({ text: '', finishReason: 'error', error: err.message });
          break;
        }
        throw err;
      }
      const candidates = response.candidates ?? [];
      if (candidates.length === 0) {
        const blocked = response.promptFeedback?.blockReason;
        const why = blocked ? `the prompt was blocked (${blocked})` : 'the server returned no candidates';
        while (out.length < n) out.push({ text: '', finishReason: 'error', error: `${this.name}: ${why}` });
        break;
      }
      const single = candidates.length === 1;
      for (const c of candidates.slice(0, n - out.length)) {
        out.push({
          // Thought summaries are not the answer.
          text: (c.content?.parts ?? []).filter((p) => !p.thought).map((p) => p.text ?? '').join(''),
          finishReason: finishReason(c.finishReason),
          promptTokens: response.usageMetadata?.promptTokenCount,
          completionTokens: single ? response.usageMetadata?.candidatesTokenCount : undefined,
        });
      }
    }
    return out;
  }

  private async request(conversation: ChatMessage[], opts: SamplingOptions, n: number, signal: AbortSignal): Promise<GenerateContentResponse> {
    const { system, contents } = toGeminiContents(conversation);
    return (await this.ai).models.generateContent({
      model: this.options.model,
      contents,
      config: {
        abortSignal: signal,
        ...(system ? { systemInstruction: system } : {}),
        ...(this.schema ? { responseMimeType: 'application/json', responseJsonSchema: this.schema } : {}),
        ...(n > 1 ? { candidateCount: n } : {}),
        ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
        ...(opts.topP !== undefined ? { topP: opts.topP } : {}),
        ...(opts.topK !== undefined ? { topK: opts.topK } : {}),
        ...(opts.maxTokens !== undefined ? { maxOutputTokens: opts.maxTokens } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      },
    });
  }
}
