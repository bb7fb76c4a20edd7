import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPT, type GPTConfig } from '../../src/model/gpt.ts';
import { decode, generate, type SampleOptions, type TokenStep } from '../../src/model/sampler.ts';

const cfg: GPTConfig = { vocabSize: 29, nCtx: 40, nEmbd: 32, nLayer: 2, nHead: 4 };
let model: GPT;

beforeAll(async () => {
  model = await GPT.create(cfg, { seed: 4, threads: 2 });
  // Larger weights than GPT-2's init make the next-token distributions peaked and position-dependent, so that
  // mistakes in the cache (wrong position, wrong slot) show up in the log-probs.
  for (const p of model.parameters()) if (p.name.endsWith('.weight') && !p.name.includes('ln_')) p.data.forEach((x, i) => (p.data[i] = x * 8));
});
afterAll(async () => {
  await model.dispose();
});

const prompts = [Int32Array.of(1, 2, 3), Int32Array.of(4), Int32Array.of(7, 8, 9, 10, 11, 12)];
const base: SampleOptions = { n: 3, maxNewTokens: 12, temperature: 1, seed: 17, stopTokens: [] };

/** log p(tokens[t+1] | tokens[..t]) from a full (uncached) forward over prompt + sample. */
function fullLogprobs(prompt: Int32Array, sample: Int32Array): Float32Array {
  const seq = Int32Array.from([...prompt, ...sample]);
  const T = seq.length - 1;
  const { logprobs } = model.forward(seq.subarray(0, T), seq.subarray(1), 1, T);
  return logprobs.subarray(prompt.length - 1);
}

describe('generate', () => {
  it('returns n samples per prompt, in order, whose KV-cached log-probs match a full forward', async () => {
    const samples = await generate(model, prompts, base);
    expect(samples.map((s) => s.promptIndex)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2]);
    let worst = 0;
    for (const s of samples) {
      expect(s.tokens.length).toBe(12);
      expect(s.finishReason).toBe('length');
      const ref = fullLogprobs(prompts[s.promptIndex], s.tokens);
      s.logprobs.forEach((lp, i) => (worst = Math.max(worst, Math.abs(lp - ref[i]))));
    }
    expect(worst).toBeLessThan(1e-4);
    // samples of one prompt differ from each other (their own random streams)
    expect(samples[0].tokens).not.toEqual(samples[1].tokens);
  });

  it('is reproducible for a seed and differs across seeds', async () => {
    const a = await generate(model, prompts, base);
    const b = await generate(model, prompts, base);
    const c = await generate(model, prompts, { ...base, seed: 18 });
    expect(b.map((s) => [...s.tokens])).toEqual(a.map((s) => [...s.tokens]));
    expect(b.map((s) => [...s.logprobs])).toEqual(a.map((s) => [...s.logprobs]));
    expect(c.map((s) => [...s.tokens])).not.toEqual(a.map((s) => [...s.tokens]));
    // a sample does not depend on the rest of the batch
    const alone = await generate(model, [prompts[0]], base);
    expect(alone.map((s) => [...s.tokens])).toEqual(a.slice(0, 3).map((s) => [...s.tokens]));
  });

  it('ends a sequence at a stop token with finishReason stop, the stop token included', async () => {
    const free = await generate(model, [prompts[0]], { ...base, n: 8, temperature: 1.5 });
    const stop = free[0].tokens[4];
    const samples = await generate(model, [prompts[0]], { ...base, n: 8, temperature: 1.5, stopTokens: [stop] });
    expect(samples[0].finishReason).toBe('stop');
    for (const s of samples) {
      const at = s.tokens.indexOf(stop);
      if (s.finishReason === 'stop') expect(at).toBe(s.tokens.length - 1);
      else expect(at).toBe(-1);
      expect(s.logprobs.length).toBe(s.tokens.length);
    }
    // up to the stop, the same random stream gives the same tokens
    expect([...samples[0].tokens]).toEqual([...free[0].tokens.subarray(0, samples[0].tokens.length)]);
  });

  it('stops at the context limit with finishReason length', async () => {
    const long = Int32Array.from({ length: cfg.nCtx - 5 }, (_, i) => i % cfg.vocabSize);
    const [s] = await generate(model, [long], { ...base, n: 1, maxNewTokens: 100 });
    expect(s.finishReason).toBe('length');
    expect(long.length + s.tokens.length).toBe(cfg.nCtx);
    await expect(generate(model, [new Int32Array(cfg.nCtx)], base)).rejects.toThrow(/no room left/);
  });

  it('equals greedy decoding with top-k 1, and greedy picks the most likely token', async () => {
    const greedy = await generate(model, prompts, { ...base, temperature: 0 });
    const top1 = await generate(model, prompts, { ...base, temperature: 1.3, topK: 1 });
    expect(top1.map((s) => [...s.tokens])).toEqual(greedy.map((s) => [...s.tokens]));
    const s = greedy[6];
    const seq = Int32Array.from([...prompts[2], ...s.tokens]);
    const T = seq.length - 1;
    const logits = model.logits(seq.subarray(0, T), 1, T);
    for (let t = prompts[2].length - 1; t < T; t++) {
      const row = logits.subarray(t * cfg.vocabSize, (t + 1) * cfg.vocabSize);
      expect(seq[t + 1]).toBe(row.indexOf(Math.max(...row)));
    }
  });

  it('draws every token alike at an infinite temperature, while its log-probs stay the model\'s', async () => {
    const samples = await generate(model, prompts, { ...base, n: 8, maxNewTokens: 20, temperature: Infinity });
    const counts = new Array(cfg.vocabSize).fill(0);
    for (const s of samples) for (const t of s.tokens) counts[t]++;
    // 480 draws over 29 tokens: about 16.6 each if uniform; the model's own distribution is peaked (weights x 8)
    expect(Math.min(...counts)).toBeGreaterThan(3);
    expect(Math.max(...counts)).toBeLessThan(35);
    const [s] = samples;
    const full = fullLogprobs(prompts[0], s.tokens);
    s.logprobs.forEach((lp, t) => expect(lp).toBeCloseTo(full[t], 4));
  });

  it('keeps top-p samples inside the nucleus', async () => {
    const samples = await generate(model, prompts, { ...base, n: 4, topP: 0.5 });
    for (const s of samples) {
      const seq = Int32Array.from([...prompts[s.promptIndex], ...s.tokens]);
      const T = seq.length - 1;
      const logits = model.logits(seq.subarray(0, T), 1, T);
      for (let t = prompts[s.promptIndex].length - 1; t < T; t++) {
        const row = [...logits.subarray(t * cfg.vocabSize, (t + 1) * cfg.vocabSize)];
        const probs = row.map((x) => Math.exp(x - Math.max(...row)));
        const total = probs.reduce((a, b) => a + b, 0);
        const p = probs[seq[t + 1]];
        // tokens strictly more likely than the chosen one hold less than topP of the mass
        const above = probs.filter((q) => q > p).reduce((a, b) => a + b, 0) / total;
        expect(above).toBeLessThan(0.5);
      }
    }
  });

  it('rejects bad options', async () => {
    await expect(generate(model, prompts, { ...base, topP: 0 })).rejects.toThrow(/topP/);
    await expect(generate(model, prompts, { ...base, maxNewTokens: 0 })).rejects.toThrow(/maxNewTokens/);
    await expect(generate(model, [new Int32Array(0)], base)).rejects.toThrow(/empty/);
  });
});

describe('generate with rotary positions', () => {
  it("matches a full forward's log-probs, the prompts' keys rotated as the samples' are", async () => {
    const rotary = await GPT.create({ ...cfg, nEmbd: 64, positions: 'rotary', ropeTheta: 100 }, { seed: 4, threads: 2 });
    try {
      for (const p of rotary.parameters()) if (p.name.endsWith('.weight') && !p.name.includes('ln_')) p.data.forEach((x, i) => (p.data[i] = x * 8));
      const samples = await generate(rotary, prompts, { ...base, maxNewTokens: 20 });
      let worst = 0;
      for (const s of samples) {
        const seq = Int32Array.from([...prompts[s.promptIndex], ...s.tokens]);
        const T = seq.length - 1;
        const ref = rotary.forward(seq.subarray(0, T), seq.subarray(1), 1, T).logprobs.subarray(prompts[s.promptIndex].length - 1);
        s.logprobs.forEach((lp, i) => (worst = Math.max(worst, Math.abs(lp - ref[i]))));
      }
      expect(worst).toBeLessThan(1e-4);
    } finally {
      await rotary.dispose();
    }
  });
});

describe('decode: requests with their own settings in one batch', () => {
  it("gives each request the samples it gets alone, whatever the others' settings", async () => {
    const reqs = [
      { ...base, prompt: prompts[0], n: 2, seed: 5 },
      { ...base, prompt: prompts[2], n: 3, temperature: 0, maxNewTokens: 5 },
      { ...base, prompt: prompts[1], n: 1, temperature: 0.7, topK: 4, seed: 9, stopTokens: [3] },
    ];
    const together = await decode(model, reqs);
    expect(together.map((s) => s.promptIndex)).toEqual([0, 0, 1, 1, 1, 2]);
    let at = 0;
    for (const r of reqs) {
      const alone = await decode(model, [r]);
      expect(together.slice(at, at + r.n).map((s) => [...s.tokens])).toEqual(alone.map((s) => [...s.tokens]));
      at += r.n;
    }
    // generate's prompts are requests whose samples take consecutive streams
    const g = await generate(model, prompts, base);
    const d = await decode(model, prompts.map((prompt, i) => ({ ...base, prompt, n: 3, firstStream: 3 * i })));
    expect(d.map((s) => [...s.tokens])).toEqual(g.map((s) => [...s.tokens]));
  });

  it('reports the most likely tokens under the model\'s own distribution, and ends a sample where onToken says', async () => {
    const steps: TokenStep[][] = [[], []];
    const [a, b] = await decode(model, [
      { ...base, prompt: prompts[2], n: 2, temperature: 1.3, topLogprobs: 5, onToken: (k, step) => {
        steps[k].push(step);
        return k === 1 && steps[1].length === 4;
      } },
    ]);
    expect(a.tokens.length).toBe(12);
    expect(b.tokens.length).toBe(4);
    expect(b.finishReason).toBe('stop');
    const ref = fullLogprobs(prompts[2], a.tokens);
    steps[0].forEach((step, t) => {
      expect(step.token).toBe(a.tokens[t]);
      expect(Math.fround(step.logprob)).toBe(a.logprobs[t]);
      expect(step.top!.map((x) => x.logprob)).toEqual([...step.top!.map((x) => x.logprob)].sort((x, y) => y - x));
      // the chosen token is among the top ones exactly when its log-prob reaches the fifth
      const inTop = step.top!.some((x) => x.token === step.token);
      if (Math.abs(step.logprob - step.top![4].logprob) > 1e-6) expect(inTop).toBe(step.logprob > step.top![4].logprob);
      expect(Math.abs(step.logprob - ref[t])).toBeLessThan(1e-4);
    });
    // the top log-probs are the full forward's at the first position
    const seq = Int32Array.from([...prompts[2], steps[0][0].top![0].token]);
    const full = model.forward(seq.subarray(0, seq.length - 1), seq.subarray(1), 1, seq.length - 1).logprobs;
    expect(Math.abs(full[prompts[2].length - 1] - steps[0][0].top![0].logprob)).toBeLessThan(1e-4);
  });
});
