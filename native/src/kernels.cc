// The native kernels of the student GPT, one translation unit compiled once per instruction set: KERNEL_ISA names the
// namespace (isa_generic, isa_avx2, isa_avx512) and VW the float lanes of a vector (4, 8, 16). Every kernel does what the
// wasm kernel of the same name in assembly/kernels.ts does, on the same arguments and work range [lo, hi): that file is
// the specification, this one a faster route to the same numbers (float32 rounding aside). GEMMs run in gemm.h, or in
// OpenBLAS where the addon found it at run time and a measurement chose it (viaBlas); the rest is written with GCC's
// vector extensions, which the compiler lowers to the widest registers the unit is built for.
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels.h"

#ifndef KERNEL_ISA
#define KERNEL_ISA isa_generic
#endif
#ifndef VW
#define VW 4
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

namespace canvasgym {
namespace KERNEL_ISA {
namespace {

typedef float vf __attribute__((vector_size(VW * 4)));
typedef int32_t vi __attribute__((vector_size(VW * 4)));
typedef float v8 __attribute__((vector_size(32)));

inline vf vload(const float* p) { vf v; std::memcpy(&v, p, sizeof v); return v; }
inline void vstore(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
// A broadcast (`vf{} + x` would add a zero first, one more instruction on every use in the GEMM's inner loop).
#if defined(__clang__)
inline vf vsplat(float x) { vf v; for (int i = 0; i < VW; i++) v[i] = x; return v; }
#else
inline vf vsplat(float x) { const vf v = {x}; return __builtin_shuffle(v, vi{}); }
#endif
inline vf vmax(vf a, vf b) { return a > b ? a : b; }
inline vf vmin(vf a, vf b) { return a < b ? a : b; }
inline float hsum(vf v) { float s = 0; for (int i = 0; i < VW; i++) s += v[i]; return s; }
inline float hmax(vf v) { float m = v[0]; for (int i = 1; i < VW; i++) m = std::max(m, v[i]); return m; }

// exp as in the wasm kernels: clamp to [-87, 88], n = round(x log2 e) by the 1.5 * 2^23 trick, r = x - n ln 2 in two
// parts, a degree-6 polynomial, 2^n built in the exponent bits.
constexpr float LOG2E = 1.44269504f, LN2_HI = 0.693359375f, LN2_LO = -2.12194440e-4f, ROUND = 12582912.0f;
inline vf vexp(vf x) {
  x = vmin(vmax(x, vsplat(-87.0f)), vsplat(88.0f));
  const vf t = x * LOG2E + ROUND;
  const vf n = t - ROUND;
  vf r = x - n * LN2_HI;
  r = r - n * LN2_LO;
  vf p = vsplat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const vi e = ((vi)t + 127) << 23;
  return p * (vf)e;
}
inline float sexp(float x) { return vexp(vsplat(x))[0]; }

constexpr float GELU_K = 0.7978845608f, GELU_A = 0.044715f;

// y = gelu(x) over n floats; with keepGrad x becomes gelu'(x) (gelu's formula in the wasm kernels: 0.5 (1 + tanh u) as
// 1 / (1 + exp(-2u))).
inline void geluSpan(float* x, float* y, long n, bool keepGrad) {
  long i = 0;
  for (; i + VW <= n; i += VW) {
    const vf v = vload(x + i), v2 = v * v;
    const vf e = vexp(v * (v2 * (-2 * GELU_K * GELU_A) + (-2 * GELU_K)));
    const vf s = 1.0f / (e + 1.0f);
    vstore(y + i, v * s);
    if (keepGrad) {
      const vf du = v2 * (3 * GELU_K * GELU_A) + GELU_K;
      vstore(x + i, (v * (s - s * s)) * (du + du) + s);
    }
  }
  for (; i < n; i++) {
    const float v = x[i], v2 = v * v;
    const float s = 1.0f / (sexp(v * (v2 * (-2 * GELU_K * GELU_A) + (-2 * GELU_K))) + 1.0f);
    y[i] = v * s;
    if (keepGrad) {
      const float du = v2 * (3 * GELU_K * GELU_A) + GELU_K;
      x[i] = (v * (s - s * s)) * (du + du) + s;
    }
  }
}

// ---------------------------------------------------------------- GEMM

#include "gemm.h"

/** Which GEMMs go through BLAS instead of gemm.h: 0 none, 1 all, 2 (the default) those where OpenBLAS was faster here
 *  with cold caches: the weight gradients (transposed A: 69-74 against 75-79 GFLOP/s per core) and K over two blocks
 *  (4096 x 1024 x 256 with the residual: 69-74 against 64-71); gemm.h kept the rest (K <= 256: 69-80 against 61-77;
 *  4096 x 512 x 128: 53-67 against 49-59; and its epilogues in registers). Through BLAS, the epilogues become passes
 *  over C. CANVASGYM_NATIVE_GEMM=own|blas picks 0 or 1. */
int useBlas = 0;
SgemmFn sgemm = nullptr;

inline bool viaBlas(bool ta, int K) { return sgemm && useBlas != 0 && !(useBlas == 2 && !ta && K <= 2 * KC) && K > 0; }

/** colSums[j] += the sum of column j of B (K x N) over its K rows, for columns [j0, j1). */
void columnSums(const float* B, long ldb, int K, int j0, int j1, float* colSums) {
  int j = j0;
  for (; j + 4 * VW <= j1; j += 4 * VW) {
    vf a0 = vf{}, a1 = vf{}, a2 = vf{}, a3 = vf{};
    for (int k = 0; k < K; k++) {
      const float* b = B + (long)k * ldb + j;
      a0 += vload(b); a1 += vload(b + VW); a2 += vload(b + 2 * VW); a3 += vload(b + 3 * VW);
    }
    vstore(colSums + j, vload(colSums + j) + a0);
    vstore(colSums + j + VW, vload(colSums + j + VW) + a1);
    vstore(colSums + j + 2 * VW, vload(colSums + j + 2 * VW) + a2);
    vstore(colSums + j + 3 * VW, vload(colSums + j + 3 * VW) + a3);
  }
  for (; j < j1; j++) {
    float a = 0;
    for (int k = 0; k < K; k++) a += B[(long)k * ldb + j];
    colSums[j] += a;
  }
}

/** Rows [m0, m1) of C = start + op(A) op(B), then the epilogue, as gemm() computes it; colSums (gemm.h only) as gemm's. */
void mm(bool ta, bool tb, int m0, int m1, int N, int K, const float* A, long lda, const float* B, long ldb, float* C, long ldc,
        const Epi& e, float* colSums = nullptr) {
  if (!viaBlas(ta, K)) return gemm(ta, tb, m0, m1, N, K, A, lda, B, ldb, C, ldc, e, colSums);
  if (m1 <= m0 || N <= 0) return;
  for (int i = m0; i < m1; i++) {
    float* c = C + (long)i * ldc;
    if (!e.accumulate || e.bias || e.residual) {
      const float* r = e.residual ? e.residual + (long)i * ldc : nullptr;
      for (int j = 0; j < N; j++) c[j] = (e.accumulate ? c[j] : r ? r[j] : 0.0f) + (e.bias ? e.bias[j] : 0.0f);
    }
  }
  constexpr int rowMajor = 101, noTrans = 111, trans = 112;
  sgemm(rowMajor, ta ? trans : noTrans, tb ? trans : noTrans, m1 - m0, N, K, 1.0f,
              ta ? A + m0 : A + (long)m0 * lda, lda, B, ldb, 1.0f, C + (long)m0 * ldc, ldc);
  for (int i = m0; i < m1; i++) {
    float* c = C + (long)i * ldc;
    if (e.geluOut) geluSpan(c, e.geluOut + (long)i * ldc, N, true);
    if (e.mulBy) for (int j = 0; j < N; j++) c[j] *= e.mulBy[(long)i * ldc + j];
  }
}

// The GEMM kernels: arguments (A, lda, B, ldb, C, ldc, ...) as in the wasm kernels, then what the kernel's epilogue takes.

/** Rows [lo, hi) (or all M rows, for a column range) of C = start + op(A) op(B) for a kernel's (A, lda, B, ldb, C, ldc). */
inline void gemmCall(const Call& c, bool ta, int m0, int m1, int N, int K, const Epi& e, int col0 = 0, float* colSums = nullptr) {
  mm(ta, false, m0, m1, N, K, c.f(0), c.n(1), c.f(2) + col0, c.n(3), c.f(4) + col0, c.n(5), e, colSums);
}

// gemmRows(..., bias, N, K, accumulate): rows [lo, hi) of C = (accumulate ? C : 0) + bias + A @ B.
void gemmRows(const Call& c, int lo, int hi) { gemmCall(c, false, lo, hi, c.n(7), c.n(8), {.accumulate = c.n(9) != 0, .bias = c.f(6)}); }

// gemmCols(..., bias, M, K, accumulate): columns [lo, hi) of the same product over rows 0..M.
void gemmCols(const Call& c, int lo, int hi) {
  gemmCall(c, false, 0, c.n(7), hi - lo, c.n(8), {.accumulate = c.n(9) != 0, .bias = c.f(6) ? c.f(6) + lo : nullptr}, lo);
}

// gemmRowsGelu(..., bias, N, K, Y): rows of Y = gelu(bias + A @ B), C = gelu'(bias + A @ B).
void gemmRowsGelu(const Call& c, int lo, int hi) { gemmCall(c, false, lo, hi, c.n(7), c.n(8), {.bias = c.f(6), .geluOut = c.f(9)}); }

// gemmRowsMul(..., N, K, M): rows of C = (A @ B) * M elementwise (M laid out as C).
void gemmRowsMul(const Call& c, int lo, int hi) { gemmCall(c, false, lo, hi, c.n(6), c.n(7), {.mulBy = c.f(8)}); }

// gemmRowsRes(..., bias, N, K, R): rows of C = R + bias + A @ B (R laid out as C).
void gemmRowsRes(const Call& c, int lo, int hi) { gemmCall(c, false, lo, hi, c.n(7), c.n(8), {.bias = c.f(6), .residual = c.f(9)}); }

// gemmRowsTA(..., N, K, accumulate, colSums): rows [lo, hi) of C = (accumulate ? C : 0) + A^T @ B for A stored (K, M);
// colSums (if set) += the column sums of B. gemm.h sums them while packing B, which every chunk packs whole: the chunk
// that starts at row 0 does. Through BLAS they are a pass over B, which each chunk makes over its share of the columns,
// so that the threads share it.
void gemmRowsTA(const Call& c, int lo, int hi) {
  const int N = c.n(6), K = c.n(7);
  float* sums = c.f(9);
  if (!viaBlas(true, K)) return gemmCall(c, true, lo, hi, N, K, {.accumulate = c.n(8) != 0}, 0, lo == 0 ? sums : nullptr);
  gemmCall(c, true, lo, hi, N, K, {.accumulate = c.n(8) != 0});
  if (!sums) return;
  auto col = [&](int row) { return row >= c.total ? N : (int)((long)N * row / c.total) / VW * VW; };
  columnSums(c.f(2), c.n(3), K, col(lo), col(hi), sums);
}

// linearBackward(x, w, wT, dwb, dy, dx, rows, K, N, dxScale): the backward of y = x @ w + b (x rows x K, w K x N) as
// two work items, which two threads run at once: 0, dW += x^T dy and db += the column sums of dy (db right after dW);
// 1, wT = w^T, then dx = dy @ wT (times dxScale elementwise if set). Each is then one thread's whole GEMM, which runs
// nearer its one-thread speed than when both threads split it (see ops.ts).
void transpose(const Call& c, int lo, int hi);
void linearBackward(const Call& c, int lo, int hi) {
  const double x = c.args[0], w = c.args[1], wT = c.args[2], dwb = c.args[3], dy = c.args[4], dx = c.args[5], scale = c.args[9];
  const int rows = c.n(6), K = c.n(7), N = c.n(8);
  for (int item = lo; item < hi; item++) {
    if (item == 0) {
      const double a[] = {x, (double)K, dy, (double)N, dwb, (double)N, (double)N, (double)rows, 1, dwb + 4.0 * K * N};
      gemmRowsTA(Call{a, c.base, nullptr, K}, 0, K);
      continue;
    }
    const double t[] = {w, (double)N, wT, (double)K, (double)K};
    transpose(Call{t, c.base, nullptr, N}, 0, N);
    if (scale != 0) {
      const double m[] = {dy, (double)N, wT, (double)K, dx, (double)K, (double)K, (double)N, scale};
      gemmRowsMul(Call{m, c.base, nullptr, rows}, 0, rows);
    } else {
      const double g[] = {dy, (double)N, wT, (double)K, dx, (double)K, 0, (double)K, (double)N, 0};
      gemmRows(Call{g, c.base, nullptr, rows}, 0, rows);
    }
  }
}

// ---------------------------------------------------------------- elementwise and row kernels

// transpose(src, lds, dst, ldd, rows): dst[c, r] = src[r, c] for dst rows c in [lo, hi), in 8 x 8 blocks.
void transpose(const Call& c, int lo, int hi) {
  const float* src = c.f(0);
  float* dst = c.f(2);
  const int lds = c.n(1), ldd = c.n(3), rows = c.n(4);
  constexpr int BS = 8;
  for (int r0 = 0; r0 < rows; r0 += BS) {
    const int r1 = std::min(rows, r0 + BS);
    for (int c0 = lo; c0 < hi; c0 += BS) {
      const int c1 = std::min(hi, c0 + BS);
      for (int cc = c0; cc < c1; cc++) {
        float* d = dst + (long)cc * ldd;
        for (int r = r0; r < r1; r++) d[r] = src[(long)r * lds + cc];
      }
    }
  }
}

/** x[r] = wte[tokens[r]] + wpe[positions[r]] for rows [lo, hi); wte[tokens[r]] alone where wpe is null (rotary). */
void embedRows(const int32_t* tok, const int32_t* pos, const float* wte, const float* wpe, float* x, int C, int lo, int hi) {
  for (int r = lo; r < hi; r++) {
    const float* te = wte + (long)tok[r] * C;
    float* o = x + (long)r * C;
    if (!wpe) { std::memcpy(o, te, (size_t)C * 4); continue; }
    const float* pe = wpe + (long)pos[r] * C;
    for (int j = 0; j < C; j++) o[j] = te[j] + pe[j];
  }
}

// embed(tokens, positions, wte, wpe, x, C): embedRows for rows [lo, hi).
void embed(const Call& c, int lo, int hi) {
  embedRows(c.i32(0), c.i32(1), c.f(2), c.f(3), c.f(4), c.n(5), lo, hi);
}

// embedBackward(tokens, positions, dwte, dwpe, dx, C, rows): dwte[tokens[r]] += dx[r], dwpe[positions[r]] += dx[r] (where
// dwpe is not null) over all rows, for columns [4lo, 4hi).
void embedBackward(const Call& c, int lo, int hi) {
  const int32_t *tok = c.i32(0), *pos = c.i32(1);
  float *dwte = c.f(2), *dwpe = c.f(3);
  const float* dx = c.f(4);
  const int C = c.n(5), rows = c.n(6);
  for (int r = 0; r < rows; r++) {
    float* te = dwte + (long)tok[r] * C;
    const float* g = dx + (long)r * C;
    for (int j = 4 * lo; j < 4 * hi; j++) te[j] += g[j];
    if (!dwpe) continue;
    float* pe = dwpe + (long)pos[r] * C;
    for (int j = 4 * lo; j < 4 * hi; j++) pe[j] += g[j];
  }
}

/** Rotary positions (see assembly/kernels.ts's rope): each head's query and key in rows [lo, hi) of qkv (rows, 3C)
 *  rotated by its row's position, pair (d, d + hs/2) by table[p * hs + d] (cosine) and table[p * hs + hs/2 + d] (sine);
 *  sign -1 rotates back. */
void ropeRows(float* qkv, const int32_t* pos, const float* table, int C, int nh, int sign, int lo, int hi) {
  const int hs = C / nh, half = hs / 2;
  for (int r = lo; r < hi; r++) {
    const float* cs = table + (long)pos[r] * hs;
    float* row = qkv + (long)r * 3 * C;
    for (int h = 0; h < 2 * nh; h++) {
      float* v = row + h * hs;
      for (int d = 0; d < half; d++) {
        const float co = cs[d], si = sign * cs[half + d], x1 = v[d], x2 = v[half + d];
        v[d] = x1 * co - x2 * si;
        v[half + d] = x2 * co + x1 * si;
      }
    }
  }
}

// rope(qkv, positions, table, C, nh, sign): ropeRows for rows [lo, hi).
void rope(const Call& c, int lo, int hi) {
  ropeRows(c.f(0), c.i32(1), c.f(2), c.n(3), c.n(4), c.n(5), lo, hi);
}

inline float rowSum(const float* x, int n) {
  vf s = vf{};
  int j = 0;
  for (; j + VW <= n; j += VW) s += vload(x + j);
  float t = hsum(s);
  for (; j < n; j++) t += x[j];
  return t;
}

/** sum_j (x_j - m)^2 */
inline float rowSquares(const float* x, float m, int n) {
  vf s = vf{};
  int j = 0;
  for (; j + VW <= n; j += VW) { const vf d = vload(x + j) - m; s += d * d; }
  float t = hsum(s);
  for (; j < n; j++) { const float d = x[j] - m; t += d * d; }
  return t;
}

/** sum_j x_j y_j */
inline float rowDot(const float* x, const float* y, int n) {
  vf s = vf{};
  int j = 0;
  for (; j + VW <= n; j += VW) s += vload(x + j) * vload(y + j);
  float t = hsum(s);
  for (; j < n; j++) t += x[j] * y[j];
  return t;
}

/** Rows [lo, hi) of y = (x - mean) / sqrt(var + 1e-5) * w + b; mean and rstd kept where given. */
void layerNormRows(const float* x, const float* w, const float* b, float* y, int C, int lo, int hi, float* mean = nullptr,
                   float* rstd = nullptr) {
  const float invC = 1.0f / C;
  for (int r = lo; r < hi; r++) {
    const float* xr = x + (long)r * C;
    float* yr = y + (long)r * C;
    const float m = rowSum(xr, C) * invC;
    const float rs = 1.0f / std::sqrt(rowSquares(xr, m, C) * invC + 1e-5f);
    for (int j = 0; j < C; j++) yr[j] = (xr[j] - m) * rs * w[j] + b[j];
    if (mean) mean[r] = m;
    if (rstd) rstd[r] = rs;
  }
}

// layerNorm(x, w, b, y, mean, rstd, C): y = (x - mean) / sqrt(var + 1e-5) * w + b per row; mean, rstd kept if set.
void layerNorm(const Call& c, int lo, int hi) { layerNormRows(c.f(0), c.f(1), c.f(2), c.f(3), c.n(6), lo, hi, c.f(4), c.f(5)); }

// layerNormBackward(x, w, mean, rstd, dy, dx, C): dx[r] += d/dx of the LayerNorm given dy, per row.
void layerNormBackward(const Call& c, int lo, int hi) {
  const float *x = c.f(0), *w = c.f(1), *mean = c.f(2), *rstd = c.f(3), *dy = c.f(4);
  float* dx = c.f(5);
  const int C = c.n(6);
  const float invC = 1.0f / C;
  for (int r = lo; r < hi; r++) {
    const float *xr = x + (long)r * C, *gr = dy + (long)r * C;
    float* dr = dx + (long)r * C;
    const float m = mean[r], rs = rstd[r];
    vf v1 = vf{}, v2 = vf{};
    int j = 0;
    for (; j + VW <= C; j += VW) {
      const vf n = (vload(xr + j) - m) * rs, g = vload(gr + j) * vload(w + j);
      v1 += g;
      v2 += g * n;
    }
    float s1 = hsum(v1), s2 = hsum(v2);
    for (; j < C; j++) {
      const float n = (xr[j] - m) * rs, g = gr[j] * w[j];
      s1 += g;
      s2 += g * n;
    }
    const float m1 = s1 * invC, m2 = s2 * invC;
    for (int j = 0; j < C; j++) {
      const float n = (xr[j] - m) * rs, g = gr[j] * w[j];
      dr[j] += rs * (g - m1 - n * m2);
    }
  }
}

// layerNormParamsBackward(x, mean, rstd, dy, dw, db, C, rows): dw += sum_r dy * xhat, db += sum_r dy for columns
// [4lo, 4hi).
void layerNormParamsBackward(const Call& c, int lo, int hi) {
  const float *x = c.f(0), *mean = c.f(1), *rstd = c.f(2), *dy = c.f(3);
  float *dw = c.f(4), *db = c.f(5);
  const int C = c.n(6), rows = c.n(7);
  for (int r = 0; r < rows; r++) {
    const float *xr = x + (long)r * C, *gr = dy + (long)r * C;
    const float m = mean[r], rs = rstd[r];
    for (int j = 4 * lo; j < 4 * hi; j++) {
      dw[j] += gr[j] * ((xr[j] - m) * rs);
      db[j] += gr[j];
    }
  }
}

// gelu(x, y, keepGrad): floats [4lo, 4hi).
void gelu(const Call& c, int lo, int hi) {
  geluSpan(c.f(0) + 4L * lo, c.f(1) + 4L * lo, 4L * (hi - lo), c.n(2) != 0);
}

// mul(x, y, z): z = x * y over floats [4lo, 4hi).
void mul(const Call& c, int lo, int hi) {
  const float *x = c.f(0), *y = c.f(1);
  float* z = c.f(2);
  for (long i = 4L * lo; i < 4L * hi; i++) z[i] = x[i] * y[i];
}

/** The largest of row[0, V). */
inline float rowMax(const float* row, int V) {
  vf mx = vsplat(-INFINITY);
  int i = 0;
  for (; i + VW <= V; i += VW) mx = vmax(mx, vload(row + i));
  float m = hmax(mx);
  for (; i < V; i++) m = std::max(m, row[i]);
  return m;
}

// softmaxRows(logits, V, targets, logprobs, entropy): each row becomes its softmax; log p(target) (0 where target < 0);
// the entropy if asked.
void softmaxRows(const Call& c, int lo, int hi) {
  float *logits = c.f(0), *logprobs = c.f(3), *entropy = c.f(4);
  const int32_t* targets = c.i32(2);
  const int V = c.n(1);
  for (int r = lo; r < hi; r++) {
    float* row = logits + (long)r * V;
    const float m = rowMax(row, V);
    const int target = targets[r];
    const float xt = target >= 0 ? row[target] : 0;
    vf sv = vf{}, sxv = vf{};
    int i = 0;
    for (; i + VW <= V; i += VW) {
      const vf x = vload(row + i), e = vexp(x - m);
      sv += e;
      sxv += e * x;
      vstore(row + i, e);
    }
    float s = hsum(sv), sx = hsum(sxv);
    for (; i < V; i++) {
      const float e = sexp(row[i] - m);
      s += e;
      sx += e * row[i];
      row[i] = e;
    }
    const float lse = m + std::log(s);
    logprobs[r] = target >= 0 ? xt - lse : 0;
    if (entropy) entropy[r] = lse - sx / s;
    const float inv = 1.0f / s;
    for (i = 0; i < V; i++) row[i] *= inv;
  }
}

// softmaxRowsBackward(probs, V, targets, dlogprobs): row r becomes dlogprob[r] (onehot(target) - p); 0 where target < 0.
void softmaxRowsBackward(const Call& c, int lo, int hi) {
  float* probs = c.f(0);
  const int32_t* targets = c.i32(2);
  const float* dlogprobs = c.f(3);
  const int V = c.n(1);
  for (int r = lo; r < hi; r++) {
    float* row = probs + (long)r * V;
    const int target = targets[r];
    const float g = target >= 0 ? dlogprobs[r] : 0;
    for (int i = 0; i < V; i++) row[i] *= -g;
    if (target >= 0) row[target] += g;
  }
}

// sampleWeights(logits, V, invTemps, weights, lse): for rows [lo, hi), lse[r] = the row's log-sum-exp and, where
// invTemps[r] >= 0, weights[r] = exp((logits[r] - max) * invTemps[r]), the sampler's unnormalised distribution at
// temperature 1 / invTemps[r] (negative: greedy, no weights). A weight is 0 below exp(-87) and for a -inf logit (a
// token a guide masked), whatever the temperature.
void sampleWeights(const Call& c, int lo, int hi) {
  const float *logits = c.f(0), *invTemps = c.f(2);
  float *weights = c.f(3), *lse = c.f(4);
  const int V = c.n(1);
  const vf floor = vsplat(-87.0f);
  for (int r = lo; r < hi; r++) {
    const float* row = logits + (long)r * V;
    float* w = weights + (long)r * V;
    const float m = rowMax(row, V);
    const float t = invTemps[r];
    const vf mv = vsplat(m), tv = vsplat(t);
    vf sv = vf{};
    float s = 0;
    int i = 0;
    for (; i + VW <= V; i += VW) {
      const vf x = vload(row + i) - mv;
      const vf e = x >= floor ? vexp(x) : vf{};
      sv += e;
      if (t == 1.0f) vstore(w + i, e);
      else if (t >= 0) {
        const vf xt = x * tv;
        vstore(w + i, xt >= floor ? vexp(xt) : vf{});
      }
    }
    for (; i < V; i++) {
      const float x = row[i] - m;
      s += x >= -87.0f ? sexp(x) : 0.0f;
      if (t >= 0) w[i] = x * t >= -87.0f ? sexp(x * t) : 0.0f;
    }
    lse[r] = m + std::log(hsum(sv) + s);
  }
}

// ---------------------------------------------------------------- attention (training: causal, whole sequences)
// qkv (B, T, 3C): q | k | v, head h at columns h*hs of each; out (B, T, C); lse (B, nh, T); probs (B, nh, T, T) or 0.
// Items are (b, h) pairs; queries in row blocks of RB, each against the keys up to its last row (the masked upper
// triangle skipped block by block), as in the wasm kernels.

/** Query rows per block: a multiple of every tile height (6, 12), so that only the last block has a partial tile. */
constexpr int RB = 48;
/** Columns of a packed panel (a tile's width on AVX2, half of it on AVX-512). */
constexpr int PW = 16;

// The operands' own leading dimensions are powers of two or near (T, C, 3C floats: 1, 0.5, 1.5 KiB for `small`), so a
// product's k rows fell into 4-8 of L1's 64 sets and were fetched from L2 at every tile (perf: a fifth of the products'
// time on one load). The per-head copies below have a leading dimension that spreads the rows over all sets: K^T, V^T
// and dS with T + 16, V, K, Q and dO in 16-column panels read as contiguous blocks, P's column strip 56 wide. The sums
// are the same, in the same order.

/** Leading dimension of the T-wide scratch rows (K^T, V^T, dS and unkept probabilities). */
inline int padT(int T) { return T + PW; }
constexpr int STRIP = RB + 8;

/** dst[0:n] = src[0:n] for the few dozen floats of a head's row: memcpy of a size known only at run time went through
 *  `rep movsq`, whose start-up cost made the copies into panels a sixth of the attention forward's time (perf). */
inline void copyRow(float* dst, const float* src, int n) {
  int i = 0;
  for (; i + VW <= n; i += VW) vstore(dst + i, vload(src + i));
  for (; i < n; i++) dst[i] = src[i];
}

#if defined(__AVX2__)
/** dst (8 x 8, ld ldd) = src (8 x 8, ld lds) transposed, in registers. */
inline void transpose8(const float* src, long lds, float* dst, long ldd) {
  __m256 r[8], u[8];
  for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(src + i * lds);
  for (int i = 0; i < 8; i += 2) {
    u[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    u[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(u[i], u[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(u[i], u[i + 2], 0xee);
    r[i + 2] = _mm256_shuffle_ps(u[i + 1], u[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(u[i + 1], u[i + 3], 0xee);
  }
  for (int i = 0; i < 4; i++) {
    _mm256_storeu_ps(dst + i * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * ldd, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}
#endif

/** dst (hs x T, ld ldd) = src (T x hs, ld lds) transposed: 8 x 8 blocks in registers where AVX2 is there (one element
 *  at a time, the loads of a head's columns were a fifth of the attention forward's time, perf). */
inline void transposeTo(const float* src, long lds, int T, int hs, float* dst, long ldd) {
  int t0 = 0;
#if defined(__AVX2__)
  if (hs % 8 == 0) {
    for (; t0 + 8 <= T; t0 += 8) for (int d = 0; d < hs; d += 8) transpose8(src + (long)t0 * lds + d, lds, dst + (long)d * ldd + t0, ldd);
  }
#endif
  for (; t0 < T; t0 += 8) {
    const int t1 = std::min(T, t0 + 8);
    for (int d = 0; d < hs; d++) for (int t = t0; t < t1; t++) dst[(long)d * ldd + t] = src[(long)t * lds + d];
  }
}

/** src (T x hs, ld lds) as panels of PW columns (panel p: T x PW at p T PW, the last one's tail unread). */
inline void panelsTo(const float* src, long lds, int T, int hs, float* dst) {
  for (int p = 0; p * PW < hs; p++) {
    const int w = std::min(PW, hs - p * PW);
    float* o = dst + (long)p * T * PW;
    for (int t = 0; t < T; t++) copyRow(o + (long)t * PW, src + (long)t * lds + p * PW, w);
  }
}

/** Floats of the panels of a T x hs block. */
inline long panelFloats(int T, int hs) { return (long)(hs + PW - 1) / PW * PW * T; }

/** C (M x hs) = op(A) (M x K) @ B (K x hs) with B given as panels of K x PW (row stride PW). */
template <bool TA>
inline void gemmPanelsDirect(int M, int hs, int K, const float* A, long lda, const float* Bp, long panelStride, float* C, long ldc) {
  for (int p = 0; p * PW < hs; p++) {
    gemmDirect<TA>(M, std::min(PW, hs - p * PW), K, A, lda, Bp + (long)p * panelStride, PW, C + p * PW, ldc, false);
  }
}

/** Rows [r0, r1) of P (ld ldp): the causal softmax of the scaled scores in S's rows (P may be S); zeros from t + 1 to r1. */
inline void causalSoftmax(float* S, long ldp, float scale, int r0, int r1, float* lse, bool saveLse) {
  for (int t = r0; t < r1; t++) {
    float* row = S + (long)t * ldp;
    const int n = t + 1;
    float l;
    if (saveLse) {
      vf mx = vsplat(-INFINITY);
      int j = 0;
      for (; j + VW <= n; j += VW) mx = vmax(mx, vload(row + j));
      float m = hmax(mx);
      for (; j < n; j++) m = std::max(m, row[j]);
      m *= scale;
      vf s = vf{};
      for (j = 0; j + VW <= n; j += VW) {
        const vf e = vexp(vload(row + j) * scale - m);
        s += e;
        vstore(row + j, e);
      }
      float ss = hsum(s);
      for (; j < n; j++) { const float e = sexp(row[j] * scale - m); ss += e; row[j] = e; }
      l = m + std::log(ss);
      lse[t] = l;
      const float inv = 1.0f / ss;
      for (j = 0; j < n; j++) row[j] *= inv;
    } else {
      l = lse[t];
      int j = 0;
      for (; j + VW <= n; j += VW) vstore(row + j, vexp(vload(row + j) * scale - l));
      for (; j < n; j++) row[j] = sexp(row[j] * scale - l);
    }
    for (int j = n; j < r1; j++) row[j] = 0;
  }
}

/** dst[0:n] = src[0:n], past the caches where dst is 16-byte aligned (SSE's streaming store, in every instruction set:
 *  the line is written whole either way). */
inline void streamTo(float* dst, const float* src, int n) {
  int j = 0;
#if defined(__x86_64__)
  if ((reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
    for (; j + 4 <= n; j += 4) _mm_stream_ps(dst + j, _mm_loadu_ps(src + j));
  }
#endif
  for (; j < n; j++) dst[j] = src[j];
}

// attnForward(qkv, out, lse, probs, T, C, nh)
void attnForward(const Call& c, int lo, int hi) {
  const float* qkv = c.f(0);
  float *out = c.f(1), *lse = c.f(2), *probs = c.f(3);
  const int T = c.n(4), C = c.n(5), nh = c.n(6);
  const int hs = C / nh, ld = 3 * C, Tp = padT(T);
  const long pf = panelFloats(T, hs);
  const float sc = 1.0f / std::sqrt((float)hs);
  float* KT = scratch(1, (size_t)hs * Tp + pf + (size_t)T * Tp);
  float *Vp = KT + (size_t)hs * Tp, *S = Vp + pf;
  for (int bh = lo; bh < hi; bh++) {
    float* P = probs ? probs + (long)bh * T * T : nullptr;
    const int b = bh / nh, h = bh % nh;
    const float* Q = qkv + (long)b * T * ld + h * hs;
    const float *K = Q + C, *V = Q + 2 * C;
    float* O = out + (long)b * T * C + h * hs;
    float* L = lse + (long)bh * T;
    transposeTo(K, ld, T, hs, KT, Tp);
    panelsTo(V, ld, T, hs, Vp);
    for (int r0 = 0; r0 < T; r0 += RB) {
      const int r1 = std::min(T, r0 + RB);
      // S[r0:r1, 0:r1] = Q[r0:r1] K[0:r1]^T; softmax; O[r0:r1] = P[r0:r1, 0:r1] V[0:r1], in scratch, where the block
      // stays in cache; the kept probabilities are then streamed out past the caches (non-temporal stores: their lines
      // are not fetched to be overwritten), forward 1.09-1.15x alone
      gemmDirect<false>(r1 - r0, r1, hs, Q + (long)r0 * ld, ld, KT, Tp, S + (long)r0 * Tp, Tp, false);
      causalSoftmax(S, Tp, sc, r0, r1, L, true);
      gemmPanelsDirect<false>(r1 - r0, hs, r1, S + (long)r0 * Tp, Tp, Vp, T * PW, O + (long)r0 * C, C);
      if (P) for (int t = r0; t < r1; t++) streamTo(P + (long)t * T, S + (long)t * Tp, r1);
    }
  }
#if defined(__x86_64__)
  __builtin_ia32_sfence();
#endif
}

// attnBackward(qkv, out, dout, lse, probs, dqkv, T, C, nh): dqkv gets the gradients of q, k, v (overwritten).
void attnBackward(const Call& c, int lo, int hi) {
  const float *qkv = c.f(0), *out = c.f(1), *dout = c.f(2), *lse = c.f(3);
  float *probs = c.f(4), *dqkv = c.f(5);
  const int T = c.n(6), C = c.n(7), nh = c.n(8);
  const int hs = C / nh, ld = 3 * C, Tp = padT(T);
  const long ldp = probs ? T : Tp, pf = panelFloats(T, hs);
  const float sc = 1.0f / std::sqrt((float)hs);
  float* KT = scratch(1, 2 * (size_t)hs * Tp + 3 * pf + 2 * (size_t)T * Tp + (size_t)T * STRIP + T);
  float *VT = KT + (size_t)hs * Tp, *Kp = VT + (size_t)hs * Tp, *Qp = Kp + pf, *dOp = Qp + pf;
  float *dS = dOp + pf, *own = dS + (size_t)T * Tp, *strip = own + (size_t)T * Tp, *Dt = strip + (size_t)T * STRIP;
  for (int bh = lo; bh < hi; bh++) {
    float* P = probs ? probs + (long)bh * T * T : own;
    const int b = bh / nh, h = bh % nh;
    const float* Q = qkv + (long)b * T * ld + h * hs;
    const float *K = Q + C, *V = Q + 2 * C;
    float* dQ = dqkv + (long)b * T * ld + h * hs;
    float *dK = dQ + C, *dV = dQ + 2 * C;
    const float* O = out + (long)b * T * C + h * hs;
    const float* dO = dout + (long)b * T * C + h * hs;
    float* L = const_cast<float*>(lse) + (long)bh * T;
    if (!probs) transposeTo(K, ld, T, hs, KT, Tp);
    transposeTo(V, ld, T, hs, VT, Tp);
    panelsTo(K, ld, T, hs, Kp);
    panelsTo(Q, ld, T, hs, Qp);
    panelsTo(dO, C, T, hs, dOp);
    // sum_j P dP = dO . O for every query, in one pass that fetches O's rows ahead (read where they were needed, their
    // cache misses were a fifth of the backward's time outside the products, perf)
    for (int t = 0; t < T; t++) {
      const float* ahead = O + (long)std::min(T - 1, t + 8) * C;
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + hs - 1);
      Dt[t] = rowDot(O + (long)t * C, dO + (long)t * C, hs);
    }
    for (int r0 = 0; r0 < T; r0 += RB) {
      const int r1 = std::min(T, r0 + RB);
      if (!probs) {
        gemmDirect<false>(r1 - r0, r1, hs, Q + (long)r0 * ld, ld, KT, Tp, P + r0 * ldp, ldp, false);
        causalSoftmax(P, ldp, sc, r0, r1, L, false);
      }
      // dP = dO V^T; dS = P (dP - sum_j P dP) scale, where sum_j P dP = dO . O; dQ = dS K
      gemmDirect<false>(r1 - r0, r1, hs, dO + (long)r0 * C, C, VT, Tp, dS + (long)r0 * Tp, Tp, false);
      for (int t = r0; t < r1; t++) {
        const float D = Dt[t];
        const float* pr = P + t * ldp;
        float* sr = dS + (long)t * Tp;
        for (int j = 0; j < r1; j++) sr[j] = pr[j] * (sr[j] - D) * sc;
      }
      gemmPanelsDirect<false>(r1 - r0, hs, r1, dS + (long)r0 * Tp, Tp, Kp, T * PW, dQ + (long)r0 * ld, ld);
    }
    // dV = P^T dO and dK = dS^T Q by key blocks j0..j1, over queries t >= j0 (blocks aligned with the query blocks, so
    // every entry read was written); kept probabilities' columns j0..j1 are copied into a strip first
    for (int j0 = 0; j0 < T; j0 += RB) {
      const int j1 = std::min(T, j0 + RB);
      const float* Pj = P + j0 * ldp + j0;
      long ldj = ldp;
      if (probs) {
        for (int t = j0; t < T; t++) copyRow(strip + (long)(t - j0) * STRIP, Pj + (long)(t - j0) * ldp, j1 - j0);
        Pj = strip;
        ldj = STRIP;
      }
      gemmPanelsDirect<true>(j1 - j0, hs, T - j0, Pj, ldj, dOp + (long)j0 * PW, T * PW, dV + (long)j0 * ld, ld);
      gemmPanelsDirect<true>(j1 - j0, hs, T - j0, dS + (long)j0 * Tp + j0, Tp, Qp + (long)j0 * PW, T * PW, dK + (long)j0 * ld, ld);
    }
  }
}

// ---------------------------------------------------------------- decoding with a KV cache
// Weights packed whole into 8-column panels (panel p: columns 8p..8p+7 of every k, at p * K * 8 floats, zero-padded):
// the layout of the wasm kernels' packPanels, so that gpt.ts sizes it the same way for both.

inline int pad8(int n) { return (n + 7) & ~7; }

void packPanelRange(const float* B, int ldb, int K, int N, float* out, int p0, int p1) {
  for (int p = p0; p < p1; p++) {
    const int w = std::min(8, N - p * 8);
    float* o = out + (long)p * 8 * K;
    for (int k = 0; k < K; k++) {
      const float* src = B + (long)k * ldb + p * 8;
      for (int i = 0; i < 8; i++) o[k * 8 + i] = i < w ? src[i] : 0.0f;
    }
  }
}

// packPanels(B, ldb, K, N, out): panels [lo, hi).
void packPanels(const Call& c, int lo, int hi) {
  packPanelRange(c.f(0), c.n(1), c.n(2), c.n(3), c.f(4), lo, hi);
}

inline v8 load8(const float* p) { v8 v; std::memcpy(&v, p, sizeof v); return v; }
inline v8 loadPart(const float* p, int w) {
  v8 v = v8{};
  if (w >= 8) return load8(p);
  for (int i = 0; i < w; i++) v[i] = p[i];
  return v;
}
inline void storePart(float* p, v8 v, int w) {
  if (w >= 8) { std::memcpy(p, &v, sizeof v); return; }
  for (int i = 0; i < w; i++) p[i] = v[i];
}

/** R rows x P panels of C (w valid columns) from A (R rows, ld lda) and panels starting at Bp. */
template <int R, int P>
inline void panelTile(const float* A, int lda, const float* Bp, int K, float* C, int ldc, int w, bool acc, const float* bias) {
  v8 t[R][P];
  for (int q = 0; q < P; q++) {
    const int wq = std::min(8, w - 8 * q);
    const v8 bq = bias ? loadPart(bias + 8 * q, wq) : v8{};
    for (int r = 0; r < R; r++) t[r][q] = (acc ? loadPart(C + (long)r * ldc + 8 * q, wq) : v8{}) + bq;
  }
  for (int k = 0; k < K; k++) {
    v8 b[P];
    for (int q = 0; q < P; q++) b[q] = load8(Bp + (long)q * K * 8 + k * 8);
    for (int r = 0; r < R; r++) {
      const float a = A[(long)r * lda + k];
      for (int q = 0; q < P; q++) t[r][q] += a * b[q];
    }
  }
  for (int q = 0; q < P; q++) {
    const int wq = std::min(8, w - 8 * q);
    for (int r = 0; r < R; r++) storePart(C + (long)r * ldc + 8 * q, t[r][q], wq);
  }
}

template <int P>
inline void panelRows(const float* A, int lda, const float* Bp, int K, float* C, int ldc, int w, bool acc, const float* bias, int rows) {
  int i = 0;
  for (; i + 4 <= rows; i += 4) panelTile<4, P>(A + (long)i * lda, lda, Bp, K, C + (long)i * ldc, ldc, w, acc, bias);
  switch (rows - i) {
    case 3: panelTile<3, P>(A + (long)i * lda, lda, Bp, K, C + (long)i * ldc, ldc, w, acc, bias); break;
    case 2: panelTile<2, P>(A + (long)i * lda, lda, Bp, K, C + (long)i * ldc, ldc, w, acc, bias); break;
    case 1: panelTile<1, P>(A + (long)i * lda, lda, Bp, K, C + (long)i * ldc, ldc, w, acc, bias); break;
    default: break;
  }
}

/** Rows [lo, hi) and columns [j0, j1) (j0 a multiple of 8) of C = (accumulate ? C : 0) + bias + A @ B for B packed whole
 *  in panels. Each pair of panels is read once per call and then from cache for every row: with rows in blocks of 16
 *  outermost (as the wasm kernels do), 64 rows streamed every weight matrix 4 times a step. */
void gemmPanels(const float* A, int lda, const float* Bp, int K, int N, float* C, int ldc, const float* bias, bool acc, int lo, int hi,
                int j0 = 0, int j1 = -1) {
  if (j1 < 0) j1 = N;
  const int rows = hi - lo;
  const float* Ai = A + (long)lo * lda;
  float* Ci = C + (long)lo * ldc;
  int j = j0;
  for (; j + 16 <= j1; j += 16) panelRows<2>(Ai, lda, Bp + (long)j * K, K, Ci + j, ldc, 16, acc, bias ? bias + j : nullptr, rows);
  for (; j < j1; j += 8) panelRows<1>(Ai, lda, Bp + (long)j * K, K, Ci + j, ldc, std::min(8, j1 - j), acc, bias ? bias + j : nullptr, rows);
}

// The descriptor's int32 fields (D_*, the order of src/model/kv-cache.ts's DESC_FIELDS) and the entries of its weight
// table: pointers that kv-cache.ts writes from gpt.ts's parameter layout, to wte, wpe, ln_f's weight and bias (T_*), then
// to each layer's tensors (L_*, the order of kv-cache.ts's LAYER_FIELDS); wpe is 0 where D_ROPE points to the rotary
// positions' table, 0 for learned positions.
enum { D_V, D_C, D_L, D_NH, D_K, D_VC, D_SLOTS, D_CTX, D_WTET, D_TOK, D_SLOT, D_POS, D_X, D_LN, D_QKV, D_ATTY, D_FC,
       D_LOGITS, D_PACKED, D_WEIGHTS, D_ROPE };
enum { T_WTE, T_WPE, T_LNFW, T_LNFB, T_LAYERS };
enum { L_LN1W, L_LN1B, L_ATTNW, L_ATTNB, L_PROJW, L_PROJB, L_LN2W, L_LN2B, L_FCW, L_FCB, L_FC2W, L_FC2B, LAYER_FIELDS };

inline int weightK(int C, int m) { return m == 3 ? 4 * C : C; }
inline int weightN(int C, int m) { return m == 0 ? 3 * C : m == 2 ? 4 * C : C; }
inline long packedLayer(int C) { return (long)C * pad8(3 * C) + (long)C * pad8(C) + (long)C * pad8(4 * C) + 4L * C * pad8(C); }
/** Layer tensor (L_*) of matmul weight m (0 c_attn, 1 c_proj, 2 c_fc, 3 mlp c_proj). */
inline int weightField(int m) { return m == 0 ? L_ATTNW : m == 1 ? L_PROJW : m == 2 ? L_FCW : L_FC2W; }
inline long packedWeightAt(int l, int C, int m) {
  long p = (long)l * packedLayer(C);
  for (int j = 0; j < m; j++) p += (long)weightK(C, j) * pad8(weightN(C, j));
  return p;
}

struct Desc {
  const int32_t* d;
  char* base;
  int operator[](int i) const { return d[i]; }
  float* f(int i) const { return reinterpret_cast<float*>(base + static_cast<uint32_t>(d[i])); }
  int32_t* i32(int i) const { return reinterpret_cast<int32_t*>(base + static_cast<uint32_t>(d[i])); }
  /** Entry i of the weight table. */
  float* weight(int i) const {
    const uint32_t p = static_cast<uint32_t>(i32(D_WEIGHTS)[i]);
    return p ? reinterpret_cast<float*>(base + p) : nullptr;
  }
  /** Tensor f (L_*) of layer l. */
  float* layer(int l, int f) const { return weight(T_LAYERS + l * LAYER_FIELDS + f); }
};

// packLayers(desc): layers [lo, hi) of matmul weights packed into the descriptor's packed region.
void packLayers(const Call& c, int lo, int hi) {
  const Desc d{c.i32(0), c.base};
  const int C = d[D_C];
  float* packed = d.f(D_PACKED);
  for (int l = lo; l < hi; l++) {
    for (int m = 0; m < 4; m++) {
      const int K = weightK(C, m), N = weightN(C, m);
      packPanelRange(d.layer(l, weightField(m)), N, K, N, packed + packedWeightAt(l, C, m), 0, (N + 7) >> 3);
    }
  }
}

/** Positions ahead that kvAttend fetches: a sequence's cache is read once a step, and at 64 sequences it is beyond the
 *  caches (a `big` step of 64 rows reads about 90 MB of it at the bench's average position). */
constexpr int KV_AHEAD = 16;

/** Softmax-weighted sum of the cached values for items r*nh + h in [lo, hi) (a row's head), over positions 0..pos. */
void kvAttend(const float* qkv, float* out, const float* kc, const float* vc, const int32_t* slots, const int32_t* positions,
              int C, int nh, int ctx, int lo, int hi) {
  const int hs = C / nh;
  const float sc = 1.0f / std::sqrt((float)hs);
  float* s = scratch(1, (size_t)ctx + VW);
  for (int item = lo; item < hi; item++) {
    const int r = item / nh, h = item % nh;
    const int slot = slots[r], n = positions[r] + 1;
    const float* q = qkv + (long)r * 3 * C + h * hs;
    const float* kb = kc + (long)(slot * nh + h) * ctx * hs;
    const float* vb = vc + (long)(slot * nh + h) * ctx * hs;
    float m = -INFINITY;
    if (hs % VW == 0) {
      // 4 positions at a time: four vectors of partial sums over d, reduced to four scores after the loop over d
      int j = 0;
      for (; j + 4 <= n; j += 4) {
        const float* k = kb + (long)j * hs;
        for (int l = 0; l < 4 * hs; l += 16) __builtin_prefetch(k + KV_AHEAD * hs + l, 0, 0);
        vf a0 = vf{}, a1 = vf{}, a2 = vf{}, a3 = vf{};
        for (int d = 0; d < hs; d += VW) {
          const vf qd = vload(q + d);
          a0 += qd * vload(k + d); a1 += qd * vload(k + hs + d); a2 += qd * vload(k + 2 * hs + d); a3 += qd * vload(k + 3 * hs + d);
        }
        s[j] = hsum(a0); s[j + 1] = hsum(a1); s[j + 2] = hsum(a2); s[j + 3] = hsum(a3);
      }
      for (; j < n; j++) s[j] = rowDot(q, kb + (long)j * hs, hs);
    } else {
      for (int j = 0; j < n; j++) s[j] = rowDot(q, kb + (long)j * hs, hs);
    }
    for (int j = 0; j < n; j++) m = std::max(m, s[j]);
    m *= sc;
    vf sum = vf{};
    int j = 0;
    for (; j + VW <= n; j += VW) {
      const vf e = vexp(vload(s + j) * sc - m);
      sum += e;
      vstore(s + j, e);
    }
    float total = hsum(sum);
    for (; j < n; j++) { const float e = sexp(s[j] * sc - m); total += e; s[j] = e; }
    const float inv = 1.0f / total;
    float* o = out + (long)r * C + h * hs;
    int d = 0;
    for (; d + 4 * VW <= hs; d += 4 * VW) {
      vf a0 = vf{}, a1 = vf{}, a2 = vf{}, a3 = vf{};
      const float* v = vb + d;
      for (int jj = 0; jj < n; jj++, v += hs) {
        const float p = s[jj];
        if (d == 0) for (int l = 0; l < hs; l += 16) __builtin_prefetch(v + KV_AHEAD * hs + l, 0, 0);
        a0 += p * vload(v); a1 += p * vload(v + VW); a2 += p * vload(v + 2 * VW); a3 += p * vload(v + 3 * VW);
      }
      vstore(o + d, a0 * inv); vstore(o + d + VW, a1 * inv); vstore(o + d + 2 * VW, a2 * inv); vstore(o + d + 3 * VW, a3 * inv);
    }
    for (; d + VW <= hs; d += VW) {
      vf a0 = vf{};
      const float* v = vb + d;
      for (int jj = 0; jj < n; jj++, v += hs) a0 += s[jj] * vload(v);
      vstore(o + d, a0 * inv);
    }
    for (; d < hs; d++) {
      float a0 = 0;
      for (int jj = 0; jj < n; jj++) a0 += s[jj] * vb[(long)jj * hs + d];
      o[d] = a0 * inv;
    }
  }
}

/** Start of part t of [0, total) cut into n parts at multiples of align. */
inline int partStart(int total, int n, int align, int t) {
  if (t >= n) return total;
  return std::min(total, (int)((long)total * t / n / align) * align);
}

/** Copies the keys and values among qkv's columns [a, b) of every row into the cache at (slots[r], positions[r]). */
void kvWriteCols(const float* qkv, float* kc, float* vc, const int32_t* slots, const int32_t* pos, int M, int C, int nh, int ctx, int a, int b) {
  const int hs = C / nh;
  for (int part = 1; part <= 2; part++) {
    float* cache = part == 1 ? kc : vc;
    for (int h = 0; h < nh; h++) {
      const int c0 = std::max(a, part * C + h * hs), c1 = std::min(b, part * C + (h + 1) * hs);
      if (c0 >= c1) continue;
      for (int r = 0; r < M; r++) {
        float* dst = cache + ((long)(slots[r] * nh + h) * ctx + pos[r]) * hs + (c0 - part * C - h * hs);
        std::memcpy(dst, qkv + (long)r * 3 * C + c0, (size_t)(c1 - c0) * 4);
      }
    }
  }
}

/** Matmul weights below which decodeRows splits rows, not columns, between threads (8 MiB: the `small` bench model's
 *  3 MB split by rows decoded 64 sequences about 10% faster than by columns; `big`'s 19 MB twice as fast by columns). */
constexpr long ROWS_MODE_BYTES = 8L << 20;
// decodeRows(desc): one whole forward step of the network with the KV cache for the call's rows [0, M) (see
// assembly/kernels.ts), as a team (Split::Team): thread t of n computes its share of the columns of every GEMM (so that
// each weight is read from memory by one thread, not by all: a decoding step of few rows is bound by reading the
// weights) and its share of the rows' attention heads, and the threads meet at c.sync between the phases. Each thread
// normalizes every row itself (a LayerNorm of M rows costs less than a meeting). Rows of one slot (a prompt) need each
// other's keys: they are all written before any row attends. Every output element is computed by one thread, in the
// same order whatever the split.
// Where the caches keep the weights between steps (below ROWS_MODE_BYTES) there is no reason to meet (decodeAsTeam):
// the call is then cut into chunks of rows by the caller's hints, as the wasm kernels' is, and each chunk runs every
// layer for its own rows and all the columns; a thread that is slow to wake delays a step by a chunk at most.
void decodeRows(const Call& c, int lo, int hi) {
  const Desc d{c.i32(0), c.base};
  const int M = c.total;
  const bool byRows = !c.team;
  const int t = byRows ? 0 : lo, n = byRows ? 1 : hi;
  const int V = d[D_V], C = d[D_C], L = d[D_L], nh = d[D_NH], ctx = d[D_CTX], slotCount = d[D_SLOTS];
  const float *wteP = d.f(D_WTET), *packed = d.f(D_PACKED);
  float *kc = d.f(D_K), *vc = d.f(D_VC), *x = d.f(D_X), *qkv = d.f(D_QKV), *atty = d.f(D_ATTY);
  float *fc = d.f(D_FC), *logits = d.f(D_LOGITS);
  const int32_t *tok = d.i32(D_TOK), *slots = d.i32(D_SLOT), *pos = d.i32(D_POS);
  const long cacheSize = (long)slotCount * C * ctx;
  const float *wte = d.weight(T_WTE), *wpe = d.weight(T_WPE);
  const float* ropeTable = d[D_ROPE] ? d.f(D_ROPE) : nullptr;
  float* ln = scratch(2, (size_t)M * C);
  // this thread's rows; the rows it normalizes and multiplies [g0, g1), its (row, head) items, and its columns of an
  // N-wide product (in pairs of 8-column panels)
  const int r0 = byRows ? lo : partStart(M, n, 1, t), r1 = byRows ? hi : partStart(M, n, 1, t + 1);
  const int g0 = byRows ? r0 : 0, g1 = byRows ? r1 : M;
  const int i0 = byRows ? r0 * nh : partStart(M * nh, n, 1, t), i1 = byRows ? r1 * nh : partStart(M * nh, n, 1, t + 1);
  auto cols = [&](int N, int& a, int& b) {
    a = byRows ? 0 : partStart(N, n, 16, t);
    b = byRows ? N : partStart(N, n, 16, t + 1);
  };
  auto sync = [&]() { if (!byRows) c.sync(); };
  embedRows(tok, pos, wte, wpe, x, C, r0, r1);
  sync();
  int a, b;
  for (int l = 0; l < L; l++) {
    const float *ln1w = d.layer(l, L_LN1W), *ln1b = d.layer(l, L_LN1B), *attnB = d.layer(l, L_ATTNB), *projB = d.layer(l, L_PROJB);
    const float *ln2w = d.layer(l, L_LN2W), *ln2b = d.layer(l, L_LN2B), *fcB = d.layer(l, L_FCB), *fc2B = d.layer(l, L_FC2B);
    float *kl = kc + l * cacheSize, *vl = vc + l * cacheSize;
    // qkv = ln_1(x) @ c_attn, its keys and values into the cache; atty = attention; x += atty @ c_proj
    layerNormRows(x, ln1w, ln1b, ln, C, g0, g1);
    cols(3 * C, a, b);
    gemmPanels(ln, C, packed + packedWeightAt(l, C, 0), C, 3 * C, qkv, 3 * C, attnB, false, g0, g1, a, b);
    if (ropeTable) {
      // A rotation mixes the two halves of a head, which a team's column split may have cut: each thread rotates
      // and caches its own rows once every column is written.
      sync();
      ropeRows(qkv, pos, ropeTable, C, nh, 1, r0, r1);
      kvWriteCols(qkv + (long)r0 * 3 * C, kl, vl, slots + r0, pos + r0, r1 - r0, C, nh, ctx, C, 3 * C);
    } else {
      kvWriteCols(qkv + (long)g0 * 3 * C, kl, vl, slots + g0, pos + g0, g1 - g0, C, nh, ctx, a, b);
    }
    sync();
    kvAttend(qkv, atty, kl, vl, slots, pos, C, nh, ctx, i0, i1);
    sync();
    cols(C, a, b);
    gemmPanels(atty, C, packed + packedWeightAt(l, C, 1), C, C, x, C, projB, true, g0, g1, a, b);
    sync();
    // x += gelu(ln_2(x) @ c_fc) @ c_proj
    layerNormRows(x, ln2w, ln2b, ln, C, g0, g1);
    cols(4 * C, a, b);
    gemmPanels(ln, C, packed + packedWeightAt(l, C, 2), C, 4 * C, fc, 4 * C, fcB, false, g0, g1, a, b);
    for (int r = g0; r < g1; r++) geluSpan(fc + (long)r * 4 * C + a, fc + (long)r * 4 * C + a, b - a, false);
    sync();
    cols(C, a, b);
    gemmPanels(fc, 4 * C, packed + packedWeightAt(l, C, 3), 4 * C, C, x, C, fc2B, true, g0, g1, a, b);
    sync();
  }
  // logits = ln_f(x) @ wte^T
  layerNormRows(x, d.weight(T_LNFW), d.weight(T_LNFB), ln, C, g0, g1);
  cols(V, a, b);
  gemmPanels(ln, C, wteP, C, V, logits, V, nullptr, false, g0, g1, a, b);
}

/** Whether a decodeRows call runs as a team: where its matmul weights are over ROWS_MODE_BYTES. */
bool decodeAsTeam(const Call& c) {
  const int32_t* d = c.i32(0);
  return 48L * d[D_C] * d[D_C] * d[D_L] >= ROWS_MODE_BYTES;
}

// ---------------------------------------------------------------- optimizer

double sumSquares(const float* x, long n) {
  double acc = 0;
  for (long i0 = 0; i0 < n; i0 += 4096) {
    const long i1 = std::min(n, i0 + 4096);
    vf v = vf{};
    long i = i0;
    for (; i + VW <= i1; i += VW) { const vf a = vload(x + i); v += a * a; }
    double s = hsum(v);
    for (; i < i1; i++) s += (double)(x[i] * x[i]);
    acc += s;
  }
  return acc;
}

// scale(x, s): x *= s over floats [lo, hi).
void scale(const Call& c, int lo, int hi) {
  float* x = c.f(0);
  const float s = c.x(1);
  for (long i = lo; i < hi; i++) x[i] *= s;
}

inline void adamwRange(float* p, const float* g, float* m, float* v, float b1, float b2, float eps, float decay, float stepSize,
                       float rbc2, long i0, long i1) {
  for (long i = i0; i < i1; i++) {
    const float gi = g[i];
    const float mi = b1 * m[i] + (1 - b1) * gi;
    const float vi = b2 * v[i] + (1 - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * decay - stepSize * mi / (std::sqrt(vi) * rbc2 + eps);
  }
}

// adamw(p, g, m, v, lr, b1, b2, eps, wd, bc1, bc2, decayRanges, nRanges): PyTorch's AdamW over floats [lo, hi).
void adamw(const Call& c, int lo, int hi) {
  float *p = c.f(0), *m = c.f(2), *v = c.f(3);
  const float* g = c.f(1);
  const float lr = c.x(4), b1 = c.x(5), b2 = c.x(6), eps = c.x(7), wd = c.x(8), bc1 = c.x(9), bc2 = c.x(10);
  const int32_t* ranges = c.i32(11);
  const int nRanges = c.n(12);
  const float decay = 1 - lr * wd, stepSize = lr / bc1, rbc2 = 1.0f / std::sqrt(bc2);
  long i = lo;
  for (int r = 0; r < nRanges && i < hi; r++) {
    const long a = std::min<long>(hi, std::max<long>(i, ranges[2 * r])), b = std::min<long>(hi, ranges[2 * r + 1]);
    if (b <= i) continue;
    adamwRange(p, g, m, v, b1, b2, eps, 1, stepSize, rbc2, i, a);
    adamwRange(p, g, m, v, b1, b2, eps, decay, stepSize, rbc2, a, b);
    i = b;
  }
  adamwRange(p, g, m, v, b1, b2, eps, 1, stepSize, rbc2, i, hi);
}

const KernelEntry ENTRIES[] = {
  {"gemmRows", gemmRows, Split::GemmRows},
  {"gemmCols", gemmCols, Split::Hints},
  {"transpose", transpose, Split::Hints},
  {"embed", embed, Split::Hints},
  {"embedBackward", embedBackward, Split::Hints},
  {"rope", rope, Split::Hints},
  {"layerNorm", layerNorm, Split::Hints},
  {"layerNormBackward", layerNormBackward, Split::Hints},
  {"layerNormParamsBackward", layerNormParamsBackward, Split::Hints},
  {"gelu", gelu, Split::Hints},
  {"mul", mul, Split::Hints},
  {"softmaxRows", softmaxRows, Split::Hints},
  {"softmaxRowsBackward", softmaxRowsBackward, Split::Hints},
  {"attnForward", attnForward, Split::Hints},
  {"attnBackward", attnBackward, Split::Hints},
  {"decodeRows", decodeRows, Split::Team, decodeAsTeam},
  {"scale", scale, Split::Hints},
  {"adamw", adamw, Split::Hints},
  {"gemmRowsTA", gemmRowsTA, Split::Hints},
  {"gemmRowsGelu", gemmRowsGelu, Split::GemmRows},
  {"gemmRowsMul", gemmRowsMul, Split::GemmRows},
  {"gemmRowsRes", gemmRowsRes, Split::GemmRows},
  {"packPanels", packPanels, Split::Hints},
  {"packLayers", packLayers, Split::Hints},
  {"sampleWeights", sampleWeights, Split::Hints},
  {"linearBackward", linearBackward, Split::Hints},
};

void setBlas(int which, SgemmFn fn) {
  useBlas = which;
  sgemm = fn;
}

const KernelSet SET = {STR(KERNEL_ISA), ENTRIES, sizeof ENTRIES / sizeof ENTRIES[0], sumSquares, packedLayer, setBlas};

}  // namespace

const KernelSet& kernels() { return SET; }

}  // namespace KERNEL_ISA
}  // namespace canvasgym
