// The native kernels of the student GPT: the same operations, arguments and work ranges as the WebAssembly kernels in
// assembly/kernels.ts (see src/model/kernels.ts), compiled once per instruction set (kernels.cc with KERNEL_ISA set)
// and chosen at load time by the CPU's features, so that one build never runs an instruction the CPU lacks.
#pragma once
#include <cstddef>
#include <cstdint>

namespace canvasgym {

/** What a kernel call sees: its arguments (pointers are byte offsets into the arena, as in the wasm kernels) and the
 *  arena's base address. */
struct Call {
  const double* args;
  char* base;
  /** Split::Team kernels: waits until every thread of the call has arrived (see addon.cc). */
  void (*sync)() = nullptr;
  /** Split::Team kernels: the call's work range is [0, total). */
  int total = 0;
  /** Split::Team kernels: true where the threads run it as a team, (lo, hi) = (thread index, thread count); false where
   *  the call was cut by the caller's hints like any other kernel's, (lo, hi) a range of the work. */
  bool team = false;
  float* f(int i) const { return args[i] != 0 ? reinterpret_cast<float*>(base + static_cast<size_t>(args[i])) : nullptr; }
  int32_t* i32(int i) const { return args[i] != 0 ? reinterpret_cast<int32_t*>(base + static_cast<size_t>(args[i])) : nullptr; }
  int n(int i) const { return static_cast<int>(args[i]); }
  float x(int i) const { return static_cast<float>(args[i]); }
};

/** cblas_sgemm's signature, its CBLAS enums as ints (row-major 101, no transpose 111, transpose 112): OpenBLAS is
 *  looked up at run time (addon.cc), so that the addon builds and runs without its headers or library. */
using SgemmFn = void (*)(int order, int transA, int transB, int M, int N, int K, float alpha, const float* A, int lda,
                         const float* B, int ldb, float beta, float* C, int ldc);

/** Runs items [lo, hi) of one call: rows, columns, heads, ... as the wasm kernel of the same name does. */
using KernelFn = void (*)(const Call& c, int lo, int hi);

/** How the pool cuts a call into chunks, where a kernel wants other chunks than the caller's hints (see addon.cc).
 *  Team: every thread of the call runs the kernel once, as (thread index, thread count), whatever the work range, and
 *  the threads meet at Call::sync between phases; where the kernel's teamWhen says no for a call, the call is cut by
 *  the hints instead. */
enum class Split { Hints, GemmRows, Team };

struct KernelEntry {
  const char* name;
  KernelFn fn;
  Split split;
  /** Split::Team: whether this call is worth a team (else, or if null, always). */
  bool (*teamWhen)(const Call& c) = nullptr;
};

struct KernelSet {
  const char* isa;
  const KernelEntry* entries;
  int count;
  double (*sumSquares)(const float* x, long n);
  long (*packedLayerFloats)(int C);
  /** GEMMs through BLAS's sgemm (null: none, whatever `which` says): 0 none, 1 all, 2 by shape (kernels.cc, viaBlas). */
  void (*setBlas)(int which, SgemmFn sgemm);
};

/** Per-thread scratch of at least n floats (grown on demand, kept between calls), 64-byte aligned; slot 0 is the
 *  GEMM's, slot 1 the other kernels', slot 2 decodeRows' own copy of a LayerNorm's output. */
float* scratch(int slot, size_t n);

namespace isa_generic { const KernelSet& kernels(); }
namespace isa_avx2 { const KernelSet& kernels(); }
namespace isa_avx512 { const KernelSet& kernels(); }

}  // namespace canvasgym
