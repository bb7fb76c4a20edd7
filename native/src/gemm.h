// A single-threaded GEMM for the shapes of the student GPT, included by kernels.cc inside its instruction-set namespace
// (vf is VW floats wide there). The structure is BLIS's: B packed in KC x NR micro-panels, A in MC x KC blocks of MR-row
// micro-panels, an MR x NR register tile of C. What BLAS cannot do, it does in the tile's registers: C starts from a
// bias and a residual, and ends through GELU (keeping GELU' for backward) or times a mask, while still in registers,
// so that no pass over C follows the product.
//   C (M x N) = start + op(A) (M x K) @ op(B) (K x N)
// op(A) = A (M x K, row-major, lda) or A^T for A stored K x M; op(B) = B (K x N) or B^T for B stored N x K.

#ifndef GEMM_NV
#define GEMM_NV 2
#endif
#ifndef GEMM_MR
#define GEMM_MR (VW >= 16 ? 12 : 6)
#endif
#ifndef GEMM_KC
#define GEMM_KC 256
#endif
#ifndef GEMM_MCT
#define GEMM_MCT 16
#endif
constexpr int NV = GEMM_NV;           // vectors per tile row
constexpr int NR = NV * VW;           // tile columns: 16 (AVX2), 32 (AVX-512), 8 (SSE)
constexpr int MR = GEMM_MR;           // tile rows: 12 x 2 zmm or 6 x 2 ymm accumulators
constexpr int KC = GEMM_KC;           // k per packed block (an A micro-panel and a B micro-panel stay in L1)
constexpr int MC = MR * GEMM_MCT;     // rows per packed A block (in L2)

/** Where C starts and what happens to it once the product is complete. Row-major, all with C's leading dimension. */
struct Epi {
  bool accumulate = false;       // C starts from C (else from 0)
  const float* bias = nullptr;   // + bias[col]
  const float* residual = nullptr;  // + residual[row, col] (instead of C)
  float* geluOut = nullptr;      // geluOut = gelu(C), C = gelu'(C)
  const float* mulBy = nullptr;  // C *= mulBy[row, col]
};

/** Packs rows [i0, i0 + mc) x k [k0, k0 + kc) of op(A) into MR-row micro-panels (k-major, zero-padded rows). */
inline void packA(bool ta, const float* A, long lda, int i0, int mc, int k0, int kc, float* out) {
  for (int ir = 0; ir < mc; ir += MR) {
    const int mr = std::min(MR, mc - ir);
    float* o = out + (long)ir * kc;
    if (ta) {
      for (int k = 0; k < kc; k++) {
        const float* src = A + (long)(k0 + k) * lda + i0 + ir;
        for (int r = 0; r < MR; r++) o[k * MR + r] = r < mr ? src[r] : 0.0f;
      }
    } else {
      for (int r = 0; r < MR; r++) {
        if (r < mr) {
          const float* src = A + (long)(i0 + ir + r) * lda + k0;
          for (int k = 0; k < kc; k++) o[k * MR + r] = src[k];
        } else {
          for (int k = 0; k < kc; k++) o[k * MR + r] = 0.0f;
        }
      }
    }
  }
}

/** Packs k [k0, k0 + kc) x all N columns of op(B) into NR-column micro-panels (zero-padded); colSums += the column sums
 *  of what it read (bias gradients), when given. */
inline void packB(bool tb, const float* B, long ldb, int k0, int kc, int N, float* out, float* colSums) {
  for (int j0 = 0; j0 < N; j0 += NR) {
    const int nr = std::min(NR, N - j0);
    float* o = out + (long)j0 * kc;
    if (!tb) {
      if (nr == NR) {
        for (int k = 0; k < kc; k++) {
          const float* src = B + (long)(k0 + k) * ldb + j0;
          for (int v = 0; v < NV; v++) vstore(o + k * NR + v * VW, vload(src + v * VW));
        }
      } else {
        for (int k = 0; k < kc; k++) {
          const float* src = B + (long)(k0 + k) * ldb + j0;
          for (int j = 0; j < NR; j++) o[k * NR + j] = j < nr ? src[j] : 0.0f;
        }
      }
    } else {
      for (int j = 0; j < NR; j++) {
        if (j < nr) {
          const float* src = B + (long)(j0 + j) * ldb + k0;
          for (int k = 0; k < kc; k++) o[k * NR + j] = src[k];
        } else {
          for (int k = 0; k < kc; k++) o[k * NR + j] = 0.0f;
        }
      }
    }
    if (colSums) {
      vf s[NV] = {};
      for (int k = 0; k < kc; k++) for (int v = 0; v < NV; v++) s[v] += vload(o + k * NR + v * VW);
      for (int j = 0; j < nr; j++) colSums[j0 + j] += s[j / VW][j % VW];
    }
  }
}

inline vf geluVec(vf v, vf* grad) {
  const vf v2 = v * v;
  const vf e = vexp(v * (v2 * (-2 * GELU_K * GELU_A) + (-2 * GELU_K)));
  const vf s = 1.0f / (e + 1.0f);
  const vf du = v2 * (3 * GELU_K * GELU_A) + GELU_K;
  *grad = (v * (s - s * s)) * (du + du) + s;
  return v * s;
}

/** One MR x NR tile (mr x nr of it valid) of C at (i, j): the product over kc from packed panels, started as `first`
 *  says (else from C) and finished as `last` says. */
template <bool DIRECT>
inline void tile(int kc, const float* __restrict Ap, long ars, long aks, const float* __restrict Bp, float* C, long ldc, int i, int j,
                 int mr, int nr, bool first, bool last, const Epi& e) {
  vf c[MR][NV];
  const bool full = mr == MR && nr == NR;
  // The tile's rows of C are a row of C apart (4 KiB for N = 1024): fetch them while the k loop runs, or every store
  // waits for its line (N = 1024: 52 -> 74-80 GFLOP/s per core); the next tile down too: its C rows are loaded before its k loop when K spans several blocks.
  // The epilogue's other rows likewise (gelu's output, the mask, the residual): without, the GELU epilogue doubled the
  // time of a 4096 x 128 x 512 product, and the mask's made it 1.5x, as against 1.3x and 1.0x in cache.
  const float* more = last && e.geluOut ? e.geluOut : last && e.mulBy ? e.mulBy : first && e.residual ? e.residual : nullptr;
  const bool write = more == e.geluOut;
  for (int r = 0; r < MR; r++) {
    const long here = (long)(i + r) * ldc + j, next = (long)(i + MR + r) * ldc + j;
    if (r < mr) __builtin_prefetch(C + here, 1, 3);
    __builtin_prefetch(C + next, 1, 3);
    if (more) {
      if (write) {
        if (r < mr) __builtin_prefetch(more + here, 1, 3);
        __builtin_prefetch(more + next, 1, 3);
      } else {
        if (r < mr) __builtin_prefetch(more + here, 0, 3);
        __builtin_prefetch(more + next, 0, 3);
      }
    }
  }
  float tmp[MR * NR] __attribute__((aligned(64)));
  if (full) {
    for (int r = 0; r < MR; r++) {
      for (int v = 0; v < NV; v++) {
        const long at = (long)(i + r) * ldc + j + v * VW;
        vf x;
        if (!first || e.accumulate) x = vload(C + at);
        else x = e.residual ? vload(e.residual + at) : vf{};
        if (first && e.bias) x += vload(e.bias + j + v * VW);
        c[r][v] = x;
      }
    }
  } else {
    for (int r = 0; r < MR; r++) {
      for (int q = 0; q < NR; q++) {
        float x = 0;
        if (r < mr && q < nr) {
          const long at = (long)(i + r) * ldc + j + q;
          x = !first || e.accumulate ? C[at] : e.residual ? e.residual[at] : 0.0f;
          if (first && e.bias) x += e.bias[j + q];
        }
        tmp[r * NR + q] = x;
      }
    }
    for (int r = 0; r < MR; r++) for (int v = 0; v < NV; v++) c[r][v] = vload(tmp + r * NR + v * VW);
  }
  if (DIRECT) {
    // A(r, k) at Ap[r ars + k aks]: rows past mr repeat the last one (never stored)
    const float* a[MR];
    for (int r = 0; r < MR; r++) a[r] = Ap + std::min(r, mr - 1) * ars;
    for (int k = 0; k < kc; k++) {
      vf b[NV];
      for (int v = 0; v < NV; v++) b[v] = vload(Bp + k * NR + v * VW);
#pragma GCC unroll 16
      for (int r = 0; r < MR; r++) {
        const vf x = vsplat(a[r][k * aks]);
        for (int v = 0; v < NV; v++) c[r][v] += x * b[v];
      }
    }
  } else {
    for (int k = 0; k < kc; k++) {
      vf b[NV];
      for (int v = 0; v < NV; v++) b[v] = vload(Bp + k * NR + v * VW);
#pragma GCC unroll 16
      for (int r = 0; r < MR; r++) {
        const vf x = vsplat(Ap[k * MR + r]);
        for (int v = 0; v < NV; v++) c[r][v] += x * b[v];
      }
    }
  }
  if (full) {
    for (int r = 0; r < MR; r++) {
      for (int v = 0; v < NV; v++) {
        const long at = (long)(i + r) * ldc + j + v * VW;
        vf x = c[r][v];
        if (last && e.geluOut) {
          vf g;
          vstore(e.geluOut + at, geluVec(x, &g));
          x = g;
        }
        if (last && e.mulBy) x *= vload(e.mulBy + at);
        vstore(C + at, x);
      }
    }
  } else {
    for (int r = 0; r < MR; r++) for (int v = 0; v < NV; v++) vstore(tmp + r * NR + v * VW, c[r][v]);
    for (int r = 0; r < mr; r++) {
      for (int q = 0; q < nr; q++) {
        const long at = (long)(i + r) * ldc + j + q;
        float x = tmp[r * NR + q];
        if (last && e.geluOut) {
          vf g;
          e.geluOut[at] = geluVec(vsplat(x), &g)[0];
          x = g[0];
        }
        if (last && e.mulBy) x *= e.mulBy[at];
        C[at] = x;
      }
    }
  }
}

/** Rows [m0, m1) of C = start + op(A) op(B); colSums (if given) += the column sums of op(B). Single-threaded. */
inline void gemm(bool ta, bool tb, int m0, int m1, int N, int K, const float* A, long lda, const float* B, long ldb, float* C,
                 long ldc, const Epi& e, float* colSums = nullptr) {
  if (m1 <= m0 || N <= 0) return;
  if (K <= 0) {
    for (int i = m0; i < m1; i++) {
      for (int j = 0; j < N; j++) {
        const long at = (long)i * ldc + j;
        float x = (e.accumulate ? C[at] : e.residual ? e.residual[at] : 0.0f) + (e.bias ? e.bias[j] : 0.0f);
        if (e.geluOut) {
          vf g;
          e.geluOut[at] = geluVec(vsplat(x), &g)[0];
          x = g[0];
        }
        if (e.mulBy) x *= e.mulBy[at];
        C[at] = x;
      }
    }
    return;
  }
  const int Np = (N + NR - 1) / NR * NR;
  float* Bp = scratch(0, (size_t)KC * Np + (size_t)MC * KC + 64);
  float* Ap = Bp + (size_t)KC * Np;
  for (int k0 = 0; k0 < K; k0 += KC) {
    const int kc = std::min(KC, K - k0);
    const bool first = k0 == 0, last = k0 + kc >= K;
    packB(tb, B, ldb, k0, kc, N, Bp, colSums);
    for (int i0 = m0; i0 < m1; i0 += MC) {
      const int mc = std::min(MC, m1 - i0);
      // A^T is packed (its MR columns of a k lie in one line, k a row apart: 50-61 GFLOP/s read in place, 64-74
      // packed); A is read where it lies, its rows streaming in order (K = 512-1024: 46-57 packed, 61-65 in place)
      if (ta) packA(true, A, lda, i0, mc, k0, kc, Ap);
      for (int j = 0; j < N; j += NR) {
        const int nr = std::min(NR, N - j);
        for (int ir = 0; ir < mc; ir += MR) {
          const int mr = std::min(MR, mc - ir);
          if (ta) tile<false>(kc, Ap + (long)ir * kc, 0, 0, Bp + (long)j * kc, C, ldc, i0 + ir, j, mr, nr, first, last, e);
          else tile<true>(kc, A + (long)(i0 + ir) * lda + k0, lda, 1, Bp + (long)j * kc, C, ldc, i0 + ir, j, mr, nr, first, last, e);
        }
      }
    }
  }
}

// ---------------------------------------------------------------- small products without packing
// Attention's products have one small dimension (hs = 32 deep, or 32 wide): packing would cost as much as the product.
// These tiles read A and B where they lie; the same MR x NR register tile, the same order of sums over k.

/** C tile (mr rows, NVV vectors) = (accumulate ? C : 0) + sum_k A(r, k) B(k, :), A(r, k) at A[r lda + k], or at
 *  A[k lda + r] (TA); B(k, :) at B + k ldb. Rows past mr repeat the last valid one (never stored). */
template <bool TA, int NVV>
inline void tileDirect(int K, const float* A, long lda, const float* B, long ldb, float* C, long ldc, int mr, bool acc) {
  vf c[MR][NVV];
  for (int r = 0; r < MR; r++) for (int v = 0; v < NVV; v++) c[r][v] = acc && r < mr ? vload(C + (long)r * ldc + v * VW) : vf{};
  if (TA) {
    int off[MR];
    for (int r = 0; r < MR; r++) off[r] = std::min(r, mr - 1);
    for (int k = 0; k < K; k++) {
      vf b[NVV];
      for (int v = 0; v < NVV; v++) b[v] = vload(B + (long)k * ldb + v * VW);
      const float* ak = A + (long)k * lda;
#pragma GCC unroll 16
      for (int r = 0; r < MR; r++) {
        const vf a = vsplat(ak[off[r]]);
        for (int v = 0; v < NVV; v++) c[r][v] += a * b[v];
      }
    }
  } else {
    const float* a[MR];
    for (int r = 0; r < MR; r++) a[r] = A + (long)std::min(r, mr - 1) * lda;
    for (int k = 0; k < K; k++) {
      vf b[NVV];
      for (int v = 0; v < NVV; v++) b[v] = vload(B + (long)k * ldb + v * VW);
#pragma GCC unroll 16
      for (int r = 0; r < MR; r++) {
        const vf x = vsplat(a[r][k]);
        for (int v = 0; v < NVV; v++) c[r][v] += x * b[v];
      }
    }
  }
  for (int r = 0; r < mr; r++) for (int v = 0; v < NVV; v++) vstore(C + (long)r * ldc + v * VW, c[r][v]);
}

/** C (M x N) = (accumulate ? C : 0) + op(A) @ B with op(A) = A (M x K, lda) or A^T (A stored K x M), B (K x N, ldb),
 *  without packing. */
template <bool TA>
inline void gemmDirect(int M, int N, int K, const float* A, long lda, const float* B, long ldb, float* C, long ldc, bool acc) {
  for (int i = 0; i < M; i += MR) {
    const int mr = std::min(MR, M - i);
    const float* Ai = TA ? A + i : A + (long)i * lda;
    float* Ci = C + (long)i * ldc;
    int j = 0;
    for (; j + NR <= N; j += NR) tileDirect<TA, NV>(K, Ai, lda, B + j, ldb, Ci + j, ldc, mr, acc);
    for (; j + VW <= N; j += VW) tileDirect<TA, 1>(K, Ai, lda, B + j, ldb, Ci + j, ldc, mr, acc);
    for (; j < N; j++) {
      for (int r = 0; r < mr; r++) {
        float x = acc ? Ci[(long)r * ldc + j] : 0.0f;
        for (int k = 0; k < K; k++) x += (TA ? Ai[(long)k * lda + r] : Ai[(long)r * lda + k]) * B[(long)k * ldb + j];
        Ci[(long)r * ldc + j] = x;
      }
    }
  }
}
