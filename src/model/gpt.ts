// The student model: GPT-2 (pre-LayerNorm, learned positions, tanh-GELU MLP 4x, tied embeddings, biases, LayerNorm eps 1e-5)
// with an explicit forward and backward for each layer, side by side, in the spirit of llm.c.
// Tensors live in the engine's arena (kernels.ts) and are named by byte offsets; shapes are in the comments:
// B batch, T time, C channels (nEmbd), nh heads, hs = C / nh, V vocabulary, BT = B * T rows.
// Weights use Hugging Face GPT-2's layouts (Conv1D: [in, out]), so a checkpoint is a copy of the arena.
import { mulberry32 } from '../random.ts';
import { inductionLayout, plantInductionCircuit } from './induction-init.ts';
import { Engine, type Backend, type KernelName, type Profile } from './kernels.ts';

/** Work (multiply-adds or so) below which a kernel call stays on one thread. */
const MIN_PART_WORK = 1 << 17;
/** Attention probabilities of all layers are kept for backward (instead of recomputed there) while they take at most
 *  this much memory (B * nHead * T * T floats per layer); GPT.create's attnProbsBytes overrides it. */
const ATTN_PROBS_BYTES = 512 * 2 ** 20;

export interface GPTConfig {
  vocabSize: number;
  nCtx: number;
  nEmbd: number;
  nLayer: number;
  nHead: number;
}

export type PresetName = 'tiny' | 'default' | 'large';

/** How a new model's weights start: GPT-2's random init, or that plus a planted induction circuit. */
export type ModelInit = 'gpt2' | 'induction';
export const MODEL_INITS: readonly ModelInit[] = ['gpt2', 'induction'];

/** tiny: trains in seconds (tests); default: about 1M parameters, context 512; large: about 5M. vocabSize is the tokenizer's. */
export function presetConfig(name: PresetName, vocabSize: number): GPTConfig {
  switch (name) {
    case 'tiny': return { vocabSize, nCtx: 128, nEmbd: 32, nLayer: 2, nHead: 2 };
    case 'default': return { vocabSize, nCtx: 512, nEmbd: 128, nLayer: 4, nHead: 4 };
    case 'large': return { vocabSize, nCtx: 512, nEmbd: 256, nLayer: 6, nHead: 8 };
    default: throw new Error(`unknown model preset '${String(name)}' (expected tiny, default or large)`);
  }
}

export function validateConfig(c: GPTConfig): void {
  for (const key of ['vocabSize', 'nCtx', 'nEmbd', 'nLayer', 'nHead'] as const) {
    if (!Number.isInteger(c[key]) || c[key] < 1) throw new Error(`GPT config: ${key} must be a positive integer, got ${c[key]}`);
  }
  if (c.nEmbd % c.nHead !== 0 || (c.nEmbd / c.nHead) % 4 !== 0) {
    throw new Error(`GPT config: nEmbd (${c.nEmbd}) must be nHead (${c.nHead}) x a multiple of 4 (the kernels work on 4 floats at a time)`);
  }
}

export interface NamedTensor {
  name: string;
  shape: number[];
  data: Float32Array;
}

interface ParamSpec {
  name: string;
  shape: number[];
  /** Offset in floats from the start of the parameter block. */
  offset: number;
  size: number;
  /** 2-D matmul weights get weight decay; biases, LayerNorm and embeddings do not. */
  decay: boolean;
}

/** Offsets (bytes into a parameter-shaped block: weights, gradients or moments) of one transformer block's tensors. */
interface LayerOffsets {
  ln1w: number; ln1b: number; attnW: number; attnB: number; projW: number; projB: number;
  ln2w: number; ln2b: number; fcW: number; fcB: number; fc2W: number; fc2B: number;
}

/** Activations of one block for BT rows, kept from forward for backward. */
interface LayerActs {
  ln1: number; ln1Mean: number; ln1Rstd: number; // (BT, C), (BT), (BT)
  qkv: number; // (BT, 3C)
  lse: number; // (B, nh, T) log-sum-exp of the attention scores
  atty: number; // (BT, C) attention output before the projection
  res1: number; // (BT, C) residual stream after attention
  ln2: number; ln2Mean: number; ln2Rstd: number; // (BT, C), (BT), (BT)
  fc: number; // (BT, 4C) before GELU, then GELU's derivative there (for backward)
  fcg: number; // (BT, 4C) after GELU
  res2: number; // (BT, C) residual stream after the MLP (the block's output)
}

interface Acts {
  rows: number;
  tokens: number; targets: number; positions: number; // int32 (BT)
  x0: number; // (BT, C) embeddings
  layers: LayerActs[];
  lnf: number; lnfMean: number; lnfRstd: number; // (BT, C), (BT), (BT)
  probs: number; // (BT, V) logits, then probabilities, then dlogits
  logprobs: number; entropy: number; dlogprobs: number; // (BT)
  // backward scratch
  dres: number; dln: number; datty: number; // (BT, C)
  dqkv: number; // (BT, 3C)
  dfc: number; // (BT, 4C)
}

/** A KV cache over `slots` sequences and the buffers of a forward over at most `rows` new tokens (sampler.ts). It holds a
 *  packed copy of the weights made at its creation: a cache made before an update decodes with the old weights. */
export interface KVCache {
  readonly slots: number;
  readonly rows: number;
  /** Context capacity, nCtx rounded up to 16. */
  readonly ctx: number;
  readonly mark: number;
  readonly k: number[]; // per layer (slots, nh, ctx, hs)
  readonly v: number[]; // per layer (slots, nh, ctx, hs)
  readonly wteP: number; // wte^T (C, V) packed for decoding
  readonly packed: number; // each layer's matmul weights packed for decoding
  readonly tokens: number; readonly slotIdx: number; readonly positions: number; // int32 (rows)
  readonly x: number; readonly ln: number; readonly atty: number; // (rows, C)
  readonly qkv: number; // (rows, 3C)
  readonly fc: number; // (rows, 4C)
  readonly logits: number; // (rows, V)
  readonly desc: number; // int32 fields for decodeRows
}

export interface AdamWOptions {
  lr: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
}

export class GPT {
  readonly config: GPTConfig;
  private readonly e: Engine;
  private readonly specs: ParamSpec[];
  private readonly nParams: number;
  private readonly params: number; // byte offsets of parameter-shaped blocks
  private readonly grads: number;
  private readonly m: number;
  private readonly v: number;
  private readonly wTScratch: number; // (4C, C) a transposed weight
  private readonly decayRanges: number; // int32 [start, end) pairs (floats into a parameter block) of the decayed weights
  private readonly nDecayRanges: number;
  private acts?: Acts;
  private wteT = 0; // (C, V) for the LM head, sized with the activations
  private attnProbs = { floats: 0, layers: [] as number[] }; // per layer (B, nh, T, T), see ATTN_PROBS_BYTES
  private attnProbsBytes = ATTN_PROBS_BYTES;
  private last?: { B: number; T: number };
  private step = 0;

  private constructor(config: GPTConfig, engine: Engine) {
    this.config = config;
    this.e = engine;
    this.specs = paramSpecs(config);
    const lastSpec = this.specs[this.specs.length - 1];
    this.nParams = lastSpec.offset + lastSpec.size;
    this.params = engine.alloc(this.nParams);
    this.grads = engine.alloc(this.nParams);
    this.m = engine.alloc(this.nParams);
    this.v = engine.alloc(this.nParams);
    this.wTScratch = engine.alloc(4 * config.nEmbd * config.nEmbd);
    const decayed = this.specs.filter((s) => s.decay).flatMap((s) => [s.offset, s.offset + s.size]);
    this.nDecayRanges = decayed.length / 2;
    this.decayRanges = engine.alloc(decayed.length);
    engine.i32(this.decayRanges, decayed.length).set(decayed);
  }

  /** GPT-2 init: normal(0, 0.02), residual projections (attn.c_proj, mlp.c_proj) scaled by 1/sqrt(2 * nLayer), LayerNorm 1/0,
   *  biases 0; `init: 'induction'` then plants a copying circuit (induction-init.ts). */
  static async create(config: GPTConfig, opts: { seed?: number; threads?: number; attnProbsBytes?: number; init?: ModelInit; backend?: Backend } = {}): Promise<GPT> {
    validateConfig(config);
    if (opts.init === 'induction') inductionLayout(config);
    const engine = await Engine.create(opts.threads, opts.backend);
    const model = new GPT({ ...config }, engine);
    if (opts.attnProbsBytes !== undefined) model.attnProbsBytes = opts.attnProbsBytes;
    model.init(opts.seed ?? 0);
    if (opts.init === 'induction') plantInductionCircuit(model, { seed: opts.seed });
    return model;
  }

  get threads(): number {
    return this.e.threads;
  }

  /** The engine's compute backend (kernels.ts): native or wasm. */
  get backend(): Backend {
    return this.e.backend;
  }

  get numParameters(): number {
    return this.nParams;
  }

  private init(seed: number): void {
    const rand = gaussian(seed);
    const residualStd = 0.02 / Math.sqrt(2 * this.config.nLayer);
    for (const t of this.parameters()) {
      const kind = t.name.split('.').slice(-2).join('.');
      if (t.name.endsWith('.bias')) t.data.fill(0);
      else if (kind.startsWith('ln_')) t.data.fill(1);
      else {
        const std = kind === 'c_proj.weight' ? residualStd : 0.02;
        for (let i = 0; i < t.data.length; i++) t.data[i] = rand() * std;
      }
    }
  }

  /** Every parameter by its Hugging Face GPT-2 name and layout; `data` is a live view (writing it sets the weights). */
  parameters(): NamedTensor[] {
    return this.views(this.params);
  }

  /** Gradients, same names/order/shapes as parameters(). */
  gradients(): NamedTensor[] {
    return this.views(this.grads);
  }

  private views(block: number): NamedTensor[] {
    return this.specs.map((s) => ({ name: s.name, shape: [...s.shape], data: this.e.f32(block + s.offset * 4, s.size) }));
  }

  private offset(name: string): number {
    const s = this.specs.find((p) => p.name === name);
    if (!s) throw new Error(`no parameter ${name}`);
    return s.offset * 4;
  }

  private layerOffsets(l: number): LayerOffsets {
    const p = `transformer.h.${l}.`;
    return {
      ln1w: this.offset(`${p}ln_1.weight`), ln1b: this.offset(`${p}ln_1.bias`),
      attnW: this.offset(`${p}attn.c_attn.weight`), attnB: this.offset(`${p}attn.c_attn.bias`),
      projW: this.offset(`${p}attn.c_proj.weight`), projB: this.offset(`${p}attn.c_proj.bias`),
      ln2w: this.offset(`${p}ln_2.weight`), ln2b: this.offset(`${p}ln_2.bias`),
      fcW: this.offset(`${p}mlp.c_fc.weight`), fcB: this.offset(`${p}mlp.c_fc.bias`),
      fc2W: this.offset(`${p}mlp.c_proj.weight`), fc2B: this.offset(`${p}mlp.c_proj.bias`),
    };
  }

  // ------------------------------------------------------------------ building blocks (each forward beside its backward)

  /** Splits [0, total) between the threads when each part gets at least MIN_PART_WORK of `cost` per item (about 20 us):
   *  smaller calls are not worth a cross-thread handoff. */
  private run(name: KernelName, args: number[], total: number, align = 1, cost = 1, label?: string, chunksPerThread?: number): void {
    this.e.run(name, args, total, { align, grain: Math.ceil(MIN_PART_WORK / cost), label, chunksPerThread });
  }

  /** Starts (or with false, stops) timing every kernel call; returns the live profile by label (bench/model.ts --profile). */
  profile(on: boolean): Profile | undefined {
    this.e.profile = on ? new Map() : undefined;
    return this.e.profile;
  }

  /** y (rows, N) = (accumulate ? y : 0) + bias + x (rows, K) @ w (K, N). */
  private matmul(x: number, w: number, bias: number, y: number, rows: number, K: number, N: number, accumulate = false, label = 'matmul'): void {
    const l = `${label} ${K}x${N}`;
    if (rows >= 8) this.run('gemmRows', [x, K, w, N, y, N, bias, N, K, accumulate ? 1 : 0], rows, 4, K * N, l);
    else this.run('gemmCols', [x, K, w, N, y, N, bias, rows, K, accumulate ? 1 : 0], N, 8, K * rows, l);
  }

  /** y (rows, N) = r + bias + x (rows, K) @ w (K, N): a residual connection, r read by the GEMM instead of copied into y. */
  private matmulResidual(x: number, w: number, bias: number, r: number, y: number, rows: number, K: number, N: number): void {
    if (rows >= 8) {
      this.run('gemmRowsRes', [x, K, w, N, y, N, bias, N, K, r], rows, 4, K * N, `matmul ${K}x${N}`);
      return;
    }
    this.e.f32(y, rows * N).set(this.e.f32(r, rows * N));
    this.matmul(x, w, bias, y, rows, K, N, true);
  }

  /** Backward of y = x @ w + b: dw += x^T dy and db (stored right after dw) += column sums of dy; dx = dy @ w^T (if dx),
   *  times dxScale elementwise if given (gelu' for the MLP, applied in the GEMM's epilogue; K a multiple of 4). */
  private matmulBackward(x: number, w: number, dwb: number, dy: number, dx: number, rows: number, K: number, N: number, dxScale = 0): void {
    // Each chunk packs all of dy (rows x N): one chunk per thread.
    this.run('gemmRowsTA', [x, K, dy, N, dwb, N, N, rows, 1, dwb + K * N * 4], K, 4, rows * N, `dW ${K}x${N}`, 1);
    if (dx) {
      this.run('transpose', [w, N, this.wTScratch, K, K], N, 1, K, 'transpose w');
      if (dxScale && rows >= 8) {
        this.run('gemmRowsMul', [dy, N, this.wTScratch, K, dx, K, K, N, dxScale], rows, 4, N * K, `dx*gelu' ${N}x${K}`);
        return;
      }
      this.matmul(dy, this.wTScratch, 0, dx, rows, N, K, false, 'dx');
      if (dxScale) this.run('mul', [dxScale, dx, dx], (rows * K) / 4, 1, 4);
    }
  }

  private layerNorm(x: number, w: number, b: number, y: number, mean: number, rstd: number, rows: number): void {
    this.run('layerNorm', [x, w, b, y, mean, rstd, this.config.nEmbd], rows, 1, 4 * this.config.nEmbd);
  }

  /** dx += LayerNorm backward of dy; dw, db += their gradients. */
  private layerNormBackward(x: number, w: number, mean: number, rstd: number, dy: number, dx: number, dw: number, db: number, rows: number): void {
    const C = this.config.nEmbd;
    this.run('layerNormBackward', [x, w, mean, rstd, dy, dx, C], rows, 1, 8 * C);
    // One contiguous half of every row per thread: smaller column chunks made each thread stride through x and dy
    // (2 threads were 3x slower than 1).
    this.run('layerNormParamsBackward', [x, mean, rstd, dy, dw, db, C, rows], C / 4, 4, 16 * rows, undefined, 1);
  }

  // ------------------------------------------------------------------ forward / backward

  private ensureActs(B: number, T: number): Acts {
    const rows = B * T;
    const { nEmbd: C, nHead: nh, vocabSize: V } = this.config;
    this.e.ensureScratch(Math.max(this.e.attnScratchFloats(T, C / nh), 16 * Math.ceil(this.config.nCtx / 16)));
    if (this.acts && this.acts.rows >= rows) return this.acts;
    // Grow in powers of two so that a run with varying batch shapes allocates a bounded amount.
    const cap = 2 ** Math.ceil(Math.log2(Math.max(rows, 64)));
    const al = (n: number): number => this.e.alloc(n);
    const layers: LayerActs[] = [];
    for (let l = 0; l < this.config.nLayer; l++) {
      layers.push({
        ln1: al(cap * C), ln1Mean: al(cap), ln1Rstd: al(cap), qkv: al(cap * 3 * C), lse: al(cap * nh), atty: al(cap * C),
        res1: al(cap * C), ln2: al(cap * C), ln2Mean: al(cap), ln2Rstd: al(cap), fc: al(cap * 4 * C), fcg: al(cap * 4 * C),
        res2: al(cap * C),
      });
    }
    this.acts = {
      rows: cap, tokens: al(cap), targets: al(cap), positions: al(cap), x0: al(cap * C), layers,
      lnf: al(cap * C), lnfMean: al(cap), lnfRstd: al(cap), probs: al(cap * V), logprobs: al(cap), entropy: al(cap),
      dlogprobs: al(cap), dres: al(cap * C), dln: al(cap * C), datty: al(cap * C), dqkv: al(cap * 3 * C), dfc: al(cap * 4 * C),
    };
    if (!this.wteT) this.wteT = al(C * V);
    return this.acts;
  }

  /** Per-layer buffers for the attention probabilities of a (B, T) batch, or zeros (recompute in backward) above the budget. */
  private attnProbsFor(B: number, T: number): number[] {
    const { nHead: nh, nLayer } = this.config;
    const floats = B * nh * T * T;
    if (floats * nLayer * 4 > this.attnProbsBytes) return new Array<number>(nLayer).fill(0);
    if (floats > this.attnProbs.floats) {
      const cap = 2 ** Math.ceil(Math.log2(floats));
      this.attnProbs = { floats: cap, layers: Array.from({ length: nLayer }, () => this.e.alloc(cap)) };
    }
    return this.attnProbs.layers;
  }

  private checkBatch(tokens: Int32Array, B: number, T: number): void {
    if (!Number.isInteger(B) || !Number.isInteger(T) || B < 1 || T < 1) throw new Error(`batch shape must be positive integers, got B=${B} T=${T}`);
    if (T > this.config.nCtx) throw new Error(`sequence length T=${T} exceeds the model context nCtx=${this.config.nCtx}`);
    if (tokens.length !== B * T) throw new Error(`expected B*T=${B * T} tokens, got ${tokens.length}`);
    const V = this.config.vocabSize;
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i] < 0 || tokens[i] >= V) throw new Error(`token ${tokens[i]} at position ${i} is outside the vocabulary (0..${V - 1})`);
    }
  }

  /** Runs the network up to the logits, (BT, V) in acts.probs. */
  private forwardLogits(tokens: Int32Array, B: number, T: number): Acts {
    this.checkBatch(tokens, B, T);
    const a = this.ensureActs(B, T);
    const { nEmbd: C, nHead: nh, vocabSize: V, nLayer } = this.config;
    const rows = B * T;
    const P = this.params;
    this.e.i32(a.tokens, rows).set(tokens);
    const pos = this.e.i32(a.positions, rows);
    for (let i = 0; i < rows; i++) pos[i] = i % T;

    // x0 (BT, C) = wte[tokens] + wpe[positions]
    this.run('embed', [a.tokens, a.positions, P + this.offset('transformer.wte.weight'), P + this.offset('transformer.wpe.weight'), a.x0, C], rows, 1, C);
    let x = a.x0;
    const probs = this.attnProbsFor(B, T);
    for (let l = 0; l < nLayer; l++) {
      const w = this.layerOffsets(l), L = a.layers[l];
      // attention: qkv (BT, 3C) = ln_1(x) @ c_attn; atty (BT, C) = causal softmax(q k^T / sqrt(hs)) v per head
      this.layerNorm(x, P + w.ln1w, P + w.ln1b, L.ln1, L.ln1Mean, L.ln1Rstd, rows);
      this.matmul(L.ln1, P + w.attnW, P + w.attnB, L.qkv, rows, C, 3 * C);
      this.run('attnForward', [L.qkv, L.atty, L.lse, probs[l], T, C, nh], B * nh, 1, T * T * C / nh);
      // res1 (BT, C) = x + atty @ c_proj
      this.matmulResidual(L.atty, P + w.projW, P + w.projB, x, L.res1, rows, C, C);
      // MLP: fcg (BT, 4C) = gelu(ln_2(res1) @ c_fc); res2 (BT, C) = res1 + fcg @ c_proj
      this.layerNorm(L.res1, P + w.ln2w, P + w.ln2b, L.ln2, L.ln2Mean, L.ln2Rstd, rows);
      if (rows >= 8) {
        // GELU runs in the GEMM's epilogue on each finished block, while it is in cache.
        this.run('gemmRowsGelu', [L.ln2, C, P + w.fcW, 4 * C, L.fc, 4 * C, P + w.fcB, 4 * C, C, L.fcg], rows, 4, 4 * C * C, `matmul+gelu ${C}x${4 * C}`);
      } else {
        this.matmul(L.ln2, P + w.fcW, P + w.fcB, L.fc, rows, C, 4 * C);
        this.run('gelu', [L.fc, L.fcg, 1], rows * C, 1, 32);
      }
      this.matmulResidual(L.fcg, P + w.fc2W, P + w.fc2B, L.res1, L.res2, rows, 4 * C, C);
      x = L.res2;
    }
    // logits (BT, V) = ln_f(x) @ wte^T (tied LM head)
    this.layerNorm(x, P + this.offset('transformer.ln_f.weight'), P + this.offset('transformer.ln_f.bias'), a.lnf, a.lnfMean, a.lnfRstd, rows);
    this.run('transpose', [P + this.offset('transformer.wte.weight'), C, this.wteT, V, V], C, 1, V, 'transpose wte');
    this.matmul(a.lnf, this.wteT, 0, a.probs, rows, C, V, false, 'lm head');
    return a;
  }

  /** B sequences of T tokens (row-major, B*T). Returns log p(targets[b,t] | tokens[b,<=t]) per position (B*T), and the entropy
   *  of the next-token distribution per position if asked. Keeps activations for backward. targets < 0 means "ignore" (logprob 0). */
  forward(tokens: Int32Array, targets: Int32Array, B: number, T: number, opts: { entropy?: boolean } = {}): { logprobs: Float32Array; entropy?: Float32Array } {
    if (targets.length !== B * T) throw new Error(`expected B*T=${B * T} targets, got ${targets.length}`);
    const V = this.config.vocabSize;
    for (let i = 0; i < targets.length; i++) {
      if (targets[i] >= V) throw new Error(`target ${targets[i]} at position ${i} is outside the vocabulary (0..${V - 1})`);
    }
    const a = this.forwardLogits(tokens, B, T);
    const rows = B * T;
    this.e.i32(a.targets, rows).set(targets);
    // probs (BT, V) = softmax(logits); logprobs (BT) = log probs[target]
    this.run('softmaxRows', [a.probs, V, a.targets, a.logprobs, opts.entropy ? a.entropy : 0], rows, 1, 16 * V);
    this.last = { B, T };
    const out: { logprobs: Float32Array; entropy?: Float32Array } = { logprobs: this.e.f32(a.logprobs, rows).slice() };
    if (opts.entropy) out.entropy = this.e.f32(a.entropy, rows).slice();
    return out;
  }

  /** Backward of the scalar L = sum over positions of dLogprobs[p] * logprobs[p] (after the last forward): accumulates parameter gradients. */
  backward(dLogprobs: Float32Array): void {
    if (!this.last || !this.acts) throw new Error('backward() needs a forward() first');
    const { B, T } = this.last;
    this.last = undefined; // the activations are consumed (probs become dlogits)
    const rows = B * T;
    if (dLogprobs.length !== rows) throw new Error(`expected ${rows} dLogprobs (B*T of the last forward), got ${dLogprobs.length}`);
    const a = this.acts;
    const { nEmbd: C, nHead: nh, vocabSize: V, nLayer } = this.config;
    const P = this.params, G = this.grads;
    const probs = this.attnProbsFor(B, T);
    this.e.f32(a.dlogprobs, rows).set(dLogprobs);

    // dlogits (BT, V) = dlogprob * (onehot(target) - probs), in place
    this.run('softmaxRowsBackward', [a.probs, V, a.targets, a.dlogprobs], rows, 1, V);
    // LM head: dlnf (BT, C) = dlogits @ wte; dwte (V, C) += dlogits^T @ lnf
    this.matmul(a.probs, P + this.offset('transformer.wte.weight'), 0, a.dln, rows, V, C, false, 'lm head dx');
    this.run('gemmRowsTA', [a.probs, V, a.lnf, C, G + this.offset('transformer.wte.weight'), C, C, rows, 1, 0], V, 4, rows * C, 'lm head dW', 1);
    // ln_f: dres (BT, C) = the gradient flowing down the residual stream
    this.e.f32(a.dres, rows * C).fill(0);
    const xLast = nLayer > 0 ? a.layers[nLayer - 1].res2 : a.x0;
    this.layerNormBackward(xLast, P + this.offset('transformer.ln_f.weight'), a.lnfMean, a.lnfRstd, a.dln, a.dres,
      G + this.offset('transformer.ln_f.weight'), G + this.offset('transformer.ln_f.bias'), rows);

    for (let l = nLayer - 1; l >= 0; l--) {
      const w = this.layerOffsets(l), L = a.layers[l];
      const x = l > 0 ? a.layers[l - 1].res2 : a.x0;
      // MLP backward: res2 = res1 + gelu(ln_2(res1) @ c_fc) @ c_proj
      this.matmulBackward(L.fcg, P + w.fc2W, G + w.fc2W, a.dres, a.dfc, rows, 4 * C, C, L.fc);
      this.matmulBackward(L.ln2, P + w.fcW, G + w.fcW, a.dfc, a.dln, rows, C, 4 * C);
      this.layerNormBackward(L.res1, P + w.ln2w, L.ln2Mean, L.ln2Rstd, a.dln, a.dres, G + w.ln2w, G + w.ln2b, rows);
      // attention backward: res1 = x + attn(ln_1(x)) @ c_proj
      this.matmulBackward(L.atty, P + w.projW, G + w.projW, a.dres, a.datty, rows, C, C);
      this.run('attnBackward', [L.qkv, L.atty, a.datty, L.lse, probs[l], a.dqkv, T, C, nh], B * nh, 1, 3 * T * T * C / nh);
      this.matmulBackward(L.ln1, P + w.attnW, G + w.attnW, a.dqkv, a.dln, rows, C, 3 * C);
      this.layerNormBackward(x, P + w.ln1w, L.ln1Mean, L.ln1Rstd, a.dln, a.dres, G + w.ln1w, G + w.ln1b, rows);
    }
    // embeddings: dwte[tokens] += dres, dwpe[positions] += dres
    this.run('embedBackward', [a.tokens, a.positions, G + this.offset('transformer.wte.weight'), G + this.offset('transformer.wpe.weight'), a.dres, C, rows], C / 4, 1, 8 * rows);
  }

  /** (B,T,V) logits, for checks against PyTorch. */
  logits(tokens: Int32Array, B: number, T: number): Float32Array {
    const a = this.forwardLogits(tokens, B, T);
    this.last = undefined;
    return this.e.f32(a.probs, B * T * this.config.vocabSize).slice();
  }

  /** Attention probabilities of one layer, (B, nh, T, T) with zeros above the diagonal: for inspecting what heads
   *  attend to (the planted induction circuit's tests). Needs the shape to fit the kept-probabilities budget. */
  attention(tokens: Int32Array, B: number, T: number, layer: number): Float32Array {
    const { nHead: nh, nLayer } = this.config;
    if (!Number.isInteger(layer) || layer < 0 || layer >= nLayer) throw new Error(`layer must be an integer in 0..${nLayer - 1}, got ${layer}`);
    this.checkBatch(tokens, B, T);
    const ptr = this.attnProbsFor(B, T)[layer];
    if (!ptr) throw new Error(`attention probabilities of B=${B} T=${T} exceed the kept budget (attnProbsBytes ${this.attnProbsBytes})`);
    this.forwardLogits(tokens, B, T);
    this.last = undefined;
    const out = this.e.f32(ptr, B * nh * T * T).slice();
    for (let m = 0; m < B * nh; m++) for (let i = 0; i < T; i++) out.fill(0, (m * T + i) * T + i + 1, (m * T + i + 1) * T);
    return out;
  }

  // ------------------------------------------------------------------ optimizer

  zeroGrad(): void {
    this.e.f32(this.grads, this.nParams).fill(0);
  }

  /** Global L2 norm before clipping. */
  clipGradNorm(maxNorm: number): number {
    if (!(maxNorm > 0)) throw new Error(`maxNorm must be positive, got ${maxNorm}`);
    const norm = Math.sqrt(this.e.sumSquares(this.grads, this.nParams));
    if (norm > maxNorm) this.run('scale', [this.grads, maxNorm / (norm + 1e-6)], this.nParams, 16, 2);
    return norm;
  }

  /** Global L2 norm of the weights: not finite once an update has diverged. */
  weightNorm(): number {
    return Math.sqrt(this.e.sumSquares(this.params, this.nParams));
  }

  /** AdamW (PyTorch's), decoupled weight decay applied to 2-D matmul weights only (not biases, LayerNorm, wte/wpe), step counter kept inside. */
  adamwStep(o: AdamWOptions): void {
    const { lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.01 } = o;
    if (!(lr >= 0)) throw new Error(`lr must be >= 0, got ${lr}`);
    if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1)) throw new Error(`betas must be in [0, 1), got ${beta1}, ${beta2}`);
    this.step++;
    const bc1 = 1 - beta1 ** this.step, bc2 = 1 - beta2 ** this.step;
    this.run('adamw', [this.params, this.grads, this.m, this.v, lr, beta1, beta2, eps, weightDecay, bc1, bc2,
      this.decayRanges, this.nDecayRanges], this.nParams, 16, 16);
  }

  /** For exact resume. */
  optimizerState(): { step: number; m: Float32Array; v: Float32Array } {
    return { step: this.step, m: this.e.f32(this.m, this.nParams).slice(), v: this.e.f32(this.v, this.nParams).slice() };
  }

  loadOptimizerState(s: { step: number; m: Float32Array; v: Float32Array }): void {
    if (s.m.length !== this.nParams || s.v.length !== this.nParams) {
      throw new Error(`optimizer state has ${s.m.length}/${s.v.length} moments, the model ${this.nParams} parameters`);
    }
    if (!Number.isInteger(s.step) || s.step < 0) throw new Error(`optimizer step must be a non-negative integer, got ${s.step}`);
    this.step = s.step;
    this.e.f32(this.m, this.nParams).set(s.m);
    this.e.f32(this.v, this.nParams).set(s.v);
  }

  /** GRPO's frozen reference / old policy copies. */
  copyWeightsFrom(other: GPT): void {
    const a = this.config, b = other.config;
    if (a.vocabSize !== b.vocabSize || a.nCtx !== b.nCtx || a.nEmbd !== b.nEmbd || a.nLayer !== b.nLayer || a.nHead !== b.nHead) {
      throw new Error(`cannot copy weights between different configs: ${JSON.stringify(b)} -> ${JSON.stringify(a)}`);
    }
    this.e.f32(this.params, this.nParams).set(other.e.f32(other.params, other.nParams));
  }

  async dispose(): Promise<void> {
    await this.e.dispose();
  }

  // ------------------------------------------------------------------ incremental forward with a KV cache (for sampler.ts)

  /** Allocates a cache for `slots` sequences and buffers for forwards of up to `rows` tokens. Free it with freeKVCache. */
  createKVCache(slots: number, rows: number): KVCache {
    const { nEmbd: C, vocabSize: V, nLayer, nCtx, nHead } = this.config;
    this.ensureActs(1, 1); // activations and scratch are allocated before the mark, so the cache can be released alone
    const mark = this.e.mark();
    const ctx = 16 * Math.ceil(nCtx / 16);
    const al = (n: number): number => this.e.alloc(n);
    const perLayer = slots * C * ctx;
    const kBase = al(nLayer * perLayer), vBase = al(nLayer * perLayer);
    const pad8 = (n: number): number => 8 * Math.ceil(n / 8);
    const packedLayer = this.e.packedLayerFloats(C);
    const cache: KVCache = {
      slots, rows, ctx, mark,
      k: Array.from({ length: nLayer }, (_, l) => kBase + l * perLayer * 4),
      v: Array.from({ length: nLayer }, (_, l) => vBase + l * perLayer * 4),
      wteP: al(C * pad8(V)), packed: al(nLayer * packedLayer), tokens: al(rows), slotIdx: al(rows), positions: al(rows),
      x: al(rows * C), ln: al(rows * C), atty: al(rows * C), qkv: al(rows * 3 * C), fc: al(rows * 4 * C), logits: al(rows * V),
      desc: al(32),
    };
    // Field order: DESC_* in assembly/kernels.ts.
    this.e.i32(cache.desc, 21).set([this.params, V, nCtx, C, nLayer, nHead, kBase, vBase, slots, ctx, cache.wteP,
      cache.tokens, cache.slotIdx, cache.positions, cache.x, cache.ln, cache.qkv, cache.atty, cache.fc, cache.logits, cache.packed]);
    // Decoding reads every weight once per token: they are packed here, once per cache, into the panels its GEMM streams.
    this.run('transpose', [this.params + this.offset('transformer.wte.weight'), C, this.wteT, V, V], C, 1, V);
    this.run('packPanels', [this.wteT, V, C, V, cache.wteP], Math.ceil(V / 8), 1, C * 8);
    this.run('packLayers', [cache.desc], nLayer, 1, 12 * C * C);
    return cache;
  }

  freeKVCache(cache: KVCache): void {
    this.e.release(cache.mark);
  }

  /** Copies the first `len` cached positions of slot `from` into slot `to` (prompts shared by several samples). */
  copyKVSlot(cache: KVCache, from: number, to: number, len: number): void {
    const { nEmbd: C, nHead: nh } = this.config;
    const hs = C / nh;
    for (let l = 0; l < this.config.nLayer; l++) {
      const k = this.e.f32(cache.k[l], cache.slots * C * cache.ctx), v = this.e.f32(cache.v[l], cache.slots * C * cache.ctx);
      for (let h = 0; h < nh; h++) {
        const src = (from * nh + h) * cache.ctx * hs, dst = (to * nh + h) * cache.ctx * hs;
        k.copyWithin(dst, src, src + len * hs);
        v.copyWithin(dst, src, src + len * hs);
      }
    }
  }

  /** Feeds tokens[r] at (slots[r], positions[r]) for M rows: writes their keys/values into the cache and returns a view
   *  of their next-token logits (M, V), valid until the next call. Rows of one slot must come in position order. */
  kvForward(cache: KVCache, tokens: Int32Array, slots: Int32Array, positions: Int32Array): Float32Array {
    const M = tokens.length;
    if (M < 1 || M > cache.rows || slots.length !== M || positions.length !== M) {
      throw new Error(`kvForward takes 1..${cache.rows} rows with as many slots and positions, got ${M}/${slots.length}/${positions.length}`);
    }
    const { nEmbd: C, vocabSize: V, nCtx } = this.config;
    const seen = new Set<number>();
    for (let r = 0; r < M; r++) {
      if (tokens[r] < 0 || tokens[r] >= V) throw new Error(`token ${tokens[r]} is outside the vocabulary (0..${V - 1})`);
      if (slots[r] < 0 || slots[r] >= cache.slots) throw new Error(`slot ${slots[r]} is outside the cache (0..${cache.slots - 1})`);
      if (positions[r] < 0 || positions[r] >= nCtx) throw new Error(`position ${positions[r]} is outside the context (0..${nCtx - 1})`);
      seen.add(slots[r]);
    }
    this.e.i32(cache.tokens, M).set(tokens);
    this.e.i32(cache.slotIdx, M).set(slots);
    this.e.i32(cache.positions, M).set(positions);
    // One kernel call runs every layer (decodeRows). Rows of distinct slots are independent and split between the
    // threads; rows sharing a slot (a prompt) need each other's keys, so they stay on one thread.
    const perRow = 12 * C * C + C * V;
    // Chunks of 16+ rows let the GEMMs pack the weights once per chunk; fewer rows use the 4-row micro-kernel directly.
    const align = M >= 32 ? 16 : 4;
    this.e.run('decodeRows', [cache.desc], M, { align, grain: seen.size === M ? Math.ceil(MIN_PART_WORK / perRow) : M });
    return this.e.f32(cache.logits, M * V);
  }
}

function paramSpecs(c: GPTConfig): ParamSpec[] {
  const { vocabSize: V, nCtx, nEmbd: C, nLayer } = c;
  const specs: ParamSpec[] = [];
  let offset = 0;
  const add = (name: string, shape: number[], decay = false): void => {
    const size = shape.reduce((x, y) => x * y, 1);
    specs.push({ name, shape, offset, size, decay });
    offset += size;
  };
  add('transformer.wte.weight', [V, C]);
  add('transformer.wpe.weight', [nCtx, C]);
  for (let l = 0; l < nLayer; l++) {
    const p = `transformer.h.${l}.`;
    // Each matmul weight is directly followed by its bias: matmulBackward computes both in one GEMM.
    add(`${p}ln_1.weight`, [C]); add(`${p}ln_1.bias`, [C]);
    add(`${p}attn.c_attn.weight`, [C, 3 * C], true); add(`${p}attn.c_attn.bias`, [3 * C]);
    add(`${p}attn.c_proj.weight`, [C, C], true); add(`${p}attn.c_proj.bias`, [C]);
    add(`${p}ln_2.weight`, [C]); add(`${p}ln_2.bias`, [C]);
    add(`${p}mlp.c_fc.weight`, [C, 4 * C], true); add(`${p}mlp.c_fc.bias`, [4 * C]);
    add(`${p}mlp.c_proj.weight`, [4 * C, C], true); add(`${p}mlp.c_proj.bias`, [C]);
  }
  add('transformer.ln_f.weight', [C]);
  add('transformer.ln_f.bias', [C]);
  return specs;
}

/** Standard normal samples from a seeded generator (mulberry32 + Box-Muller): the same seed gives the same weights. */
function gaussian(seed: number): () => number {
  const uniform = mulberry32(seed);
  return () => {
    const u = 1 - uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
}
