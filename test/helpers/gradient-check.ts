// Seeded inputs for the student GPT's tests and the check of its gradients against finite differences, shared by
// test/model/model.test.ts (the model on its default backend) and test/model/model-backends.test.ts (the native backend on its own).
import type { GPT } from '../../src/model/gpt.ts';

/** A seeded uniform stream in [0, 1). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** B x T random tokens and targets below V; about 15% of the targets are -1 (ignored). */
export function batch(V: number, B: number, T: number, seed: number): { tokens: Int32Array; targets: Int32Array } {
  const r = lcg(seed);
  const tokens = Int32Array.from({ length: B * T }, () => Math.floor(r() * V));
  const targets = Int32Array.from({ length: B * T }, () => (r() < 0.15 ? -1 : Math.floor(r() * V)));
  return { tokens, targets };
}

/** Moves LayerNorm and biases off their init values, and makes weights large enough for gradients to rise above float32 noise. */
export function perturb(m: GPT, seed: number): void {
  const r = lcg(seed);
  for (const p of m.parameters()) {
    const size = p.name.endsWith('.bias') || p.name.includes('.ln_') ? 0.3 : 0.4;
    for (let i = 0; i < p.data.length; i++) p.data[i] += size * (r() - 0.5);
  }
}

/**
 * Backward's gradient of sum(coef * log p(target)) against central differences of forward, over each parameter's
 * `entries` largest gradient entries (float32 noise would swamp tiny ones). Central differences in float32 are noisy
 * for small steps: a large step's O(eps^2) error is cancelled by Richardson extrapolation over eps and eps / 2.
 * Returns the worst relative error (the error's norm over the numeric gradient's, per parameter) and where it was.
 */
export function gradientError(m: GPT, tokens: Int32Array, targets: Int32Array, B: number, T: number, coef: Float32Array,
  { eps = 2e-2, entries = 6 } = {}): { worst: number; name: string } {
  const loss = (): number => m.forward(tokens, targets, B, T).logprobs.reduce((s, x, i) => s + x * coef[i], 0);
  m.zeroGrad();
  loss();
  m.backward(coef);
  const grads = m.gradients();
  const central = (data: Float32Array, i: number, h: number): number => {
    const x = data[i];
    data[i] = x + h;
    const up = loss();
    data[i] = x - h;
    const down = loss();
    data[i] = x;
    return (up - down) / (2 * h);
  };
  let worst = 0, name = '';
  m.parameters().forEach((p, pi) => {
    const g = grads[pi].data;
    const idx = [...g.keys()].sort((a, b) => Math.abs(g[b]) - Math.abs(g[a])).slice(0, entries);
    let num2 = 0, err2 = 0;
    for (const i of idx) {
      const numeric = (4 * central(p.data, i, eps / 2) - central(p.data, i, eps)) / 3;
      num2 += numeric * numeric;
      err2 += (numeric - g[i]) ** 2;
    }
    const rel = Math.sqrt(err2) / Math.max(Math.sqrt(num2), 1e-6);
    if (rel > worst) { worst = rel; name = p.name; }
  });
  return { worst, name };
}
