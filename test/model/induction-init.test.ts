import { afterAll, describe, expect, it } from 'vitest';
import { GPT, POSITIONS, presetConfig, type ModelInit, type Positions } from '../../src/model/gpt.ts';
import { rng } from '../../src/random.ts';

const models: GPT[] = [];
afterAll(async () => {
  await Promise.all(models.map((m) => m.dispose()));
});

const V = 2048, SPAN = 16, ROWS = 4;

/** Rows of random filler, a random span, a separator, the span again; targets only where copying predicts the token. */
function repeatedSpans(seed: number): { tokens: Int32Array; targets: Int32Array; T: number } {
  const r = rng(seed);
  const T = 8 + 2 * SPAN + 1;
  const tokens = new Int32Array(ROWS * T);
  const targets = new Int32Array(ROWS * T).fill(-1);
  for (let b = 0; b < ROWS; b++) {
    const filler = Array.from({ length: 8 }, () => 8 + r.int(V - 8));
    const span = Array.from({ length: SPAN }, () => 8 + r.int(V - 8));
    const row = [...filler, ...span, 1, ...span];
    tokens.set(row, b * T);
    for (let t = 8 + SPAN + 1; t < T - 1; t++) targets[b * T + t] = row[t + 1];
  }
  return { tokens, targets, T };
}

async function copyLoss(init: ModelInit, positions: Positions): Promise<number> {
  const m = await GPT.create({ ...presetConfig('default', V), nCtx: 64, positions }, { seed: 3, init });
  models.push(m);
  const { tokens, targets, T } = repeatedSpans(5);
  const { logprobs } = m.forward(tokens, targets, ROWS, T);
  let sum = 0, n = 0;
  targets.forEach((t, i) => { if (t >= 0) { sum -= logprobs[i]; n++; } });
  return sum / n;
}

describe('induction init', () => {
  it.each(POSITIONS)('copies an unseen span before any training, where GPT-2 init is at chance (%s positions)', async (positions) => {
    const chance = Math.log(V);
    const plain = await copyLoss('gpt2', positions);
    const planted = await copyLoss('induction', positions);
    // Weak on purpose (0.3 nats at these gains): a strong planted circuit is torn apart by the first updates, a weak one
    // is amplified (bench/copy.ts).
    expect(Math.abs(plain - chance)).toBeLessThan(0.1);
    expect(planted).toBeLessThan(chance - 0.2);
  });

  it('keeps GPT-2 names and shapes, and starts from the same seed deterministically', async () => {
    const config = { ...presetConfig('default', 300), nCtx: 64 };
    const a = await GPT.create(config, { seed: 9, init: 'induction' });
    const b = await GPT.create(config, { seed: 9, init: 'induction' });
    const g = await GPT.create(config, { seed: 9 });
    models.push(a, b, g);
    const pa = a.parameters(), pb = b.parameters(), pg = g.parameters();
    expect(pa.map((t) => [t.name, t.shape])).toEqual(pg.map((t) => [t.name, t.shape]));
    pa.forEach((t, i) => expect(t.data).toEqual(pb[i].data));
    // Layers above the circuit keep GPT-2's init untouched.
    const h3 = pa.findIndex((t) => t.name === 'transformer.h.3.attn.c_attn.weight');
    expect(pa[h3].data).toEqual(pg[h3].data);
  });

  it('refuses shapes without room for the circuit, naming why', async () => {
    await expect(GPT.create(presetConfig('tiny', 100), { init: 'induction' })).rejects.toThrow(/at least 3 heads/);
    await expect(GPT.create({ ...presetConfig('default', 100), nLayer: 1 }, { init: 'induction' })).rejects.toThrow(/at least 2 layers/);
  });
});

describe('induction init, where the heads look', () => {
  it.each(POSITIONS)('points layer 1 head 0 at the token after an earlier occurrence and head 1 at the token two after it (%s positions)', async (positions) => {
    const m = await GPT.create({ ...presetConfig('default', V), nCtx: 64, positions }, { seed: 3, init: 'induction' });
    const plain = await GPT.create({ ...presetConfig('default', V), nCtx: 64, positions }, { seed: 3 });
    models.push(m, plain);
    const { tokens, T } = repeatedSpans(5);
    const nh = m.config.nHead;
    // Mean weight that a query in the second copy of the span puts on the position `ahead` after the first copy's
    // occurrence of its own token, in layer 1's head h.
    const weightOn = (probs: Float32Array, h: number, ahead: number): number => {
      let sum = 0, n = 0;
      for (let b = 0; b < ROWS; b++) {
        for (let k = 1; k + ahead < SPAN; k++) {
          const t = 8 + SPAN + 1 + k, target = 8 + k + ahead;
          sum += probs[((b * nh + h) * T + t) * T + target];
          n++;
        }
      }
      return sum / n;
    };
    const planted = m.attention(tokens, ROWS, T, 1), random = plain.attention(tokens, ROWS, T, 1);
    // A query near the end of the row spreads 1/40 over its positions when it looks nowhere in particular.
    expect(weightOn(random, 0, 1)).toBeLessThan(0.06);
    expect(weightOn(random, 1, 2)).toBeLessThan(0.06);
    expect(weightOn(planted, 0, 1)).toBeGreaterThan(0.2);
    expect(weightOn(planted, 1, 2)).toBeGreaterThan(0.2);
    // Each head looks at its own offset, not the other's.
    expect(weightOn(planted, 1, 1)).toBeLessThan(weightOn(planted, 1, 2) / 3);
  });

  it('refuses a layer out of range', async () => {
    const m = await GPT.create({ ...presetConfig('default', V), nCtx: 64 }, { seed: 3 });
    models.push(m);
    const { tokens, T } = repeatedSpans(5);
    expect(() => m.attention(tokens, ROWS, T, 4)).toThrow(/layer must be an integer in 0..3/);
  });
});
