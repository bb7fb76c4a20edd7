import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import OpenAI from 'openai';
import { extractSpec } from '../../src/diagram/reward/extract.ts';
import { ScriptedPolicy } from '../../src/diagram/teacher/scripted.ts';
import { startServer, type RunningServer } from '../../src/server/app.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const row = [{ prompt: 'Draw A then B.', completion: '{"actions": []}' }];

async function send(base: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(base + path, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), body: init.body, headers: init.headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

describe('POST bodies must be declared JSON', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ port: 0, scoringThreads: 0 });
  });
  afterAll(async () => {
    await srv.close();
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx'])('%s: 415, nothing opened', async (type) => {
    const r = await send(srv.url, '/reset', { body: '{}', headers: { 'content-type': type } });
    expect(r.status).toBe(415);
    expect(r.json!.error).toEqual({ code: 'unsupported_media_type', type: 'invalid_request_error', message: `POST bodies are JSON: send the header Content-Type: application/json, not ${JSON.stringify(type)}` });
    expect(srv.sessions.size).toBe(0);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON'])('%s is taken', async (type) => {
    expect((await send(srv.url, '/reward', { body: JSON.stringify(row), headers: { 'content-type': type } })).status).toBe(200);
  });
});

describe('browser pages', () => {
  let srv: RunningServer;
  let open: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ port: 0, scoringThreads: 0, allowOrigins: ['https://app.example.com'] });
    open = await startServer({ port: 0, scoringThreads: 0, allowOrigins: ['*'] });
  });
  afterAll(async () => {
    await srv.close();
    await open.close();
  });

  it('a page elsewhere is refused, even with a JSON body, and opens no session', async () => {
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1.evil.example', 'https://app.example.com.evil.example']) {
      const r = await send(srv.url, '/reset', { body: '{}', headers: { ...JSON_TYPE, origin } });
      expect(r.status).toBe(403);
      expect(r.json!.error.code).toBe('origin_not_allowed');
      expect(r.json!.error.message).toBe(`requests from the web page ${JSON.stringify(origin)} are refused: only loopback pages and origins given to --allow-origin may call this server`);
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect(srv.sessions.size).toBe(0);
  });

  it('loopback pages and --allow-origin origins may call, and get the CORS headers to read the answer', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8888', 'http://[::1]:3000', 'https://app.example.com']) {
      const r = await send(srv.url, '/reward', { body: JSON.stringify(row), headers: { ...JSON_TYPE, origin } });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe(origin);
      expect(r.headers.get('vary')).toBe('Origin');
    }
    // An error answer carries them too, so that the page can show its message.
    const bad = await send(srv.url, '/reward', { body: '[]', headers: { ...JSON_TYPE, origin: 'https://app.example.com' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await send(open.url, '/health', { headers: { origin: 'https://anywhere.example' } })).status).toBe(200);
  });

  it("an allowed page's preflight gets the methods and headers it may use", async () => {
    const r = await send(srv.url, '/reward', { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(r.status).toBe(204);
    expect(Object.fromEntries([...r.headers].filter(([k]) => k.startsWith('access-control') || k === 'allow'))).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-max-age': '600',
      allow: 'POST',
    });
    expect((await send(srv.url, '/reward', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })).status).toBe(403);
  });
});

describe('--api-key', () => {
  let srv: RunningServer;
  const KEY = 'test-key-0123456789';
  beforeAll(async () => {
    srv = await startServer({ port: 0, scoringThreads: 0, apiKey: KEY, policy: new ScriptedPolicy({ extract: extractSpec }), modelId: 'scripted' });
  });
  afterAll(async () => {
    await srv.close();
  });

  it('every route but /health needs the bearer token', async () => {
    const none = await send(srv.url, '/reward', { body: JSON.stringify(row), headers: JSON_TYPE });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.json!.error).toEqual({ code: 'unauthorized', type: 'invalid_request_error', message: 'missing API key: send the header Authorization: Bearer KEY (this server was started with --api-key)' });
    for (const authorization of [`Bearer ${KEY}x`, 'Bearer ', KEY, `Basic ${KEY}`]) {
      expect((await send(srv.url, '/schema', { headers: { authorization } })).status).toBe(401);
    }
    expect((await send(srv.url, '/reward', { body: JSON.stringify(row), headers: { ...JSON_TYPE, authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect((await send(srv.url, '/state?session_id=x', { headers: { authorization: `bearer ${KEY}` } })).status).toBe(404);
    const health = await send(srv.url, '/health');
    expect(health.status).toBe(200);
    expect(health.json!.access).toEqual({ api_key: true, browser_origins: ['loopback'] });
    expect(JSON.stringify(health.json)).not.toContain(KEY);
    expect((await send(srv.url, '/health', { method: 'HEAD' })).status).toBe(200);
  });

  it("the OpenAI SDK's apiKey is the bearer token", async () => {
    const good = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: KEY, maxRetries: 0 });
    const r = await good.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'Draw a pipeline: Client, API, Database.' }] });
    expect(JSON.parse(r.choices[0].message.content!).actions.length).toBeGreaterThan(2);
    const bad = new OpenAI({ baseURL: `${srv.url}/v1`, apiKey: 'wrong', maxRetries: 0 });
    await expect(bad.models.list()).rejects.toMatchObject({ status: 401, message: expect.stringContaining('wrong API key') });
  });
});

/** Starts `canvasgym serve` with these flags and env, reads until the banner's last line, stops it. */
function serveBanner(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', ['bin/canvasgym.js', 'serve', '--port', '0', '--scoring-threads', '0', ...args], { env: { ...process.env, CANVASGYM_API_KEY: '', ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('routes:')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ stdout, stderr });
    });
  });
}

describe('canvasgym serve', () => {
  it('warns on stderr when it listens beyond loopback without an api key, and shows its limits and access', async () => {
    const [exposed, keyed] = await Promise.all([
      serveBanner(['--host', '0.0.0.0', '--headers-timeout', '5', '--max-connections', '64']),
      serveBanner(['--host', '0.0.0.0', '--allow-origin', 'https://app.example.com'], { CANVASGYM_API_KEY: 'k' }),
    ]);
    expect(exposed.stderr).toContain('canvasgym serve: warning: listening on 0.0.0.0, beyond loopback, without --api-key: anyone who can reach this address can score, open sessions; pass --api-key KEY (or set CANVASGYM_API_KEY)');
    expect(exposed.stdout).toMatch(/limits: max_body_bytes=8388608 max_held_body_bytes=536870912 max_json_depth=64 max_connections=64 headers_timeout_s=5 request_timeout_s=30 /);
    expect(exposed.stdout).toContain('access: no api key; browser pages from loopback\n');
    expect(keyed.stderr).not.toContain('warning');
    expect(keyed.stdout).toContain('access: bearer token required (--api-key), /health open; browser pages from loopback, https://app.example.com\n');
  });
});
