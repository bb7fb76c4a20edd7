// The model's operations on the engine (kernels.ts): which kernel runs each by its shape (gemmRows over 8+ rows,
// gemmCols below; GELU, GELU' and the residual fused into GEMM epilogues where a row kernel runs) and how a call is
// split between the threads. gpt.ts and kv-cache.ts say what to compute; this says how.
import type { Engine, KernelName } from './kernels.ts';

/** Work (multiply-adds or so) below which a kernel call stays on one thread. */
export const MIN_PART_WORK = 1 << 17;

export class Ops {
  readonly e: Engine;
  private readonly wTScratch: number; // (4C, C) a transposed weight

  constructor(engine: Engine, C: number) {
    this.e = engine;
    this.wTScratch = engine.alloc(4 * C * C);
  }

  /** Splits [0, total) between the threads when each part gets at least MIN_PART_WORK of `cost` per item (about 20 us):
   *  smaller calls are not worth a cross-thread handoff. */
  run(name: KernelName, args: number[], total: number, align = 1, cost = 1, label?: string, chunksPerThread?: number): void {
    this.e.run(name, args, total, { align, grain: Math.ceil(MIN_PART_WORK / cost), label, chunksPerThread });
  }

  /** y (rows, N) = (accumulate ? y : 0) + bias + x (rows, K) @ w (K, N). */
  matmul(x: number, w: number, bias: number, y: number, rows: number, K: number, N: number, accumulate = false, label = 'matmul'): void {
    const l = `${label} ${K}x${N}`;
    if (rows >= 8) this.run('gemmRows', [x, K, w, N, y, N, bias, N, K, accumulate ? 1 : 0], rows, 4, K * N, l);
    else this.run('gemmCols', [x, K, w, N, y, N, bias, rows, K, accumulate ? 1 : 0], N, 8, K * rows, l);
  }

  /** y (rows, N) = r + bias + x (rows, K) @ w (K, N): a residual connection, r read by the GEMM instead of copied into y. */
  matmulResidual(x: number, w: number, bias: number, r: number, y: number, rows: number, K: number, N: number): void {
    if (rows >= 8) {
      this.run('gemmRowsRes', [x, K, w, N, y, N, bias, N, K, r], rows, 4, K * N, `matmul ${K}x${N}`);
      return;
    }
    this.e.f32(y, rows * N).set(this.e.f32(r, rows * N));
    this.matmul(x, w, bias, y, rows, K, N, true);
  }

  /** y (rows, N) = gelu(pre), pre = bias + x (rows, K) @ w (K, N); pre is left holding GELU's derivative (for backward). */
  matmulGelu(x: number, w: number, bias: number, pre: number, y: number, rows: number, K: number, N: number): void {
    if (rows >= 8) {
      // GELU runs in the GEMM's epilogue on each finished block, while it is in cache.
      this.run('gemmRowsGelu', [x, K, w, N, pre, N, bias, N, K, y], rows, 4, K * N, `matmul+gelu ${K}x${N}`);
      return;
    }
    this.matmul(x, w, bias, pre, rows, K, N);
    this.run('gelu', [pre, y, 1], (rows * N) / 4, 1, 32);
  }

  /** Backward of y = x @ w + b: dw += x^T dy and db (stored right after dw) += column sums of dy; dx = dy @ w^T (if dx),
   *  times dxScale elementwise if given (gelu' for the MLP, applied in the GEMM's epilogue; K a multiple of 4). */
  matmulBackward(x: number, w: number, dwb: number, dy: number, dx: number, rows: number, K: number, N: number, dxScale = 0): void {
    if (dx && rows >= 8 && this.e.threads <= 2) {
      // dW on one thread while the other computes dx: each GEMM whole on one thread ran nearer its one-thread speed
      // than split between two (OpenBLAS's dW of 128 x N shapes gained 1.28x from a second thread). Two items keep
      // only two threads busy: more threads split each GEMM instead.
      this.e.run('linearBackward', [x, w, this.wTScratch, dwb, dy, dx, rows, K, N, dxScale], 2, { grain: 1, chunksPerThread: 1, label: `dW+dx ${K}x${N}` });
      return;
    }
    // Each chunk packs all of dy (rows x N): one chunk per thread.
    this.run('gemmRowsTA', [x, K, dy, N, dwb, N, N, rows, 1, dwb + K * N * 4], K, 4, rows * N, `dW ${K}x${N}`, 1);
    if (dx) {
      this.run('transpose', [w, N, this.wTScratch, K, K], N, 1, K, 'transpose w');
      this.matmul(dy, this.wTScratch, 0, dx, rows, N, K, false, 'dx');
      if (dxScale) this.run('mul', [dxScale, dx, dx], (rows * K) / 4, 1, 4);
    }
  }

  /** y (rows, C) = LayerNorm(x) * w + b, keeping each row's mean and 1/std. */
  layerNorm(x: number, w: number, b: number, y: number, mean: number, rstd: number, rows: number, C: number): void {
    this.run('layerNorm', [x, w, b, y, mean, rstd, C], rows, 1, 4 * C);
  }

  /** dx += LayerNorm backward of dy; dw, db += their gradients. */
  layerNormBackward(x: number, w: number, mean: number, rstd: number, dy: number, dx: number, dw: number, db: number, rows: number, C: number): void {
    this.run('layerNormBackward', [x, w, mean, rstd, dy, dx, C], rows, 1, 8 * C);
    // One thread: split by columns, each thread still streams every row of x and dy (2 threads took 2.5x as long as
    // one natively, 1.6x in wasm, on the bench's small model).
    this.e.run('layerNormParamsBackward', [x, mean, rstd, dy, dw, db, C, rows], C / 4, { grain: C / 4 });
  }
}
