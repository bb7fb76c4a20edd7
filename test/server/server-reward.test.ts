// Reward over HTTP against rows that ask too much (issue 19, S3): refused at once, over real HTTP on 127.0.0.1, while
// the server keeps answering; and the user's turn of a chat prompt found in one pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { userRequest } from '../../src/server/reward.ts';

const TEMPLATES: [RegExp, string, string][] = [
  [/<\|user\|>([\s\S]*?)<\|end\|>/g, '<|user|>', '<|end|>'],
  [/<\|im_start\|>user\n([\s\S]*?)<\|im_end\|>/g, '<|im_start|>user\n', '<|im_end|>'],
  [/<\|start_header_id\|>user<\|end_header_id\|>\n\n([\s\S]*?)<\|eot_id\|>/g, '<|start_header_id|>user<|end_header_id|>\n\n', '<|eot_id|>'],
];

/** The definition userRequest keeps: the last match of each template's expression, the first template that matches. */
function byExpression(prompt: string): string {
  for (const [re] of TEMPLATES) {
    const turns = [...prompt.matchAll(re)];
    if (turns.length) return turns[turns.length - 1][1].trim();
  }
  return prompt;
}

describe('userRequest', () => {
  it("finds the last user turn as the templates' expressions do, on random mixes of their markers", () => {
    const parts = [...TEMPLATES.flatMap(([, open, close]) => [open, close]), 'a', ' b ', '\n', '<|', '|>', '<|user', 'user\n'];
    let seed = 19;
    const rng = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let t = 0; t < 20_000; t++) {
      const prompt = Array.from({ length: Math.floor(rng() * 10) }, () => parts[Math.floor(rng() * parts.length)]).join('');
      expect(userRequest(prompt), JSON.stringify(prompt)).toBe(byExpression(prompt));
    }
  });

  it('reads a prompt of 100,000 openings without a closing in one pass', () => {
    const prompt = '<|user|>'.repeat(100_000);
    const started = performance.now();
    expect(userRequest(prompt)).toBe(prompt);
    // A few milliseconds; the expressions took 2.6 s for 16,000 openings, growing with their square.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('POST /reward with an 80,000-entity spec (2.5 MB, under the body cap)', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ port: 0, scoringThreads: 1 });
    await srv.pool.warm();
  });
  afterAll(async () => {
    await srv.close();
  });

  it('is refused at once, naming the limit, while the server answers /health and scores other requests', async () => {
    const entities = Array.from({ length: 80_000 }, (_, i) => `Service ${i}`);
    const spec = { entities, edges: entities.slice(1).map((e, i) => [entities[i], e]) };
    const post = (rows: unknown[]) =>
      fetch(`${srv.url}/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rows) }).then(async (r) => ({ status: r.status, json: await r.json() }));
    const started = performance.now();
    // Two of these once held scoring for 36 s, every other request waiting behind them.
    const [a, b, health, normal] = await Promise.all([
      post([{ prompt: 'Draw the chain', completion: '{}', spec }]),
      post([{ prompt: 'Draw the chain', completion: '{}', spec }]),
      fetch(`${srv.url}/health`).then((r) => r.status),
      post([{ prompt: 'Draw Client -> API', completion: '{"actions": []}' }]),
    ]);
    expect(performance.now() - started).toBeLessThan(10_000);
    for (const r of [a, b]) {
      expect(r.status).toBe(400);
      expect(r.json.error.message).toBe('row 0: invalid field "spec.entities": 80,000 entities; the limit is 200');
    }
    expect(health).toBe(200);
    expect(normal.status).toBe(200);
    expect(normal.json.results[0].reward).toBe(0.25);
  });
});
