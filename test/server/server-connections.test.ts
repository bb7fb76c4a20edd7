import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/policy/policy.ts';
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { rawRequest, requestText, type RawResult } from '../helpers/raw-http.ts';

const portOf = (s: RunningServer) => Number(new URL(s.url).port);
const health = (s: RunningServer) => rawRequest(portOf(s), [requestText('GET /health HTTP/1.1', ['Host: 127.0.0.1', 'Connection: close'])], { timeoutMs: 5000 });
const errorOf = (r: RawResult) => ({ status: r.response?.status, ...JSON.parse(r.response?.body ?? '{}').error });

describe("startServer's settings", () => {
  it('are checked by the schema serve checks its flags with, rules between settings included', async () => {
    await expect(startServer({ port: 0, scoringThreads: 0, maxBodyBytes: 100 })).rejects.toThrow(/^maxBodyBytes must be an integer >= 1024, got 100$/);
    await expect(startServer({ port: 0, scoringThreads: 0, headersTimeoutS: 5, requestTimeoutS: 2 })).rejects.toThrow(/^headersTimeoutS \(5 s\) must not exceed requestTimeoutS \(2 s\)$/);
    await expect(startServer({ port: 0, scoringThreads: 0, maxBodyBytes: 4096, maxHeldBodyBytes: 2048 })).rejects.toThrow(/^maxHeldBodyBytes \(2048\) must be at least maxBodyBytes \(4096\)$/);
  });
});

describe('slow clients are dropped at the deadlines', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ port: 0, scoringThreads: 0, headersTimeoutS: 0.5, requestTimeoutS: 1 });
  });
  afterAll(async () => {
    await srv.close();
  });
  const timedOut = { status: 408, code: 'request_timeout', message: 'the request did not arrive in time: headers within 0.5 s (--headers-timeout), the whole request within 1 s (--request-timeout)' };

  it('a connection that sends nothing', async () => {
    const r = await rawRequest(portOf(srv), [], { timeoutMs: 5000 });
    expect(errorOf(r)).toMatchObject(timedOut);
    expect(r.ms).toBeLessThan(2500);
  });

  it('headers that trickle in, a line every 200 ms', async () => {
    const lines = ['GET /health HTTP/1.1\r\n', ...Array.from({ length: 25 }, (_, i) => `X-Slow-${i}: 1\r\n`)];
    const r = await rawRequest(portOf(srv), lines, { gapMs: 200, timeoutMs: 5000 });
    expect(errorOf(r)).toMatchObject(timedOut);
    expect(r.ms).toBeLessThan(2500);
  });

  it('a body that trickles in, a byte every 100 ms', async () => {
    const head = requestText('POST /reward HTTP/1.1', ['Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 1000']);
    const r = await rawRequest(portOf(srv), [head, ...Array.from({ length: 50 }, () => ' ')], { gapMs: 100, timeoutMs: 5000 });
    expect(errorOf(r)).toMatchObject(timedOut);
    expect(r.ms).toBeLessThan(3000);
    const h = await (await fetch(srv.url + '/health')).json();
    expect(h.connections.timed_out).toBeGreaterThanOrEqual(3);
    expect(h.limits).toMatchObject({ max_connections: 4096, max_held_body_bytes: 512 * 1024 * 1024, headers_timeout_s: 0.5, request_timeout_s: 1, max_json_depth: 64 });
  });
});

describe('the connection cap', () => {
  it('a crowd of slow clients past the cap is cycled out, the longest waiting first, and /health gets in every time', async () => {
    const srv = await startServer({ port: 0, scoringThreads: 0, maxConnections: 4, headersTimeoutS: 30, requestTimeoutS: 60 });
    try {
      const port = portOf(srv);
      // Each opens, sends half its headers (the first: its headers and half its body) and waits; the deadlines are far off.
      const slow = () => rawRequest(port, ['POST /reward HTTP/1.1\r\nHost: 127.0.0.1\r\n'], { timeoutMs: 8000 });
      const first = rawRequest(port, [requestText('POST /reward HTTP/1.1', ['Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 100'], '[')], { timeoutMs: 8000 });
      await new Promise((r) => setTimeout(r, 50));
      const crowd = Array.from({ length: 11 }, () => slow());
      await expect.poll(() => srv.connections.stats.evicted, { timeout: 5000 }).toBe(8);
      for (let i = 0; i < 5; i++) {
        const h = await health(srv);
        expect(h.response?.status).toBe(200);
        expect(h.ms).toBeLessThan(1000);
      }
      // A request under way hears why; the others, no request yet, are only closed.
      expect(errorOf(await first)).toEqual({
        status: 503,
        code: 'connection_evicted',
        type: 'server_error',
        message: 'connection dropped: the server reached its cap of 4 connections (--max-connections) and this one had waited longest without sending a whole request',
      });
      // Each /health took a slot too, from a slow client unless the last /health had closed already.
      expect(srv.connections.stats).toMatchObject({ max: 4, refused: 0 });
      expect(srv.connections.stats.evicted).toBeGreaterThanOrEqual(9);
      expect((await Promise.race(crowd)).failure).toBe('closed');
    } finally {
      await srv.close();
    }
  });

  it('when every open connection has a whole request in hand, a new one is refused with 503, and the others are answered', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // A model that answers only when released: its requests stay in hand.
    const stalled: Policy = {
      name: 'stalled',
      generate: async (conversations) => {
        await gate;
        return conversations.map(() => [{ text: '{"actions": []}', finishReason: 'stop' as const }]);
      },
    };
    const srv = await startServer({ port: 0, scoringThreads: 0, maxConnections: 3, policy: stalled, modelId: 'm' });
    try {
      const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Draw A.' }] });
      const ask = () => rawRequest(portOf(srv), [requestText('POST /v1/chat/completions HTTP/1.1', ['Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${body.length}`, 'Connection: close'], body)], { timeoutMs: 8000 });
      const held = [ask(), ask(), ask()];
      await expect.poll(() => srv.connections.stats.open, { timeout: 5000 }).toBe(3);
      // The three requests are read whole (the parser marks them complete) before the fourth connects.
      await new Promise((r) => setTimeout(r, 200));
      const refused = await health(srv);
      expect(errorOf(refused)).toEqual({ status: 503, code: 'too_many_connections', type: 'server_error', message: 'the server has 3 connections open (--max-connections), each with a request in hand; retry shortly' });
      release();
      for (const r of await Promise.all(held)) expect(r.response?.status).toBe(200);
      expect((await health(srv)).response?.status).toBe(200);
      expect(srv.connections.stats).toMatchObject({ refused: 1, evicted: 0 });
    } finally {
      await srv.close();
    }
  });

  it('request bodies held at once stay within --max-held-body-bytes, and are given back with their answers', async () => {
    const srv = await startServer({ port: 0, scoringThreads: 0, maxBodyBytes: 64 * 1024, maxHeldBodyBytes: 80 * 1024 });
    try {
      const head = requestText('POST /reward HTTP/1.1', ['Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 60000']);
      const part = '[' + ' '.repeat(49_999);
      // 50 kB of a 60 kB body, then nothing: the server holds it until the client goes.
      const holding = rawRequest(portOf(srv), [head + part], { timeoutMs: 1500 });
      const held = async () => ((await (await fetch(srv.url + '/health')).json()) as { held_body_bytes: number }).held_body_bytes;
      await expect.poll(held, { timeout: 5000 }).toBe(50_000);
      const over = await rawRequest(portOf(srv), [head + part], { timeoutMs: 5000 });
      expect(errorOf(over)).toEqual({ status: 503, code: 'server_busy', type: 'server_error', message: expect.stringMatching(/^the server holds \d+ bytes of request bodies, near its limit of 81920 \(--max-held-body-bytes\); retry shortly$/) });
      await holding;
      await expect.poll(held, { timeout: 5000 }).toBe(0);
      const body = JSON.stringify([{ prompt: 'a', completion: '{}' }]).padEnd(60_000, ' ');
      const ok = await rawRequest(portOf(srv), [requestText('POST /reward HTTP/1.1', ['Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${body.length}`, 'Connection: close'], body)], { timeoutMs: 5000 });
      expect(ok.response?.status).toBe(200);
      expect(await held()).toBe(0);
    } finally {
      await srv.close();
    }
  });
});
