// Induction-ready initialisation: plants a two-head copying circuit in freshly initialised GPT-2 weights.
//
// Why: most tokens of a diagram answer are names copied from the request. A transformer copies an unseen span with an
// induction circuit (one head moves each token's predecessor into its residual stream; a later head attends to the
// position whose predecessor equals the current token and reads the token there). Trained from random weights, the
// default student does not find that circuit in the steps a CPU run allows: `bench/copy.ts` keeps it near chance on
// unseen spans for thousands of steps. Gradient descent strengthens a circuit that exists far more easily than it
// discovers one, so this plants a weak one and lets training scale it. Architecture, parameter names and layouts stay
// GPT-2's (learned positions are only initialised with sinusoids), so checkpoints load anywhere GPT-2 loads.
//
// Residual-stream layout at initialisation (C = nEmbd, D = head size):
//   T = [0, C - 2D)       token embeddings (wte rows are zero elsewhere)
//   P = [C - 2D, C - D)   position embeddings: D/2 sine/cosine pairs at geometric frequencies (wpe zero elsewhere)
//   R = [C - D, C)        the two previous tokens, D/2 dimensions each, written by layer 0's heads 0 and 1
// M is a fixed orthonormal projection (D x |T|) of T; Q is its first D/2 rows.
// Layer 0, heads 0 and 1: query = P rotated one (two) positions back, key = P, so each position attends to the token one
//   (two) back; value = Q T; c_proj writes it into the first (second) half of R.
// Layer 1, head 0: query = (Q T, first half of R) = the current token and its predecessor; key = R = the predecessor and
//   the one before it, so a position matches where the same two tokens stood before it; value = M T of the attended
//   token; c_proj writes M^T of it back into T, which the tied unembedding reads as "the token that followed last time".
//
// With rotary positions (GPTConfig.positions) there is no P: T = [0, C - D), R as above. Each head's pair d turns by
// p * theta_d (gpt.ts's ROPE_THETA: theta_0 = 1 down to about 1e-7 radians per position), so the fast pairs say where a
// token stands and the slow ones hardly turn over the context.
// Layer 0, heads 0 and 1: constant query and key (biases) on the four fastest pairs, the query turned `back` steps
//   ahead of the key, so that the score, a sum of cos((p - t + back) theta_d), peaks at the token one (two) back.
// Layer 1, heads 0 and 1: the same matches as above on the slow pairs only, half of them for each of head 0's two
//   comparisons (fewer dimensions of each code), so that a match scores alike wherever it stands.
import { mulberry32 } from '../random.ts';
import { ROPE_THETA, type GPT, type GPTConfig } from './gpt.ts';

export interface InductionInitOptions {
  seed?: number;
  /** For experiments (`bench/copy.ts --gains`): planted 5x stronger, the circuit is torn apart by the first updates. */
  gains?: Partial<typeof GAINS>;
  /** Plant layer 1's lookahead head too (default true). */
  lookahead?: boolean;
}

const GAINS = {
  /** Sharpness of the previous-token head (a logit gap of about 13 between the predecessor and the next-best position). */
  prev: 4,
  /** Sharpness of the induction head's content match. */
  match: 2,
  /** Scale of what the previous-token head writes into R, relative to raw embeddings (std 0.02). */
  prevWrite: 0.02,
  /** Scale of the copied token written back into T: several times a raw embedding, so it outweighs the current token. */
  copyWrite: 0.09,
};
// Position frequencies, geometric from 3 down to 0.006 radians per position: the high ones set neighbours apart (the
// mean cosine is 0.70 at distance 1, against 1 at distance 0, and at most 0.70 at any distance up to 511).
const FREQ_HIGH = 3.0;
const FREQ_LOW = 0.006;

/** Rotary positions: the pairs of a head that the previous-token heads use (the fastest), and the first of the slow
 *  pairs that the induction heads match on (theta_4 = 1e-3 radians per position at head size 32). */
const FAST_PAIRS = 3;
const FIRST_SLOW_PAIR = 4;

/** Where T, P and R lie (no P, posStart -1, with rotary positions); throws if the shape has no room for them (fewer than 3
 *  heads or 2 layers, or with rotary positions a head of fewer than 32 dimensions). */
export function inductionLayout(config: GPTConfig): { D: number; tokenDims: number; posStart: number; prevStart: number } {
  const { nEmbd, nHead, nLayer } = config;
  const D = nEmbd / nHead;
  if (nLayer < 2) throw new Error(`induction init needs at least 2 layers, the model has ${nLayer}`);
  if (config.positions === 'rotary') {
    if (nHead < 2) throw new Error(`induction init needs at least 2 heads (nHead ${nHead})`);
    if (D < 32) throw new Error(`induction init with rotary positions needs a head size of 32 or more (nEmbd ${nEmbd} / nHead ${nHead} = ${D})`);
    return { D, tokenDims: nEmbd - D, posStart: -1, prevStart: nEmbd - D };
  }
  const tokenDims = nEmbd - 2 * D;
  if (tokenDims < D) throw new Error(`induction init needs nEmbd >= 3 x head size (nEmbd ${nEmbd}, head size ${D}): use at least 3 heads`);
  return { D, tokenDims, posStart: tokenDims, prevStart: tokenDims + D };
}

/** Rewrites the weights of a freshly created model in place (GPT.create's init first, then this). */
export function plantInductionCircuit(model: GPT, opts: InductionInitOptions = {}): void {
  const { nEmbd: C, nCtx } = model.config;
  const { D, tokenDims, posStart, prevStart } = inductionLayout(model.config);
  const params = new Map(model.parameters().map((t) => [t.name, t.data]));
  const get = (name: string): Float32Array => {
    const t = params.get(name);
    if (!t) throw new Error(`missing parameter ${name}`);
    return t;
  };
  const { prev: PREV_GAIN, match: MATCH_GAIN, prevWrite: PREV_WRITE, copyWrite: COPY_WRITE } = { ...GAINS, ...opts.gains };
  const M = orthonormalRows(D, tokenDims, opts.seed ?? 0);

  const wte = get('transformer.wte.weight');
  for (let v = 0; v < wte.length / C; v++) wte.fill(0, v * C + tokenDims, (v + 1) * C);
  if (model.config.positions === 'rotary') {
    plantRotary(model.config, get, M, { prev: PREV_GAIN, match: MATCH_GAIN, prevWrite: PREV_WRITE, copyWrite: COPY_WRITE }, opts.lookahead !== false);
    return;
  }

  // Equal energy in T and P after LayerNorm: tokenDims * 0.02^2 = (D / 2) * amp^2.
  const amp = 0.02 * Math.sqrt((2 * tokenDims) / D);
  const freqs = Array.from({ length: D / 2 }, (_, i) => FREQ_HIGH * Math.pow(FREQ_LOW / FREQ_HIGH, i / (D / 2 - 1)));
  const wpe = get('transformer.wpe.weight');
  wpe.fill(0);
  for (let p = 0; p < nCtx; p++) {
    freqs.forEach((w, i) => {
      wpe[p * C + posStart + 2 * i] = amp * Math.sin(w * p);
      wpe[p * C + posStart + 2 * i + 1] = amp * Math.cos(w * p);
    });
  }

  // c_attn.weight is (C, 3C), x @ W: row = input dim, column = q | k | v output dim; head h owns columns [hD, hD + D) of
  // each. Q (the first D/2 rows of M) is the token code the two previous-token heads write and the induction head matches.
  const W3 = 3 * C, H = D / 2;

  const attn0 = get('transformer.h.0.attn.c_attn.weight');
  const bias0 = get('transformer.h.0.attn.c_attn.bias');
  const proj0 = get('transformer.h.0.attn.c_proj.weight');
  // No other head of layer 0 writes into R.
  for (let j = 0; j < C; j++) proj0.fill(0, j * C + prevStart, (j + 1) * C);
  for (const back of [1, 2]) {
    const h = back - 1;
    clearHead(attn0, bias0, proj0, h, C, D);
    const q = h * D, k = C + h * D, v = 2 * C + h * D;
    freqs.forEach((w, i) => {
      const s = posStart + 2 * i, c = s + 1, a = back * w;
      // q(p) = P(p - back): rotate each (sin, cos) pair back by `back` steps.
      attn0[s * W3 + q + 2 * i] = PREV_GAIN * Math.cos(a);
      attn0[c * W3 + q + 2 * i] = -PREV_GAIN * Math.sin(a);
      attn0[s * W3 + q + 2 * i + 1] = PREV_GAIN * Math.sin(a);
      attn0[c * W3 + q + 2 * i + 1] = PREV_GAIN * Math.cos(a);
      attn0[s * W3 + k + 2 * i] = 1;
      attn0[c * W3 + k + 2 * i + 1] = 1;
    });
    for (let j = 0; j < H; j++) {
      for (let i = 0; i < tokenDims; i++) attn0[i * W3 + v + j] = M[j * tokenDims + i];
      proj0[(h * D + j) * C + prevStart + h * H + j] = PREV_WRITE;
    }
  }

  // Layer 1, head 0: query (Q token(t), Q token(t-1)) against key (Q token(p-1), Q token(p-2)) = R(p): two tokens of
  // context, because one is ambiguous where it matters (a space or a quote precedes most words of a name).
  const attn1 = get('transformer.h.1.attn.c_attn.weight');
  const bias1 = get('transformer.h.1.attn.c_attn.bias');
  const proj1 = get('transformer.h.1.attn.c_proj.weight');
  clearHead(attn1, bias1, proj1, 0, C, D);
  for (let j = 0; j < D; j++) {
    for (let i = 0; i < tokenDims; i++) {
      if (j < H) attn1[i * W3 + j] = MATCH_GAIN * M[j * tokenDims + i];
      attn1[i * W3 + 2 * C + j] = M[j * tokenDims + i];
      proj1[j * C + i] = COPY_WRITE * M[j * tokenDims + i];
    }
    if (j >= H) attn1[(prevStart + j - H) * W3 + j] = MATCH_GAIN;
    attn1[(prevStart + j) * W3 + C + j] = 1;
  }

  if (opts.lookahead === false) return;
  // Layer 1, head 1, the lookahead: query Q token(t) against key Q token(p-2) (the second half of R), so it attends to
  // the position two after the current token's earlier occurrence and reads the token there. Where a copied name ends,
  // the request goes on with a space and then a separator ("Mendroul 4 to Traixmas"): the induction head above sees
  // the space, which every inner word is followed by too, and only the token after it tells the name has ended. The
  // default student's worst decision was exactly that one: on 80 held-out answers, the probability left to a space
  // where the id ends was 0.17 on average. Its output projection keeps GPT-2's random init: what to make of the token
  // is for training to learn, finding where to look is what it does not find in a CPU run's steps.
  const h1 = D;
  clearHead(attn1, bias1, null, 1, C, D);
  for (let j = 0; j < D; j++) {
    for (let i = 0; i < tokenDims; i++) {
      if (j < H) attn1[i * W3 + h1 + j] = MATCH_GAIN * M[j * tokenDims + i];
      attn1[i * W3 + 2 * C + h1 + j] = M[j * tokenDims + i];
    }
    if (j < H) attn1[(prevStart + H + j) * W3 + C + h1 + j] = 1;
  }
}

/** Zeroes head h's query, key and value columns of c_attn (C, 3C) and their biases, and with `proj` its rows of
 *  c_proj: the head then computes only what is planted in it (a null `proj` keeps GPT-2's random output). */
function clearHead(attn: Float32Array, bias: Float32Array, proj: Float32Array | null, h: number, C: number, D: number): void {
  const W3 = 3 * C;
  for (let i = 0; i < C; i++) for (let j = h * D; j < (h + 1) * D; j++) attn[i * W3 + j] = attn[i * W3 + C + j] = attn[i * W3 + 2 * C + j] = 0;
  for (let j = h * D; j < (h + 1) * D; j++) bias[j] = bias[C + j] = bias[2 * C + j] = 0;
  proj?.fill(0, h * D * C, (h + 1) * D * C);
}

/** `rows` orthonormal vectors of length `cols` (Gram-Schmidt on seeded Gaussians), row-major. */
function orthonormalRows(rows: number, cols: number, seed: number): Float64Array {
  const out = new Float64Array(rows * cols);
  const uniform = mulberry32(seed ^ 0x1d8e4e27);
  for (let r = 0; r < rows; r++) {
    const row = out.subarray(r * cols, (r + 1) * cols);
    for (let i = 0; i < cols; i++) row[i] = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
    for (let q = 0; q < r; q++) {
      const prev = out.subarray(q * cols, (q + 1) * cols);
      let dot = 0;
      for (let i = 0; i < cols; i++) dot += row[i] * prev[i];
      for (let i = 0; i < cols; i++) row[i] -= dot * prev[i];
    }
    let norm = 0;
    for (let i = 0; i < cols; i++) norm += row[i] * row[i];
    norm = Math.sqrt(norm);
    for (let i = 0; i < cols; i++) row[i] /= norm;
  }
  return out;
}

/** The circuit for rotary positions (the header's second part): the same heads, with positions from the rotation. */
function plantRotary(config: GPTConfig, get: (name: string) => Float32Array, M: Float64Array, gains: typeof GAINS, lookahead: boolean): void {
  const { nEmbd: C } = config;
  const { D, tokenDims, prevStart } = inductionLayout(config);
  const W3 = 3 * C, H = D / 2;
  const theta = (d: number): number => Math.pow(config.ropeTheta ?? ROPE_THETA, -(2 * d) / D);
  // The score's drop one position off the peak, sum over the fast pairs of 1 - cos(theta_d), sets the biases' size:
  // the same logit gap (after attention's 1 / sqrt(D)) as the learned positions' circuit.
  let drop = 0;
  for (let d = 0; d < FAST_PAIRS; d++) drop += 1 - Math.cos(theta(d));
  const PREV_LOGIT_GAP = 13;
  const bias = Math.sqrt((PREV_LOGIT_GAP * Math.sqrt(D)) / drop) * Math.sqrt(gains.prev / GAINS.prev);

  const attn0 = get('transformer.h.0.attn.c_attn.weight');
  const bias0 = get('transformer.h.0.attn.c_attn.bias');
  const proj0 = get('transformer.h.0.attn.c_proj.weight');
  for (let j = 0; j < C; j++) proj0.fill(0, j * C + prevStart, (j + 1) * C);
  for (const back of [1, 2]) {
    const h = back - 1;
    clearHead(attn0, bias0, proj0, h, C, D);
    for (let d = 0; d < FAST_PAIRS; d++) {
      // key (1, 0) on pair d, query the key turned by -back * theta_d: rotated by their positions p and t, their dot
      // product is cos((p - t + back) theta_d)
      bias0[C + h * D + d] = bias;
      bias0[h * D + d] = bias * Math.cos(back * theta(d));
      bias0[h * D + H + d] = -bias * Math.sin(back * theta(d));
    }
    for (let j = 0; j < H; j++) {
      for (let i = 0; i < tokenDims; i++) attn0[i * W3 + 2 * C + h * D + j] = M[j * tokenDims + i];
      proj0[(h * D + j) * C + prevStart + h * H + j] = gains.prevWrite;
    }
  }

  // The slow pairs, split in two: a match compares `n` dimensions of two codes. Within a pair turned by a = distance *
  // theta_d, the score of its two dimensions is cos(a) times their match plus sin(a) times a cross term; on the slow
  // pairs a stays small over the context.
  const slowPairs = Array.from({ length: H - FIRST_SLOW_PAIR }, (_, i) => FIRST_SLOW_PAIR + i);
  const half = Math.floor(slowPairs.length / 2), n = 2 * half;
  const slotsA = [...slowPairs.slice(0, half), ...slowPairs.slice(0, half).map((d) => H + d)];
  const slotsB = [...slowPairs.slice(half, n), ...slowPairs.slice(half, n).map((d) => H + d)];
  // As strong a match as the learned circuit's over H dimensions.
  const match = (gains.match * H) / n;
  const attn1 = get('transformer.h.1.attn.c_attn.weight');
  const bias1 = get('transformer.h.1.attn.c_attn.bias');
  const proj1 = get('transformer.h.1.attn.c_proj.weight');
  /** Head h's query dims `slots` read code dims 0.. of the token (from = -1) or of R at offset `from`, and its key dims
   *  the same code dims of R at offset `to`. */
  const compare = (h: number, slots: number[], from: number, to: number): void => {
    slots.forEach((d, j) => {
      const col = h * D + d;
      if (from < 0) for (let i = 0; i < tokenDims; i++) attn1[i * W3 + col] = match * M[j * tokenDims + i];
      else attn1[(prevStart + from + j) * W3 + col] = match;
      attn1[(prevStart + to + j) * W3 + C + col] = 1;
    });
  };
  clearHead(attn1, bias1, proj1, 0, C, D);
  // head 0: (token(t), token(t-1)) against (token(p-1), token(p-2)); value M token(p), written back into T
  compare(0, slotsA, -1, 0);
  compare(0, slotsB, 0, H);
  for (let j = 0; j < D; j++) {
    for (let i = 0; i < tokenDims; i++) {
      attn1[i * W3 + 2 * C + j] = M[j * tokenDims + i];
      proj1[j * C + i] = gains.copyWrite * M[j * tokenDims + i];
    }
  }
  if (!lookahead) return;
  // head 1, the lookahead: token(t) against token(p-2); its output projection keeps GPT-2's init (as above)
  const h1 = D;
  clearHead(attn1, bias1, null, 1, C, D);
  compare(1, slotsA, -1, H);
  for (let j = 0; j < D; j++) for (let i = 0; i < tokenDims; i++) attn1[i * W3 + 2 * C + h1 + j] = M[j * tokenDims + i];
}
