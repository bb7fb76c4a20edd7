// The student model: GPT-2 (pre-LayerNorm, learned positions or rotary ones, tanh-GELU MLP 4x, tied embeddings, biases,
// LayerNorm eps 1e-5)
// as nanoGPT's model.py lays it out: config, parameter layout, init, forward, and beside it the backward, as in llm.c.
// Tensors live in the engine's arena (kernels.ts) and are named by byte offsets; shapes are in the comments:
// B batch, T time, C channels (nEmbd), nh heads, hs = C / nh, V vocabulary, BT = B * T rows.
// Weights use Hugging Face GPT-2's layouts (Conv1D: [in, out]), so a checkpoint is a copy of the arena.
// Which kernel runs an operation and on how many threads: ops.ts; the optimizer: adamw.ts; decoding: kv-cache.ts.
import { mulberry32 } from '../random.ts';
import { AdamW } from './adamw.ts';
import { inductionLayout, plantInductionCircuit } from './induction-init.ts';
import { Engine, type Backend, type Profile } from './kernels.ts';
import { KVCache } from './kv-cache.ts';
import { Ops } from './ops.ts';
/** Attention probabilities of all layers are kept for backward (instead of recomputed there) while they take at most
 *  this much memory (B * nHead * T * T floats per layer); GPT.create's attnProbsBytes overrides it. */
const ATTN_PROBS_BYTES = 512 * 2 ** 20;

export interface GPTConfig {
  vocabSize: number;
  nCtx: number;
  nEmbd: number;
  nLayer: number;
  nHead: number;
  /** How a token knows where it stands: GPT-2's learned position embeddings (`wpe`, the default), or rotary positions
   *  (each head's query and key rotated by the position, Llama's layout; no `wpe`). */
  positions?: Positions;
  /** Rotary positions' base: pair d of a head turns by position * ropeTheta^(-2d / headSize). */
  ropeTheta?: number;
}

export type Positions = 'learned' | 'rotary';
export const POSITIONS: readonly Positions[] = ['learned', 'rotary'];
/** The rotary base unless a config says otherwise. Far above Llama's 10,000: at 1e12 a head of 32 dimensions has three
 *  pairs that tell neighbours apart (1, 0.18 and 0.03 radians a position) and twelve that turn by at most half a radian
 *  over the whole 512-token context, so that a head can match content wherever it stands (the planted induction heads
 *  do, induction-init.ts). */
export const ROPE_THETA = 1e12;

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
  if (c.positions !== undefined && !POSITIONS.includes(c.positions)) throw new Error(`GPT config: positions must be learned or rotary, got ${String(c.positions)}`);
  if (c.positions === 'rotary' && (c.nEmbd / c.nHead) % 8 !== 0) {
    throw new Error(`GPT config: rotary positions need a head size (nEmbd / nHead = ${c.nEmbd / c.nHead}) that is a multiple of 8`);
  }
  if (c.ropeTheta !== undefined && !(c.ropeTheta > 1)) throw new Error(`GPT config: ropeTheta must be above 1, got ${c.ropeTheta}`);
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
export interface LayerOffsets {
  ln1w: number; ln1b: number; attnW: number; attnB: number; projW: number; projB: number;
  ln2w: number; ln2b: number; fcW: number; fcB: number; fc2W: number; fc2B: number;
}

/** Where every parameter lies in a parameter-shaped block; the one definition, which the decode kernel reads too
 *  (kv-cache.ts passes it on as a table of pointers). Offsets are in bytes. */
export interface ParamLayout {
  specs: ParamSpec[];
  /** Floats in a block. */
  size: number;
  /** wpe is absent (undefined) with rotary positions. */
  wte: number; wpe?: number; lnfW: number; lnfB: number;
  layers: LayerOffsets[];
}

function paramLayout(c: GPTConfig): ParamLayout {
  const { vocabSize: V, nCtx, nEmbd: C, nLayer } = c;
  const specs: ParamSpec[] = [];
  let size = 0;
  const add = (name: string, shape: number[], decay = false): number => {
    const n = shape.reduce((x, y) => x * y, 1);
    specs.push({ name, shape, offset: size, size: n, decay });
    size += n;
    return (size - n) * 4;
  };
  const wte = add('transformer.wte.weight', [V, C]);
  const wpe = c.positions === 'rotary' ? undefined : add('transformer.wpe.weight', [nCtx, C]);
  const layers: LayerOffsets[] = [];
  for (let l = 0; l < nLayer; l++) {
    const p = `transformer.h.${l}.`;
    // Each matmul weight is directly followed by its bias: matmulBackward computes both in one GEMM.
    layers.push({
      ln1w: add(`${p}ln_1.weight`, [C]), ln1b: add(`${p}ln_1.bias`, [C]),
      attnW: add(`${p}attn.c_attn.weight`, [C, 3 * C], true), attnB: add(`${p}attn.c_attn.bias`, [3 * C]),
      projW: add(`${p}attn.c_proj.weight`, [C, C], true), projB: add(`${p}attn.c_proj.bias`, [C]),
      ln2w: add(`${p}ln_2.weight`, [C]), ln2b: add(`${p}ln_2.bias`, [C]),
      fcW: add(`${p}mlp.c_fc.weight`, [C, 4 * C], true), fcB: add(`${p}mlp.c_fc.bias`, [4 * C]),
      fc2W: add(`${p}mlp.c_proj.weight`, [4 * C, C], true), fc2B: add(`${p}mlp.c_proj.bias`, [C]),
    });
  }
  const lnfW = add('transformer.ln_f.weight', [C]);
  const lnfB = add('transformer.ln_f.bias', [C]);
  return { specs, size, wte, wpe, lnfW, lnfB, layers };
}

/** The parameters a config gives, by GPT-2 name and shape, in the model's order (a checkpoint is checked against them
 *  before a model is built). */
export function parameterShapes(c: GPTConfig): { name: string; shape: number[] }[] {
  return paramLayout(c).specs.map(({ name, shape }) => ({ name, shape }));
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

export class GPT {
  readonly config: GPTConfig;
  /** AdamW over the parameters; its moments are saved with a checkpoint for an exact resume. */
  readonly optimizer: AdamW;
  private readonly e: Engine;
  private readonly ops: Ops;
  private readonly layout: ParamLayout;
  private readonly params: number; // byte offsets of parameter-shaped blocks
  private readonly grads: number;
  private acts?: Acts;
  private wteT = 0; // (C, V) for the LM head, sized with the activations
  private attnProbs = { floats: 0, layers: [] as number[] }; // per layer (B, nh, T, T), see ATTN_PROBS_BYTES
  private attnProbsBytes = ATTN_PROBS_BYTES;
  /** Rotary positions' (nCtx, headSize) table of cosines then sines per position (rope kernel), or 0. */
  private readonly ropeTable: number;
  private last?: { B: number; T: number };

  private constructor(config: GPTConfig, engine: Engine) {
    this.config = config;
    this.e = engine;
    this.layout = paramLayout(config);
    const n = this.layout.size;
    this.params = engine.alloc(n);
    this.grads = engine.alloc(n);
    this.ops = new Ops(engine, config.nEmbd);
    this.ropeTable = config.positions === 'rotary' ? this.fillRopeTable() : 0;
    const decayed = this.layout.specs.filter((s) => s.decay).map((s): [number, number] => [s.offset, s.offset + s.size]);
    this.optimizer = new AdamW(this.ops, this.params, this.grads, n, decayed);
  }

  private fillRopeTable(): number {
    const { nCtx, nEmbd, nHead, ropeTheta = ROPE_THETA } = this.config;
    const hs = nEmbd / nHead, half = hs / 2;
    const ptr = this.e.alloc(nCtx * hs);
    const table = this.e.f32(ptr, nCtx * hs);
    for (let p = 0; p < nCtx; p++) {
      for (let d = 0; d < half; d++) {
        const angle = p * Math.pow(ropeTheta, -(2 * d) / hs);
        table[p * hs + d] = Math.cos(angle);
        table[p * hs + half + d] = Math.sin(angle);
      }
    }
    return ptr;
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
    return this.layout.size;
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
    return this.layout.specs.map((s) => ({ name: s.name, shape: [...s.shape], data: this.e.f32(block + s.offset * 4, s.size) }));
  }

  /** Starts (or with false, stops) timing every kernel call; returns the live profile by label (bench/model.ts --profile). */
  profile(on: boolean): Profile | undefined {
    this.e.profile = on ? new Map() : undefined;
    return this.e.profile;
  }

  // ------------------------------------------------------------------ activations

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

  // ------------------------------------------------------------------ forward / backward

  /** Runs the network up to the logits, (BT, V) in acts.probs. */
  private forwardLogits(tokens: Int32Array, B: number, T: number): Acts {
    this.checkBatch(tokens, B, T);
    const a = this.ensureActs(B, T);
    const { nEmbd: C, nHead: nh, vocabSize: V, nLayer } = this.config;
    const rows = B * T;
    const o = this.ops, P = this.params, W = this.layout;
    this.e.i32(a.tokens, rows).set(tokens);
    const pos = this.e.i32(a.positions, rows);
    for (let i = 0; i < rows; i++) pos[i] = i % T;

    // x0 (BT, C) = wte[tokens] + wpe[positions] (wte[tokens] with rotary positions)
    o.run('embed', [a.tokens, a.positions, P + W.wte, W.wpe === undefined ? 0 : P + W.wpe, a.x0, C], rows, 1, C);
    let x = a.x0;
    const probs = this.attnProbsFor(B, T);
    for (let l = 0; l < nLayer; l++) {
      const w = W.layers[l], L = a.layers[l];
      // attention: qkv (BT, 3C) = ln_1(x) @ c_attn; atty (BT, C) = causal softmax(q k^T / sqrt(hs)) v per head
      o.layerNorm(x, P + w.ln1w, P + w.ln1b, L.ln1, L.ln1Mean, L.ln1Rstd, rows, C);
      o.matmul(L.ln1, P + w.attnW, P + w.attnB, L.qkv, rows, C, 3 * C);
      // rotary positions: q and k rotated by their positions, in place (backward reads the rotated ones)
      if (this.ropeTable) o.run('rope', [L.qkv, a.positions, this.ropeTable, C, nh, 1], rows, 1, 4 * C);
      o.run('attnForward', [L.qkv, L.atty, L.lse, probs[l], T, C, nh], B * nh, 1, T * T * C / nh);
      // res1 (BT, C) = x + atty @ c_proj
      o.matmulResidual(L.atty, P + w.projW, P + w.projB, x, L.res1, rows, C, C);
      // MLP: fcg (BT, 4C) = gelu(ln_2(res1) @ c_fc); res2 (BT, C) = res1 + fcg @ c_proj
      o.layerNorm(L.res1, P + w.ln2w, P + w.ln2b, L.ln2, L.ln2Mean, L.ln2Rstd, rows, C);
      o.matmulGelu(L.ln2, P + w.fcW, P + w.fcB, L.fc, L.fcg, rows, C, 4 * C);
      o.matmulResidual(L.fcg, P + w.fc2W, P + w.fc2B, L.res1, L.res2, rows, 4 * C, C);
      x = L.res2;
    }
    // logits (BT, V) = ln_f(x) @ wte^T (tied LM head)
    o.layerNorm(x, P + W.lnfW, P + W.lnfB, a.lnf, a.lnfMean, a.lnfRstd, rows, C);
    o.run('transpose', [P + W.wte, C, this.wteT, V, V], C, 1, V, 'transpose wte');
    o.matmul(a.lnf, this.wteT, 0, a.probs, rows, C, V, false, 'lm head');
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
    this.ops.run('softmaxRows', [a.probs, V, a.targets, a.logprobs, opts.entropy ? a.entropy : 0], rows, 1, 16 * V);
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
    const o = this.ops, P = this.params, G = this.grads, W = this.layout;
    const probs = this.attnProbsFor(B, T);
    this.e.f32(a.dlogprobs, rows).set(dLogprobs);

    // dlogits (BT, V) = dlogprob * (onehot(target) - probs), in place
    o.run('softmaxRowsBackward', [a.probs, V, a.targets, a.dlogprobs], rows, 1, V);
    // LM head: dlnf (BT, C) = dlogits @ wte; dwte (V, C) += dlogits^T @ lnf
    o.matmul(a.probs, P + W.wte, 0, a.dln, rows, V, C, false, 'lm head dx');
    o.run('gemmRowsTA', [a.probs, V, a.lnf, C, G + W.wte, C, C, rows, 1, 0], V, 4, rows * C, 'lm head dW', 1);
    // ln_f: dres (BT, C) = the gradient flowing down the residual stream
    this.e.f32(a.dres, rows * C).fill(0);
    const xLast = nLayer > 0 ? a.layers[nLayer - 1].res2 : a.x0;
    o.layerNormBackward(xLast, P + W.lnfW, a.lnfMean, a.lnfRstd, a.dln, a.dres, G + W.lnfW, G + W.lnfB, rows, C);

    for (let l = nLayer - 1; l >= 0; l--) {
      const w = W.layers[l], L = a.layers[l];
      const x = l > 0 ? a.layers[l - 1].res2 : a.x0;
      // MLP backward: res2 = res1 + gelu(ln_2(res1) @ c_fc) @ c_proj
      o.matmulBackward(L.fcg, P + w.fc2W, G + w.fc2W, a.dres, a.dfc, rows, 4 * C, C, L.fc);
      o.matmulBackward(L.ln2, P + w.fcW, G + w.fcW, a.dfc, a.dln, rows, C, 4 * C);
      o.layerNormBackward(L.res1, P + w.ln2w, L.ln2Mean, L.ln2Rstd, a.dln, a.dres, G + w.ln2w, G + w.ln2b, rows, C);
      // attention backward: res1 = x + attn(ln_1(x)) @ c_proj
      o.matmulBackward(L.atty, P + w.projW, G + w.projW, a.dres, a.datty, rows, C, C);
      o.run('attnBackward', [L.qkv, L.atty, a.datty, L.lse, probs[l], a.dqkv, T, C, nh], B * nh, 1, 3 * T * T * C / nh);
      // a rotation's backward is the rotation back
      if (this.ropeTable) o.run('rope', [a.dqkv, a.positions, this.ropeTable, C, nh, -1], rows, 1, 4 * C);
      o.matmulBackward(L.ln1, P + w.attnW, G + w.attnW, a.dqkv, a.dln, rows, C, 3 * C);
      o.layerNormBackward(x, P + w.ln1w, L.ln1Mean, L.ln1Rstd, a.dln, a.dres, G + w.ln1w, G + w.ln1b, rows, C);
    }
    // embeddings: dwte[tokens] += dres, dwpe[positions] += dres (no wpe with rotary positions)
    // One thread, as LayerNorm's parameter gradients: split by columns, two threads took twice as long as one.
    o.e.run('embedBackward', [a.tokens, a.positions, G + W.wte, W.wpe === undefined ? 0 : G + W.wpe, a.dres, C, rows], C / 4, { grain: C / 4 });
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

  // ------------------------------------------------------------------ gradients and weights

  zeroGrad(): void {
    this.e.f32(this.grads, this.layout.size).fill(0);
  }

  /** Global L2 norm before clipping. */
  clipGradNorm(maxNorm: number): number {
    if (!(maxNorm > 0)) throw new Error(`maxNorm must be positive, got ${maxNorm}`);
    const n = this.layout.size;
    const norm = Math.sqrt(this.e.sumSquares(this.grads, n));
    if (norm > maxNorm) this.ops.run('scale', [this.grads, maxNorm / (norm + 1e-6)], n, 16, 2);
    return norm;
  }

  /** Global L2 norm of the weights: not finite once an update has diverged. */
  weightNorm(): number {
    return Math.sqrt(this.e.sumSquares(this.params, this.layout.size));
  }

  /** GRPO's frozen reference / old policy copies. */
  copyWeightsFrom(other: GPT): void {
    const a = this.config, b = other.config;
    if (a.vocabSize !== b.vocabSize || a.nCtx !== b.nCtx || a.nEmbd !== b.nEmbd || a.nLayer !== b.nLayer || a.nHead !== b.nHead
      || (a.positions ?? 'learned') !== (b.positions ?? 'learned') || (a.ropeTheta ?? ROPE_THETA) !== (b.ropeTheta ?? ROPE_THETA)) {
      throw new Error(`cannot copy weights between different configs: ${JSON.stringify(b)} -> ${JSON.stringify(a)}`);
    }
    this.e.f32(this.params, this.layout.size).set(other.e.f32(other.params, other.layout.size));
  }

  /** A KV cache for `slots` sequences and forwards of up to `rows` tokens (sampler.ts); free it with its free(). */
  createKVCache(slots: number, rows: number): KVCache {
    this.ensureActs(1, 1); // activations and scratch are allocated before the cache, so the cache can be released alone
    return new KVCache(this.ops, { config: this.config, layout: this.layout, params: this.params, wteT: this.wteT, ropeTable: this.ropeTable }, slots, rows);
  }

  async dispose(): Promise<void> {
    await this.e.dispose();
  }
}

/** Standard normal samples from a seeded generator (mulberry32 + Box-Muller): the same seed gives the same weights. */
function gaussian(seed: number): () => number {
  const uniform = mulberry32(seed);
  return () => {
    const u = 1 - uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
}
