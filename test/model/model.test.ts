import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GPT, presetConfig, type GPTConfig } from '../../src/model/gpt.ts';
import { batch, gradientError, lcg, perturb } from '../helpers/gradient-check.ts';

const models: GPT[] = [];
async function make(config: GPTConfig, opts: { seed?: number; threads?: number; attnProbsBytes?: number } = {}): Promise<GPT> {
  const m = await GPT.create(config, opts);
  models.push(m);
  return m;
}
afterAll(async () => {
  await Promise.all(models.map((m) => m.dispose()));
});

describe('GPT', () => {
  it('has the GPT-2 parameter names, shapes and init', async () => {
    const cfg = presetConfig('tiny', 50);
    const m = await make(cfg, { seed: 1, threads: 1 });
    const ps = m.parameters();
    const C = cfg.nEmbd;
    const byName = new Map(ps.map((p) => [p.name, p]));
    expect(byName.get('transformer.wte.weight')!.shape).toEqual([50, C]);
    expect(byName.get('transformer.wpe.weight')!.shape).toEqual([cfg.nCtx, C]);
    expect(byName.get('transformer.h.1.attn.c_attn.weight')!.shape).toEqual([C, 3 * C]);
    expect(byName.get('transformer.h.1.mlp.c_proj.weight')!.shape).toEqual([4 * C, C]);
    expect(byName.get('transformer.ln_f.bias')!.shape).toEqual([C]);
    expect(ps).toHaveLength(2 + 12 * cfg.nLayer + 2);
    expect(m.gradients().map((g) => g.name)).toEqual(ps.map((p) => p.name));
    expect([...byName.get('transformer.h.0.ln_1.weight')!.data].every((x) => x === 1)).toBe(true);
    expect([...byName.get('transformer.h.0.attn.c_attn.bias')!.data].every((x) => x === 0)).toBe(true);
    const std = (a: Float32Array): number => Math.sqrt(a.reduce((s, x) => s + x * x, 0) / a.length);
    expect(std(byName.get('transformer.h.0.mlp.c_fc.weight')!.data)).toBeCloseTo(0.02, 2);
    expect(std(byName.get('transformer.h.0.mlp.c_proj.weight')!.data)).toBeCloseTo(0.02 / Math.sqrt(2 * cfg.nLayer), 2);
    // parameters() is a live view: writing it changes the model
    const before = m.logits(Int32Array.of(1, 2, 3), 1, 3);
    byName.get('transformer.wte.weight')!.data[3 * C] += 1;
    expect(m.logits(Int32Array.of(1, 2, 3), 1, 3)).not.toEqual(before);
  });

  it('rejects bad configs and inputs with a clear error', async () => {
    await expect(GPT.create({ vocabSize: 10, nCtx: 8, nEmbd: 12, nLayer: 1, nHead: 2 })).rejects.toThrow(/nEmbd \(12\)/);
    await expect(GPT.create({ vocabSize: 0, nCtx: 8, nEmbd: 8, nLayer: 1, nHead: 2 })).rejects.toThrow(/vocabSize/);
    const m = await make({ vocabSize: 10, nCtx: 8, nEmbd: 8, nLayer: 1, nHead: 1 }, { threads: 1 });
    expect(() => m.forward(Int32Array.of(1, 12), Int32Array.of(1, 1), 1, 2)).toThrow(/token 12/);
    expect(() => m.forward(new Int32Array(9), new Int32Array(9), 1, 9)).toThrow(/exceeds the model context/);
    expect(() => m.backward(new Float32Array(3))).toThrow(/forward\(\) first/);
  });

  // The second shape has T > 32 (several attention row blocks) and more than 256 rows (several K blocks in the
  // weight-gradient GEMMs); the third recomputes the attention probabilities in backward instead of keeping them.
  it.each([[1, 5, undefined], [2, 11, undefined], [7, 40, undefined], [7, 40, 0]])('computes gradients that match finite differences for every parameter (B=%i, T=%i, attnProbsBytes %s)', async (B, T, attnProbsBytes) => {
    const cfg: GPTConfig = { vocabSize: 23, nCtx: 48, nEmbd: 16, nLayer: 2, nHead: 2 };
    const m = await make(cfg, { seed: 7, threads: 1, attnProbsBytes });
    perturb(m, 11);
    const { tokens, targets } = batch(cfg.vocabSize, B, T, 5);
    const r = lcg(99);
    const coef = Float32Array.from({ length: B * T }, () => r() * 2 - 1);
    const { worst, name: worstName } = gradientError(m, tokens, targets, B, T, coef);
    console.log(`gradient check B=${B} T=${T} attnProbsBytes ${attnProbsBytes}: worst relative error ${worst.toExponential(2)} (${worstName})`);
    expect(worst).toBeLessThan(3e-3);
  });

  it.each([[2, 11, undefined], [3, 40, 0]])('computes gradients that match finite differences with rotary positions (B=%i, T=%i, attnProbsBytes %s)', async (B, T, attnProbsBytes) => {
    // a low base, so that every pair of a head turns by a good part of a radian or more over these positions
    const cfg: GPTConfig = { vocabSize: 23, nCtx: 48, nEmbd: 32, nLayer: 2, nHead: 2, positions: 'rotary', ropeTheta: 50 };
    const m = await make(cfg, { seed: 7, threads: 1, attnProbsBytes });
    expect(m.parameters().map((p) => p.name)).not.toContain('transformer.wpe.weight');
    perturb(m, 11);
    const { tokens, targets } = batch(cfg.vocabSize, B, T, 5);
    const r = lcg(99);
    const coef = Float32Array.from({ length: B * T }, () => r() * 2 - 1);
    const { worst, name: worstName } = gradientError(m, tokens, targets, B, T, coef);
    console.log(`rotary gradient check B=${B} T=${T}: worst relative error ${worst.toExponential(2)} (${worstName})`);
    expect(worst).toBeLessThan(3e-3);
  });

  // 2 threads run a linear layer's backward as dW beside dx (linearBackward); 3 split each GEMM between the threads
  it.each([2, 3])('gives the same results on 1 and %i threads', async (threads) => {
    // rows > 256 and T > 32 exercise the GEMM's K blocks and the attention's row blocks
    const cfg: GPTConfig = { vocabSize: 61, nCtx: 80, nEmbd: 32, nLayer: 2, nHead: 4 };
    const [a, b] = [await make(cfg, { seed: 3, threads: 1 }), await make(cfg, { seed: 3, threads })];
    expect(b.threads).toBe(threads);
    const B = 5, T = 70;
    const { tokens, targets } = batch(cfg.vocabSize, B, T, 8);
    const coef = new Float32Array(B * T).fill(-1 / (B * T));
    const outs = [a, b].map((m) => {
      m.zeroGrad();
      const f = m.forward(tokens, targets, B, T, { entropy: true });
      m.backward(coef);
      return { ...f, grads: m.gradients() };
    });
    const maxDiff = (x: Float32Array, y: Float32Array): number => x.reduce((s, v, i) => Math.max(s, Math.abs(v - y[i])), 0);
    expect(maxDiff(outs[0].logprobs, outs[1].logprobs)).toBeLessThan(1e-5);
    expect(maxDiff(outs[0].entropy!, outs[1].entropy!)).toBeLessThan(1e-5);
    outs[0].grads.forEach((g, i) => expect(maxDiff(g.data, outs[1].grads[i].data), g.name).toBeLessThan(1e-6));
    // entropy is a real entropy: between 0 and log V
    expect(Math.max(...outs[0].entropy!)).toBeLessThanOrEqual(Math.log(cfg.vocabSize) + 1e-4);
    expect(Math.min(...outs[0].entropy!)).toBeGreaterThan(0);
  });

  it('takes AdamW steps like a hand-computed update, without decay on biases, LayerNorm and embeddings', async () => {
    const m = await make({ vocabSize: 7, nCtx: 4, nEmbd: 4, nLayer: 1, nHead: 1 }, { seed: 2, threads: 1 });
    const o = { lr: 0.1, beta1: 0.8, beta2: 0.9, eps: 1e-3, weightDecay: 0.5 };
    const names = ['transformer.h.0.attn.c_attn.weight', 'transformer.h.0.attn.c_attn.bias', 'transformer.h.0.ln_2.weight', 'transformer.wte.weight'];
    const p0 = new Map(m.parameters().filter((p) => names.includes(p.name)).map((p) => [p.name, p.data[1]]));
    const gs = [0.3, -0.7];
    let want = new Map(p0);
    let mom = 0, vel = 0;
    for (let step = 1; step <= 2; step++) {
      const g = gs[step - 1];
      for (const gr of m.gradients()) gr.data.fill(g);
      m.optimizer.update(o);
      mom = o.beta1 * mom + (1 - o.beta1) * g;
      vel = o.beta2 * vel + (1 - o.beta2) * g * g;
      const update = (o.lr / (1 - o.beta1 ** step)) * mom / (Math.sqrt(vel / (1 - o.beta2 ** step)) + o.eps);
      want = new Map([...want].map(([n, p]) => [n, (n.endsWith('c_attn.weight') ? p * (1 - o.lr * o.weightDecay) : p) - update]));
    }
    const got = new Map(m.parameters().filter((p) => names.includes(p.name)).map((p) => [p.name, p.data[1]]));
    for (const n of names) expect(got.get(n), n).toBeCloseTo(want.get(n)!, 5);
    expect(m.optimizer.state().step).toBe(2);
  });

  it('clips the global gradient norm and reports it before clipping', async () => {
    const m = await make({ vocabSize: 7, nCtx: 4, nEmbd: 4, nLayer: 1, nHead: 1 }, { threads: 1 });
    const gs = m.gradients();
    let sq = 0;
    gs.forEach((g, k) => g.data.forEach((_, i) => { g.data[i] = ((i % 5) - 2) * (k + 1) * 0.1; sq += g.data[i] ** 2; }));
    const norm = Math.sqrt(sq);
    expect(m.clipGradNorm(norm * 2)).toBeCloseTo(norm, 4);
    expect(m.gradients()[3].data[0]).toBeCloseTo(-0.8, 6); // unchanged below the limit
    expect(m.clipGradNorm(1)).toBeCloseTo(norm, 4);
    const after = Math.sqrt(m.gradients().reduce((s, g) => s + g.data.reduce((t, x) => t + x * x, 0), 0));
    expect(after).toBeCloseTo(1, 4);
    expect(() => m.clipGradNorm(0)).toThrow(/maxNorm/);
  });

  it('continues identically after saving and loading the optimizer state', async () => {
    const cfg = presetConfig('tiny', 31);
    const B = 2, T = 16;
    const { tokens, targets } = batch(31, B, T, 4);
    const coef = new Float32Array(B * T).fill(-1 / (B * T));
    const train = (m: GPT, steps: number): void => {
      for (let s = 0; s < steps; s++) {
        m.zeroGrad();
        m.forward(tokens, targets, B, T);
        m.backward(coef);
        m.clipGradNorm(1);
        m.optimizer.update({ lr: 3e-3 });
      }
    };
    const a = await make(cfg, { seed: 5, threads: 1 });
    train(a, 3);
    const saved = a.optimizer.state();
    const b = await make(cfg, { seed: 6, threads: 1 });
    b.copyWeightsFrom(a);
    b.optimizer.loadState(saved);
    train(a, 3);
    train(b, 3);
    a.parameters().forEach((p, i) => expect(b.parameters()[i].data, p.name).toEqual(p.data));
    expect(() => b.optimizer.loadState({ step: 1, m: new Float32Array(3), v: new Float32Array(3) })).toThrow(/moments/);
  });

  it('overfits a short sequence', async () => {
    const V = 20;
    const m = await make({ vocabSize: V, nCtx: 32, nEmbd: 32, nLayer: 2, nHead: 2 }, { seed: 1 });
    const seq = Int32Array.from({ length: 33 }, (_, i) => (i * i + 3 * i) % V);
    const tokens = seq.subarray(0, 32), targets = seq.subarray(1);
    const coef = new Float32Array(32).fill(-1 / 32);
    const nll = (lp: Float32Array): number => -lp.reduce((s, x) => s + x, 0) / lp.length;
    let first = 0, last = 0;
    for (let step = 0; step < 200; step++) {
      m.zeroGrad();
      const { logprobs } = m.forward(tokens, targets, 1, 32);
      if (step === 0) first = nll(logprobs);
      last = nll(logprobs);
      m.backward(coef);
      m.optimizer.update({ lr: 1e-2, weightDecay: 0 });
    }
    console.log(`overfit: loss ${first.toFixed(3)} -> ${last.toFixed(4)}`);
    expect(first / last).toBeGreaterThan(5);
  });

  it('lets the process exit after dispose()', () => {
    const dir = mkdtempSync(join(tmpdir(), 'canvasgym-gpt-'));
    const script = join(dir, 'exit.mts');
    const gpt = fileURLToPath(new URL('../../src/model/gpt.ts', import.meta.url));
    writeFileSync(script, [
      `import { GPT } from ${JSON.stringify(gpt)};`,
      `const m = await GPT.create({ vocabSize: 9, nCtx: 8, nEmbd: 8, nLayer: 1, nHead: 2 }, { threads: 2 });`,
      `m.forward(Int32Array.of(1, 2, 3, 4, 5, 6, 7, 8), Int32Array.of(2, 3, 4, 5, 6, 7, 8, 1), 8, 1);`,
      `await m.dispose();`,
      `console.log('disposed');`,
    ].join('\n'));
    const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
    const res = spawnSync(tsx, [script], { encoding: 'utf8', timeout: 30_000 });
    expect(res.stdout).toContain('disposed');
    expect(res.status).toBe(0);
  });
});
