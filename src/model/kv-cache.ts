// Incremental forward with a KV cache (sampler.ts): the cache over `slots` sequences, the buffers of a forward over at
// most `rows` new tokens, and a decoding step, which is one decodeRows kernel call for every layer. The kernel finds the
// weights through a table of pointers written here from gpt.ts's parameter layout, so the layout is defined once.
import type { GPTConfig, LayerOffsets, ParamLayout } from './gpt.ts';
import { MIN_PART_WORK, type Ops } from './ops.ts';

/** Order of the descriptor's int32 fields: D_* in assembly/kernels.ts and native/src/kernels.cc. */
const DESC_FIELDS = ['V', 'C', 'nLayer', 'nHead', 'k', 'v', 'slots', 'ctx', 'wteP', 'tokens', 'slotIdx',
  'positions', 'x', 'ln', 'qkv', 'atty', 'fc', 'logits', 'packed', 'weights', 'rope'] as const;
/** Order of the weight table (pointers): wte, wpe (0 with rotary positions), ln_f weight and bias, then these for each
 *  layer; T_* and L_* in the kernels. */
const LAYER_FIELDS: readonly (keyof LayerOffsets)[] = ['ln1w', 'ln1b', 'attnW', 'attnB', 'projW', 'projB', 'ln2w', 'ln2b',
  'fcW', 'fcB', 'fc2W', 'fc2B'];

/** Where the model's weights are, for a cache: the parameter block and its layout, and a (C, V) scratch. */
export interface DecodeWeights {
  config: GPTConfig;
  layout: ParamLayout;
  params: number;
  wteT: number;
  /** Rotary positions' table (gpt.ts), 0 for learned positions. */
  ropeTable: number;
}

/** A KV cache and its step buffers. It holds a packed copy of the matmul weights made at its creation: a cache made
 *  before an update decodes with the old weights. Free it with free(); the arena is a stack, so free caches in the
 *  reverse order of their creation. */
export class KVCache {
  readonly slots: number;
  readonly rows: number;
  /** Context capacity, nCtx rounded up to 16. */
  readonly ctx: number;
  private readonly ops: Ops;
  private readonly config: GPTConfig;
  private readonly mark: number;
  private readonly k: number[]; // per layer (slots, nh, ctx, hs)
  private readonly v: number[]; // per layer (slots, nh, ctx, hs)
  private readonly tokens: number; private readonly slotIdx: number; private readonly positions: number; // int32 (rows)
  private readonly logits: number; // (rows, V)
  private readonly weights: number; // (slots, V) sampling weights of the logits
  private readonly lse: number; private readonly invTemps: number; // (slots)
  private readonly desc: number; // int32 fields for decodeRows

  /** The model's activations and scratch must be allocated before (they stay when the cache is freed). */
  constructor(ops: Ops, w: DecodeWeights, slots: number, rows: number) {
    const { nEmbd: C, vocabSize: V, nLayer, nCtx, nHead } = w.config;
    const e = ops.e;
    this.ops = ops;
    this.config = w.config;
    this.slots = slots;
    this.rows = rows;
    this.mark = e.mark();
    this.ctx = 16 * Math.ceil(nCtx / 16);
    const al = (n: number): number => e.alloc(n);
    const perLayer = slots * C * this.ctx;
    const kBase = al(nLayer * perLayer), vBase = al(nLayer * perLayer);
    this.k = Array.from({ length: nLayer }, (_, l) => kBase + l * perLayer * 4);
    this.v = Array.from({ length: nLayer }, (_, l) => vBase + l * perLayer * 4);
    const pad8 = (n: number): number => 8 * Math.ceil(n / 8);
    const wteP = al(C * pad8(V)); // wte^T (C, V) packed for decoding
    const packed = al(nLayer * e.packedLayerFloats(C)); // each layer's matmul weights packed for decoding
    this.tokens = al(rows);
    this.slotIdx = al(rows);
    this.positions = al(rows);
    const x = al(rows * C), ln = al(rows * C), atty = al(rows * C), qkv = al(rows * 3 * C), fc = al(rows * 4 * C);
    this.logits = al(rows * V);
    this.weights = al(slots * V);
    this.lse = al(slots);
    this.invTemps = al(slots);
    this.desc = al(32);
    const L = w.layout;
    const weights = al(4 + LAYER_FIELDS.length * nLayer);
    const at = (offset: number): number => w.params + offset;
    e.i32(weights, 4 + LAYER_FIELDS.length * nLayer).set([at(L.wte), L.wpe === undefined ? 0 : at(L.wpe), at(L.lnfW), at(L.lnfB),
      ...L.layers.flatMap((o) => LAYER_FIELDS.map((f) => at(o[f])))]);
    const fields: Record<(typeof DESC_FIELDS)[number], number> = {
      V, C, nLayer, nHead, k: kBase, v: vBase, slots, ctx: this.ctx, wteP, tokens: this.tokens,
      slotIdx: this.slotIdx, positions: this.positions, x, ln, qkv, atty, fc, logits: this.logits, packed, weights,
      rope: w.ropeTable,
    };
    e.i32(this.desc, DESC_FIELDS.length).set(DESC_FIELDS.map((f) => fields[f]));
    // Decoding reads every weight once per token: they are packed here, once per cache, into the panels its GEMM streams.
    ops.run('transpose', [at(L.wte), C, w.wteT, V, V], C, 1, V);
    ops.run('packPanels', [w.wteT, V, C, V, wteP], Math.ceil(V / 8), 1, C * 8);
    ops.run('packLayers', [this.desc], nLayer, 1, 12 * C * C);
  }

  /** Releases the cache's memory (and anything the arena allocated after it). */
  free(): void {
    this.ops.e.release(this.mark);
  }

  /** Copies the first `len` cached positions of slot `from` into slot `to` (prompts shared by several samples). */
  copySlot(from: number, to: number, len: number): void {
    const { nEmbd: C, nHead: nh, nLayer } = this.config;
    const hs = C / nh;
    for (let l = 0; l < nLayer; l++) {
      const k = this.ops.e.f32(this.k[l], this.slots * C * this.ctx), v = this.ops.e.f32(this.v[l], this.slots * C * this.ctx);
      for (let h = 0; h < nh; h++) {
        const src = (from * nh + h) * this.ctx * hs, dst = (to * nh + h) * this.ctx * hs;
        k.copyWithin(dst, src, src + len * hs);
        v.copyWithin(dst, src, src + len * hs);
      }
    }
  }

  /** Feeds tokens[r] at (slots[r], positions[r]) for M rows: writes their keys/values into the cache and returns a view
   *  of their next-token logits (M, V), valid until the next call. Rows of one slot must come in position order. */
  forward(tokens: Int32Array, slots: Int32Array, positions: Int32Array): Float32Array {
    const M = tokens.length;
    if (M < 1 || M > this.rows || slots.length !== M || positions.length !== M) {
      throw new Error(`KVCache.forward takes 1..${this.rows} rows with as many slots and positions, got ${M}/${slots.length}/${positions.length}`);
    }
    const { nEmbd: C, vocabSize: V, nCtx } = this.config;
    const seen = new Set<number>();
    for (let r = 0; r < M; r++) {
      if (tokens[r] < 0 || tokens[r] >= V) throw new Error(`token ${tokens[r]} is outside the vocabulary (0..${V - 1})`);
      if (slots[r] < 0 || slots[r] >= this.slots) throw new Error(`slot ${slots[r]} is outside the cache (0..${this.slots - 1})`);
      if (positions[r] < 0 || positions[r] >= nCtx) throw new Error(`position ${positions[r]} is outside the context (0..${nCtx - 1})`);
      seen.add(slots[r]);
    }
    const e = this.ops.e;
    e.i32(this.tokens, M).set(tokens);
    e.i32(this.slotIdx, M).set(slots);
    e.i32(this.positions, M).set(positions);
    // One kernel call runs every layer (decodeRows). Rows of distinct slots are independent and split between the
    // threads; rows sharing a slot (a prompt) need each other's keys, so they stay on one thread.
    const perRow = 12 * C * C + C * V;
    // Chunks of 16+ rows let the GEMMs pack the weights once per chunk; fewer rows use the 4-row micro-kernel directly.
    const align = M >= 32 ? 16 : 4;
    e.run('decodeRows', [this.desc], M, { align, grain: seen.size === M ? Math.ceil(MIN_PART_WORK / perRow) : M });
    return this.logitsRows(M);
  }

  /** The first M rows of logits (those of the last forward), writable: a guide masks its row here before
   *  sampleWeights, and prefill gathers the prompts' last rows here. Valid until the next forward. */
  logitsRows(M: number): Float32Array {
    if (!(M >= 1 && M <= this.rows)) throw new Error(`KVCache has ${this.rows} rows of logits, asked for ${M}`);
    return this.ops.e.f32(this.logits, M * this.config.vocabSize);
  }

  /** For the first invTemps.length rows of logits (at most one per slot): each row's log-sum-exp, and its weights
   *  exp((logit - max) * invTemps[r]) to sample from (none where invTemps[r] < 0: greedy). Views valid until the next
   *  call. */
  sampleWeights(invTemps: Float32Array): { weights: Float32Array; lse: Float32Array } {
    const M = invTemps.length, V = this.config.vocabSize, e = this.ops.e;
    if (!(M >= 1 && M <= this.slots)) throw new Error(`KVCache.sampleWeights takes 1..${this.slots} rows, got ${M}`);
    this.logitsRows(M);
    e.f32(this.invTemps, M).set(invTemps);
    this.ops.run('sampleWeights', [this.logits, V, this.invTemps, this.weights, this.lse], M, 1, 4 * V);
    return { weights: e.f32(this.weights, M * V), lse: e.f32(this.lse, M) };
  }
}
