import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { runScore } from '../../src/cli/score.ts';
import { responseJsonSchema } from '../../src/diagram/language/actions.ts';
import { getRubric } from '../../src/diagram/reward/presets.ts';
import { generateEditingTasks, solveEdit } from '../../src/editing/tasks.ts';
import { generateTasks } from '../../src/diagram/tasks/generate.ts';
import { rawRequest, requestText } from '../helpers/raw-http.ts';

let srv: RunningServer;
const MAX_BODY = 64 * 1024;
const JSON_TYPE = { 'content-type': 'application/json' };

async function call(path: string, init: { method?: string; body?: unknown; raw?: string; type?: string | null } = {}, base = srv.url) {
  const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const type = init.type === undefined ? JSON_TYPE['content-type'] : init.type;
  const res = await fetch(base + path, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    // fetch labels a string body text/plain unless told otherwise; a Blob without a type goes without the header.
    body: body !== undefined && type === null ? new Blob([body]) : body,
    headers: body === undefined || type === null ? {} : { 'content-type': type },
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const answer = (labels: string[]) =>
  JSON.stringify({
    actions: [
      ...labels.map((text, i) => ({ type: 'create_shape', id: `n${i}`, shape: 'rectangle', x: 40 + 260 * i, y: 40, w: 200, h: 60, text })),
      ...labels.slice(1).map((_, i) => ({ type: 'connect', from: `n${i}`, to: `n${i + 1}` })),
    ],
  });

beforeAll(async () => {
  srv = await startServer({ port: 0, maxBodyBytes: MAX_BODY, maxBatch: 50, maxSessions: 4, sessionTtlS: 0.4, scoringThreads: 2 });
  // Every scoring request below goes through the scoring threads.
  await srv.pool.warm();
  expect(srv.pool.stats.ready).toBe(2);
});
afterAll(async () => {
  await srv.close();
});

describe('reward', () => {
  const tasks = generateTasks({ split: 'train', n: 12, seed: 5 });
  const rows = tasks.map((t, i) => ({
    prompt: t.prompt,
    completion: i % 4 === 3 ? 'no json here' : i % 4 === 2 ? answer(t.spec.entities.slice(0, 2)) : answer(t.spec.entities),
    ...(i % 2 === 0 ? { spec: t.spec } : {}),
  }));

  it('POST /reward gives, per row and in order, what `canvasgym score` writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'serve-'));
    writeFileSync(join(dir, 'in.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await runScore({ reward: 'strong', in: join(dir, 'in.jsonl'), out: join(dir, 'out.jsonl') });
    const cli = readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const { status, json } = await call('/reward', { body: rows });
    expect(status).toBe(200);
    expect(json.results).toEqual(cli.map((r) => ({ reward: r.reward, components: r.components, errors: r.errors })));
    expect(new Set(json.results.map((r: { reward: number }) => r.reward)).size).toBeGreaterThan(2);
  });

  it('scoring threads and the HTTP thread give byte-identical answers, for concurrent requests each its own rows in order', async () => {
    const inline = await startServer({ port: 0, maxBatch: 50, scoringThreads: 0 });
    try {
      const raw = async (base: string, path: string, body: unknown) => {
        const res = await fetch(base + path, { method: 'POST', body: JSON.stringify(body), headers: JSON_TYPE });
        return { status: res.status, text: await res.text() };
      };
      // Twelve requests at once, each a different slice (some with a bad row), so that they queue and are batched.
      const slices = Array.from({ length: 12 }, (_, k) => (k === 7 ? [rows[0], { prompt: 'x' }] : rows.slice(k % 6, (k % 6) + 1 + k)));
      const pooledBefore = srv.pool.stats.pooled;
      const [pooled, direct] = await Promise.all([srv.url, inline.url].map((base) => Promise.all(slices.map((b) => raw(base, '/reward', b)))));
      expect(pooled).toEqual(direct);
      expect(pooled[7]).toEqual({ status: 400, text: expect.stringMatching(/row 1: missing field \\"completion\\"/) });
      for (const [k, r] of pooled.entries()) {
        if (k === 7) continue;
        expect(JSON.parse(r.text).results.map((x: { reward: number }) => x.reward)).toEqual(slices[k].map((row) => getRubric('strong').score(row as (typeof rows)[number]).reward));
      }
      expect(srv.pool.stats.pooled - pooledBefore).toBeGreaterThanOrEqual(12);
      expect(inline.pool.stats).toMatchObject({ threads: 0, ready: 0, pooled: 0, inline: 12 });
      const query = { query: rows.slice(0, 3).map((r) => r.prompt + r.completion), prompts: rows.slice(0, 3).map((r) => r.prompt), labels: ['', '', ''] };
      expect(await raw(srv.url, '/get_reward', query)).toEqual(await raw(inline.url, '/get_reward', query));
    } finally {
      await inline.close();
    }
  });

  it('a scoring thread that dies fails only its own requests, is replaced, and scoring goes on', async () => {
    const one = await startServer({ port: 0, scoringThreads: 1 });
    try {
      await one.pool.warm();
      // Reach the thread itself: nothing a client sends can kill it, so the test stops it as a crash would.
      const victim = (one.pool as unknown as { live: { worker: { terminate(): Promise<number> } }[] }).live[0].worker;
      const big = Array.from({ length: 200 }, (_, i) => rows[i % rows.length]);
      const pending = fetch(one.url + '/reward', { method: 'POST', body: JSON.stringify(big), headers: JSON_TYPE });
      await new Promise((r) => setTimeout(r, 20));
      await victim.terminate();
      const res = await pending;
      // The request either finished before the stop or was failed with a 500 that says why, never left hanging.
      if (res.status !== 200) expect((await res.json()).error.message).toMatch(/scoring thread stopped/);
      const after = await fetch(one.url + '/reward', { method: 'POST', body: JSON.stringify(rows.slice(0, 2)), headers: JSON_TYPE });
      expect(after.status).toBe(200);
      expect((await after.json()).results.map((x: { reward: number }) => x.reward)).toEqual(rows.slice(0, 2).map((r) => getRubric('strong').score(r).reward));
      await expect.poll(() => one.pool.stats, { timeout: 60_000, interval: 200 }).toMatchObject({ ready: 1, restarts: 1 });
    } finally {
      await one.close();
    }
  });

  it('strips the end tokens that close a completion, on /reward and /get_reward', async () => {
    const ends = ['<|im_end|>', '</s>', '<|endoftext|>', '<|eot_id|>', '<|end|>', '<|im_end|>\n<|endoftext|>'];
    const base = rows[0];
    const { json } = await call('/reward', { body: [base, ...ends.map((e) => ({ ...base, completion: base.completion + e }))] });
    const rewards = json.results.map((r: { reward: number }) => r.reward);
    expect(rewards).toEqual(ends.map(() => rewards[0]).concat(rewards[0]));
    // Only at the end: an end token inside the answer is the answer's.
    const inside = await call('/reward', { body: [{ ...base, completion: `</s>${base.completion}` }] });
    expect(inside.json.results[0].reward).toBe(getRubric('strong').score({ ...base, completion: `</s>${base.completion}` }).reward);
    const prompt = `<|im_start|>user\n${base.prompt}<|im_end|>\n<|im_start|>assistant\n`;
    const got = await call('/get_reward', { body: { query: [prompt + base.completion + '<|im_end|>', prompt + base.completion], prompts: [prompt, prompt], labels: ['', ''] } });
    expect(got.json.rewards[0]).toBe(got.json.rewards[1]);
    expect(got.json.rewards[0]).toBe(getRubric('strong').score({ prompt: base.prompt, completion: base.completion }).reward);
  });

  it('takes another preset with ?reward=', async () => {
    const { json } = await call('/reward?reward=seed', { body: rows.slice(0, 3) });
    expect(json.results.map((r: { reward: number }) => r.reward)).toEqual(rows.slice(0, 3).map((r) => getRubric('seed').score(r).reward));
  });

  it("POST /get_reward speaks OpenRLHF's protocol: prompt stripped from the query, labels as specs", async () => {
    const prompts = tasks.slice(0, 4).map((t) => `<|system|>Return JSON.<|end|><|user|>${t.prompt}<|end|><|assistant|>`);
    const completions = tasks.slice(0, 4).map((t, i) => (i === 1 ? 'oops' : answer(t.spec.entities)));
    const labels = tasks.slice(0, 4).map((t, i) => (i === 2 ? '' : JSON.stringify(t.spec)));
    const { status, json } = await call('/get_reward', { body: { query: prompts.map((p, i) => p + completions[i]), prompts, labels } });
    expect(status).toBe(200);
    const expected = tasks.slice(0, 4).map((t, i) => getRubric('strong').score({ prompt: t.prompt, completion: completions[i], spec: i === 2 ? undefined : t.spec }));
    expect(json.rewards).toEqual(expected.map((s) => s.reward));
    expect(json.scores).toEqual(json.rewards);
    expect(json.extra_logs.entities_present).toEqual(expected.map((s) => s.components.entities_present));
    expect(json.rewards[1]).toBe(0);
  });
});

describe('sessions', () => {
  it('play an editing episode: reset, step, state, close', async () => {
    const task = generateEditingTasks({ split: 'train', n: 1, seed: 4, edits: ['insert_between'] })[0];
    const reset = await call('/reset', { body: { env: 'editing', task } });
    expect(reset.status).toBe(200);
    const id = reset.json.session_id;
    expect(reset.json.observation.canvas).toEqual(task.start);
    const obsSchema = z.fromJSONSchema((await call('/schema')).json.observation);
    expect(obsSchema.safeParse(reset.json.observation).success).toBe(true);
    const bad = await call('/step', { body: { session_id: id, action: '{"actions": [{"type": "delete_shape", "id": "ghost"}]}' } });
    expect(bad.json).toMatchObject({ reward: 0, terminated: false, truncated: false, observation: { feedback: ['action 0: shape does not exist: ghost'] } });
    const good = await call('/step', { body: { session_id: id, action: { actions: solveEdit(task) } } });
    expect(good.json).toMatchObject({ terminated: true, info: { goal_met: true } });
    expect(good.json.reward).toBeGreaterThan(0.7);
    const state = await call(`/state?session_id=${id}`);
    expect(state.json).toMatchObject({ session_id: id, env: 'editing', turn: 2, terminated: true });
    expect(state.json.history.map((h: { turn: number }) => h.turn)).toEqual([1, 2]);
    const over = await call('/step', { body: { session_id: id, action: '{"done": true}' } });
    expect(over).toEqual({ status: 409, json: { error: expect.objectContaining({ code: 'episode_over', message: expect.stringMatching(/after the episode ended \(terminated\)/) }) } });
    const again = await call('/reset', { body: { env: 'editing', session_id: id, seed: 1 } });
    expect(again.json.session_id).toBe(id);
    expect((await call('/close', { body: { session_id: id } })).json).toEqual({ session_id: id, closed: true });
    const gone = await call('/step', { body: { session_id: id, action: '{}' } });
    expect(gone.status).toBe(404);
    expect(gone.json.error.message).toMatch(/was closed; POST \/reset/);
  });

  it('play a single-turn diagram episode with the server reward', async () => {
    const r = await call('/reset', { body: { env: 'diagram', seed: 2 } });
    const s = await call('/step', { body: { session_id: r.json.session_id, action: answer(r.json.info.spec.entities) } });
    expect(s.json.terminated).toBe(true);
    expect(s.json.reward).toBe(getRubric('strong').score({ prompt: r.json.observation.instruction, completion: answer(r.json.info.spec.entities), spec: r.json.info.spec }).reward);
    await call('/close', { body: { session_id: r.json.session_id } });
  });

  it('expire after the idle time-to-live, and say so', async () => {
    const r = await call('/reset', { body: { seed: 1 } });
    await new Promise((done) => setTimeout(done, 700));
    const late = await call('/step', { body: { session_id: r.json.session_id, action: '{"done": true}' } });
    expect(late.status).toBe(404);
    expect(late.json.error.message).toMatch(/expired after 0.4 s idle/);
  });

  it('are capped, and a freed slot can be used again', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await call('/reset', { body: { seed: i } })).json.session_id);
    const over = await call('/reset', { body: { seed: 9 } });
    expect(over.status).toBe(429);
    expect(over.json.error.message).toMatch(/session cap reached: 4 open of 4/);
    expect((await call('/health')).json.sessions).toEqual({ open: 4, max: 4 });
    await call('/close', { body: { session_id: ids[0] } });
    expect((await call('/reset', { body: { seed: 9 } })).status).toBe(200);
    for (const id of ids.slice(1)) await call('/close', { body: { session_id: id } });
  });
});

describe('schema and health', () => {
  it('GET /schema publishes the action schemas and GET /health the limits', async () => {
    const schema = (await call('/schema')).json;
    expect(schema.action).toEqual(responseJsonSchema());
    expect(z.fromJSONSchema(schema.editing_action).safeParse({ actions: [], done: true }).success).toBe(true);
    expect(schema.system_prompts.editing).toMatch(/"done": true/);
    const health = (await call('/health')).json;
    expect(health).toMatchObject({ status: 'ok', reward: 'strong', limits: { max_body_bytes: MAX_BODY, max_batch: 50, scoring_threads: 2, max_sessions: 4, session_ttl_s: 0.4 } });
    expect(health.scoring).toMatchObject({ threads: 2, ready: 2, restarts: 0 });
    expect(health.scoring.pooled).toBeGreaterThan(0);
  });

  it('HEAD /health answers 200 without a body', async () => {
    const res = await fetch(srv.url + '/health', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});

describe('raw requests', () => {
  // Each of these once crashed the server: `new URL` threw outside the handler's try.
  const TARGETS = ['http://[', 'http://a:b:c/', 'http://%zz/', 'http://1.2.3.4.5/', '//[', 'http://', 'http://x:99999/', 'http://[::1'];
  it.each(TARGETS)('%s: 400 naming the target, and the server keeps serving', async (target) => {
    const port = Number(new URL(srv.url).port);
    const { response } = await rawRequest(port, [requestText(`GET ${target} HTTP/1.1`, ['Host: 127.0.0.1', 'Connection: close'])], { timeoutMs: 5000 });
    expect(response?.status).toBe(400);
    expect(JSON.parse(response!.body).error).toEqual({ message: `malformed request target ${JSON.stringify(target)}: send a path such as /reward`, type: 'invalid_request_error', code: 'invalid_target' });
    expect((await call('/health')).json.status).toBe('ok');
  });

  it('requests node:http would drop or answer with a bare status line get JSON errors; a half-closing client gets its answer', async () => {
    const port = Number(new URL(srv.url).port);
    const send = (text: string, end = false) => rawRequest(port, [text], { end, timeoutMs: 10_000 });
    const connect = await send(requestText('CONNECT 127.0.0.1:22 HTTP/1.1', ['Host: 127.0.0.1:22']));
    expect(connect.response?.status).toBe(405);
    expect(JSON.parse(connect.response!.body).error.message).toBe('CONNECT is not supported: this server is not a proxy');
    const hostless = await send(requestText('GET /health HTTP/1.1', []));
    expect(hostless.response?.status).toBe(400);
    expect(JSON.parse(hostless.response!.body).error.code).toBe('missing_host');
    // `printf '...' | nc` sends its FIN right after the body: the scored answer must still come back.
    const body = JSON.stringify([{ prompt: 'Draw A then B.', completion: answer(['A', 'B']) }]);
    const halfClosed = await send(requestText('POST /reward HTTP/1.1', ['Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${body.length}`], body), true);
    expect(halfClosed.response?.status).toBe(200);
    expect(JSON.parse(halfClosed.response!.body).results).toHaveLength(1);
  });
});

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

/** Each bad request, the status it must get and words its message must hold (`type`: the Content-Type sent, null for
 *  none, JSON when absent). The docs' table is printed from this. */
const BAD: { what: string; path: string; method?: string; raw?: string; body?: unknown; type?: string | null; status: number; message: RegExp }[] = [
  { what: 'malformed JSON', path: '/reward', raw: '[{"prompt": "x",', status: 400, message: /request body is not valid JSON: / },
  { what: 'empty body', path: '/reward', raw: '', method: 'POST', status: 400, message: /request body is empty/ },
  { what: 'rows not an array', path: '/reward', body: { prompt: 'x', completion: 'y' }, status: 400, message: /must be a JSON array of \{"prompt", "completion", "spec"\?\} rows/ },
  { what: 'rows wrapped in an object', path: '/reward', body: { rows: [] }, status: 400, message: /the JSON array of rows itself, not \{"rows": \[...\]\}/ },
  { what: 'row missing a field', path: '/reward', body: [{ prompt: 'a', completion: '{}' }, { prompt: 'b' }], status: 400, message: /^row 1: missing field "completion"$/ },
  { what: 'row field of the wrong type', path: '/reward', body: [{ prompt: 'a', completion: 7 }], status: 400, message: /^row 0: field "completion" must be a string$/ },
  { what: 'row not an object', path: '/reward', body: ['just text'], status: 400, message: /^row 0: expected a JSON object/ },
  { what: 'invalid spec', path: '/reward', body: [{ prompt: 'a', completion: '{}', spec: { entities: [], edges: [] } }], status: 400, message: /^row 0: invalid field "spec.entities": / },
  // What one row may ask for (src/diagram/tasks/limits.ts).
  { what: 'spec over the entity limit', path: '/reward', body: [{ prompt: 'a', completion: '{}' }, { prompt: 'b', completion: '{}', spec: { entities: Array.from({ length: 201 }, (_, i) => `E${i}`), edges: [] } }], status: 400, message: /^row 1: invalid field "spec.entities": 201 entities; the limit is 200$/ },
  { what: 'prompt over the limit', path: '/reward', body: [{ prompt: 'p'.repeat(20_001), completion: '{}' }], status: 400, message: /^row 0: field "prompt": 20,001 characters; the limit is 20,000$/ },
  { what: 'get_reward label over the edge limit', path: '/get_reward', body: { query: ['a'], prompts: ['a'], labels: [JSON.stringify({ entities: ['a'], edges: Array.from({ length: 1001 }, () => ['a', 'a']) })] }, status: 400, message: /^labels\[0\]: invalid spec field "edges": 1,001 edges; the limit is 1,000$/ },
  { what: 'get_reward request over the prompt limit', path: '/get_reward', body: { query: [`<|user|>${'p'.repeat(20_001)}<|end|>{}`], prompts: [`<|user|>${'p'.repeat(20_001)}<|end|>`] }, status: 400, message: /^prompts\[0\]: the user's request is 20,001 characters; the limit is 20,000$/ },
  { what: 'empty batch', path: '/reward', body: [], status: 400, message: /the rows array is empty/ },
  { what: 'batch too large', path: '/reward', body: Array.from({ length: 51 }, () => ({ prompt: 'a', completion: '{}' })), status: 413, message: /the rows array has 51 rows; the limit is 50 per request \(--max-batch\)/ },
  { what: 'body too large', path: '/reward', raw: JSON.stringify([{ prompt: 'x'.repeat(MAX_BODY), completion: '' }]), status: 413, message: /request body is \d+ bytes; the limit is 65536 bytes \(--max-body-bytes\)/ },
  { what: 'unknown reward preset', path: '/reward?reward=best', body: [{ prompt: 'a', completion: '{}' }], status: 400, message: /unknown reward preset "best": valid names are seed, strong/ },
  { what: 'get_reward without query', path: '/get_reward', body: { prompts: ['a'] }, status: 400, message: /missing field "query"/ },
  { what: 'get_reward lengths differ', path: '/get_reward', body: { query: ['a', 'b'], prompts: ['a'] }, status: 400, message: /prompts has 1 items but query has 2/ },
  { what: 'get_reward label not a spec', path: '/get_reward', body: { query: ['a'], prompts: ['a'], labels: ['{"entities": 3}'] }, status: 400, message: /labels\[0\]: invalid spec field "entities"/ },
  { what: 'get_reward without prompts', path: '/get_reward', body: { query: ['Draw A.{}'] }, status: 400, message: /^missing field "prompts": the prompt of each query/ },
  { what: 'get_reward with an empty request', path: '/get_reward', body: { query: ['a', '<|user|> <|end|>{}'], prompts: ['a', '<|user|> <|end|>'] }, status: 400, message: /^prompts\[1\] holds no request: the prompt \(or its last user turn\) is empty/ },
  { what: 'unknown environment', path: '/reset', body: { env: 'chess' }, status: 400, message: /env must be one of diagram, editing, got "chess"/ },
  { what: 'bad seed', path: '/reset', body: { seed: 'one' }, status: 400, message: /field "seed" must be an integer, got "one"/ },
  { what: 'unknown option', path: '/reset', body: { seed: 1, options: { turns: 3 } }, status: 400, message: /unknown option "turns": known are split, max_turns, edits/ },
  { what: 'invalid task', path: '/reset', body: { task: { instruction: 'x' } }, status: 400, message: /task is not an editing task .*: id: / },
  { what: 'step without session_id', path: '/step', body: { action: '{}' }, status: 400, message: /missing field "session_id"/ },
  { what: 'unknown session', path: '/step', body: { session_id: 'nope', action: '{}' }, status: 404, message: /unknown session "nope": no session with this id was opened here/ },
  { what: 'state without session_id', path: '/state', status: 400, message: /missing query parameter "session_id"/ },
  { what: 'unknown route', path: '/rewards', body: [], status: 404, message: /no route POST \/rewards; routes: / },
  { what: 'wrong method', path: '/reward', method: 'GET', status: 405, message: /\/reward takes POST, not GET/ },
  { what: 'chat without --policy', path: '/v1/chat/completions', body: { model: 'x', messages: [] }, status: 404, message: /start the server with --policy CKPT/ },
  // Deeper than JavaScript's stack allows for JSON.stringify and zod, under the body cap.
  { what: '30,000-deep env', path: '/reset', raw: `{"env": ${deep(30_000)}}`, status: 400, message: /^request body nests arrays and objects more than 64 deep \(--max-json-depth\)$/ },
  { what: '30,000-deep action', path: '/step', raw: `{"session_id": "nope", "action": {"actions": ${deep(30_000)}}}`, status: 400, message: /^request body nests arrays and objects more than 64 deep/ },
  { what: '30,000-deep row field', path: '/reward', raw: `[{"prompt": "a", "completion": "{}", "x": ${deep(30_000)}}]`, status: 400, message: /^request body nests arrays and objects more than 64 deep/ },
  { what: 'text/plain body', path: '/reset', raw: '{}', type: 'text/plain', status: 415, message: /^POST bodies are JSON: send the header Content-Type: application\/json, not "text\/plain"$/ },
  { what: 'no content type', path: '/reward', raw: '[]', type: null, status: 415, message: /^POST bodies are JSON: send the header Content-Type: application\/json \(none was sent\)$/ },
];

describe('bad input', () => {
  it.each(BAD)('$what: $status', async (c) => {
    const { status, json } = await call(c.path, { method: c.method, body: c.body, raw: c.raw, type: c.type });
    expect(status).toBe(c.status);
    expect(json.error.message).toMatch(c.message);
    expect(json.error.type).toBe('invalid_request_error');
    if (process.env.CANVASGYM_PRINT_BAD_INPUT) {
      const req = c.raw !== undefined ? c.raw : c.body === undefined ? '' : JSON.stringify(c.body);
      const shown = req.length > 60 ? `${req.slice(0, 57)}...` : req;
      process.stdout.write(`| ${c.what} | \`${c.method ?? (req ? 'POST' : 'GET')} ${c.path}\` ${shown ? `\`${shown.replace(/\|/g, '\\|')}\`` : ''} | ${status} | ${json.error.message.replace(/\|/g, '\\|')} |\n`);
    }
  });

  it('a body that streams past the limit without a length header gets 413', async () => {
    const url = new URL(srv.url);
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/reward', method: 'POST', headers: { 'transfer-encoding': 'chunked', ...JSON_TYPE } }, (r) => {
        let text = '';
        r.on('data', (d) => (text += d));
        r.on('end', () => resolve({ status: r.statusCode!, text }));
      });
      req.on('error', reject);
      req.write('['.padEnd(40 * 1024, ' '));
      req.end(' '.repeat(40 * 1024) + ']');
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).error.message).toMatch(/request body is over 65536 bytes/);
  });

  it('keeps serving after every bad request', async () => {
    expect((await call('/health')).json.status).toBe('ok');
  });
});
