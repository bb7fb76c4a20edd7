import { describe, expect, it } from 'vitest';
import { bootstrapDiff, bootstrapMean, histogram, passAtK } from '../../src/eval/stats.ts';

describe('passAtK', () => {
  it('matches 1 - C(n-c,k)/C(n,k) computed by hand', () => {
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(4, 1, 2)).toBeCloseTo(1 - 3 / 6, 12); // C(3,2)/C(4,2)
    expect(passAtK(5, 2, 3)).toBeCloseTo(1 - 1 / 10, 12); // C(3,3)/C(5,3)
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(5, 3, 3)).toBe(1);
    expect(() => passAtK(2, 1, 3)).toThrow(/at least 3 samples/);
  });
});

describe('bootstrap', () => {
  it('brackets the mean, narrows with n, and is reproducible', () => {
    const small = Array.from({ length: 20 }, (_, i) => (i % 2 ? 1 : 0));
    const big = Array.from({ length: 2000 }, (_, i) => (i % 2 ? 1 : 0));
    const a = bootstrapMean(small);
    expect(a.mean).toBe(0.5);
    expect(a.lo).toBeLessThan(0.5);
    expect(a.hi).toBeGreaterThan(0.5);
    const b = bootstrapMean(big);
    expect(b.hi - b.lo).toBeLessThan((a.hi - a.lo) / 5);
    expect(bootstrapMean(small)).toEqual(a);
    // the standard error of a fair coin over 2000 draws is 0.0112: the 95% interval is about +-0.022
    expect(b.hi - b.lo).toBeGreaterThan(0.03);
    expect(b.hi - b.lo).toBeLessThan(0.06);
  });
  it('paired difference excludes zero for a consistent small gain that an unpaired test cannot see', () => {
    const base = Array.from({ length: 200 }, (_, i) => (i * 37) % 100 / 100);
    const better = base.map((v) => v + 0.02);
    const paired = bootstrapDiff(base, better);
    expect(paired.mean).toBeCloseTo(0.02, 12);
    expect(paired.lo).toBeGreaterThan(0);
    const unpaired = bootstrapDiff(base, better, { paired: false });
    expect(unpaired.lo).toBeLessThan(0);
  });
});

describe('histogram', () => {
  it('bins values, max in the last bin, ignores out-of-range', () => {
    expect(histogram([0, 0.05, 0.5, 0.99, 1, 1.5, -1], 4).counts).toEqual([2, 0, 1, 2]);
  });
});
