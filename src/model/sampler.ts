// Batched sampling from the student GPT with a KV cache: all prompts x n samples advance together, one token per step,
// each with its own seeded random stream (so a sample does not depend on what else is in the batch).
import { mulberry32 } from '../random.ts';
import type { GPT } from './gpt.ts';
import type { KVCache } from './kv-cache.ts';

export interface SampleOptions {
  /** Samples per prompt (default 1). */
  n?: number;
  maxNewTokens: number;
  /** 0 means greedy. */
  temperature: number;
  /** Nucleus sampling: keep the smallest set of most likely tokens whose probability reaches topP (1 or unset: off). */
  topP?: number;
  /** Keep the k most likely tokens (0 or unset: off). */
  topK?: number;
  seed: number;
  stopTokens: number[];
  /** Structured output: one guide per sequence (made when the sequence starts) masks the tokens that may not come next. */
  guide?: () => TokenGuide;
}

/** Constrains one sequence's tokens, as a grammar does in guided decoding. */
export interface TokenGuide {
  /** Sets the logits of the tokens that may not come next to -Infinity. */
  mask(logits: Float32Array): void;
  /** Follows the token that was chosen. */
  accept(token: number): void;
}

export interface Sample {
  promptIndex: number;
  /** New tokens only (the stop token included when it ended the sample). */
  tokens: Int32Array;
  /** log p of each new token under the model's unmodified (temperature 1, unfiltered, unguided) distribution: what a
   *  trainer's forward pass computes for the same tokens. */
  logprobs: Float32Array;
  finishReason: 'stop' | 'length';
}

/** Rows per prefill forward: long enough to batch prompts, bounded so the buffers stay small. */
const PREFILL_ROWS = 1024;

/** One prompt of a batch with its own sampling settings (requests of a server decode together this way). */
export interface DecodeRequest extends Omit<SampleOptions, 'n'> {
  prompt: Int32Array;
  n: number;
  /** The random stream of this request's first sample; its later samples take the streams after it (default 0). */
  firstStream?: number;
  /** How many of the most likely tokens to report beside each chosen one (0 or unset: none). */
  topLogprobs?: number;
  /** Sees each chosen token (the stop token too); returning true ends that sample there, finishReason 'stop'. */
  onToken?: (sample: number, step: TokenStep) => boolean | void;
}

export interface TokenStep {
  token: number;
  /** As Sample.logprobs: the model's unmodified distribution. */
  logprob: number;
  /** The `topLogprobs` most likely tokens under the same distribution, most likely first. */
  top?: { token: number; logprob: number }[];
}

/** Batched over all prompts x n with a KV cache; reproducible for a seed. Order: prompt 0's n samples, then prompt 1's, ... */
export async function generate(model: GPT, prompts: Int32Array[], o: SampleOptions): Promise<Sample[]> {
  const n = o.n ?? 1;
  checkOptions(o, n);
  return decode(model, prompts.map((prompt, i) => ({ ...o, prompt, n, firstStream: i * n })));
}

/**
 * Every request's samples advance together, one token per step, each request with its own settings and each sample
 * with its own random stream (seed, stream), so a request's samples are the same whatever else is in the batch.
 * `between` is awaited after each step (a server lets its other work in there). Order: request 0's n samples, then
 * request 1's, ...; promptIndex is the request's index.
 */
export async function decode(model: GPT, requests: DecodeRequest[], opts: { between?: () => Promise<void> } = {}): Promise<Sample[]> {
  const { nCtx, vocabSize: V } = model.config;
  requests.forEach((r, i) => {
    checkOptions(r, r.n);
    if (r.topLogprobs !== undefined && !(Number.isInteger(r.topLogprobs) && r.topLogprobs >= 0 && r.topLogprobs <= V)) throw new Error(`topLogprobs must be an integer from 0 to ${V}, got ${r.topLogprobs}`);
    if (r.prompt.length < 1) throw new Error(`prompt ${i} is empty: sampling needs at least one token to condition on`);
    if (r.prompt.length >= nCtx) throw new Error(`prompt ${i} has ${r.prompt.length} tokens: no room left in the context of ${nCtx}`);
  });
  const first: number[] = [];
  let S = 0;
  for (const r of requests) {
    first.push(S);
    S += r.n;
  }
  if (S === 0) return [];
  const totalPrompt = requests.reduce((s, r) => s + r.prompt.length, 0);
  const cache = model.createKVCache(S, Math.max(S, Math.min(totalPrompt, PREFILL_ROWS)));
  try {
    const next = prefill(model, cache, requests, first, S);
    // Requests with the same settings share a picker (and its vocabulary-sized buffer).
    const byKey = new Map<string, Picker>();
    const pickers = requests.map((r) => {
      const key = `${r.temperature} ${r.topP} ${r.topK}`;
      if (!byKey.has(key)) byKey.set(key, new Picker(V, r));
      return byKey.get(key)!;
    });
    const seqs = requests.flatMap((r, ri) =>
      Array.from({ length: r.n }, (_, k) => ({
        promptIndex: ri,
        sample: k,
        length: r.prompt.length,
        tokens: [] as number[],
        logprobs: [] as number[],
        finish: undefined as Sample['finishReason'] | undefined,
        rng: seededUniform(r.seed, (r.firstStream ?? 0) + k),
        guide: r.guide?.(),
        stop: new Set(r.stopTokens),
      })),
    );
    let active = seqs.map((_, i) => i);
    let logits = next;
    while (active.length > 0) {
      const M = active.length;
      const invTemps = new Float32Array(M);
      // A guide's mask changes its row, so the model's own normaliser (and its most likely tokens) come first.
      const guided = new Map<number, { lse: number; top?: TokenStep['top'] }>();
      for (let a = 0; a < M; a++) {
        const s = seqs[active[a]];
        const r = requests[s.promptIndex];
        invTemps[a] = r.temperature === 0 ? -1 : 1 / r.temperature;
        if (!s.guide) continue;
        const row = logits.subarray(a * V, (a + 1) * V);
        const lse = logSumExp(row);
        guided.set(a, { lse, top: r.topLogprobs ? topTokens(row, r.topLogprobs, lse) : undefined });
        s.guide.mask(row);
      }
      const { weights, lse } = cache.sampleWeights(invTemps);
      const feed: number[] = [];
      for (let a = 0; a < M; a++) {
        const s = seqs[active[a]];
        const r = requests[s.promptIndex];
        const row = logits.subarray(a * V, (a + 1) * V);
        const raw = guided.get(a);
        const modelLse = raw ? raw.lse : lse[a];
        const top = raw ? raw.top : r.topLogprobs ? topTokens(row, r.topLogprobs, modelLse) : undefined;
        const token = pickers[s.promptIndex].pick(row, weights.subarray(a * V, (a + 1) * V), s.rng());
        const logprob = row[token] - modelLse;
        s.guide?.accept(token);
        s.tokens.push(token);
        s.logprobs.push(logprob);
        s.length++;
        const ended = r.onToken?.(s.sample, { token, logprob, ...(top ? { top } : {}) }) === true;
        if (ended || s.stop.has(token)) s.finish = 'stop';
        else if (s.tokens.length >= r.maxNewTokens || s.length >= nCtx) s.finish = 'length';
        else feed.push(active[a]);
      }
      active = feed;
      if (active.length === 0) break;
      const tokens = Int32Array.from(active, (i) => seqs[i].tokens[seqs[i].tokens.length - 1]);
      const positions = Int32Array.from(active, (i) => seqs[i].length - 1);
      logits = cache.forward(tokens, Int32Array.from(active), positions);
      if (opts.between) await opts.between();
    }
    return seqs.map((s) => ({
      promptIndex: s.promptIndex,
      tokens: Int32Array.from(s.tokens),
      logprobs: Float32Array.from(s.logprobs),
      finishReason: s.finish!,
    }));
  } finally {
    cache.free();
  }
}

function checkOptions(o: Omit<SampleOptions, 'n'>, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new Error(`n must be a positive integer, got ${n}`);
  if (!Number.isInteger(o.maxNewTokens) || o.maxNewTokens < 1) throw new Error(`maxNewTokens must be a positive integer, got ${o.maxNewTokens}`);
  if (!(o.temperature >= 0)) throw new Error(`temperature must be >= 0, got ${o.temperature}`);
  if (o.topP !== undefined && !(o.topP > 0 && o.topP <= 1)) throw new Error(`topP must be in (0, 1], got ${o.topP}`);
  if (o.topK !== undefined && !(Number.isInteger(o.topK) && o.topK >= 0)) throw new Error(`topK must be a non-negative integer, got ${o.topK}`);
  if (!Number.isFinite(o.seed)) throw new Error(`seed must be a number, got ${o.seed}`);
}

/** Feeds every prompt once (into the slot of its request's first sample), copies the cache to its other samples, and
 *  returns the next-token logits (S, V) of every sample, in the cache's logits rows. */
function prefill(model: GPT, cache: KVCache, requests: DecodeRequest[], first: number[], S: number): Float32Array {
  const V = model.config.vocabSize;
  const out = new Float32Array(S * V);
  const tokens: number[] = [], slots: number[] = [], positions: number[] = [];
  const lastRow: { request: number; row: number }[] = [];
  const flush = (): void => {
    if (tokens.length === 0) return;
    const logits = cache.forward(Int32Array.from(tokens), Int32Array.from(slots), Int32Array.from(positions));
    for (const { request, row } of lastRow) {
      for (let k = 0; k < requests[request].n; k++) out.set(logits.subarray(row * V, (row + 1) * V), (first[request] + k) * V);
    }
    tokens.length = slots.length = positions.length = lastRow.length = 0;
  };
  requests.forEach(({ prompt: p }, i) => {
    for (let t = 0; t < p.length; t++) {
      if (tokens.length === cache.rows) flush();
      tokens.push(p[t]);
      slots.push(first[i]);
      positions.push(t);
      if (t === p.length - 1) lastRow.push({ request: i, row: tokens.length - 1 });
    }
  });
  flush();
  requests.forEach(({ prompt: p, n }, i) => {
    for (let k = 1; k < n; k++) cache.copySlot(first[i], first[i] + k, p.length);
  });
  const rows = cache.logitsRows(S);
  rows.set(out);
  return rows;
}

/** Chooses the next token of a row from its sampling weights (KVCache.sampleWeights: the softmax at the request's
 *  temperature, unnormalised): the largest logit at temperature 0, else a draw after top-k and top-p. */
class Picker {
  private readonly order: Int32Array;

  constructor(private readonly V: number, private readonly o: Omit<SampleOptions, 'n'>) {
    this.order = new Int32Array(V);
  }

  pick(logits: Float32Array, p: Float32Array, u: number): number {
    const V = this.V;
    if (this.o.temperature === 0) {
      let argmax = 0;
      for (let i = 1; i < V; i++) if (logits[i] > logits[argmax]) argmax = i;
      return argmax;
    }
    // Summed here rather than taken from the kernel, in the walk's own arithmetic, so that a walk to u * total always
    // ends inside the row.
    let total = 0;
    for (let i = 0; i < V; i++) total += p[i];
    const topK = this.o.topK && this.o.topK < V ? this.o.topK : 0;
    const topP = this.o.topP ?? 1;
    if (!topK && topP >= 1) {
      let target = u * total;
      for (let i = 0; i < V; i++) if ((target -= p[i]) < 0) return i;
      return lastNonZero(p);
    }
    // Candidates in order of probability; only the head is sorted, which is exact once it holds k tokens or topP of the mass.
    const cand = this.candidates(p, total, topK, topP);
    let keep = topK ? Math.min(topK, cand.length) : cand.length;
    if (topP < 1) {
      let mass = 0;
      for (let j = 0; j < keep; j++) {
        mass += p[cand[j]];
        if (mass >= topP * total) { keep = j + 1; break; }
      }
    }
    let kept = 0;
    for (let j = 0; j < keep; j++) kept += p[cand[j]];
    let target = u * kept;
    for (let j = 0; j < keep; j++) if ((target -= p[cand[j]]) < 0) return cand[j];
    return cand[keep - 1];
  }

  private candidates(p: Float32Array, total: number, topK: number, topP: number): Int32Array {
    const V = this.V;
    let pmax = 0;
    for (let i = 0; i < V; i++) pmax = Math.max(pmax, p[i]);
    for (let threshold = pmax * 1e-2; ; threshold *= 1e-3) {
      let count = 0, mass = 0;
      for (let i = 0; i < V; i++) {
        if (p[i] >= threshold) { this.order[count++] = i; mass += p[i]; }
      }
      const enough = (topK ? count >= topK : true) && (topP < 1 ? mass >= topP * total : true);
      if (enough || threshold === 0 || count === V) {
        const head = this.order.subarray(0, count);
        head.sort((a, b) => p[b] - p[a] || a - b);
        return head;
      }
      if (threshold < 1e-300) threshold = 0;
    }
  }
}

/** The k largest entries of a logits row as log-probs (lse: the row's log-sum-exp), largest first, ties by token id. */
function topTokens(row: Float32Array, k: number, lse: number): { token: number; logprob: number }[] {
  const best: number[] = [];
  for (let i = 0; i < row.length; i++) {
    if (best.length === k && row[i] <= row[best[k - 1]]) continue;
    let at = best.length;
    while (at > 0 && row[best[at - 1]] < row[i]) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best.map((token) => ({ token, logprob: row[token] - lse }));
}

function logSumExp(row: Float32Array): number {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp(row[i] - max);
  return max + Math.log(sum);
}

function lastNonZero(p: Float32Array): number {
  for (let i = p.length - 1; i >= 0; i--) if (p[i] > 0) return i;
  return 0;
}

/** Uniform [0, 1) stream for sample `index` of a run seeded with `seed` (mulberry32 over a mixed seed). */
function seededUniform(seed: number, index: number): () => number {
  return mulberry32(Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35));
}
