import { describe, expect, it } from 'vitest';
import { groupAdvantages, policyLoss, type PolicyLossInput } from '../../src/train/grpo-loss.ts';

describe('groupAdvantages (hand-computed)', () => {
  const rewards = [1, 0, 0.5, 0.5];
  it('group scaling: +-0.5 / sqrt(0.5) and a skipped flat group', () => {
    const { advantages, skipped } = groupAdvantages(rewards, 2, 'group', 0);
    expect(advantages[0]).toBeCloseTo(0.70710678, 7);
    expect(advantages[1]).toBeCloseTo(-0.70710678, 7);
    expect([advantages[2], advantages[3]]).toEqual([0, 0]);
    expect(skipped).toEqual([false, true]);
  });
  it('batch scaling uses the std of all four rewards (0.40825)', () => {
    const { advantages } = groupAdvantages(rewards, 2, 'batch', 0);
    expect(advantages[0]).toBeCloseTo(1.22474487, 7);
  });
  it('no scaling leaves r - mean', () => {
    expect([...groupAdvantages(rewards, 2, 'none').advantages]).toEqual([0.5, -0.5, 0, 0]);
  });
  it('refuses rewards that are not whole groups', () => {
    expect(() => groupAdvantages([1, 2, 3], 2, 'group')).toThrow(/whole groups of num_generations=2/);
  });
});

describe('policyLoss (hand-computed)', () => {
  // Two completions of two tokens; A = +1 and -1. Ratios: 1.5 (clipped high), 1.0 | 0.5 (clipped low), 1.1.
  const base: PolicyLossInput = {
    S: 2,
    T: 2,
    logprobs: [Math.log(1.5), 0, Math.log(0.5), Math.log(1.1)],
    oldLogprobs: [0, 0, 0, 0],
    mask: [1, 1, 1, 1],
    advantages: [1, -1],
    epsilon: 0.2,
    beta: 0,
    lossType: 'grpo',
    maxCompletionLength: 4,
  };
  it('clips and takes the pessimistic term; gradient only through unclipped tokens', () => {
    const r = policyLoss(base);
    // token losses: -1.2, -1 | 0.8, 1.1 -> sequence means -1.1, 0.95 -> mean -0.075
    expect(r.loss).toBeCloseTo(-0.075, 12);
    expect([...r.dLogprobs].map((v) => +v.toFixed(6))).toEqual([0, -0.25, 0, 0.275]);
    expect(r.clipFraction).toBe(0.5);
    expect(r.highClipFraction).toBe(0.25);
    expect(r.lowClipFraction).toBe(0.25);
  });
  it('loss types normalise differently when lengths differ', () => {
    const mask = [1, 1, 1, 0];
    expect(policyLoss({ ...base, mask, lossType: 'grpo' }).loss).toBeCloseTo(-0.15, 12); // (-1.1 + 0.8) / 2
    expect(policyLoss({ ...base, mask, lossType: 'dapo' }).loss).toBeCloseTo(-1.4 / 3, 12); // token sum / 3 tokens
    expect(policyLoss({ ...base, mask, lossType: 'dr_grpo' }).loss).toBeCloseTo(-1.4 / 8, 12); // / (S * 4)
    expect(policyLoss({ ...base, mask, lossType: 'dapo', numItemsInBatch: 7 }).loss).toBeCloseTo(-0.2, 12);
  });
  it('asymmetric clipping (epsilon_high) lets a good token rise further', () => {
    const r = policyLoss({ ...base, epsilonHigh: 0.6 });
    // ratio 1.5 < 1.6 is no longer clipped: token loss -1.5, gradient -1.5 * 1/4
    expect(r.loss).toBeCloseTo(((-1.5 - 1) / 2 + 0.95) / 2, 12);
    expect(r.dLogprobs[0]).toBeCloseTo(-0.375, 6);
    expect(r.highClipFraction).toBe(0);
  });
  it('k3 KL to the reference: e^-1 for a log-ratio of -1, gradient beta * (1 - e^-1)', () => {
    const r = policyLoss({ S: 1, T: 1, logprobs: [-1], oldLogprobs: [-1], refLogprobs: [-2], mask: [1], advantages: [0], epsilon: 0.2, beta: 0.1, lossType: 'grpo', maxCompletionLength: 1 });
    expect(r.kl).toBeCloseTo(Math.exp(-1), 12);
    expect(r.loss).toBeCloseTo(0.1 * Math.exp(-1), 12);
    expect(r.dLogprobs[0]).toBeCloseTo(0.1 * (1 - Math.exp(-1)), 6);
  });
  it('dLogprobs matches finite differences of the loss away from clip boundaries', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const S = 3;
    const T = 5;
    const logprobs = Array.from({ length: S * T }, () => -rnd() * 3);
    const input: PolicyLossInput = {
      S, T, logprobs,
      oldLogprobs: logprobs.map((v) => v + (rnd() - 0.5) * 0.6),
      refLogprobs: logprobs.map((v) => v + (rnd() - 0.5)),
      mask: logprobs.map(() => (rnd() < 0.8 ? 1 : 0)),
      advantages: [0.9, -1.3, 0.4],
      epsilon: 0.2, beta: 0.05, lossType: 'grpo', maxCompletionLength: T,
    };
    const r = policyLoss(input);
    for (let i = 0; i < S * T; i++) {
      const h = 1e-6;
      const up = policyLoss({ ...input, logprobs: logprobs.map((v, j) => (j === i ? v + h : v)) }).loss;
      const down = policyLoss({ ...input, logprobs: logprobs.map((v, j) => (j === i ? v - h : v)) }).loss;
      expect(r.dLogprobs[i]).toBeCloseTo((up - down) / (2 * h), 5);
    }
  });
  it('needs reference log-probs when beta > 0', () => {
    expect(() => policyLoss({ ...base, beta: 0.1 })).toThrow(/reference log-probs/);
  });
});
