// The training kernels against plain loops, at shapes the model tests do not reach: leading dimensions of 1024 floats
// (the MLP's wide side), K over one 256-row block, row counts that are not multiples of the 4-row tile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/model/kernels.ts';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.create(2);
});
afterAll(async () => {
  await engine.dispose();
});

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296 - 0.5;
  };
}

/** n random floats in the engine's memory; returns the pointer and a copy. */
function filled(n: number, seed: number): { ptr: number; data: Float32Array } {
  const ptr = engine.alloc(n);
  const r = lcg(seed);
  const view = engine.f32(ptr, n);
  for (let i = 0; i < n; i++) view[i] = r();
  return { ptr, data: view.slice() };
}

const maxAbsDiff = (x: Float32Array, y: Float32Array): number => x.reduce((s, v, i) => Math.max(s, Math.abs(v - y[i])), 0);

/** What a weight gradient adds, by plain loops: start + A^T B for A (R x M) and B (R x N), and sumsStart + the column
 *  sums of B (the bias gradient). */
function weightGradient(A: Float32Array, B: Float32Array, R: number, M: number, N: number, start: Float32Array, sumsStart: Float32Array): { w: Float32Array; sums: Float32Array } {
  const w = start.slice(), sums = sumsStart.slice();
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let r = 0; r < R; r++) s += A[r * M + i] * B[r * N + j];
      w[i * N + j] += s;
    }
  }
  for (let j = 0; j < N; j++) for (let r = 0; r < R; r++) sums[j] += B[r * N + j];
  return { w, sums };
}

describe('gemmRowsTA (weight gradients x^T dy)', () => {
  it.each([[1024, 256, 300], [1030, 40, 513], [7, 24, 5]])('matches a plain loop for M=%i, N=%i, K=%i, accumulating, with column sums', (M, N, K) => {
    const mark = engine.mark();
    try {
      const A = filled(K * M, 1), B = filled(K * N, 2), C = filled(M * N, 3), sums = filled(N, 4);
      engine.run('gemmRowsTA', [A.ptr, M, B.ptr, N, C.ptr, N, N, K, 1, sums.ptr], M, { align: 4, chunksPerThread: 1 });
      const want = weightGradient(A.data, B.data, K, M, N, C.data, sums.data);
      expect(maxAbsDiff(engine.f32(C.ptr, M * N), want.w)).toBeLessThan(1e-4);
      expect(maxAbsDiff(engine.f32(sums.ptr, N), want.sums)).toBeLessThan(1e-4);
    } finally {
      engine.release(mark);
    }
  });
});

describe('layerNormParamsBackward', () => {
  it('adds sum_r dy * xhat and sum_r dy to dw, db, split across threads at odd 4-column boundaries', () => {
    const mark = engine.mark();
    try {
      const rows = 37, C = 260;
      const x = filled(rows * C, 5), dy = filled(rows * C, 6), dw = filled(C, 7), db = filled(C, 8);
      const mean = filled(rows, 9), rstd = filled(rows, 10);
      const rs = engine.f32(rstd.ptr, rows);
      for (let r = 0; r < rows; r++) rs[r] = 1 + rs[r];
      engine.run('layerNormParamsBackward', [x.ptr, mean.ptr, rstd.ptr, dy.ptr, dw.ptr, db.ptr, C, rows], C / 4, { grain: 1, chunksPerThread: 3 });
      const wantW = dw.data.slice(), wantB = db.data.slice();
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < C; c++) {
          wantW[c] += dy.data[r * C + c] * (x.data[r * C + c] - mean.data[r]) * rs[r];
          wantB[c] += dy.data[r * C + c];
        }
      }
      expect(maxAbsDiff(engine.f32(dw.ptr, C), wantW)).toBeLessThan(1e-5);
      expect(maxAbsDiff(engine.f32(db.ptr, C), wantB)).toBeLessThan(1e-5);
    } finally {
      engine.release(mark);
    }
  });
});

describe('transpose', () => {
  // 50 columns in 6 chunks split at 8, 17, 25, 33, 42: chunks that start and end off the 4 x 4 blocks
  it.each([[256, 768, 4], [37, 50, 3], [2, 5, 1]])('writes dst[c, r] = src[r, c] for rows=%i, cols=%i (%i chunks per thread)', (rows, cols, chunksPerThread) => {
    const mark = engine.mark();
    try {
      const src = filled(rows * cols, 11), dst = filled(cols * rows, 12);
      engine.run('transpose', [src.ptr, cols, dst.ptr, rows, rows], cols, { grain: 1, chunksPerThread });
      const want = new Float32Array(cols * rows);
      for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) want[c * rows + r] = src.data[r * cols + c];
      expect(maxAbsDiff(engine.f32(dst.ptr, cols * rows), want)).toBe(0);
    } finally {
      engine.release(mark);
    }
  });
});

describe('gemmRowsRes (residual connection)', () => {
  it.each([[37, 20, 600], [64, 256, 1024], [5, 9, 3]])('C = R + bias + A @ B for M=%i, N=%i, K=%i, R untouched', (M, N, K) => {
    const mark = engine.mark();
    try {
      const A = filled(M * K, 13), B = filled(K * N, 14), C = filled(M * N, 15), R = filled(M * N, 16), bias = filled(N, 17);
      engine.run('gemmRowsRes', [A.ptr, K, B.ptr, N, C.ptr, N, bias.ptr, N, K, R.ptr], M, { align: 4 });
      const want = new Float32Array(M * N);
      for (let i = 0; i < M; i++) {
        for (let j = 0; j < N; j++) {
          let s = R.data[i * N + j] + bias.data[j];
          for (let k = 0; k < K; k++) s += A.data[i * K + k] * B.data[k * N + j];
          want[i * N + j] = s;
        }
      }
      expect(maxAbsDiff(engine.f32(C.ptr, M * N), want)).toBeLessThan(1e-4);
      expect(maxAbsDiff(engine.f32(R.ptr, M * N), R.data)).toBe(0);
    } finally {
      engine.release(mark);
    }
  });
});

describe('gelu', () => {
  it("matches the tanh approximation and its derivative in float64 over [-12, 12], the negative tail included", () => {
    const mark = engine.mark();
    try {
      const n = 4096, x = engine.alloc(n), y = engine.alloc(n);
      const xs = Float32Array.from({ length: n }, (_, i) => -12 + (24 * i) / n);
      engine.f32(x, n).set(xs);
      engine.run('gelu', [x, y, 1], n / 4, { grain: 1 });
      const Y = engine.f32(y, n), G = engine.f32(x, n);
      const k = Math.sqrt(2 / Math.PI);
      let worstY = 0, worstG = 0;
      for (let i = 0; i < n; i++) {
        const v = xs[i], t = Math.tanh(k * (v + 0.044715 * v ** 3));
        const want = 0.5 * v * (1 + t), dwant = 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * k * (1 + 3 * 0.044715 * v * v);
        worstY = Math.max(worstY, Math.abs(Y[i] - want) / Math.max(Math.abs(want), 1e-3));
        worstG = Math.max(worstG, Math.abs(G[i] - dwant) / Math.max(Math.abs(dwant), 1e-3));
      }
      // 0.5 x (1 + tanh u) lost up to 3e-4 (and gelu' 2e-3) to cancellation where tanh u is close to -1
      expect(worstY).toBeLessThan(1e-5);
      expect(worstG).toBeLessThan(1e-4);
    } finally {
      engine.release(mark);
    }
  });
});

describe('sampleWeights (the sampler\'s softmax)', () => {
  it('gives each row its log-sum-exp and exp((logit - max) / temperature), 0 for masked tokens, none for greedy rows', () => {
    const mark = engine.mark();
    try {
      const rows = 37, V = 61; // V not a multiple of the vector width
      const logits = filled(rows * V, 5);
      const view = engine.f32(logits.ptr, rows * V);
      for (let i = 0; i < rows * V; i++) view[i] *= 20; // logits in [-10, 10)
      for (let i = 3; i < rows * V; i += 7) view[i] = -Infinity; // a guide's mask
      view[V] = 200; // row 1: every other token below exp(-87) of the largest
      const data = view.slice();
      const invTemps = engine.alloc(rows), weights = engine.alloc(rows * V), lse = engine.alloc(rows);
      // 1 / temperature: 1, temperature 2, temperature 0.5, temperature infinite (uniform), greedy (no weights)
      const inv = Float32Array.from({ length: rows }, (_, r) => [1, 0.5, 2, 0, -1][r % 5]);
      engine.f32(invTemps, rows).set(inv);
      engine.f32(weights, rows * V).fill(-1);
      engine.run('sampleWeights', [logits.ptr, V, invTemps, weights, lse], rows, { grain: 4 });
      const w = engine.f32(weights, rows * V), l = engine.f32(lse, rows);
      for (let r = 0; r < rows; r++) {
        const row = data.subarray(r * V, (r + 1) * V);
        const max = Math.max(...row);
        const wantLse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
        expect(Math.abs(l[r] - wantLse), `row ${r} lse`).toBeLessThan(1e-5 * Math.max(1, Math.abs(wantLse)));
        for (let i = 0; i < V; i++) {
          const got = w[r * V + i];
          if (inv[r] < 0) expect(got).toBe(-1);
          else if (row[i] === -Infinity || (row[i] - max) * inv[r] < -87) expect(got, `row ${r} token ${i}`).toBe(0);
          else expect(Math.abs(got - Math.exp((row[i] - max) * inv[r])), `row ${r} token ${i}`).toBeLessThan(2e-7);
        }
      }
      expect(w[V]).toBe(1);
      expect(w.subarray(3 * V, 4 * V).filter((x) => x === 1).length).toBeGreaterThan(V / 2); // the uniform row
    } finally {
      engine.release(mark);
    }
  });
});

describe('linearBackward (dW and dx of a linear layer at once)', () => {
  it('adds x^T dy to dW and the column sums of dy to db, and writes dx = (dy @ w^T) * mask, split as two items', () => {
    const mark = engine.mark();
    try {
      const rows = 37, K = 20, N = 12;
      const x = filled(rows * K, 6), w = filled(K * N, 7), wT = engine.alloc(K * N), dwb = filled(K * N + N, 8);
      const dy = filled(rows * N, 9), dx = engine.alloc(rows * K), mask = filled(rows * K, 10);
      engine.run('linearBackward', [x.ptr, w.ptr, wT, dwb.ptr, dy.ptr, dx, rows, K, N, mask.ptr], 2, { grain: 1, chunksPerThread: 1 });
      const grad = weightGradient(x.data, dy.data, rows, K, N, dwb.data.subarray(0, K * N), dwb.data.subarray(K * N));
      const wantDwb = Float32Array.from([...grad.w, ...grad.sums]);
      const wantDx = new Float32Array(rows * K);
      for (let r = 0; r < rows; r++) for (let k = 0; k < K; k++) {
        let s = 0;
        for (let n = 0; n < N; n++) s += dy.data[r * N + n] * w.data[k * N + n];
        wantDx[r * K + k] = s * mask.data[r * K + k];
      }
      expect(maxAbsDiff(engine.f32(dwb.ptr, K * N + N), wantDwb)).toBeLessThan(1e-5);
      expect(maxAbsDiff(engine.f32(dx, rows * K), wantDx)).toBeLessThan(1e-5);
    } finally {
      engine.release(mark);
    }
  });
});
