// Speaks the OpenAI chat-completions protocol on 127.0.0.1. It checks the request shape the way a strict server would
// (400 for a malformed body) and answers from a plan of failures followed by successes.
import { startServer, type RecordedRequest, type Step, type TestServer } from './http-server.ts';

export type Fault = 'ok' | 429 | 500 | 503 | 401 | 403 | 404 | 'hang';

export interface OpenAIServerOptions {
  model: string;
  apiKey: string;
  /** One entry per request, in order; after the plan runs out every request succeeds. */
  plan?: Fault[];
  /** A fault chosen by the request itself (after the plan), for servers answering concurrent requests. */
  faultFor?: (req: ChatRequest) => Fault | undefined;
  /** The assistant text for choice i of a request. */
  reply: (req: ChatRequest, choice: number) => string;
}

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  n?: number;
  temperature?: number;
  stream?: boolean;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown> } };
}

const error = (status: number, message: string, type: string, code: string | null): Step => ({
  status,
  body: { error: { message, type, param: null, code } },
});

/** Why the body is not a chat-completions request the server accepts, or null. */
function malformed(body: unknown): string | null {
  if (!body || typeof body !== 'object') return 'body is not a JSON object';
  const b = body as Partial<ChatRequest>;
  if (typeof b.model !== 'string') return 'model is required';
  if (!Array.isArray(b.messages) || b.messages.length === 0) return 'messages must be a non-empty array';
  for (const m of b.messages) {
    if (!['system', 'user', 'assistant'].includes(m?.role) || typeof m?.content !== 'string') return 'each message needs a role and string content';
  }
  if (b.stream === true) return 'this server does not stream';
  if (b.n !== undefined && (!Number.isInteger(b.n) || b.n < 1)) return 'n must be a positive integer';
  if (b.response_format && b.response_format.type === 'json_schema' && typeof b.response_format.json_schema?.schema !== 'object') {
    return 'response_format.json_schema.schema is required';
  }
  return null;
}

export async function startOpenAIServer(o: OpenAIServerOptions): Promise<TestServer> {
  let served = 0;
  return startServer((req: RecordedRequest): Step => {
    if (req.method !== 'POST' || req.path !== '/v1/chat/completions') return error(404, `no route ${req.method} ${req.path}`, 'invalid_request_error', null);
    const fault = o.plan?.[served++] ?? o.faultFor?.(req.body as ChatRequest) ?? 'ok';
    if (req.headers.authorization !== `Bearer ${o.apiKey}` || fault === 401) {
      return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    if (fault === 403) return error(403, 'You are not allowed to use this model.', 'invalid_request_error', 'forbidden');
    const bad = malformed(req.body);
    if (bad) return error(400, bad, 'invalid_request_error', null);
    const body = req.body as ChatRequest;
    if (body.model !== o.model || fault === 404) {
      return error(404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
    }
    if (fault === 'hang') return { hang: true };
    if (fault === 429) return { ...error(429, 'Rate limit reached.', 'requests', 'rate_limit_exceeded'), headers: { 'retry-after': '0' } };
    if (fault === 500 || fault === 503) return error(fault, 'The server had an error while processing your request.', 'server_error', null);
    const n = body.n ?? 1;
    return {
      status: 200,
      body: {
        id: `chatcmpl-${served}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: Array.from({ length: n }, (_, i) => ({
          index: i,
          message: { role: 'assistant', content: o.reply(body, i), refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        })),
        usage: { prompt_tokens: 42, completion_tokens: 17 * n, total_tokens: 42 + 17 * n },
      },
    };
  });
}
