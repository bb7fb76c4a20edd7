// Speaks the Gemini API's generateContent on 127.0.0.1: checks the path, the key header and the body the way the
// real service does (a bad key is 400 API_KEY_INVALID there), and answers from a plan of failures then successes.
import { startServer, type RecordedRequest, type Step, type TestServer } from './http-server.ts';

export type GeminiFault = 'ok' | 429 | 500 | 503 | 'bad_key' | 403 | 404 | 'hang';

export interface GenerateContentRequest {
  contents: { role: string; parts: { text: string }[] }[];
  systemInstruction?: { parts: { text: string }[] };
  generationConfig?: {
    responseMimeType?: string;
    responseJsonSchema?: Record<string, unknown>;
    candidateCount?: number;
    temperature?: number;
    seed?: number;
  };
}

export interface GeminiServerOptions {
  model: string;
  apiKey: string;
  plan?: GeminiFault[];
  reply: (req: GenerateContentRequest, candidate: number) => string;
}

const error = (code: number, status: string, message: string, reason?: string): Step => ({
  status: code,
  body: {
    error: {
      code,
      message,
      status,
      ...(reason ? { details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com' }] } : {}),
    },
  },
});

function malformed(body: unknown): string | null {
  if (!body || typeof body !== 'object') return 'Invalid JSON payload received.';
  const b = body as Partial<GenerateContentRequest>;
  if (!Array.isArray(b.contents) || b.contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified';
  for (const c of b.contents) {
    if (!['user', 'model'].includes(c?.role) || !Array.isArray(c?.parts)) return 'Please use a valid role: user, model.';
  }
  const cfg = b.generationConfig;
  if (cfg?.responseJsonSchema && cfg.responseMimeType !== 'application/json') return 'responseJsonSchema needs responseMimeType application/json';
  return null;
}

export async function startGeminiServer(o: GeminiServerOptions): Promise<TestServer> {
  let served = 0;
  // The service answers on v1 and v1beta alike; the SDK picks its default version.
  const route = /^\/v1(?:beta)?\/models\/([^/:]+):generateContent$/;
  return startServer((req: RecordedRequest): Step => {
    const m = route.exec(req.path);
    if (req.method !== 'POST' || !m) return error(404, 'NOT_FOUND', `no route ${req.method} ${req.path}`);
    const fault = o.plan?.[served++] ?? 'ok';
    if (req.headers['x-goog-api-key'] !== o.apiKey || fault === 'bad_key') {
      return error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', 'API_KEY_INVALID');
    }
    if (fault === 403) return error(403, 'PERMISSION_DENIED', 'Permission denied: Consumer has been suspended.');
    const bad = malformed(req.body);
    if (bad) return error(400, 'INVALID_ARGUMENT', bad);
    if (m[1] !== o.model || fault === 404) {
      return error(404, 'NOT_FOUND', `models/${m[1]} is not found for API version v1beta, or is not supported for generateContent.`);
    }
    if (fault === 'hang') return { hang: true };
    if (fault === 429) return error(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.');
    if (fault === 500 || fault === 503) return error(fault, fault === 500 ? 'INTERNAL' : 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
    const body = req.body as GenerateContentRequest;
    const n = body.generationConfig?.candidateCount ?? 1;
    return {
      status: 200,
      body: {
        candidates: Array.from({ length: n }, (_, i) => ({
          content: { role: 'model', parts: [{ text: o.reply(body, i) }] },
          finishReason: 'STOP',
          index: i,
        })),
        usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 15 * n, totalTokenCount: 40 + 15 * n },
        modelVersion: o.model,
      },
    };
  });
}
