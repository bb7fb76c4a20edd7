import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAVY_BYTES, ScoringPool } from '../../src/server/pool.ts';
import { runScoreJob, type ScoreJob } from '../../src/server/score-job.ts';
import { generateTasks } from '../../src/diagram/tasks/generate.ts';

const tasks = generateTasks({ split: 'train', n: 8, seed: 11 });
const rows = tasks.map((t, i) => ({
  prompt: t.prompt,
  completion: JSON.stringify({
    actions: t.spec.entities.slice(0, 1 + (i % t.spec.entities.length)).map((text, k) => ({ type: 'create_shape', id: `s${k}`, shape: 'rectangle', x: 40 + 240 * k, y: 40, w: 200, h: 60, text })),
  }),
  ...(i % 2 ? { spec: t.spec } : {}),
}));

const job = (body: string, route: ScoreJob['route'] = 'reward'): ScoreJob => ({ route, reward: 'strong', body: new TextEncoder().encode(body), maxBatch: 64, maxJsonDepth: 64 });
const text = (outcome: Awaited<ReturnType<ScoringPool['run']>>) => (outcome.ok ? { ok: true, rows: outcome.rows, body: new TextDecoder().decode(outcome.body) } : outcome);

let pool: ScoringPool;
beforeAll(async () => {
  pool = new ScoringPool(2);
  await pool.warm();
});
afterAll(async () => {
  await pool.close();
});

describe('ScoringPool', () => {
  it('answers each of many concurrent jobs on its threads with what the calling thread would', async () => {
    const bodies = [
      ...Array.from({ length: 20 }, (_, k) => JSON.stringify(rows.slice(k % 8, (k % 8) + 1 + (k % 5)))),
      '[{"prompt": "x"}]',
      '[{"prompt": ',
      '',
      JSON.stringify({ query: [rows[0].prompt + rows[0].completion], prompts: [rows[0].prompt] }),
    ];
    const routes = bodies.map((_, k) => (k === bodies.length - 1 ? 'get_reward' : 'reward') as ScoreJob['route']);
    const expected = bodies.map((b, k) => text(runScoreJob(job(b, routes[k]))));
    const before = pool.stats.pooled;
    // Bodies are handed over to the threads: each job gets a fresh copy.
    const got = (await Promise.all(bodies.map((b, k) => pool.run(job(b, routes[k]))))).map(text);
    expect(got).toEqual(expected);
    expect(got.filter((o) => o.ok)).toHaveLength(21);
    expect(got[21]).toMatchObject({ ok: false, status: 400, code: 'malformed_json' });
    expect(pool.stats).toMatchObject({ threads: 2, ready: 2, inline: 0, restarts: 0 });
    expect(pool.stats.pooled - before).toBe(bodies.length);
  });

  it('a heavy request leaves a thread free: a small one behind three big ones is answered first', async () => {
    // 2,000 rows, each a full answer with its spec: over HEAVY_BYTES, and some 100 ms of scoring or more.
    const heavyBody = JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ ...rows[i % rows.length], spec: tasks[i % tasks.length].spec })));
    expect(heavyBody.length).toBeGreaterThan(HEAVY_BYTES);
    const heavy = (): ScoreJob => ({ ...job(heavyBody), maxBatch: 2000 });
    const order: string[] = [];
    const track = (name: string, p: ReturnType<ScoringPool['run']>) => p.then((o) => (order.push(name), o));
    const big = [0, 1, 2].map((k) => track(`heavy${k}`, pool.run(heavy())));
    const small = await track('light', pool.run(job(JSON.stringify(rows.slice(0, 2)))));
    expect(small.ok).toBe(true);
    expect(order).toEqual(['light']);
    for (const o of await Promise.all(big)) expect(o).toMatchObject({ ok: true, rows: 2000 });
  });

  it('while threads start, a heavy request waits for one rather than stall the calling thread', async () => {
    const cold = new ScoringPool(1);
    try {
      const heavyBody = JSON.stringify(Array.from({ length: 2000 }, (_, i) => rows[i % rows.length]));
      const pending = cold.run({ ...job(heavyBody), maxBatch: 2000 });
      expect(cold.stats).toMatchObject({ inline: 0 });
      expect(await pending).toMatchObject({ ok: true, rows: 2000 });
      expect(cold.stats).toMatchObject({ inline: 0, pooled: 1 });
    } finally {
      await cold.close();
    }
  });

  it('scores on the calling thread until a thread is ready, and with no threads at all', async () => {
    const cold = new ScoringPool(1);
    const none = new ScoringPool(0);
    try {
      const body = JSON.stringify(rows.slice(0, 3));
      const want = text(runScoreJob(job(body)));
      expect(text(await cold.run(job(body)))).toEqual(want);
      expect(cold.stats).toMatchObject({ inline: 1, pooled: 0 });
      await cold.warm();
      expect(text(await cold.run(job(body)))).toEqual(want);
      expect(cold.stats).toMatchObject({ ready: 1, inline: 1, pooled: 1 });
      expect(text(await none.run(job(body)))).toEqual(want);
      await none.warm();
      expect(none.stats).toMatchObject({ threads: 0, ready: 0, inline: 1, pooled: 0 });
    } finally {
      await cold.close();
      await none.close();
    }
  });

  it('after close answers 503 and holds no thread', async () => {
    const p = new ScoringPool(1);
    await p.warm();
    await p.close();
    expect(p.stats.ready).toBe(0);
    expect(await p.run(job(JSON.stringify(rows.slice(0, 1))))).toEqual({ ok: false, status: 503, code: 'shutting_down', message: 'the server is shutting down' });
  });

  it('refuses a thread count that is not a small whole number', () => {
    expect(() => new ScoringPool(-1)).toThrow(/scoring threads must be an integer from 0 to 256, got -1/);
    expect(() => new ScoringPool(1.5)).toThrow(/got 1.5/);
  });
});
