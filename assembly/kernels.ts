// Compute kernels of the student GPT, compiled to WebAssembly SIMD (npm run build:kernels).
// Every tensor lives in one imported, shared memory: pointers are byte offsets, strides count floats.
// Kernels that run on several threads take a work range [lo, hi) last (plus a per-thread scratch pointer):
// the TypeScript thread pool splits the range, so threads never write the same bytes.

// ---------------------------------------------------------------- helpers

@inline function at(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

const LOG2E: f32 = 1.44269504;
const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;
const ROUND_MAGIC: f32 = 12582912.0; // 1.5 * 2^23
const GELU_K: f32 = 0.7978845608; // sqrt(2 / pi)
const GELU_A: f32 = 0.044715;

// Vector constants of exp and gelu, each in 4 lanes, read from memory: V8 builds a v128.const from two 64-bit immediates
// (4 instructions each time it is used, never hoisted out of a loop), while a load folds into the arithmetic.
// exp's 13 constants made it 8.5 ns per vector, 5.0 ns from memory (one thread, in L1).
const K_MIN = 0, K_MAX = 1, K_LOG2E = 2, K_ROUND = 3, K_LN2_HI = 4, K_LN2_LO = 5, K_P0 = 6, K_ONE = 12;
const K_GELU_M2K = 13, K_GELU_M2KA = 14, K_GELU_K = 15, K_GELU_3KA = 16, K_BIAS = 17;
const VCONST = memory.data<f32>([
  -87.0, -87.0, -87.0, -87.0, 88.0, 88.0, 88.0, 88.0,
  LOG2E, LOG2E, LOG2E, LOG2E, ROUND_MAGIC, ROUND_MAGIC, ROUND_MAGIC, ROUND_MAGIC,
  LN2_HI, LN2_HI, LN2_HI, LN2_HI, LN2_LO, LN2_LO, LN2_LO, LN2_LO,
  1.9875691500e-4, 1.9875691500e-4, 1.9875691500e-4, 1.9875691500e-4,
  1.3981999507e-3, 1.3981999507e-3, 1.3981999507e-3, 1.3981999507e-3,
  8.3334519073e-3, 8.3334519073e-3, 8.3334519073e-3, 8.3334519073e-3,
  4.1665795894e-2, 4.1665795894e-2, 4.1665795894e-2, 4.1665795894e-2,
  1.6666665459e-1, 1.6666665459e-1, 1.6666665459e-1, 1.6666665459e-1,
  5.0000001201e-1, 5.0000001201e-1, 5.0000001201e-1, 5.0000001201e-1,
  1.0, 1.0, 1.0, 1.0,
  -2 * GELU_K, -2 * GELU_K, -2 * GELU_K, -2 * GELU_K,
  -2 * GELU_K * GELU_A, -2 * GELU_K * GELU_A, -2 * GELU_K * GELU_A, -2 * GELU_K * GELU_A,
  GELU_K, GELU_K, GELU_K, GELU_K, 3 * GELU_K * GELU_A, 3 * GELU_K * GELU_A, 3 * GELU_K * GELU_A, 3 * GELU_K * GELU_A,
], 16);
// The exponent bias 127 as 4 int32 lanes (not a float constant: its bits are added to an integer).
const VBIAS = memory.data<i32>([127, 127, 127, 127], 16);

@inline function vk(i: i32): v128 {
  return i == K_BIAS ? v128.load(VBIAS) : v128.load(VCONST + (<usize>i << 4));
}

// exp on 4 lanes: range reduction to r in [-ln2/2, ln2/2], a degree-6 polynomial, 2^n built in the exponent bits.
// Inputs are clamped to [-87, 88] so that 2^n never leaves the normal range (exp(-87) is 1.6e-38, close enough to 0).
@inline function vexp(x: v128): v128 {
  // relaxed min/max: one instruction each, where V8 spends several on wasm's NaN and signed-zero rules (softmax
  // forward 15% faster); a NaN input may come out as exp(-87) instead of NaN, which the target's logit still reports.
  x = f32x4.relaxed_min(f32x4.relaxed_max(x, vk(K_MIN)), vk(K_MAX));
  // Round x log2(e) to the nearest integer by adding 1.5 * 2^23: the sum's low mantissa bits are that integer, so
  // 2^n is built from them with integer ops (same n as f32x4.nearest, without V8's costly float-to-int conversion).
  // Fused multiply-adds (relaxed: fused where the CPU has FMA, as here) shorten the dependency chain, which bounds
  // exp-heavy loops: 5.0 -> 4.2 ns per vector; results within 1.2e-7 relative of the unfused form.
  const t = f32x4.relaxed_madd(x, vk(K_LOG2E), vk(K_ROUND));
  const n = f32x4.sub(t, vk(K_ROUND));
  let r = f32x4.relaxed_nmadd(n, vk(K_LN2_HI), x);
  r = f32x4.relaxed_nmadd(n, vk(K_LN2_LO), r);
  let p = vk(K_P0);
  p = f32x4.relaxed_madd(p, r, vk(K_P0 + 1));
  p = f32x4.relaxed_madd(p, r, vk(K_P0 + 2));
  p = f32x4.relaxed_madd(p, r, vk(K_P0 + 3));
  p = f32x4.relaxed_madd(p, r, vk(K_P0 + 4));
  p = f32x4.relaxed_madd(p, r, vk(K_P0 + 5));
  p = f32x4.add(f32x4.relaxed_madd(p, f32x4.mul(r, r), r), vk(K_ONE));
  // (bits of t) = (bits of 1.5 * 2^23) + n, and the former's low 9 bits are 0: shifting by 23 leaves (n + 127) << 23.
  const e = i32x4.shl(i32x4.add(t, vk(K_BIAS)), 23);
  return f32x4.mul(p, e);
}

@inline function sexp(x: f32): f32 {
  return f32x4.extract_lane(vexp(f32x4.splat(x)), 0);
}

@inline function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

@inline function hmax(v: v128): f32 {
  return max(max(f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), max(f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
}

// ---------------------------------------------------------------- GEMM
// C[m0:m1, n0:n1] = (accumulate ? C : 0) + bias[n] + A[m, 0:K] @ B[0:K, n]
// A, B, C row-major with leading dimensions lda, ldb, ldc. Blocks of KC x NC of B are packed into 8-column panels
// (contiguous, zero-padded) when enough rows reuse them; small M reads B in place (decoding packs whole weights once
// per KV cache instead: gemmPanels).
// The micro-kernel keeps a 4 x 8 tile of C in 8 registers. Scratch: 256 bytes of staging, then the packed block.

const KC: i32 = 256;
const NC: i32 = 512;
export const GEMM_SCRATCH_FLOATS: i32 = 64 + KC * NC + 4 * KC;

// Copies w (< 8) floats of a row into 8 staging lanes, zero-padded.
@inline function stageIn(src: usize, w: i32, tmp: usize): void {
  for (let i = 0; i < 8; i++) store<f32>(at(tmp, i), i < w ? load<f32>(at(src, i)) : 0);
}

@inline function stageOut(dst: usize, w: i32, tmp: usize): void {
  for (let i = 0; i < w; i++) store<f32>(at(dst, i), load<f32>(at(tmp, i)));
}

function packB(B: usize, ldb: i32, kc: i32, nc: i32, pack: usize): void {
  let out = pack;
  for (let j = 0; j < nc; j += 8) {
    const w = min(8, nc - j);
    let src = at(B, j);
    const step = <usize>ldb << 2;
    if (w == 8) {
      for (let k = 0; k < kc; k++) {
        v128.store(out, v128.load(src));
        v128.store(out, v128.load(src, 16), 16);
        out += 32;
        src += step;
      }
    } else {
      for (let k = 0; k < kc; k++) {
        for (let i = 0; i < 8; i++) store<f32>(at(out, i), i < w ? load<f32>(at(src, i)) : 0);
        out += 32;
        src += step;
      }
    }
  }
}

// dst[0:nc] += column sums of a packed block (kc x nc in 8-column panels, zero-padded).
function sumPanels(pack: usize, kc: i32, nc: i32, dst: usize): void {
  let p = pack;
  for (let j = 0; j < nc; j += 8) {
    let s0 = f32x4.splat(0), s1 = f32x4.splat(0);
    for (let k = 0; k < kc; k++) {
      s0 = f32x4.add(s0, v128.load(p));
      s1 = f32x4.add(s1, v128.load(p, 16));
      p += 32;
    }
    const w = min(8, nc - j);
    const d = at(dst, j);
    if (w == 8) {
      v128.store(d, f32x4.add(v128.load(d), s0));
      v128.store(d, f32x4.add(v128.load(d, 16), s1), 16);
    } else {
      for (let i = 0; i < w; i++) store<f32>(at(d, i), load<f32>(at(d, i)) + laneOf(i < 4 ? s0 : s1, i & 3));
    }
  }
}

@inline function laneOf(v: v128, i: i32): f32 {
  return i == 0 ? f32x4.extract_lane(v, 0) : i == 1 ? f32x4.extract_lane(v, 1) : i == 2 ? f32x4.extract_lane(v, 2) : f32x4.extract_lane(v, 3);
}

// C's tile starts from Cin's (same layout; Cin is C when accumulating, a residual source otherwise) if load.
@inline function tile4(A: usize, lda: usize, B: usize, bs: usize, C: usize, Cin: usize, ldc: usize, kc: i32, w: i32,
                       load: bool, bias: usize, tmp: usize): void {
  let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
  if (load) {
    if (w == 8) {
      c00 = v128.load(Cin); c01 = v128.load(Cin, 16);
      c10 = v128.load(Cin + ldc); c11 = v128.load(Cin + ldc, 16);
      c20 = v128.load(Cin + 2 * ldc); c21 = v128.load(Cin + 2 * ldc, 16);
      c30 = v128.load(Cin + 3 * ldc); c31 = v128.load(Cin + 3 * ldc, 16);
    } else {
      stageIn(Cin, w, tmp); c00 = v128.load(tmp); c01 = v128.load(tmp, 16);
      stageIn(Cin + ldc, w, tmp); c10 = v128.load(tmp); c11 = v128.load(tmp, 16);
      stageIn(Cin + 2 * ldc, w, tmp); c20 = v128.load(tmp); c21 = v128.load(tmp, 16);
      stageIn(Cin + 3 * ldc, w, tmp); c30 = v128.load(tmp); c31 = v128.load(tmp, 16);
    }
  }
  if (bias) {
    let b0: v128, b1: v128;
    if (w == 8) { b0 = v128.load(bias); b1 = v128.load(bias, 16); }
    else { stageIn(bias, w, tmp); b0 = v128.load(tmp); b1 = v128.load(tmp, 16); }
    c00 = f32x4.add(c00, b0); c01 = f32x4.add(c01, b1); c10 = f32x4.add(c10, b0); c11 = f32x4.add(c11, b1);
    c20 = f32x4.add(c20, b0); c21 = f32x4.add(c21, b1); c30 = f32x4.add(c30, b0); c31 = f32x4.add(c31, b1);
  }
  const a1 = A + lda, a2 = A + 2 * lda, a3 = A + 3 * lda;
  const end = <usize>kc << 2;
  let b = B;
  for (let k: usize = 0; k < end; k += 4) {
    const b0 = v128.load(b), b1 = v128.load(b, 16);
    let a = v128.load32_splat(A + k);
    c00 = f32x4.relaxed_madd(a, b0, c00); c01 = f32x4.relaxed_madd(a, b1, c01);
    a = v128.load32_splat(a1 + k);
    c10 = f32x4.relaxed_madd(a, b0, c10); c11 = f32x4.relaxed_madd(a, b1, c11);
    a = v128.load32_splat(a2 + k);
    c20 = f32x4.relaxed_madd(a, b0, c20); c21 = f32x4.relaxed_madd(a, b1, c21);
    a = v128.load32_splat(a3 + k);
    c30 = f32x4.relaxed_madd(a, b0, c30); c31 = f32x4.relaxed_madd(a, b1, c31);
    b += bs;
  }
  if (w == 8) {
    v128.store(C, c00); v128.store(C, c01, 16);
    v128.store(C + ldc, c10); v128.store(C + ldc, c11, 16);
    v128.store(C + 2 * ldc, c20); v128.store(C + 2 * ldc, c21, 16);
    v128.store(C + 3 * ldc, c30); v128.store(C + 3 * ldc, c31, 16);
  } else {
    v128.store(tmp, c00); v128.store(tmp, c01, 16); stageOut(C, w, tmp);
    v128.store(tmp, c10); v128.store(tmp, c11, 16); stageOut(C + ldc, w, tmp);
    v128.store(tmp, c20); v128.store(tmp, c21, 16); stageOut(C + 2 * ldc, w, tmp);
    v128.store(tmp, c30); v128.store(tmp, c31, 16); stageOut(C + 3 * ldc, w, tmp);
  }
}

@inline function tile1(A: usize, B: usize, bs: usize, C: usize, Cin: usize, kc: i32, w: i32, load: bool, bias: usize, tmp: usize): void {
  let c0 = f32x4.splat(0), c1 = f32x4.splat(0);
  if (load) {
    if (w == 8) { c0 = v128.load(Cin); c1 = v128.load(Cin, 16); }
    else { stageIn(Cin, w, tmp); c0 = v128.load(tmp); c1 = v128.load(tmp, 16); }
  }
  if (bias) {
    if (w == 8) { c0 = f32x4.add(c0, v128.load(bias)); c1 = f32x4.add(c1, v128.load(bias, 16)); }
    else { stageIn(bias, w, tmp); c0 = f32x4.add(c0, v128.load(tmp)); c1 = f32x4.add(c1, v128.load(tmp, 16)); }
  }
  const end = <usize>kc << 2;
  let b = B;
  for (let k: usize = 0; k < end; k += 4) {
    const a = v128.load32_splat(A + k);
    c0 = f32x4.relaxed_madd(a, v128.load(b), c0);
    c1 = f32x4.relaxed_madd(a, v128.load(b, 16), c1);
    b += bs;
  }
  if (w == 8) { v128.store(C, c0); v128.store(C, c1, 16); }
  else { v128.store(tmp, c0); v128.store(tmp, c1, 16); stageOut(C, w, tmp); }
}

// Tiles for a transposed A (stored K x M): the 4 rows of a step are adjacent floats, k advances by ak bytes.
@inline function tile4T(A: usize, ak: usize, B: usize, C: usize, ldc: usize, kc: i32, w: i32, load: bool, tmp: usize): void {
  let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
  if (load) {
    if (w == 8) {
      c00 = v128.load(C); c01 = v128.load(C, 16);
      c10 = v128.load(C + ldc); c11 = v128.load(C + ldc, 16);
      c20 = v128.load(C + 2 * ldc); c21 = v128.load(C + 2 * ldc, 16);
      c30 = v128.load(C + 3 * ldc); c31 = v128.load(C + 3 * ldc, 16);
    } else {
      stageIn(C, w, tmp); c00 = v128.load(tmp); c01 = v128.load(tmp, 16);
      stageIn(C + ldc, w, tmp); c10 = v128.load(tmp); c11 = v128.load(tmp, 16);
      stageIn(C + 2 * ldc, w, tmp); c20 = v128.load(tmp); c21 = v128.load(tmp, 16);
      stageIn(C + 3 * ldc, w, tmp); c30 = v128.load(tmp); c31 = v128.load(tmp, 16);
    }
  }
  let a = A, b = B;
  for (let k = 0; k < kc; k++) {
    const b0 = v128.load(b), b1 = v128.load(b, 16);
    let x = v128.load32_splat(a);
    c00 = f32x4.relaxed_madd(x, b0, c00); c01 = f32x4.relaxed_madd(x, b1, c01);
    x = v128.load32_splat(a, 4);
    c10 = f32x4.relaxed_madd(x, b0, c10); c11 = f32x4.relaxed_madd(x, b1, c11);
    x = v128.load32_splat(a, 8);
    c20 = f32x4.relaxed_madd(x, b0, c20); c21 = f32x4.relaxed_madd(x, b1, c21);
    x = v128.load32_splat(a, 12);
    c30 = f32x4.relaxed_madd(x, b0, c30); c31 = f32x4.relaxed_madd(x, b1, c31);
    a += ak;
    b += 32;
  }
  if (w == 8) {
    v128.store(C, c00); v128.store(C, c01, 16);
    v128.store(C + ldc, c10); v128.store(C + ldc, c11, 16);
    v128.store(C + 2 * ldc, c20); v128.store(C + 2 * ldc, c21, 16);
    v128.store(C + 3 * ldc, c30); v128.store(C + 3 * ldc, c31, 16);
  } else {
    v128.store(tmp, c00); v128.store(tmp, c01, 16); stageOut(C, w, tmp);
    v128.store(tmp, c10); v128.store(tmp, c11, 16); stageOut(C + ldc, w, tmp);
    v128.store(tmp, c20); v128.store(tmp, c21, 16); stageOut(C + 2 * ldc, w, tmp);
    v128.store(tmp, c30); v128.store(tmp, c31, 16); stageOut(C + 3 * ldc, w, tmp);
  }
}

@inline function tile1T(A: usize, ak: usize, B: usize, C: usize, kc: i32, w: i32, load: bool, tmp: usize): void {
  let c0 = f32x4.splat(0), c1 = f32x4.splat(0);
  if (load) {
    if (w == 8) { c0 = v128.load(C); c1 = v128.load(C, 16); }
    else { stageIn(C, w, tmp); c0 = v128.load(tmp); c1 = v128.load(tmp, 16); }
  }
  let a = A, b = B;
  for (let k = 0; k < kc; k++) {
    const x = v128.load32_splat(a);
    c0 = f32x4.relaxed_madd(x, v128.load(b), c0);
    c1 = f32x4.relaxed_madd(x, v128.load(b, 16), c1);
    a += ak;
    b += 32;
  }
  if (w == 8) { v128.store(C, c0); v128.store(C, c1, 16); }
  else { v128.store(tmp, c0); v128.store(tmp, c1, 16); stageOut(C, w, tmp); }
}

// C = (accumulate ? C : 0) + A^T @ B for A stored (K, M) with leading dimension lda; B is always packed (many rows share it).
// colSums (if not 0) gets += the column sums of B[0:K, n0:n1], summed while packing (every element is read once there).
function gemmBlockTA(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, K: i32, accumulate: bool, colSums: usize,
                     m0: i32, m1: i32, n0: i32, n1: i32, scratch: usize): void {
  const tmp = scratch;
  const pack = scratch + 256;
  const apack = at(pack, KC * NC);
  const ak = <usize>lda << 2, ldcB = <usize>ldc << 2;
  if (K == 0) {
    if (!accumulate) for (let i = m0; i < m1; i++) memory.fill(at(C, i * ldc + n0), 0, <usize>(n1 - n0) << 2);
    return;
  }
  for (let k0 = 0; k0 < K; k0 += KC) {
    const kc = min(KC, K - k0);
    const load = accumulate || k0 > 0;
    for (let j0 = n0; j0 < n1; j0 += NC) {
      const nc = min(NC, n1 - j0);
      packB(at(B, k0 * ldb + j0), ldb, kc, nc, pack);
      if (colSums) sumPanels(pack, kc, nc, at(colSums, j0));
      let i = m0;
      for (; i + 4 <= m1; i += 4) {
        let Ap = at(A, k0 * lda + i), aStep = ak;
        // The 4 columns of A are copied to a contiguous kc x 4 strip first when many tiles read them: read in place,
        // every tile loads from kc rows lda floats apart, which for lda = 1024 (4 KiB) all fall in one L1 set (dW
        // 1024x256 ran at 25 GFLOP/s). For attention's 32 columns (4 tiles) the copy costs more than it saves.
        if (nc > 32) {
          let src = Ap, dst = apack;
          for (let k = 0; k < kc; k++) {
            v128.store(dst, v128.load(src));
            src += ak;
            dst += 16;
          }
          Ap = apack;
          aStep = 16;
        }
        for (let j = 0; j < nc; j += 8) tile4T(Ap, aStep, at(pack, j * kc), at(C, i * ldc + j0 + j), ldcB, kc, min(8, nc - j), load, tmp);
      }
      for (; i < m1; i++) {
        const Ap = at(A, k0 * lda + i);
        for (let j = 0; j < nc; j += 8) tile1T(Ap, ak, at(pack, j * kc), at(C, i * ldc + j0 + j), kc, min(8, nc - j), load, tmp);
      }
    }
  }
}

@inline function gemmBlock(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, K: i32, accumulate: bool,
                           m0: i32, m1: i32, n0: i32, n1: i32, scratch: usize): void {
  gemmBlockE(A, lda, B, ldb, C, ldc, bias, K, accumulate, m0, m1, n0, n1, 0, 0, 0, scratch);
}

// The GEMM, with an optional epilogue on each finished row block of C (still in cache): if geluOut, gelu (out: geluOut,
// same layout as C; C becomes gelu' there, see gelu()); if mulBy, C *= mulBy elementwise (same layout).
// If residual (same layout as C), C = residual + bias + A @ B, whatever accumulate says.
function gemmBlockE(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, K: i32, accumulate: bool,
                    m0: i32, m1: i32, n0: i32, n1: i32, geluOut: usize, mulBy: usize, residual: usize, scratch: usize): void {
  const tmp = scratch;
  const pack = scratch + 256;
  const usePack = m1 - m0 >= 16;
  const ldaB = <usize>lda << 2, ldcB = <usize>ldc << 2;
  if (K == 0) {
    // Nothing to multiply: C becomes (accumulate ? C : 0) + bias.
    for (let i = m0; i < m1; i++) {
      for (let j = n0; j < n1; j++) {
        const c = at(C, i * ldc + j);
        const c0: f32 = residual ? load<f32>(at(residual, i * ldc + j)) : accumulate ? load<f32>(c) : 0;
        store<f32>(c, c0 + (bias ? load<f32>(at(bias, j)) : 0));
      }
    }
    return;
  }
  for (let k0 = 0; k0 < K; k0 += KC) {
    const kc = min(KC, K - k0);
    const load = accumulate || k0 > 0 || residual != 0;
    const bi: usize = k0 == 0 ? bias : 0;
    const Cin = k0 == 0 && residual ? residual : C;
    for (let j0 = n0; j0 < n1; j0 += NC) {
      const nc = min(NC, n1 - j0);
      if (usePack) packB(at(B, k0 * ldb + j0), ldb, kc, nc, pack);
      const bs: usize = usePack ? 32 : <usize>ldb << 2;
      let i = m0;
      for (; i + 4 <= m1; i += 4) {
        const Ap = at(A, i * lda + k0);
        // Two call sites so that the packed stride is a constant in the inlined loop.
        if (usePack) {
          for (let j = 0; j < nc; j += 8) {
            tile4(Ap, ldaB, at(pack, j * kc), 32, at(C, i * ldc + j0 + j), at(Cin, i * ldc + j0 + j), ldcB, kc, min(8, nc - j), load, bi ? at(bi, j0 + j) : 0, tmp);
          }
        } else {
          for (let j = 0; j < nc; j += 8) {
            tile4(Ap, ldaB, at(B, k0 * ldb + j0 + j), bs, at(C, i * ldc + j0 + j), at(Cin, i * ldc + j0 + j), ldcB, kc, min(8, nc - j), load, bi ? at(bi, j0 + j) : 0, tmp);
          }
        }
        if (geluOut && k0 + kc >= K) {
          for (let r = i; r < i + 4; r++) gelu(at(C, r * ldc + j0), at(geluOut, r * ldc + j0), 1, 0, nc >> 2, 0);
        }
        if (mulBy && k0 + kc >= K) {
          for (let r = i; r < i + 4; r++) mul(at(C, r * ldc + j0), at(mulBy, r * ldc + j0), at(C, r * ldc + j0), 0, nc >> 2, 0);
        }
      }
      for (; i < m1; i++) {
        const Ap = at(A, i * lda + k0);
        for (let j = 0; j < nc; j += 8) {
          const Bp = usePack ? at(pack, j * kc) : at(B, k0 * ldb + j0 + j);
          tile1(Ap, Bp, bs, at(C, i * ldc + j0 + j), at(Cin, i * ldc + j0 + j), kc, min(8, nc - j), load, bi ? at(bi, j0 + j) : 0, tmp);
        }
        if (geluOut && k0 + kc >= K) gelu(at(C, i * ldc + j0), at(geluOut, i * ldc + j0), 1, 0, nc >> 2, 0);
        if (mulBy && k0 + kc >= K) mul(at(C, i * ldc + j0), at(mulBy, i * ldc + j0), at(C, i * ldc + j0), 0, nc >> 2, 0);
      }
    }
  }
}

/** Rows [lo, hi) of C = (accumulate ? C : 0) + bias + A @ B, with C of N columns. */
export function gemmRows(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, N: i32, K: i32,
                         accumulate: i32, lo: i32, hi: i32, scratch: usize): void {
  gemmBlock(A, lda, B, ldb, C, ldc, bias, K, accumulate != 0, lo, hi, 0, N, scratch);
}

/** Rows [lo, hi) of Y = gelu(bias + A @ B) (N a multiple of 4), with C = gelu'(bias + A @ B) kept for backward. */
export function gemmRowsGelu(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, N: i32, K: i32,
                             Y: usize, lo: i32, hi: i32, scratch: usize): void {
  gemmBlockE(A, lda, B, ldb, C, ldc, bias, K, false, lo, hi, 0, N, Y, 0, 0, scratch);
}

/** Rows [lo, hi) of C = (A @ B) * M elementwise (N a multiple of 4; M laid out as C): the MLP's dx through gelu'. */
export function gemmRowsMul(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, N: i32, K: i32, M: usize,
                            lo: i32, hi: i32, scratch: usize): void {
  gemmBlockE(A, lda, B, ldb, C, ldc, 0, K, false, lo, hi, 0, N, 0, M, 0, scratch);
}

/** Rows [lo, hi) of C = R + bias + A @ B (R laid out as C): a residual connection without copying R into C first. */
export function gemmRowsRes(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, N: i32, K: i32, R: usize,
                            lo: i32, hi: i32, scratch: usize): void {
  gemmBlockE(A, lda, B, ldb, C, ldc, bias, K, false, lo, hi, 0, N, 0, 0, R, scratch);
}

/** Rows [lo, hi) of C = (accumulate ? C : 0) + A^T @ B with A stored (K, M): weight gradients x^T dy without a transpose.
 *  If colSums, it also gets += the column sums of B (bias gradients), by the thread whose range starts at row 0. */
export function gemmRowsTA(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, N: i32, K: i32, accumulate: i32,
                           colSums: usize, lo: i32, hi: i32, scratch: usize): void {
  gemmBlockTA(A, lda, B, ldb, C, ldc, K, accumulate != 0, lo == 0 ? colSums : 0, lo, hi, 0, N, scratch);
}

/** Columns [lo, hi) of the same product, for few rows (decoding). */
export function gemmCols(A: usize, lda: i32, B: usize, ldb: i32, C: usize, ldc: i32, bias: usize, M: i32, K: i32,
                         accumulate: i32, lo: i32, hi: i32, scratch: usize): void {
  gemmBlock(A, lda, B, ldb, C, ldc, bias, K, accumulate != 0, 0, M, lo, hi, scratch);
}

/** The backward of y = x @ w + b (x rows x K, w K x N) as two work items, which two threads run at once: 0, dW += x^T dy
 *  and db += the column sums of dy (db right after dW); 1, wT = w^T, then dx = dy @ wT (times dxScale elementwise if
 *  set). */
export function linearBackward(x: usize, w: usize, wT: usize, dwb: usize, dy: usize, dx: usize, rows: i32, K: i32, N: i32,
                               dxScale: usize, lo: i32, hi: i32, scratch: usize): void {
  for (let item = lo; item < hi; item++) {
    if (item == 0) {
      gemmRowsTA(x, K, dy, N, dwb, N, N, rows, 1, dwb + ((<usize>K * <usize>N) << 2), 0, K, scratch);
      continue;
    }
    transpose(w, N, wT, K, K, 0, N, scratch);
    if (dxScale) gemmRowsMul(dy, N, wT, K, dx, K, K, N, dxScale, 0, rows, scratch);
    else gemmRows(dy, N, wT, K, dx, K, 0, K, N, 0, 0, rows, scratch);
  }
}

// ---------------------------------------------------------------- elementwise and row kernels

/** dst[c, r] = src[r, c] for dst rows c in [lo, hi): 4 x 4 blocks by shuffles (scalar, 16 x 16 blocks took 1.5 ns per
 *  float), scalar at the edges. */
export function transpose(src: usize, lds: i32, dst: usize, ldd: i32, rows: i32, lo: i32, hi: i32, scratch: usize): void {
  const sB = <usize>lds << 2, dB = <usize>ldd << 2;
  const r4 = rows & ~3;
  let c = lo;
  for (; c + 4 <= hi; c += 4) {
    let s = at(src, c), d = at(dst, c * ldd);
    for (let r = 0; r < r4; r += 4) {
      const a = v128.load(s), b = v128.load(s + sB), e = v128.load(s + 2 * sB), f = v128.load(s + 3 * sB);
      const t0 = v128.shuffle<f32>(a, b, 0, 4, 1, 5), t1 = v128.shuffle<f32>(a, b, 2, 6, 3, 7);
      const t2 = v128.shuffle<f32>(e, f, 0, 4, 1, 5), t3 = v128.shuffle<f32>(e, f, 2, 6, 3, 7);
      v128.store(d, v128.shuffle<f32>(t0, t2, 0, 1, 4, 5));
      v128.store(d + dB, v128.shuffle<f32>(t0, t2, 2, 3, 6, 7));
      v128.store(d + 2 * dB, v128.shuffle<f32>(t1, t3, 0, 1, 4, 5));
      v128.store(d + 3 * dB, v128.shuffle<f32>(t1, t3, 2, 3, 6, 7));
      s += 4 * sB;
      d += 16;
    }
    for (let r = r4; r < rows; r++) {
      for (let k = c; k < c + 4; k++) store<f32>(at(dst, k * ldd + r), load<f32>(at(src, r * lds + k)));
    }
  }
  for (; c < hi; c++) {
    for (let r = 0; r < rows; r++) store<f32>(at(dst, c * ldd + r), load<f32>(at(src, r * lds + c)));
  }
}

/** x[r] = wte[tokens[r]] + wpe[positions[r]] for rows [lo, hi); wte[tokens[r]] alone where wpe is 0 (rotary positions). */
export function embed(tokens: usize, positions: usize, wte: usize, wpe: usize, x: usize, C: i32, lo: i32, hi: i32, scratch: usize): void {
  for (let r = lo; r < hi; r++) {
    const te = at(wte, load<i32>(at(tokens, r)) * C), o = at(x, r * C);
    if (!wpe) {
      memory.copy(o, te, <usize>C * 4);
      continue;
    }
    const pe = at(wpe, load<i32>(at(positions, r)) * C);
    for (let c = 0; c < C; c += 4) {
      v128.store(at(o, c), f32x4.add(v128.load(at(te, c)), v128.load(at(pe, c))));
    }
  }
}

/** dwte[tokens[r]] += dx[r], dwpe[positions[r]] += dx[r] (where dwpe is not 0) over all rows, for columns [4lo, 4hi). */
export function embedBackward(tokens: usize, positions: usize, dwte: usize, dwpe: usize, dx: usize, C: i32, rows: i32,
                              lo: i32, hi: i32, scratch: usize): void {
  for (let r = 0; r < rows; r++) {
    const te = at(dwte, load<i32>(at(tokens, r)) * C), g = at(dx, r * C);
    const pe = dwpe ? at(dwpe, load<i32>(at(positions, r)) * C) : 0;
    for (let c = lo * 4; c < hi * 4; c += 4) {
      const v = v128.load(at(g, c));
      v128.store(at(te, c), f32x4.add(v128.load(at(te, c)), v));
      if (pe) v128.store(at(pe, c), f32x4.add(v128.load(at(pe, c)), v));
    }
  }
}

/** Rotary positions: rotates each head's query and key in rows [lo, hi) of qkv (rows, 3C) by its row's position, pair
 *  (d, d + hs/2) by the angle whose cosine and sine are table[p * hs + d] and table[p * hs + hs/2 + d] (Llama's
 *  rotate_half layout); sign -1 rotates back, the backward of a rotation being its transpose. hs/2 a multiple of 4. */
export function rope(qkv: usize, positions: usize, table: usize, C: i32, nh: i32, sign: i32, lo: i32, hi: i32, scratch: usize): void {
  const hs = C / nh, half = hs >> 1;
  const sg = f32x4.splat(<f32>sign);
  for (let r = lo; r < hi; r++) {
    const cs = at(table, load<i32>(at(positions, r)) * hs), row = at(qkv, r * 3 * C);
    for (let h = 0; h < 2 * nh; h++) {
      const v = at(row, h * hs);
      for (let d = 0; d < half; d += 4) {
        const c = v128.load(at(cs, d)), s = f32x4.mul(v128.load(at(cs, half + d)), sg);
        const x1 = v128.load(at(v, d)), x2 = v128.load(at(v, half + d));
        v128.store(at(v, d), f32x4.sub(f32x4.mul(x1, c), f32x4.mul(x2, s)));
        v128.store(at(v, half + d), f32x4.add(f32x4.mul(x2, c), f32x4.mul(x1, s)));
      }
    }
  }
}

/** y = (x - mean) / sqrt(var + 1e-5) * w + b per row; mean and rstd kept for backward (may be 0 when not needed). */
export function layerNorm(x: usize, w: usize, b: usize, y: usize, mean: usize, rstd: usize, C: i32, lo: i32, hi: i32, scratch: usize): void {
  const invC: f32 = 1.0 / <f32>C;
  for (let r = lo; r < hi; r++) {
    const xr = at(x, r * C), yr = at(y, r * C);
    let s = f32x4.splat(0);
    for (let c = 0; c < C; c += 4) s = f32x4.add(s, v128.load(at(xr, c)));
    const m = hsum(s) * invC;
    const mv = f32x4.splat(m);
    let q = f32x4.splat(0);
    for (let c = 0; c < C; c += 4) {
      const d = f32x4.sub(v128.load(at(xr, c)), mv);
      q = f32x4.add(q, f32x4.mul(d, d));
    }
    const rs: f32 = 1.0 / Mathf.sqrt(hsum(q) * invC + 1e-5);
    const rv = f32x4.splat(rs);
    for (let c = 0; c < C; c += 4) {
      const n = f32x4.mul(f32x4.sub(v128.load(at(xr, c)), mv), rv);
      v128.store(at(yr, c), f32x4.add(f32x4.mul(n, v128.load(at(w, c))), v128.load(at(b, c))));
    }
    if (mean) store<f32>(at(mean, r), m);
    if (rstd) store<f32>(at(rstd, r), rs);
  }
}

/** dx[r] += d/dx of the LayerNorm given dy, per row. */
export function layerNormBackward(x: usize, w: usize, mean: usize, rstd: usize, dy: usize, dx: usize, C: i32,
                                  lo: i32, hi: i32, scratch: usize): void {
  const invC: f32 = 1.0 / <f32>C;
  for (let r = lo; r < hi; r++) {
    const xr = at(x, r * C), gr = at(dy, r * C), dr = at(dx, r * C);
    const mv = f32x4.splat(load<f32>(at(mean, r))), rv = f32x4.splat(load<f32>(at(rstd, r)));
    let s1 = f32x4.splat(0), s2 = f32x4.splat(0);
    for (let c = 0; c < C; c += 4) {
      const n = f32x4.mul(f32x4.sub(v128.load(at(xr, c)), mv), rv);
      const g = f32x4.mul(v128.load(at(gr, c)), v128.load(at(w, c)));
      s1 = f32x4.add(s1, g);
      s2 = f32x4.add(s2, f32x4.mul(g, n));
    }
    const m1 = f32x4.splat(hsum(s1) * invC), m2 = f32x4.splat(hsum(s2) * invC);
    for (let c = 0; c < C; c += 4) {
      const n = f32x4.mul(f32x4.sub(v128.load(at(xr, c)), mv), rv);
      const g = f32x4.mul(v128.load(at(gr, c)), v128.load(at(w, c)));
      const d = f32x4.mul(rv, f32x4.sub(f32x4.sub(g, m1), f32x4.mul(n, m2)));
      v128.store(at(dr, c), f32x4.add(v128.load(at(dr, c)), d));
    }
  }
}

/** dw += sum_r dy * xhat, db += sum_r dy over all rows, for columns [4lo, 4hi). */
export function layerNormParamsBackward(x: usize, mean: usize, rstd: usize, dy: usize, dw: usize, db: usize, C: i32, rows: i32,
                                        lo: i32, hi: i32, scratch: usize): void {
  for (let r = 0; r < rows; r++) {
    const xr = at(x, r * C), gr = at(dy, r * C);
    const mv = f32x4.splat(load<f32>(at(mean, r))), rv = f32x4.splat(load<f32>(at(rstd, r)));
    for (let c = lo * 4; c < hi * 4; c += 4) {
      const g = v128.load(at(gr, c));
      const n = f32x4.mul(f32x4.sub(v128.load(at(xr, c)), mv), rv);
      v128.store(at(dw, c), f32x4.add(v128.load(at(dw, c)), f32x4.mul(g, n)));
      v128.store(at(db, c), f32x4.add(v128.load(at(db, c)), g));
    }
  }
}

/** y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) over floats [4lo, 4hi). With keepGrad, x is overwritten by
 *  gelu'(x), so that backward is one multiply instead of a second tanh. */
export function gelu(x: usize, y: usize, keepGrad: i32, lo: i32, hi: i32, scratch: usize): void {
  for (let i = lo * 4; i < hi * 4; i += 4) {
    const v = v128.load(at(x, i));
    const v2 = f32x4.mul(v, v);
    // 0.5 (1 + tanh(u)) = s = 1 / (1 + exp(-2u)), with -2u = x (-2k - 2ka x^2), k = sqrt(2/pi), a = 0.044715: one
    // operation shorter than tanh's 1 - 2 / (exp(2u) + 1) (gelu with gelu' 8.4 -> 7.9 ms per big layer)
    const e = vexp(f32x4.mul(v, f32x4.relaxed_madd(vk(K_GELU_M2KA), v2, vk(K_GELU_M2K))));
    const s = f32x4.div(vk(K_ONE), f32x4.add(e, vk(K_ONE)));
    v128.store(at(y, i), f32x4.mul(v, s));
    if (keepGrad) {
      // d/dx = s + x s (1 - s) 2k (1 + 3a x^2)
      const du = f32x4.relaxed_madd(vk(K_GELU_3KA), v2, vk(K_GELU_K));
      const ss = f32x4.relaxed_nmadd(s, s, s);
      v128.store(at(x, i), f32x4.relaxed_madd(f32x4.mul(v, ss), f32x4.add(du, du), s));
    }
  }
}

/** z = x * y over floats [4lo, 4hi). */
export function mul(x: usize, y: usize, z: usize, lo: i32, hi: i32, scratch: usize): void {
  for (let i = lo * 4; i < hi * 4; i += 4) v128.store(at(z, i), f32x4.mul(v128.load(at(x, i)), v128.load(at(y, i))));
}

/** The largest of row[0, V). */
@inline function rowMax(row: usize, V: i32): f32 {
  const V4 = V & ~3;
  let mx = f32x4.splat(-Infinity);
  let i = 0;
  for (; i < V4; i += 4) mx = f32x4.relaxed_max(mx, v128.load(at(row, i)));
  let m = hmax(mx);
  for (; i < V; i++) m = max(m, load<f32>(at(row, i)));
  return m;
}

/** Softmax of each logits row in place (probabilities), log p(target) (0 where target < 0) and, if asked, the entropy. */
export function softmaxRows(logits: usize, V: i32, targets: usize, logprobs: usize, entropy: usize, lo: i32, hi: i32, scratch: usize): void {
  const V4 = V & ~3;
  for (let r = lo; r < hi; r++) {
    const row = at(logits, r * V);
    const m = rowMax(row, V);
    let i = 0;
    const target = load<i32>(at(targets, r));
    const xt: f32 = target >= 0 ? load<f32>(at(row, target)) : 0;
    const mv = f32x4.splat(m);
    let sv = f32x4.splat(0), sxv = f32x4.splat(0);
    for (i = 0; i < V4; i += 4) {
      const x = v128.load(at(row, i));
      const e = vexp(f32x4.sub(x, mv));
      sv = f32x4.add(sv, e);
      sxv = f32x4.add(sxv, f32x4.mul(e, x));
      v128.store(at(row, i), e);
    }
    let s = hsum(sv), sx = hsum(sxv);
    for (; i < V; i++) {
      const x = load<f32>(at(row, i));
      const e = sexp(x - m);
      s += e;
      sx += e * x;
      store<f32>(at(row, i), e);
    }
    const lse = m + Mathf.log(s);
    store<f32>(at(logprobs, r), target >= 0 ? xt - lse : 0);
    if (entropy) store<f32>(at(entropy, r), lse - sx / s);
    const inv = f32x4.splat(1.0 / s);
    for (i = 0; i < V4; i += 4) v128.store(at(row, i), f32x4.mul(v128.load(at(row, i)), inv));
    for (; i < V; i++) store<f32>(at(row, i), load<f32>(at(row, i)) / s);
  }
}

/** In place: probs row r becomes dL/dlogits = dlogprob[r] * (onehot(target) - p); zero where target < 0. */
export function softmaxRowsBackward(probs: usize, V: i32, targets: usize, dlogprobs: usize, lo: i32, hi: i32, scratch: usize): void {
  const V4 = V & ~3;
  for (let r = lo; r < hi; r++) {
    const row = at(probs, r * V);
    const target = load<i32>(at(targets, r));
    const g: f32 = target >= 0 ? load<f32>(at(dlogprobs, r)) : 0;
    const gv = f32x4.splat(-g);
    let i = 0;
    for (; i < V4; i += 4) v128.store(at(row, i), f32x4.mul(v128.load(at(row, i)), gv));
    for (; i < V; i++) store<f32>(at(row, i), load<f32>(at(row, i)) * -g);
    if (target >= 0) store<f32>(at(row, target), load<f32>(at(row, target)) + g);
  }
}

/** For rows [lo, hi): lse[r] = the row's log-sum-exp and, where invTemps[r] >= 0, weights[r] = exp((logits[r] - max) *
 *  invTemps[r]), the sampler's unnormalised distribution at temperature 1 / invTemps[r] (negative: greedy, no
 *  weights). A weight is 0 below exp(-87) and for a -inf logit (a token a guide masked), whatever the temperature. */
export function sampleWeights(logits: usize, V: i32, invTemps: usize, weights: usize, lse: usize, lo: i32, hi: i32, scratch: usize): void {
  const V4 = V & ~3;
  const floor = vk(K_MIN);
  for (let r = lo; r < hi; r++) {
    const row = at(logits, r * V), w = at(weights, r * V);
    const m = rowMax(row, V);
    let i = 0;
    const t = load<f32>(at(invTemps, r));
    const mv = f32x4.splat(m), tv = f32x4.splat(t);
    let sv = f32x4.splat(0);
    let s: f32 = 0;
    for (i = 0; i < V4; i += 4) {
      const x = f32x4.sub(v128.load(at(row, i)), mv);
      const e = v128.and(vexp(x), f32x4.ge(x, floor));
      sv = f32x4.add(sv, e);
      if (t == 1) v128.store(at(w, i), e);
      else if (t >= 0) {
        const xt = f32x4.mul(x, tv);
        v128.store(at(w, i), v128.and(vexp(xt), f32x4.ge(xt, floor)));
      }
    }
    for (; i < V; i++) {
      const x = load<f32>(at(row, i)) - m;
      s += x >= -87 ? sexp(x) : 0;
      if (t >= 0) store<f32>(at(w, i), x * t >= -87 ? sexp(x * t) : 0);
    }
    store<f32>(at(lse, r), m + Mathf.log(hsum(sv) + s));
  }
}

// ---------------------------------------------------------------- attention (training: causal, whole sequences)
// qkv: (B, T, 3C) with q | k | v, head h at columns h*hs of each. out: (B, T, C). lse: (B, nh, T), log-sum-exp of the scaled scores.
// Work items are (b, h) pairs. Attention runs as GEMMs on row blocks of RB queries, skipping the masked upper triangle
// block by block; backward reads the probabilities that forward kept, or recomputes them from lse (memory budget in gpt.ts).

const RB: i32 = 32;

/** Floats of per-thread scratch the attention kernels need. */
export function attnScratchFloats(T: i32, hs: i32): i32 {
  return 2 * hs * T + 2 * T * T + GEMM_SCRATCH_FLOATS + 64;
}

// Scores of query rows [r0, r1) against keys [0, r1) -> S (ld T), softmax with the causal mask applied; returns nothing,
// S rows hold probabilities with zeros above the diagonal. Saves lse if asked.
function causalProbs(Q: usize, ld: i32, KT: usize, S: usize, T: i32, hs: i32, scale: f32, r0: i32, r1: i32, lse: usize,
                     saveLse: bool, gemmScratch: usize): void {
  gemmBlock(at(Q, r0 * ld), ld, KT, T, at(S, r0 * T), T, 0, hs, false, 0, r1 - r0, 0, r1, gemmScratch);
  const sv = f32x4.splat(scale);
  for (let t = r0; t < r1; t++) {
    const row = at(S, t * T);
    const n = t + 1;
    const n4 = n & ~3;
    let m: f32 = -Infinity;
    let mx = f32x4.splat(-Infinity);
    let j = 0;
    for (; j < n4; j += 4) mx = f32x4.relaxed_max(mx, v128.load(at(row, j)));
    m = hmax(mx);
    for (; j < n; j++) m = max(m, load<f32>(at(row, j)));
    m *= scale;
    let l: f32;
    if (saveLse) {
      const mv = f32x4.splat(m);
      let s = f32x4.splat(0);
      for (j = 0; j < n4; j += 4) {
        const e = vexp(f32x4.sub(f32x4.mul(v128.load(at(row, j)), sv), mv));
        s = f32x4.add(s, e);
        v128.store(at(row, j), e);
      }
      let ss = hsum(s);
      for (; j < n; j++) {
        const e = sexp(load<f32>(at(row, j)) * scale - m);
        ss += e;
        store<f32>(at(row, j), e);
      }
      l = m + Mathf.log(ss);
      store<f32>(at(lse, t), l);
      const inv = f32x4.splat(1.0 / ss);
      for (j = 0; j < n4; j += 4) v128.store(at(row, j), f32x4.mul(v128.load(at(row, j)), inv));
      for (; j < n; j++) store<f32>(at(row, j), load<f32>(at(row, j)) / ss);
    } else {
      l = load<f32>(at(lse, t));
      const lv = f32x4.splat(l);
      for (j = 0; j < n4; j += 4) v128.store(at(row, j), vexp(f32x4.sub(f32x4.mul(v128.load(at(row, j)), sv), lv)));
      for (; j < n; j++) store<f32>(at(row, j), sexp(load<f32>(at(row, j)) * scale - l));
    }
    for (j = n; j < r1; j++) store<f32>(at(row, j), 0);
  }
}

/** out (B, T, C) = causal attention of qkv (B, T, 3C); lse kept for backward, and the probabilities too if probs is not 0
 *  (probs: (B, nh, T, T), causal part only), so that backward need not recompute them. */
export function attnForward(qkv: usize, out: usize, lse: usize, probs: usize, T: i32, C: i32, nh: i32, lo: i32, hi: i32,
                            scratch: usize): void {
  const hs = C / nh, ld = 3 * C;
  const scale: f32 = 1.0 / Mathf.sqrt(<f32>hs);
  const KT = scratch, gs = at(KT, hs * T + T * T);
  for (let bh = lo; bh < hi; bh++) {
    const S = probs ? at(probs, bh * T * T) : at(KT, hs * T);
    const b = bh / nh, h = bh % nh;
    const base = at(qkv, b * T * ld);
    const Q = at(base, h * hs), K = at(base, C + h * hs), V = at(base, 2 * C + h * hs);
    const O = at(out, b * T * C + h * hs);
    const L = at(lse, bh * T);
    transpose(K, ld, KT, T, T, 0, hs, 0);
    for (let r0 = 0; r0 < T; r0 += RB) {
      const r1 = min(T, r0 + RB);
      causalProbs(Q, ld, KT, S, T, hs, scale, r0, r1, L, true, gs);
      // O[r0:r1] = P[r0:r1, 0:r1] @ V[0:r1]
      gemmBlock(at(S, r0 * T), T, V, ld, at(O, r0 * C), C, 0, r1, false, 0, r1 - r0, 0, hs, gs);
    }
  }
}

/** dqkv (B, T, 3C) gets the gradients of q, k, v (overwritten) from dout (B, T, C); probs: those saved by attnForward, or
 *  0 to recompute them from lse. */
export function attnBackward(qkv: usize, out: usize, dout: usize, lse: usize, probs: usize, dqkv: usize, T: i32, C: i32, nh: i32,
                             lo: i32, hi: i32, scratch: usize): void {
  const hs = C / nh, ld = 3 * C;
  const scale: f32 = 1.0 / Mathf.sqrt(<f32>hs);
  const KT = scratch, VT = at(KT, hs * T);
  const dS = at(VT, hs * T), gs = at(dS, T * T + T * T);
  const sv = f32x4.splat(scale);
  for (let bh = lo; bh < hi; bh++) {
    const P = probs ? at(probs, bh * T * T) : at(dS, T * T);
    const b = bh / nh, h = bh % nh;
    const base = at(qkv, b * T * ld), dbase = at(dqkv, b * T * ld);
    const Q = at(base, h * hs), K = at(base, C + h * hs), V = at(base, 2 * C + h * hs);
    const dQ = at(dbase, h * hs), dK = at(dbase, C + h * hs), dV = at(dbase, 2 * C + h * hs);
    const O = at(out, b * T * C + h * hs), dO = at(dout, b * T * C + h * hs);
    const L = at(lse, bh * T);
    if (!probs) transpose(K, ld, KT, T, T, 0, hs, 0);
    transpose(V, ld, VT, T, T, 0, hs, 0);
    for (let r0 = 0; r0 < T; r0 += RB) {
      const r1 = min(T, r0 + RB);
      if (!probs) causalProbs(Q, ld, KT, P, T, hs, scale, r0, r1, L, false, gs);
      // dP[r0:r1, 0:r1] = dO[r0:r1] @ V[0:r1]^T
      gemmBlock(at(dO, r0 * C), C, VT, T, at(dS, r0 * T), T, 0, hs, false, 0, r1 - r0, 0, r1, gs);
      // dS = P * (dP - sum_j P dP) * scale; sum_j P dP = dO . O
      for (let t = r0; t < r1; t++) {
        let dv = f32x4.splat(0);
        const o = at(O, t * C), g = at(dO, t * C);
        for (let d = 0; d < hs; d += 4) dv = f32x4.add(dv, f32x4.mul(v128.load(at(o, d)), v128.load(at(g, d))));
        const Dv = f32x4.splat(hsum(dv));
        const pr = at(P, t * T), sr = at(dS, t * T);
        const n4 = r1 & ~3;
        let j = 0;
        for (; j < n4; j += 4) {
          v128.store(at(sr, j), f32x4.mul(f32x4.mul(v128.load(at(pr, j)), f32x4.sub(v128.load(at(sr, j)), Dv)), sv));
        }
        const D = f32x4.extract_lane(Dv, 0);
        for (; j < r1; j++) store<f32>(at(sr, j), load<f32>(at(pr, j)) * (load<f32>(at(sr, j)) - D) * scale);
      }
      // dQ[r0:r1] = dS[r0:r1, 0:r1] @ K[0:r1]
      gemmBlock(at(dS, r0 * T), T, K, ld, at(dQ, r0 * ld), ld, 0, r1, false, 0, r1 - r0, 0, hs, gs);
    }
    // dV = P^T dO and dK = dS^T Q, by key blocks j0..j1 summing over queries t >= j0. The blocks match the query
    // row blocks above, so every entry read was written (zeros above the diagonal).
    for (let j0 = 0; j0 < T; j0 += RB) {
      const j1 = min(T, j0 + RB);
      gemmBlockTA(at(P, j0 * T + j0), T, at(dO, j0 * C), C, at(dV, j0 * ld), ld, T - j0, false, 0, 0, j1 - j0, 0, hs, gs);
      gemmBlockTA(at(dS, j0 * T + j0), T, at(Q, j0 * ld), ld, at(dK, j0 * ld), ld, T - j0, false, 0, 0, j1 - j0, 0, hs, gs);
    }
  }
}

// ---------------------------------------------------------------- attention with a KV cache (sampling)
// Cache per layer: K as (slots, nh, hs, ctx) so that scores vectorize over positions, V as (slots, nh, ctx, hs).
// ctx is a multiple of 16 (the score loop reads whole blocks; lanes past the position are ignored).

/** Writes the k and v of rows [lo, hi) of qkv (M, 3C) into the cache at (slots[r], positions[r]). */
function kvWrite(qkv: usize, kc: usize, vc: usize, slots: usize, positions: usize, C: i32, nh: i32, ctx: i32,
                        lo: i32, hi: i32, scratch: usize): void {
  const hs = C / nh;
  for (let r = lo; r < hi; r++) {
    const s = load<i32>(at(slots, r)), p = load<i32>(at(positions, r));
    const row = at(qkv, r * 3 * C);
    for (let h = 0; h < nh; h++) {
      const kb = at(kc, ((s * nh + h) * ctx + p) * hs), vb = at(vc, ((s * nh + h) * ctx + p) * hs);
      for (let d = 0; d < hs; d += 4) {
        v128.store(at(kb, d), v128.load(at(row, C + h * hs + d)));
        v128.store(at(vb, d), v128.load(at(row, 2 * C + h * hs + d)));
      }
    }
  }
}

/** out[r, head h] = softmax(q k^T / sqrt(hs)) v over cached positions 0..positions[r], for work items r*nh+h in [lo, hi). */
function kvAttend(qkv: usize, out: usize, kc: usize, vc: usize, slots: usize, positions: usize, C: i32, nh: i32, ctx: i32,
                         lo: i32, hi: i32, scratch: usize): void {
  const hs = C / nh;
  const scale: f32 = 1.0 / Mathf.sqrt(<f32>hs);
  const sc = scratch;
  for (let item = lo; item < hi; item++) {
    const r = item / nh, h = item % nh;
    const s = load<i32>(at(slots, r)), p = load<i32>(at(positions, r));
    const q = at(qkv, r * 3 * C + h * hs);
    const kb = at(kc, ((s * nh + h) * ctx) * hs), vb = at(vc, ((s * nh + h) * ctx) * hs);
    const n = p + 1;
    // Keys are stored a position per row, like values, so the scores stream through one contiguous block: four
    // positions at a time, each a vector of partial sums over d, reduced to four scores by a 4 x 4 transpose. (Stored
    // a dimension per row, the scores read hs rows at once, hs streams the prefetcher lost track of: attention took 36%
    // of a `big` decoding step.)
    const rowB = <usize>hs << 2;
    for (let j0 = 0; j0 < n; j0 += 4) {
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      let kr = at(kb, j0 * hs);
      for (let d = 0; d < hs; d += 4) {
        const qd = v128.load(at(q, d));
        a0 = f32x4.relaxed_madd(qd, v128.load(kr), a0);
        a1 = f32x4.relaxed_madd(qd, v128.load(kr + rowB), a1);
        a2 = f32x4.relaxed_madd(qd, v128.load(kr + 2 * rowB), a2);
        a3 = f32x4.relaxed_madd(qd, v128.load(kr + 3 * rowB), a3);
        kr += 16;
      }
      const s01 = f32x4.add(v128.shuffle<f32>(a0, a1, 0, 4, 1, 5), v128.shuffle<f32>(a0, a1, 2, 6, 3, 7));
      const s23 = f32x4.add(v128.shuffle<f32>(a2, a3, 0, 4, 1, 5), v128.shuffle<f32>(a2, a3, 2, 6, 3, 7));
      v128.store(at(sc, j0), f32x4.add(v128.shuffle<f32>(s01, s23, 0, 1, 4, 5), v128.shuffle<f32>(s01, s23, 2, 3, 6, 7)));
    }
    // softmax over the n valid scores; lanes n..nb of the last block are masked to 0 after the exponential
    const nb = (n + 15) & ~15;
    for (let j = n; j < nb; j++) store<f32>(at(sc, j), -Infinity);
    let mx = f32x4.splat(-Infinity);
    for (let j = 0; j < nb; j += 4) mx = f32x4.relaxed_max(mx, v128.load(at(sc, j)));
    const mv = f32x4.splat(hmax(mx) * scale), sv = f32x4.splat(scale);
    let sum = f32x4.splat(0);
    for (let j = 0; j < nb; j += 4) {
      const e = vexp(f32x4.sub(f32x4.mul(v128.load(at(sc, j)), sv), mv));
      sum = f32x4.add(sum, e);
      v128.store(at(sc, j), e);
    }
    for (let j = n; j < nb; j++) store<f32>(at(sc, j), 0);
    // (a masked lane added exp(-87) = 1.6e-38 to the sum: far below float precision)
    const inv = f32x4.splat(1.0 / hsum(sum));
    const o = at(out, r * C + h * hs);
    let d = 0;
    const vs = <usize>hs << 2;
    for (; d + 32 <= hs; d += 32) {
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      let a4 = f32x4.splat(0), a5 = f32x4.splat(0), a6 = f32x4.splat(0), a7 = f32x4.splat(0);
      let vr = at(vb, d);
      for (let j = 0; j < n; j++) {
        const pj = v128.load32_splat(at(sc, j));
        a0 = f32x4.relaxed_madd(pj, v128.load(vr), a0);
        a1 = f32x4.relaxed_madd(pj, v128.load(vr, 16), a1);
        a2 = f32x4.relaxed_madd(pj, v128.load(vr, 32), a2);
        a3 = f32x4.relaxed_madd(pj, v128.load(vr, 48), a3);
        a4 = f32x4.relaxed_madd(pj, v128.load(vr, 64), a4);
        a5 = f32x4.relaxed_madd(pj, v128.load(vr, 80), a5);
        a6 = f32x4.relaxed_madd(pj, v128.load(vr, 96), a6);
        a7 = f32x4.relaxed_madd(pj, v128.load(vr, 112), a7);
        vr += vs;
      }
      v128.store(at(o, d), f32x4.mul(a0, inv));
      v128.store(at(o, d + 4), f32x4.mul(a1, inv));
      v128.store(at(o, d + 8), f32x4.mul(a2, inv));
      v128.store(at(o, d + 12), f32x4.mul(a3, inv));
      v128.store(at(o, d + 16), f32x4.mul(a4, inv));
      v128.store(at(o, d + 20), f32x4.mul(a5, inv));
      v128.store(at(o, d + 24), f32x4.mul(a6, inv));
      v128.store(at(o, d + 28), f32x4.mul(a7, inv));
    }
    for (; d + 16 <= hs; d += 16) {
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      let vr = at(vb, d);
      for (let j = 0; j < n; j++) {
        const pj = v128.load32_splat(at(sc, j));
        a0 = f32x4.add(a0, f32x4.mul(pj, v128.load(vr)));
        a1 = f32x4.add(a1, f32x4.mul(pj, v128.load(vr, 16)));
        a2 = f32x4.add(a2, f32x4.mul(pj, v128.load(vr, 32)));
        a3 = f32x4.add(a3, f32x4.mul(pj, v128.load(vr, 48)));
        vr += vs;
      }
      v128.store(at(o, d), f32x4.mul(a0, inv));
      v128.store(at(o, d + 4), f32x4.mul(a1, inv));
      v128.store(at(o, d + 8), f32x4.mul(a2, inv));
      v128.store(at(o, d + 12), f32x4.mul(a3, inv));
    }
    for (; d < hs; d += 4) {
      let acc = f32x4.splat(0);
      for (let j = 0; j < n; j++) {
        acc = f32x4.add(acc, f32x4.mul(v128.load32_splat(at(sc, j)), v128.load(at(vb, j * hs + d))));
      }
      v128.store(at(o, d), f32x4.mul(acc, inv));
    }
  }
}

/** Packs panels [lo, hi) of B (K x N, leading dimension ldb) whole: panel p holds columns 8p..8p+7 (zero-padded past N)
 *  for every k, at out + p * K * 8 floats, the layout gemmPanels reads. */
export function packPanels(B: usize, ldb: i32, K: i32, N: i32, out: usize, lo: i32, hi: i32, scratch: usize): void {
  for (let p = lo; p < hi; p++) packB(at(B, p * 8), ldb, K, min(8, N - p * 8), at(out, p * 8 * K));
}

// Rows [lo, hi) of C = (accumulate ? C : 0) + bias + A @ B for B packed whole by packPanels: decoding's GEMM. Each
// panel is streamed in order once per block of 16 rows and then read from L1 for the rest of the block; read in place,
// B's 8 columns of a k sit a whole row of B apart from the next k's (with the other changes of that round, a `big`
// decoding step 8% faster). Same operations in the same order as gemmBlock, so the results are the same bit for bit.
function gemmPanels(A: usize, lda: i32, Bp: usize, K: i32, N: i32, C: usize, ldc: i32, bias: usize, accumulate: bool,
                    lo: i32, hi: i32, scratch: usize): void {
  const tmp = scratch;
  const ldaB = <usize>lda << 2, ldcB = <usize>ldc << 2;
  for (let i0 = lo; i0 < hi; i0 += 16) {
    const i1 = min(hi, i0 + 16);
    for (let j = 0; j < N; j += 8) {
      const w = min(8, N - j), panel = at(Bp, j * K), b = bias ? at(bias, j) : 0;
      let i = i0;
      for (; i + 4 <= i1; i += 4) {
        const c = at(C, i * ldc + j);
        tile4(at(A, i * lda), ldaB, panel, 32, c, c, ldcB, K, w, accumulate, b, tmp);
      }
      for (; i < i1; i++) {
        const c = at(C, i * ldc + j);
        tile1(at(A, i * lda), panel, 32, c, c, K, w, accumulate, b, tmp);
      }
    }
  }
}

// One whole forward step of the network for rows [lo, hi) with the KV cache: rows are independent once their slots are
// distinct (decoding), so a thread runs all layers for its rows and the threads meet once per step, not once per kernel.
// Rows of one slot (a prompt) must all be in one call, in position order.
// The descriptor holds int32 fields (D_*, in the order of kv-cache.ts's DESC_FIELDS). The weights are found through its
// weight table (D_WEIGHTS), pointers that kv-cache.ts writes from gpt.ts's parameter layout: wte, wpe, ln_f's weight and
// bias (T_*), then each layer's tensors (L_*, the order of kv-cache.ts's LAYER_FIELDS); wpe is 0 where D_ROPE points to
// the rotary positions' table (rope), which is 0 for learned positions.
export const DESC_FIELDS: i32 = 21;
const D_V = 0, D_C = 1, D_L = 2, D_NH = 3, D_K = 4, D_VC = 5, D_SLOTS = 6, D_CTX = 7;
const D_WTET = 8, D_TOK = 9, D_SLOT = 10, D_POS = 11, D_X = 12, D_LN = 13, D_QKV = 14, D_ATTY = 15, D_FC = 16, D_LOGITS = 17;
const D_PACKED = 18, D_WEIGHTS = 19, D_ROPE = 20;
const T_WTE = 0, T_WPE = 1, T_LNFW = 2, T_LNFB = 3, T_LAYERS = 4;
const L_LN1W = 0, L_LN1B = 1, L_ATTNW = 2, L_ATTNB = 3, L_PROJW = 4, L_PROJB = 5, L_LN2W = 6, L_LN2B = 7;
const L_FCW = 8, L_FCB = 9, L_FC2W = 10, L_FC2B = 11, LAYER_FIELDS = 12;

@inline function field(desc: usize, i: i32): i32 {
  return load<i32>(at(desc, i));
}

/** Entry i of the descriptor's weight table. */
@inline function weight(desc: usize, i: i32): usize {
  return <usize>load<i32>(at(<usize>field(desc, D_WEIGHTS), i));
}

/** Tensor f (L_*) of layer l. */
@inline function layerWeight(desc: usize, l: i32, f: i32): usize {
  return weight(desc, T_LAYERS + l * LAYER_FIELDS + f);
}

@inline function pad8(n: i32): i32 {
  return (n + 7) & ~7;
}

/** Floats of one layer's matmul weights packed by packLayers (c_attn, c_proj, c_fc, mlp c_proj, in that order). */
export function packedLayerFloats(C: i32): i32 {
  return C * pad8(3 * C) + C * pad8(C) + C * pad8(4 * C) + 4 * C * pad8(C);
}

// Layer l's matmul weight m (0 c_attn, 1 c_proj, 2 c_fc, 3 mlp c_proj): its (K, N), its tensor in the weight table, and
// where packLayers puts it, so that decodeRows and packLayers read one layout.
@inline function weightK(C: i32, m: i32): i32 {
  return m == 3 ? 4 * C : C;
}

@inline function weightN(C: i32, m: i32): i32 {
  return m == 0 ? 3 * C : m == 2 ? 4 * C : C;
}

@inline function weightField(m: i32): i32 {
  return m == 0 ? L_ATTNW : m == 1 ? L_PROJW : m == 2 ? L_FCW : L_FC2W;
}

@inline function packedWeightAt(packed: usize, l: i32, C: i32, m: i32): usize {
  let p = at(packed, l * packedLayerFloats(C));
  for (let j = 0; j < m; j++) p = at(p, weightK(C, j) * pad8(weightN(C, j)));
  return p;
}

/** Packs the matmul weights of layers [lo, hi) whole by packPanels into the descriptor's packed region: decoding reads
 *  every weight once per token, so kv-cache.ts packs them once, when it makes a cache. */
export function packLayers(desc: usize, lo: i32, hi: i32, scratch: usize): void {
  const C = field(desc, D_C), packed = <usize>field(desc, D_PACKED);
  for (let l = lo; l < hi; l++) {
    for (let m = 0; m < 4; m++) {
      const K = weightK(C, m), N = weightN(C, m);
      packPanels(layerWeight(desc, l, weightField(m)), N, K, N, packedWeightAt(packed, l, C, m), 0, (N + 7) >> 3, scratch);
    }
  }
}

export function decodeRows(desc: usize, lo: i32, hi: i32, scratch: usize): void {
  const V = field(desc, D_V), C = field(desc, D_C);
  const L = field(desc, D_L), nh = field(desc, D_NH), ctx = field(desc, D_CTX), slotCount = field(desc, D_SLOTS);
  const kc = <usize>field(desc, D_K), vc = <usize>field(desc, D_VC), wteP = <usize>field(desc, D_WTET);
  const tok = <usize>field(desc, D_TOK), slots = <usize>field(desc, D_SLOT), pos = <usize>field(desc, D_POS);
  const x = <usize>field(desc, D_X), ln = <usize>field(desc, D_LN), qkv = <usize>field(desc, D_QKV);
  const atty = <usize>field(desc, D_ATTY), fc = <usize>field(desc, D_FC), logits = <usize>field(desc, D_LOGITS);
  const packed = <usize>field(desc, D_PACKED), ropeTable = <usize>field(desc, D_ROPE);
  const cacheSize = slotCount * C * ctx;
  embed(tok, pos, weight(desc, T_WTE), weight(desc, T_WPE), x, C, lo, hi, scratch);
  for (let l = 0; l < L; l++) {
    const attnP = packedWeightAt(packed, l, C, 0), projP = packedWeightAt(packed, l, C, 1);
    const fcP = packedWeightAt(packed, l, C, 2), fc2P = packedWeightAt(packed, l, C, 3);
    const kl = at(kc, l * cacheSize), vl = at(vc, l * cacheSize);
    // qkv = ln_1(x) @ c_attn; cache k, v; atty = attention over each row's positions 0..pos; x += atty @ c_proj
    layerNorm(x, layerWeight(desc, l, L_LN1W), layerWeight(desc, l, L_LN1B), ln, 0, 0, C, lo, hi, scratch);
    gemmPanels(ln, C, attnP, C, 3 * C, qkv, 3 * C, layerWeight(desc, l, L_ATTNB), false, lo, hi, scratch);
    if (ropeTable) rope(qkv, pos, ropeTable, C, nh, 1, lo, hi, scratch);
    kvWrite(qkv, kl, vl, slots, pos, C, nh, ctx, lo, hi, scratch);
    kvAttend(qkv, atty, kl, vl, slots, pos, C, nh, ctx, lo * nh, hi * nh, scratch);
    gemmPanels(atty, C, projP, C, C, x, C, layerWeight(desc, l, L_PROJB), true, lo, hi, scratch);
    // x += gelu(ln_2(x) @ c_fc) @ c_proj
    layerNorm(x, layerWeight(desc, l, L_LN2W), layerWeight(desc, l, L_LN2B), ln, 0, 0, C, lo, hi, scratch);
    gemmPanels(ln, C, fcP, C, 4 * C, fc, 4 * C, layerWeight(desc, l, L_FCB), false, lo, hi, scratch);
    gelu(at(fc, lo * 4 * C), at(fc, lo * 4 * C), 0, 0, (hi - lo) * C, scratch);
    gemmPanels(fc, 4 * C, fc2P, 4 * C, C, x, C, layerWeight(desc, l, L_FC2B), true, lo, hi, scratch);
  }
  // logits = ln_f(x) @ wte^T
  layerNorm(x, weight(desc, T_LNFW), weight(desc, T_LNFB), ln, 0, 0, C, lo, hi, scratch);
  gemmPanels(ln, C, wteP, C, V, logits, V, 0, false, lo, hi, scratch);
}

// ---------------------------------------------------------------- optimizer

/** sum of squares of n floats (as f64). */
export function sumSquares(x: usize, n: i32): f64 {
  let acc: f64 = 0;
  for (let i0 = 0; i0 < n; i0 += 4096) {
    const i1 = min(n, i0 + 4096);
    let v = f32x4.splat(0);
    let i = i0;
    for (; i + 4 <= i1; i += 4) {
      const x4 = v128.load(at(x, i));
      v = f32x4.add(v, f32x4.mul(x4, x4));
    }
    let s: f64 = <f64>hsum(v);
    for (; i < i1; i++) { const y = load<f32>(at(x, i)); s += <f64>(y * y); }
    acc += s;
  }
  return acc;
}

/** x *= s over floats [lo, hi). */
export function scale(x: usize, s: f32, lo: i32, hi: i32, scratch: usize): void {
  for (let i = lo; i < hi; i++) store<f32>(at(x, i), load<f32>(at(x, i)) * s);
}

// PyTorch's AdamW over floats [i0, i1) with decay factor `decay` (1 - lr wd, or 1): same operations, same order, in every lane.
function adamwRange(p: usize, g: usize, m: usize, v: usize, b1: f32, b2: f32, eps: f32, decay: f32, stepSize: f32, rbc2: f32,
                    i0: i32, i1: i32): void {
  const vb1 = f32x4.splat(b1), vb1c = f32x4.splat(1 - b1), vb2 = f32x4.splat(b2), vb2c = f32x4.splat(1 - b2);
  const veps = f32x4.splat(eps), vdecay = f32x4.splat(decay), vstep = f32x4.splat(stepSize), vr = f32x4.splat(rbc2);
  let i = i0;
  for (; i < i0 + ((i1 - i0) & ~3); i += 4) {
    const gi = v128.load(at(g, i));
    const mi = f32x4.add(f32x4.mul(vb1, v128.load(at(m, i))), f32x4.mul(vb1c, gi));
    const vi = f32x4.add(f32x4.mul(vb2, v128.load(at(v, i))), f32x4.mul(f32x4.mul(vb2c, gi), gi));
    v128.store(at(m, i), mi);
    v128.store(at(v, i), vi);
    const den = f32x4.add(f32x4.mul(f32x4.sqrt(vi), vr), veps);
    v128.store(at(p, i), f32x4.sub(f32x4.mul(v128.load(at(p, i)), vdecay), f32x4.div(f32x4.mul(vstep, mi), den)));
  }
  for (; i < i1; i++) {
    const gi = load<f32>(at(g, i));
    const mi = b1 * load<f32>(at(m, i)) + (1 - b1) * gi;
    const vi = b2 * load<f32>(at(v, i)) + (1 - b2) * gi * gi;
    store<f32>(at(m, i), mi);
    store<f32>(at(v, i), vi);
    store<f32>(at(p, i), load<f32>(at(p, i)) * decay - stepSize * mi / (Mathf.sqrt(vi) * rbc2 + eps));
  }
}

/** PyTorch's AdamW over floats [lo, hi) of all parameters: p *= 1 - lr wd inside the decayed ranges (int32 pairs
 *  [start, end) at decayRanges, sorted), m and v moments, p -= lr/bc1 * m / (sqrt(v)/sqrt(bc2) + eps). */
export function adamw(p: usize, g: usize, m: usize, v: usize, lr: f32, b1: f32, b2: f32, eps: f32, wd: f32, bc1: f32, bc2: f32,
                      decayRanges: usize, nRanges: i32, lo: i32, hi: i32, scratch: usize): void {
  const decay: f32 = 1 - lr * wd, stepSize: f32 = lr / bc1, rbc2: f32 = 1.0 / Mathf.sqrt(bc2);
  let i = lo;
  for (let r = 0; r < nRanges && i < hi; r++) {
    const a = min(hi, max(i, load<i32>(at(decayRanges, 2 * r)))), b = min(hi, load<i32>(at(decayRanges, 2 * r + 1)));
    if (b <= i) continue;
    adamwRange(p, g, m, v, b1, b2, eps, 1, stepSize, rbc2, i, a);
    adamwRange(p, g, m, v, b1, b2, eps, decay, stepSize, rbc2, a, b);
    i = b;
  }
  adamwRange(p, g, m, v, b1, b2, eps, 1, stepSize, rbc2, i, hi);
}
