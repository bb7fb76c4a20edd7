// The native backend against the WebAssembly kernels, which are its specification: every kernel on the same inputs at
// shapes off the fast paths' tiles, the whole model (forward, backward, finite differences), 200 training steps, and
// sampling with a fixed seed. Skipped where the native addon is not built, unless CANVASGYM_REQUIRE_NATIVE=1 (CI).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPT, type GPTConfig } from '../../src/model/gpt.ts';
import { Engine, type KernelName, type RunOptions } from '../../src/model/kernels.ts';
import { loadNative, resolveBackend } from '../../src/model/kernels-native.ts';
import { generate } from '../../src/model/sampler.ts';
import { batch, gradientError, lcg, perturb } from '../helpers/gradient-check.ts';

const native = loadNative();
const available = 'addon' in native;

it('builds and loads the native backend where CI asks for it', () => {
  if (process.env.CANVASGYM_REQUIRE_NATIVE === '1') expect('error' in native ? native.error : 'loaded').toBe('loaded');
  else if (!available) console.log(`native backend skipped: ${native.error}`);
});

const relDiff = (x: Float32Array, y: Float32Array): number => {
  let err = 0, ref = 0;
  for (let i = 0; i < x.length; i++) {
    err = Math.max(err, Math.abs(x[i] - y[i]));
    ref = Math.max(ref, Math.abs(y[i]));
  }
  return err / Math.max(ref, 1e-30);
};

describe.skipIf(!available)('native kernels against the wasm kernels', () => {
  let nat: Engine, wasm: Engine;
  beforeAll(async () => {
    [nat, wasm] = [await Engine.create(2, 'native'), await Engine.create(2, 'wasm')];
  });
  afterAll(async () => {
    await Promise.all([nat.dispose(), wasm.dispose()]);
  });

  /** A buffer of a case: n floats (uniform in [lo, hi)) or n int32s (in [0, int), -1 with probability `ignore`). */
  interface Buf {
    n: number; lo?: number; hi?: number; int?: number; ignore?: number; fixed?: number[];
    /** floats: every k-th is -Infinity (a guide's mask) */
    maskEvery?: number;
    /** floats: every [k, v][0]-th is v */
    fixedEvery?: [number, number];
  }

  /**
   * Fills the same buffers in both engines, runs the kernel on both with the same arguments (at each engine's offsets)
   * and work split, and returns the worst relative difference over the buffers in `compare`.
   */
  function agree(name: KernelName, bufs: Buf[], args: (p: number[]) => number[], total: number, opts: RunOptions, compare: number[]): number {
    const marks = [nat.mark(), wasm.mark()];
    try {
      const engines = [nat, wasm];
      const ptrs = engines.map((e) => bufs.map((b) => e.alloc(b.n)));
      engines.forEach((e, k) => bufs.forEach((b, i) => {
        const r = lcg(1000 + i);
        if (b.fixed) e.i32(ptrs[k][i], b.n).set(b.fixed);
        else if (b.int !== undefined) {
          const v = e.i32(ptrs[k][i], b.n);
          for (let j = 0; j < b.n; j++) v[j] = r() < (b.ignore ?? 0) ? -1 : Math.floor(r() * b.int);
        } else {
          const v = e.f32(ptrs[k][i], b.n);
          for (let j = 0; j < b.n; j++) v[j] = (b.lo ?? -1) + ((b.hi ?? 1) - (b.lo ?? -1)) * r();
          if (b.maskEvery) for (let j = 0; j < b.n; j += b.maskEvery) v[j] = -Infinity;
          if (b.fixedEvery) for (let j = 0; j < b.n; j += b.fixedEvery[0]) v[j] = b.fixedEvery[1];
        }
      }));
      engines.forEach((e, k) => e.run(name, args(ptrs[k]), total, opts));
      let worst = 0;
      for (const i of compare) worst = Math.max(worst, relDiff(nat.f32(ptrs[0][i], bufs[i].n), wasm.f32(ptrs[1][i], bufs[i].n)));
      return worst;
    } finally {
      nat.release(marks[0]);
      wasm.release(marks[1]);
    }
  }

  // M rows not a multiple of the tiles (6, 12, 4), N not a multiple of 8 or 16, K over one 256-deep block
  it.each([[37, 20, 300], [64, 256, 1024], [5, 9, 3], [130, 768, 128], [1, 33, 7]])('gemmRows, gemmRowsGelu, gemmRowsMul, gemmRowsRes, gemmCols for M=%i, N=%i, K=%i', (M, N, K) => {
    const bufs = [{ n: M * K }, { n: K * N }, { n: M * N }, { n: N }, { n: M * N }];
    for (const acc of [0, 1]) {
      expect(agree('gemmRows', bufs, ([A, B, C, b]) => [A, K, B, N, C, N, b, N, K, acc], M, { align: 4 }, [2]), 'gemmRows').toBeLessThan(2e-6);
      expect(agree('gemmRows', bufs, ([A, B, C]) => [A, K, B, N, C, N, 0, N, K, acc], M, { align: 4 }, [2]), 'gemmRows, no bias').toBeLessThan(2e-6);
      expect(agree('gemmCols', bufs, ([A, B, C, b]) => [A, K, B, N, C, N, b, M, K, acc], N, { align: 8 }, [2]), 'gemmCols').toBeLessThan(2e-6);
    }
    expect(agree('gemmRowsRes', bufs, ([A, B, C, b, R]) => [A, K, B, N, C, N, b, N, K, R], M, { align: 4 }, [2, 4]), 'gemmRowsRes').toBeLessThan(2e-6);
    // the wasm kernels' epilogues take N a multiple of 4 (what gpt.ts gives them)
    if (N % 4 === 0) {
      expect(agree('gemmRowsMul', bufs, ([A, B, C, , R]) => [A, K, B, N, C, N, N, K, R], M, { align: 4 }, [2, 4])).toBeLessThan(2e-6);
      expect(agree('gemmRowsGelu', bufs, ([A, B, C, b, Y]) => [A, K, B, N, C, N, b, N, K, Y], M, { align: 4 }, [2, 4])).toBeLessThan(2e-5);
    }
  });

  it.each([[1024, 256, 300], [1030, 40, 513], [7, 24, 5], [256, 768, 4096]])('gemmRowsTA (weight gradients, column sums) for M=%i, N=%i, K=%i', (M, N, K) => {
    const bufs = [{ n: K * M }, { n: K * N }, { n: M * N }, { n: N }];
    for (const acc of [0, 1]) {
      expect(agree('gemmRowsTA', bufs, ([A, B, C, s]) => [A, M, B, N, C, N, N, K, acc, s], M, { align: 4, chunksPerThread: 1 }, [2, 3])).toBeLessThan(5e-6);
    }
  });

  // a linear layer's backward as two items run at once: dW and db on one thread, w^T and dx (times a mask) on the other
  it.each([[300, 128, 512], [40, 36, 20]])('linearBackward for %i rows, K=%i, N=%i, with and without the dx mask', (rows, K, N) => {
    const bufs = [{ n: rows * K }, { n: K * N }, { n: K * N }, { n: K * N + N }, { n: rows * N }, { n: rows * K }, { n: rows * K }];
    for (const masked of [false, true]) {
      const worst = agree('linearBackward', bufs, ([x, w, wT, dwb, dy, dx, mask]) => [x, w, wT, dwb, dy, dx, rows, K, N, masked ? mask : 0],
        2, { grain: 1, chunksPerThread: 1 }, [2, 3, 5]);
      expect(worst, masked ? 'masked' : 'plain').toBeLessThan(5e-6);
    }
  });

  it('transpose, embed, embedBackward, mul, scale', () => {
    const rows = 37, cols = 50, C = 24, V = 11, ctx = 9;
    expect(agree('transpose', [{ n: rows * cols }, { n: cols * rows }], ([s, d]) => [s, cols, d, rows, rows], cols, { grain: 1 }, [1])).toBe(0);
    const emb = [{ n: rows, int: V }, { n: rows, int: ctx }, { n: V * C }, { n: ctx * C }, { n: rows * C }];
    expect(agree('embed', emb, ([t, p, te, pe, x]) => [t, p, te, pe, x, C], rows, { grain: 1 }, [4])).toBe(0);
    expect(agree('embedBackward', emb, ([t, p, te, pe, x]) => [t, p, te, pe, x, C, rows], C / 4, { grain: 1 }, [2, 3])).toBeLessThan(1e-6);
    // rope: 7 rows of qkv (C 48, 3 heads of 16), positions < 9 (a table of any numbers: the kernel is the same on them),
    // forward and back
    const ropeBufs = [{ n: 7 * 144, lo: -1, hi: 1 }, { n: 7, int: 9 }, { n: 9 * 16, lo: -1, hi: 1 }];
    for (const sign of [1, -1]) expect(agree('rope', ropeBufs, ([q, p, t]) => [q, p, t, 48, 3, sign], 7, { grain: 2 }, [0])).toBeLessThan(1e-6);
    expect(agree('mul', [{ n: 400 }, { n: 400 }, { n: 400 }], ([x, y, z]) => [x, y, z], 100, { grain: 1 }, [2])).toBe(0);
    expect(agree('scale', [{ n: 401 }], ([x]) => [x, 0.37], 401, { grain: 16 }, [0])).toBe(0);
  });

  it.each([[37, 260], [64, 32], [3, 4]])('layerNorm and its backward for %i rows of C=%i', (rows, C) => {
    const bufs = [{ n: rows * C }, { n: C }, { n: C }, { n: rows * C }, { n: rows }, { n: rows, lo: 0.5, hi: 2 }, { n: rows * C }, { n: rows * C }, { n: C }, { n: C }];
    expect(agree('layerNorm', bufs, ([x, w, b, y, m, r]) => [x, w, b, y, m, r, C], rows, { grain: 1 }, [3, 4, 5])).toBeLessThan(2e-6);
    expect(agree('layerNormBackward', bufs, ([x, w, , , m, r, dy, dx]) => [x, w, m, r, dy, dx, C], rows, { grain: 1 }, [7])).toBeLessThan(2e-6);
    expect(agree('layerNormParamsBackward', bufs, ([x, , , , m, r, dy, , dw, db]) => [x, m, r, dy, dw, db, C, rows], C / 4, { grain: 1, chunksPerThread: 3 }, [8, 9])).toBeLessThan(2e-6);
  });

  it('gelu with and without its derivative over [-12, 12]', () => {
    for (const keep of [0, 1]) {
      expect(agree('gelu', [{ n: 4096, lo: -12, hi: 12 }, { n: 4096 }], ([x, y]) => [x, y, keep], 1024, { grain: 1 }, [0, 1])).toBeLessThan(2e-6);
    }
  });

  it.each([[37, 512], [5, 61], [64, 7]])('softmaxRows (with entropy) and its backward for %i rows of V=%i', (rows, V) => {
    const bufs = [{ n: rows * V, lo: -8, hi: 8 }, { n: rows, int: V, ignore: 0.2 }, { n: rows }, { n: rows }, { n: rows }];
    expect(agree('softmaxRows', bufs, ([l, t, lp, en]) => [l, V, t, lp, en], rows, { grain: 1 }, [0, 2, 3])).toBeLessThan(2e-6);
    expect(agree('softmaxRowsBackward', bufs, ([l, t, , , d]) => [l, V, t, d], rows, { grain: 1 }, [0])).toBeLessThan(1e-6);
  });

  it.each([[37, 512], [5, 61]])('sampleWeights for %i rows of V=%i, at 1 / temperature 0.5 to 2 and 1, masked tokens included', (rows, V) => {
    const bufs: Buf[] = [{ n: rows * V, lo: -8, hi: 8, maskEvery: 7 }, { n: rows, lo: 0.5, hi: 2, fixedEvery: [3, 1] }, { n: rows * V }, { n: rows }];
    expect(agree('sampleWeights', bufs, ([l, t, w, lse]) => [l, V, t, w, lse], rows, { grain: 1 }, [2, 3])).toBeLessThan(2e-6);
  });

  // T = 70: several 64-query blocks, the last one partial; hs = 4, 12, 32, and 40 (native: two 16-column panels and a
  // partial one)
  it.each([[3, 70, 16, 4], [2, 70, 48, 4], [2, 256, 128, 4], [1, 5, 8, 2], [2, 70, 80, 2]])('attnForward and attnBackward, kept and recomputed probabilities, B=%i T=%i C=%i nh=%i', (B, T, C, nh) => {
    const bufs = [{ n: B * T * 3 * C }, { n: B * T * C }, { n: B * nh * T }, { n: B * nh * T * T }, { n: B * T * C }, { n: B * T * 3 * C }];
    for (const e of [nat, wasm]) e.ensureScratch(e.attnScratchFloats(T, C / nh));
    const opts = { grain: 1 };
    expect(agree('attnForward', bufs, ([q, o, l, p]) => [q, o, l, p, T, C, nh], B * nh, opts, [1, 2])).toBeLessThan(2e-6);
    expect(agree('attnForward', bufs, ([q, o, l]) => [q, o, l, 0, T, C, nh], B * nh, opts, [1, 2])).toBeLessThan(2e-6);
    // backward from the forward's own probabilities and lse, kept or recomputed from lse
    for (const probs of [true, false]) {
      const worst = (() => {
        const m = [nat.mark(), wasm.mark()];
        try {
          const outs = [nat, wasm].map((e) => {
            const ptrs = bufs.map((b) => e.alloc(b.n));
            bufs.forEach((b, i) => { const r = lcg(7 + i), v = e.f32(ptrs[i], b.n); for (let k = 0; k < b.n; k++) v[k] = 2 * r() - 1; });
            e.run('attnForward', [ptrs[0], ptrs[1], ptrs[2], probs ? ptrs[3] : 0, T, C, nh], B * nh, opts);
            e.run('attnBackward', [ptrs[0], ptrs[1], ptrs[4], ptrs[2], probs ? ptrs[3] : 0, ptrs[5], T, C, nh], B * nh, opts);
            return e.f32(ptrs[5], bufs[5].n).slice();
          });
          return relDiff(outs[0], outs[1]);
        } finally {
          nat.release(m[0]);
          wasm.release(m[1]);
        }
      })();
      expect(worst, `backward, probabilities ${probs ? 'kept' : 'recomputed'}`).toBeLessThan(5e-6);
    }
  });

  it('adamw over decayed and undecayed ranges, and sumSquares', () => {
    const n = 1001;
    const bufs = [{ n }, { n }, { n }, { n, lo: 0, hi: 1 }, { n: 4, fixed: [10, 300, 512, 777] }];
    const args = ([p, g, m, v, r]: number[]): number[] => [p, g, m, v, 1e-2, 0.9, 0.999, 1e-8, 0.1, 1 - 0.9 ** 3, 1 - 0.999 ** 3, r, 2];
    expect(agree('adamw', bufs, args, n, { grain: 16 }, [0, 2, 3])).toBeLessThan(1e-6);
    const ptr = nat.alloc(n), w = wasm.alloc(n);
    const r = lcg(3);
    const data = Float32Array.from({ length: n }, () => r() - 0.5);
    nat.f32(ptr, n).set(data);
    wasm.f32(w, n).set(data);
    expect(Math.abs(nat.sumSquares(ptr, n) - wasm.sumSquares(w, n)) / wasm.sumSquares(w, n)).toBeLessThan(1e-6);
    expect(nat.packedLayerFloats(40)).toBe(wasm.packedLayerFloats(40));
  });
});

describe.skipIf(!available)('the model on the native backend against the wasm backend', () => {
  const models: GPT[] = [];
  const pair = async (cfg: GPTConfig, opts: { seed: number; threads?: number; attnProbsBytes?: number }): Promise<[GPT, GPT]> => {
    const m = [await GPT.create(cfg, { ...opts, backend: 'native' }), await GPT.create(cfg, { ...opts, backend: 'wasm' })] as [GPT, GPT];
    models.push(...m);
    return m;
  };
  afterAll(async () => {
    await Promise.all(models.map((m) => m.dispose()));
  });

  it.each([[2, 11, undefined, 'learned'], [5, 70, undefined, 'learned'], [5, 70, 0, 'learned'], [5, 70, undefined, 'rotary']] as const)('gives the same log-probs, entropies and gradients (B=%i, T=%i, attnProbsBytes %s, %s positions)', async (B, T, attnProbsBytes, positions) => {
    const cfg: GPTConfig = { vocabSize: 61, nCtx: 80, nEmbd: positions === 'rotary' ? 64 : 48, nLayer: 2, nHead: 4, positions, ropeTheta: 100 };
    const [a, b] = await pair(cfg, { seed: 3, attnProbsBytes });
    const { tokens, targets } = batch(cfg.vocabSize, B, T, 8);
    const r = lcg(5);
    const coef = Float32Array.from({ length: B * T }, () => 2 * r() - 1);
    const outs = [a, b].map((m) => {
      m.zeroGrad();
      const f = m.forward(tokens, targets, B, T, { entropy: true });
      m.backward(coef);
      return { ...f, grads: m.gradients() };
    });
    expect(a.backend).toBe('native');
    expect(b.backend).toBe('wasm');
    expect(relDiff(outs[0].logprobs, outs[1].logprobs)).toBeLessThan(1e-5);
    expect(relDiff(outs[0].entropy!, outs[1].entropy!)).toBeLessThan(1e-5);
    let worst = 0, worstName = '';
    outs[0].grads.forEach((g, i) => {
      const d = relDiff(g.data, outs[1].grads[i].data);
      if (d > worst) { worst = d; worstName = g.name; }
    });
    console.log(`native vs wasm B=${B} T=${T}: worst relative gradient difference ${worst.toExponential(2)} (${worstName})`);
    expect(worst).toBeLessThan(1e-4);
  });

  it('trains 200 steps to the same losses', async () => {
    const cfg: GPTConfig = { vocabSize: 48, nCtx: 64, nEmbd: 32, nLayer: 2, nHead: 2 };
    const [a, b] = await pair(cfg, { seed: 9 });
    const B = 4, T = 48;
    // a learnable stream: a phrase of 23 tokens over and over, a token in ten replaced at random
    const r = lcg(21);
    const phrase = Array.from({ length: 23 }, (_, i) => (i * 7 + 3) % cfg.vocabSize);
    const stream = Array.from({ length: 200 * B * T + 1 }, (_, i) => (r() < 0.1 ? Math.floor(r() * cfg.vocabSize) : phrase[i % 23]));
    const losses: number[][] = [[], []];
    const coef = new Float32Array(B * T).fill(-1 / (B * T));
    for (let step = 0; step < 200; step++) {
      const off = (step * B * T) % (stream.length - B * T - 1);
      const tokens = Int32Array.from(stream.slice(off, off + B * T)), targets = Int32Array.from(stream.slice(off + 1, off + B * T + 1));
      [a, b].forEach((m, k) => {
        m.zeroGrad();
        const { logprobs } = m.forward(tokens, targets, B, T);
        losses[k].push(-logprobs.reduce((s, x) => s + x, 0) / logprobs.length);
        m.backward(coef);
        m.clipGradNorm(1);
        m.optimizer.update({ lr: 3e-3, weightDecay: 0.1 });
      });
    }
    const worst = Math.max(...losses[0].map((l, i) => Math.abs(l - losses[1][i]) / losses[1][i]));
    console.log(`200 steps: loss ${losses[1][0].toFixed(4)} -> ${losses[1][199].toFixed(4)} (wasm), ${losses[0][199].toFixed(4)} (native); worst relative difference ${worst.toExponential(2)}`);
    expect(losses[1][199]).toBeLessThan(losses[1][0] * 0.7);
    expect(worst).toBeLessThan(1e-3);
  });

  // The second model's weights are over the size below which native decoding splits rows between the threads: its
  // steps split every GEMM's columns instead (decodeRows in native/src/kernels.cc).
  it.each<[GPTConfig]>([
    [{ vocabSize: 29, nCtx: 64, nEmbd: 32, nLayer: 2, nHead: 4 }],
    [{ vocabSize: 61, nCtx: 64, nEmbd: 256, nLayer: 3, nHead: 8 }],
    [{ vocabSize: 29, nCtx: 64, nEmbd: 32, nLayer: 2, nHead: 4, positions: 'rotary', ropeTheta: 100 }],
    [{ vocabSize: 61, nCtx: 64, nEmbd: 256, nLayer: 3, nHead: 8, positions: 'rotary', ropeTheta: 100 }],
  ])('samples the same tokens for a seed, with log-probs within float32 rounding (%o)', async (cfg: GPTConfig) => {
    const [a, b] = await pair(cfg, { seed: 4 });
    for (const m of [a, b]) for (const p of m.parameters()) if (p.name.endsWith('.weight') && !p.name.includes('ln_')) p.data.forEach((x, i) => (p.data[i] = x * 8));
    const prompts = [Int32Array.of(1, 2, 3), Int32Array.of(4), Int32Array.of(7, 8, 9, 10, 11, 12)];
    const opts = { n: 6, maxNewTokens: 40, temperature: 1, seed: 17, stopTokens: [] };
    const [sa, sb] = [await generate(a, prompts, opts), await generate(b, prompts, opts)];
    // The two backends' logits differ by float32 rounding (sums in another order): a token would only differ where a
    // sample's uniform draw falls within about 1e-6 of a boundary of the cumulative distribution.
    expect(sa.map((s) => [...s.tokens])).toEqual(sb.map((s) => [...s.tokens]));
    const worst = Math.max(...sa.map((s, i) => relDiff(s.logprobs, sb[i].logprobs)));
    expect(worst).toBeLessThan(1e-4);
  });

  it('matches finite differences on its own', async () => {
    const cfg: GPTConfig = { vocabSize: 23, nCtx: 48, nEmbd: 16, nLayer: 2, nHead: 2 };
    const [m] = await pair(cfg, { seed: 7, threads: 1 });
    perturb(m, 11);
    const B = 3, T = 40;
    const { tokens, targets } = batch(cfg.vocabSize, B, T, 5);
    const r = lcg(99);
    const coef = Float32Array.from({ length: B * T }, () => r() * 2 - 1);
    const { worst, name } = gradientError(m, tokens, targets, B, T, coef, { entries: 4 });
    console.log(`native gradient check B=${B} T=${T}: worst relative error ${worst.toExponential(2)} (${name})`);
    expect(worst).toBeLessThan(3e-3);
  });

  // The portable kernel set (no AVX), and the GEMMs all through gemm.h or all through OpenBLAS (the default splits them)
  it.each([
    [{ CANVASGYM_NATIVE_ISA: 'generic' }, 'generic kernels'],
    [{ CANVASGYM_NATIVE_GEMM: 'own' }, 'kernels'],
    [{ CANVASGYM_NATIVE_GEMM: 'blas' }, 'kernels'],
  ])('computes the same numbers with %o', async (env, announced) => {
    const cfg: GPTConfig = { vocabSize: 37, nCtx: 40, nEmbd: 24, nLayer: 2, nHead: 2 };
    const B = 3, T = 33;
    const { tokens, targets } = batch(cfg.vocabSize, B, T, 2);
    const dir = mkdtempSync(join(tmpdir(), 'canvasgym-isa-'));
    const script = join(dir, 'isa.mts');
    const gpt = fileURLToPath(new URL('../../src/model/gpt.ts', import.meta.url));
    writeFileSync(script, [
      `import { GPT } from ${JSON.stringify(gpt)};`,
      `const m = await GPT.create(${JSON.stringify(cfg)}, { seed: 1, threads: 2, backend: 'native' });`,
      `const { logprobs } = m.forward(Int32Array.from(${JSON.stringify([...tokens])}), Int32Array.from(${JSON.stringify([...targets])}), ${B}, ${T});`,
      `m.zeroGrad(); m.backward(new Float32Array(${B * T}).fill(-1));`,
      `console.log(JSON.stringify({ logprobs: [...logprobs], grad: [...m.gradients()[2].data] }));`,
      `await m.dispose();`,
    ].join('\n'));
    const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
    const res = spawnSync(tsx, [script], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
    expect(res.stderr).toContain(announced);
    const got = JSON.parse(res.stdout) as { logprobs: number[]; grad: number[] };
    const [, w] = await pair(cfg, { seed: 1 });
    const { logprobs } = w.forward(tokens, targets, B, T);
    w.zeroGrad();
    w.backward(new Float32Array(B * T).fill(-1));
    expect(relDiff(Float32Array.from(got.logprobs), logprobs)).toBeLessThan(1e-5);
    expect(relDiff(Float32Array.from(got.grad), w.gradients()[2].data)).toBeLessThan(1e-4);
  });
});

describe('backend choice', () => {
  it('takes wasm when asked, and native by default where it loads', () => {
    expect(resolveBackend('wasm').backend).toBe('wasm');
    const def = resolveBackend();
    if (process.env.CANVASGYM_BACKEND === undefined) expect(def.backend).toBe(available ? 'native' : 'wasm');
    if (!available) expect(() => resolveBackend('native')).toThrow(/native backend was asked for but is not available/);
  });
});
