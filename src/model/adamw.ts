// AdamW (PyTorch's) over a model's parameter block: the moments live in the engine's arena beside the weights and
// gradients, and one kernel call updates every parameter.
import type { Ops } from './ops.ts';

export interface AdamWOptions {
  lr: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
}

/** Moments and step counter: what an exact resume needs. */
export interface AdamWState {
  step: number;
  m: Float32Array;
  v: Float32Array;
}

export class AdamW {
  private readonly ops: Ops;
  private readonly params: number; // byte offsets of parameter-shaped blocks of n floats
  private readonly grads: number;
  private readonly n: number;
  private readonly m: number;
  private readonly v: number;
  private readonly decayRanges: number; // int32 [start, end) pairs (floats into a parameter block) of the decayed weights
  private readonly nDecayRanges: number;
  private step = 0;

  /** `decayed`: [start, end) float ranges of the parameters that get weight decay. */
  constructor(ops: Ops, params: number, grads: number, n: number, decayed: [number, number][]) {
    this.ops = ops;
    this.params = params;
    this.grads = grads;
    this.n = n;
    this.m = ops.e.alloc(n);
    this.v = ops.e.alloc(n);
    this.nDecayRanges = decayed.length;
    this.decayRanges = ops.e.alloc(2 * decayed.length);
    ops.e.i32(this.decayRanges, 2 * decayed.length).set(decayed.flat());
  }

  /** One update from the gradients, decoupled weight decay on the decayed ranges only; the step counter is kept inside. */
  update(o: AdamWOptions): void {
    const { lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01 } = o;
    if (!(lr >= 0)) throw new Error(`lr must be >= 0, got ${lr}`);
    if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1)) throw new Error(`betas must be in [0, 1), got ${beta1}, ${beta2}`);
    this.step++;
    const bc1 = 1 - beta1 ** this.step, bc2 = 1 - beta2 ** this.step;
    this.ops.run('adamw', [this.params, this.grads, this.m, this.v, lr, beta1, beta2, eps, weightDecay, bc1, bc2,
      this.decayRanges, this.nDecayRanges], this.n, 16, 16);
  }

  /** A copy, for exact resume. */
  state(): AdamWState {
    return { step: this.step, m: this.ops.e.f32(this.m, this.n).slice(), v: this.ops.e.f32(this.v, this.n).slice() };
  }

  loadState(s: AdamWState): void {
    if (s.m.length !== this.n || s.v.length !== this.n) {
      throw new Error(`optimizer state has ${s.m.length}/${s.v.length} moments, the model ${this.n} parameters`);
    }
    if (!Number.isInteger(s.step) || s.step < 0) throw new Error(`optimizer step must be a non-negative integer, got ${s.step}`);
    this.step = s.step;
    this.ops.e.f32(this.m, this.n).set(s.m);
    this.ops.e.f32(this.v, this.n).set(s.v);
  }
}
