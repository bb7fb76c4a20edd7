// Fuzz of the server's request line, headers and bodies over raw sockets, from fixed seeds: every case must get a
// well-formed HTTP response, never a 5xx, a JSON error body on every 4xx and a JSON body on every 2xx that has one;
// the server must stay up and /health answer afterwards. Prints the cases tried, the statuses and the misbehaving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSpec } from '../../src/diagram/reward/extract.ts';
import { ScriptedPolicy } from '../../src/diagram/teacher/scripted.ts';
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { generateTasks } from '../../src/diagram/tasks/generate.ts';
import { rawRequest, type RawResult } from '../helpers/raw-http.ts';

const SEEDS = [1, 2, 3, 4];
const CASES_PER_SEED = 400;
const CONCURRENCY = 16;

/** mulberry32: a small seeded generator, so that every run tries the same cases. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(xs: readonly T[]): T => xs[int(xs.length)], chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const task = generateTasks({ split: 'train', n: 1, seed: 3 })[0];
const answer = JSON.stringify({ actions: task.spec.entities.map((text, i) => ({ type: 'create_shape', id: `n${i}`, shape: 'rectangle', x: 40 + 240 * i, y: 40, w: 200, h: 60, text })) });
const deep = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n);

const METHODS = ['GET', 'POST', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'CONNECT', 'PRI', 'get', 'P0ST', 'G\u00e9T', ''];
const TARGETS = [
  '/health', '/schema', '/reward', '/reward?reward=seed', '/reward?reward=%zz', '/reward?reward=', '/get_reward', '/reset', '/step',
  '/state', '/state?session_id=', '/state?session_id=%00', '/close', '/v1/models', '/v1/chat/completions', '/v1/completions', '/', '/nope', '*',
  'http://127.0.0.1/health', 'http://[', 'http://a:b:c/', 'http://%zz/', 'http://1.2.3.4.5/', '//[', 'http://', 'http://x:99999/',
  'http://[::1', '/%00', '/..%2f..%2fetc', '/health?' + 'x'.repeat(3000), '/' + 'a'.repeat(9000), '/health#frag', '/reward/../health',
];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/1', 'http/1.1', '', 'HTTP/1.1 x'];
const CONTENT_TYPES = ['application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', '', 'application/json\u0000', 'APPLICATION/JSON'];
const ORIGINS = ['https://evil.example', 'http://localhost:3000', 'null', 'http://[', '\u00ff\u00fe'];
const WEIRD = ['null', 'true', '-1', '1e999', '""', '"x"', '[]', '{}', '0.5', '"' + 'y'.repeat(2000) + '"', deep(40), deep(70), deep(5000), deep(20_000, '{"a":', '}'), '"\\ud800"', '[1,', '{"a"}'];

/** A body for the route, valid more often than not, then perhaps spoiled. */
function bodyFor(r: Random, path: string): string {
  const w = () => r.pick(WEIRD);
  const v = (good: string) => (r.chance(0.7) ? good : w());
  const row = () => `{"prompt": ${v(JSON.stringify(task.prompt))}, "completion": ${v(JSON.stringify(answer))}${r.chance(0.5) ? `, "spec": ${v(JSON.stringify(task.spec))}` : ''}}`;
  let body: string;
  if (path.startsWith('/reward')) body = r.chance(0.8) ? `[${Array.from({ length: 1 + r.int(3) }, row).join(',')}]` : w();
  else if (path.startsWith('/get_reward')) body = `{"query": ${v(JSON.stringify([task.prompt + answer]))}, "prompts": ${v(JSON.stringify([task.prompt]))}, "labels": ${v(JSON.stringify([JSON.stringify(task.spec)]))}}`;
  else if (path.startsWith('/reset')) body = `{"env": ${v(r.pick(['"editing"', '"diagram"']))}, "seed": ${v(String(r.int(100)))}${r.chance(0.3) ? `, "options": ${w()}` : ''}${r.chance(0.2) ? `, "task": ${w()}` : ''}}`;
  else if (path.startsWith('/step')) body = `{"session_id": ${v('"00000000-0000-0000-0000-000000000000"')}, "action": ${v(JSON.stringify(answer))}}`;
  else if (path.startsWith('/close')) body = `{"session_id": ${w()}}`;
  else if (path.startsWith('/v1/chat')) {
    body = `{"model": ${v('"scripted"')}, "messages": ${v(JSON.stringify([{ role: 'user', content: task.prompt }]))}, "n": ${v('2')}${r.chance(0.3) ? `, "response_format": ${w()}` : ''}${r.chance(0.3) ? `, "temperature": ${w()}` : ''}${r.chance(0.3) ? `, "stream": ${v('true')}` : ''}${r.chance(0.2) ? `, "stream_options": ${v('{"include_usage": true}')}` : ''}${r.chance(0.2) ? `, "stop": ${v('["\\"connect\\""]')}` : ''}${r.chance(0.2) ? `, "logprobs": ${w()}` : ''}${r.chance(0.1) ? `, "tools": ${w()}` : ''}}`;
  } else if (path.startsWith('/v1/completions')) {
    body = `{"model": ${v('"scripted"')}, "prompt": ${v(JSON.stringify(task.prompt))}${r.chance(0.3) ? `, "stream": ${v('true')}` : ''}}`;
  } else body = r.chance(0.5) ? '' : w();
  return r.chance(0.25) ? mutate(r, body) : body;
}

function mutate(r: Random, text: string): string {
  let s = text;
  for (let k = 1 + r.int(3); k > 0; k--) {
    const at = r.int(s.length + 1);
    const op = r.int(5);
    if (op === 0) s = s.slice(0, at) + String.fromCharCode(r.int(256)) + s.slice(at + 1);
    else if (op === 1) s = s.slice(0, at) + s.slice(at + 1 + r.int(20));
    else if (op === 2) s = s.slice(0, at) + r.pick(['{', '}', '[', ']', '"', '\\', ',', ':', '\u0000', '\r\n', '\ud800']) + s.slice(at);
    else if (op === 3) s = s.slice(0, at);
    else s = s.slice(0, at) + s.slice(at, at + 50).repeat(1 + r.int(4)) + s.slice(at);
  }
  return s;
}

interface Case {
  bytes: Buffer;
  end: boolean;
  head: boolean;
  label: string;
}

function makeCase(r: Random): Case {
  // Two cases in three have a well-formed request line, so that headers and bodies get their share of the fuzz.
  const wellFormed = r.chance(0.67);
  const target = wellFormed ? r.pick(TARGETS.slice(0, 15)) : r.chance(0.2) ? mutate(r, r.pick(TARGETS)) : r.pick(TARGETS);
  const routeMethod = /^\/(health|schema|state|v1\/models)/.test(target) ? 'GET' : 'POST';
  const method = wellFormed ? (r.chance(0.85) ? routeMethod : r.pick(['GET', 'POST', 'HEAD', 'OPTIONS', 'DELETE'])) : r.pick(METHODS);
  const version = wellFormed ? r.pick(['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0']) : r.pick(VERSIONS);
  const line = !wellFormed && r.chance(0.05) ? mutate(r, `${method} ${target} HTTP/1.1`) : `${method} ${target} ${version}`.trimEnd();
  const body = Buffer.from(method === 'POST' || r.chance(0.1) ? bodyFor(r, target) : '', r.chance(0.05) ? 'latin1' : 'utf8');
  const headers: string[] = [];
  if (r.chance(0.95)) headers.push(`Host: ${r.chance(0.9) ? '127.0.0.1' : r.pick(['', 'a b', 'x'.repeat(500), '[::1', 'localhost:99999'])}`);
  if (r.chance(0.05)) headers.push('Host: other');
  if (method === 'POST' || r.chance(0.1)) headers.push(`Content-Type: ${r.pick(CONTENT_TYPES)}`);
  const chunked = r.chance(0.1);
  if (chunked) {
    headers.push('Transfer-Encoding: chunked');
    if (r.chance(0.2)) headers.push(`Content-Length: ${body.length}`);
  } else if (body.length > 0 || r.chance(0.1)) {
    headers.push(`Content-Length: ${r.chance(0.85) ? body.length : r.pick([String(body.length + 5), String(Math.max(0, body.length - 3)), 'abc', '-1', '1e3', '99999999999999999999', `${body.length}, ${body.length + 1}`])}`);
    if (r.chance(0.03)) headers.push(`Content-Length: ${body.length + 1}`);
  }
  if (r.chance(0.15)) headers.push(`Origin: ${r.pick(ORIGINS)}`);
  if (r.chance(0.1)) headers.push(`Authorization: ${r.pick(['Bearer x', 'Bearer', 'Basic Zm9vOmJhcg==', '\u00e9'])}`);
  if (r.chance(0.05)) headers.push('Expect: 100-continue');
  if (r.chance(0.05)) headers.push('Connection: Upgrade', 'Upgrade: websocket');
  if (r.chance(0.3)) headers.push(`Connection: ${r.pick(['close', 'keep-alive', 'close, close', ''])}`);
  if (r.chance(0.1)) headers.push(`${r.pick(['X-A', 'Bad Name', 'X:Y', '', 'X-\u0001', 'X-Long'])}: ${r.pick(['v', '\u0000', 'a\rb', 'x'.repeat(r.chance(0.5) ? 100 : 20_000)])}`);
  const eol = r.chance(0.95) ? '\r\n' : r.pick(['\n', '\r']);
  const payload = chunked ? chunks(r, body) : body;
  const head = Buffer.from(`${line}${eol}${headers.map((h) => h + eol).join('')}${eol}`, r.chance(0.02) ? 'utf8' : 'latin1');
  return { bytes: Buffer.concat([head, payload]), end: r.chance(0.85), head: method === 'HEAD', label: `${line.slice(0, 80)} [${headers.length} headers, ${payload.length} body bytes]` };
}

/** The body in chunked encoding, sometimes broken. */
function chunks(r: Random, body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const n = Math.min(body.length - at, 1 + r.int(4096));
    parts.push(Buffer.from(`${r.chance(0.97) ? n.toString(16) : r.pick(['zz', '-1', 'fffffffffffffff', ''])}\r\n`), body.subarray(at, at + n), Buffer.from('\r\n'));
    at += n;
  }
  if (r.chance(0.9)) parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** What is wrong with a case's outcome, or null. */
function misbehaviour(c: Case, got: RawResult): string | null {
  const res = got.response;
  if (!res) return `no response (${got.failure} after ${got.ms.toFixed(0)} ms)`;
  if (res.status >= 500) return `status ${res.status}: ${res.body.slice(0, 200)}`;
  if (c.head || res.status === 204) return null;
  if (res.status === 200 && res.headers['content-type']?.startsWith('text/event-stream')) {
    // Server-sent events: every event JSON (a chunk, or an error object), the last one [DONE].
    const events = res.body.split('\n\n').filter(Boolean);
    if (events.at(-1) !== 'data: [DONE]') return `event stream not ended by [DONE]: ${JSON.stringify(res.body.slice(-100))}`;
    for (const e of events.slice(0, -1)) {
      try {
        JSON.parse(e.replace(/^data: /, ''));
      } catch {
        return `event that is not JSON: ${JSON.stringify(e.slice(0, 100))}`;
      }
    }
    return null;
  }
  let json: any;
  try {
    json = JSON.parse(res.body);
  } catch {
    return `status ${res.status} with a body that is not JSON: ${JSON.stringify(res.body.slice(0, 100))}`;
  }
  if (res.status >= 400 && !(typeof json?.error?.message === 'string' && json.error.message && typeof json.error.code === 'string')) return `status ${res.status} without {"error": {message, code}}`;
  return null;
}

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({
    port: 0,
    maxBodyBytes: 64 * 1024,
    maxBatch: 8,
    maxSessions: 8,
    sessionTtlS: 5,
    scoringThreads: 1,
    headersTimeoutS: 1,
    requestTimeoutS: 1.5,
    policy: new ScriptedPolicy({ extract: extractSpec }),
    modelId: 'scripted',
  });
  await srv.pool.warm();
});
afterAll(async () => {
  await srv.close();
});

describe('server fuzz', () => {
  it.each(SEEDS)(`seed %i: ${CASES_PER_SEED} cases, every one answered well, the server up after`, async (seed) => {
    const r = random(seed);
    const cases = Array.from({ length: CASES_PER_SEED }, () => makeCase(r));
    const port = Number(new URL(srv.url).port);
    const statuses: Record<string, number> = {};
    const bad: string[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) {
          const c = cases[next++];
          const got = await rawRequest(port, [c.bytes], { end: c.end, head: c.head, timeoutMs: 5000 });
          const key = String(got.response?.status ?? got.failure);
          statuses[key] = (statuses[key] ?? 0) + 1;
          const wrong = misbehaviour(c, got);
          const shown = (b: Buffer) => JSON.stringify(b.toString('latin1').slice(0, 300));
          if (wrong) bad.push(`${c.label}: ${wrong}\n    sent ${shown(c.bytes)}\n    got ${shown(got.received)}`);
        }
      }),
    );
    const h = await fetch(srv.url + '/health');
    const summary = Object.entries(statuses).sort().map(([k, n]) => `${k}: ${n}`).join(', ');
    process.stdout.write(`server fuzz, seed ${seed}: ${cases.length} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${bad.length} misbehaving; statuses ${summary}\n${bad.slice(0, 10).map((b) => `  ${b}\n`).join('')}`);
    expect(bad).toEqual([]);
    expect(srv.server.listening).toBe(true);
    expect(h.status).toBe(200);
    expect((await h.json()).status).toBe('ok');
  });
});
