// The OpenAI-compatible and Gemini policies, through the real SDKs, against local servers that speak each protocol.
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIPolicy } from '../../src/policy/openai.ts';
import { GeminiPolicy } from '../../src/policy/gemini.ts';
import { conversationFor, SYSTEM_PROMPT } from '../../src/diagram/language/prompt.ts';
import { Limiter, REMOTE_DEFAULTS, RemoteError, portableResponseSchema, withDefaults } from '../../src/policy/remote.ts';
import { executeCompletion } from '../../src/diagram/language/execute.ts';
import { closedPort, type TestServer } from '../helpers/http-server.ts';
import { startOpenAIServer, type ChatRequest, type Fault } from '../helpers/openai-server.ts';
import { startGeminiServer, type GeminiFault, type GenerateContentRequest } from '../helpers/gemini-server.ts';
import { responseJsonSchema } from '../../src/diagram/language/actions.ts';

const KEY = 'sk-test-123';
const FAST = { backoffMs: 5, maxBackoffMs: 20, timeoutMs: 2_000 };
const diagram = (label: string) =>
  JSON.stringify({
    actions: [
      { type: 'create_shape', id: 'a', shape: 'rectangle', x: 0, y: 0, w: 120, h: 60, text: label },
      { type: 'create_shape', id: 'b', shape: 'rectangle', x: 200, y: 0, w: 120, h: 60, text: 'API' },
      { type: 'connect', from: 'a', to: 'b' },
    ],
  });
const conv = conversationFor('Draw a client calling an API.');

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** The action language's response schema, as the policy registry sends it. */
const ACTIONS = { name: 'diagram_actions', schema: responseJsonSchema() };

async function openai(plan: Fault[] = [], model = 'qwen-test') {
  const s = await startOpenAIServer({ model: 'qwen-test', apiKey: KEY, plan, reply: (_r: ChatRequest, i) => diagram(`Client ${i}`) });
  servers.push(s);
  return { server: s, policy: (extra = {}) => new OpenAIPolicy({ model, baseURL: `${s.url}/v1`, apiKey: KEY, responseSchema: ACTIONS, env: {}, ...FAST, ...extra }) };
}

async function gemini(plan: GeminiFault[] = [], model = 'gemini-test') {
  const s = await startGeminiServer({ model: 'gemini-test', apiKey: KEY, plan, reply: (_r: GenerateContentRequest, i) => diagram(`Client ${i}`) });
  servers.push(s);
  return { server: s, policy: (extra = {}) => new GeminiPolicy({ model, baseUrl: s.url, apiKey: KEY, responseSchema: ACTIONS, env: {}, ...FAST, ...extra }) };
}

async function rejection(p: Promise<unknown>): Promise<RemoteError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RemoteError);
  return err as RemoteError;
}

describe('OpenAI-compatible policy', () => {
  it('sends the chat request with structured output, n, temperature and stream off, and returns n valid completions', async () => {
    const { server, policy } = await openai();
    const [[a, b]] = await policy().generate([conv], { n: 2, temperature: 0.7, seed: 3, maxTokens: 800 });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body as Record<string, any>;
    expect(body).toMatchObject({ model: 'qwen-test', n: 2, temperature: 0.7, seed: 3, max_tokens: 800, stream: false });
    expect(body.messages).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'Draw a client calling an API.' },
    ]);
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.schema).toEqual(portableResponseSchema(responseJsonSchema()));
    expect(JSON.stringify(body.response_format)).not.toContain('oneOf');
    expect([a.text, b.text]).toEqual([diagram('Client 0'), diagram('Client 1')]);
    expect(a).toMatchObject({ finishReason: 'stop', promptTokens: 42 });
    expect(executeCompletion(a.text).errors).toEqual([]);
  });

  it('retries a 429 and succeeds', async () => {
    const { server, policy } = await openai([429, 'ok']);
    const [[c]] = await policy().generate([conv]);
    expect(server.requests).toHaveLength(2);
    expect(c.finishReason).toBe('stop');
    expect(c.text).toBe(diagram('Client 0'));
  });

  it('gives up after the retries on repeated 500s, as an error completion, not a crash', async () => {
    const { server, policy } = await openai([500, 503, 500]);
    const [[c]] = await policy({ maxRetries: 2 }).generate([conv]);
    expect(server.requests).toHaveLength(3);
    expect(c.finishReason).toBe('error');
    expect(c.error).toMatch(/HTTP 500.*gave up after 3 attempts/);
  });

  it('stops at once on a bad key (401) and names the variable to set', async () => {
    const { server, policy } = await openai([401]);
    const err = await rejection(policy().generate([conv]));
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/refused the API key \(HTTP 401\).*OPENAI_API_KEY/);
    expect(server.requests).toHaveLength(1);
  });

  it('reports an unknown model (404) by name', async () => {
    const { server, policy } = await openai([], 'no-such-model');
    const err = await rejection(policy().generate([conv]));
    expect(err.kind).toBe('model');
    expect(err.message).toContain('no model "no-such-model"');
    expect(server.requests).toHaveLength(1);
  });

  it('says the server is down when nothing listens', async () => {
    const port = await closedPort();
    const p = new OpenAIPolicy({ model: 'm', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY, env: {}, ...FAST });
    const err = await rejection(p.generate([conv]));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toMatch(/ECONNREFUSED.*is the server running/);
  });

  it('abandons a request past the timeout and retries it', async () => {
    const { server, policy } = await openai(['hang', 'ok']);
    const [[c]] = await policy({ timeoutMs: 150 }).generate([conv]);
    expect(server.requests).toHaveLength(2);
    expect(c.text).toBe(diagram('Client 0'));
  });

  it('reports a timeout once retries are spent', async () => {
    const { policy } = await openai(['hang', 'hang']);
    const [[c]] = await policy({ timeoutMs: 100, maxRetries: 1 }).generate([conv]);
    expect(c.finishReason).toBe('error');
    expect(c.error).toMatch(/no response within 100 ms/);
  });

  it('asks for one choice per request for servers that refuse n', async () => {
    const { server, policy } = await openai();
    const [cs] = await policy({ singleChoice: true }).generate([conv], { n: 3 });
    expect(cs).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((r) => (r.body as { n?: number }).n === undefined)).toBe(true);
  });

  it('refuses to call OpenAI itself without a key', () => {
    expect(() => new OpenAIPolicy({ model: 'gpt-4o-mini', env: {} })).toThrow(/OPENAI_API_KEY/);
  });
});

describe('Gemini policy', () => {
  it('calls generateContent with the JSON mime type, the schema, candidates and the system instruction', async () => {
    const { server, policy } = await gemini();
    const [[a, b]] = await policy().generate([conv], { n: 2, temperature: 0.4, seed: 9 });
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req.path).toMatch(/^\/v1(beta)?\/models\/gemini-test:generateContent$/);
    expect(req.headers['x-goog-api-key']).toBe(KEY);
    const body = req.body as Record<string, any>;
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'Draw a client calling an API.' }] }]);
    expect(body.systemInstruction.parts[0].text).toBe(SYSTEM_PROMPT);
    expect(body.generationConfig).toMatchObject({ responseMimeType: 'application/json', candidateCount: 2, temperature: 0.4, seed: 9 });
    expect(body.generationConfig.responseJsonSchema).toEqual(portableResponseSchema(responseJsonSchema()));
    expect([a.text, b.text]).toEqual([diagram('Client 0'), diagram('Client 1')]);
    expect(a).toMatchObject({ finishReason: 'stop', promptTokens: 40 });
  });

  it('retries a 429 and succeeds', async () => {
    const { server, policy } = await gemini([429]);
    const [[c]] = await policy().generate([conv]);
    expect(server.requests).toHaveLength(2);
    expect(c.text).toBe(diagram('Client 0'));
  });

  it('gives up after the retries on repeated 5xx', async () => {
    const { server, policy } = await gemini([503, 500]);
    const [[c]] = await policy({ maxRetries: 1 }).generate([conv]);
    expect(server.requests).toHaveLength(2);
    expect(c.finishReason).toBe('error');
    expect(c.error).toMatch(/HTTP 500.*gave up after 2 attempts/);
  });

  it('reads Gemini\'s 400 API_KEY_INVALID as a bad key', async () => {
    const { server, policy } = await gemini(['bad_key']);
    const err = await rejection(policy().generate([conv]));
    expect(err.kind).toBe('auth');
    expect(err.message).toMatch(/HTTP 400.*GEMINI_API_KEY/);
    expect(server.requests).toHaveLength(1);
  });

  it('reads 403 as a refused key', async () => {
    const { policy } = await gemini([403]);
    expect((await rejection(policy().generate([conv]))).kind).toBe('auth');
  });

  it('reports an unknown model (404)', async () => {
    const { policy } = await gemini([], 'gemini-nope');
    const err = await rejection(policy().generate([conv]));
    expect(err.kind).toBe('model');
    expect(err.message).toContain('no model "gemini-nope"');
  });

  it('says the server is down when nothing listens', async () => {
    const port = await closedPort();
    const p = new GeminiPolicy({ model: 'g', baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY, env: {}, ...FAST });
    expect((await rejection(p.generate([conv]))).kind).toBe('unreachable');
  });

  it('times out a hung request and retries it', async () => {
    const { server, policy } = await gemini(['hang']);
    const [[c]] = await policy({ timeoutMs: 150 }).generate([conv]);
    expect(server.requests).toHaveLength(2);
    expect(c.text).toBe(diagram('Client 0'));
  });

  it('needs a key', () => {
    expect(() => new GeminiPolicy({ model: 'g', env: {} })).toThrow(/GEMINI_API_KEY/);
  });
});

describe('Limiter', () => {
  it('never runs more than its limit at once', async () => {
    const limiter = new Limiter(2);
    let active = 0;
    let peak = 0;
    const task = () =>
      limiter.run(async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active--;
      });
    await Promise.all(Array.from({ length: 7 }, task));
    expect(peak).toBe(2);
  });
});

describe('remote options', () => {
  it('keeps the defaults for options passed through as undefined (flags not given)', () => {
    const o = withDefaults({ timeoutMs: undefined, maxRetries: undefined, concurrency: 2 });
    expect(o.timeoutMs).toBe(REMOTE_DEFAULTS.timeoutMs);
    expect(o.maxRetries).toBe(REMOTE_DEFAULTS.maxRetries);
    expect(o.concurrency).toBe(2);
  });
});
