// The native backend of the student GPT's engine, as a Node addon: the kernels of kernels.cc for the widest instruction
// set this CPU has, a pool of threads that runs them on the same arena as the WebAssembly kernels (the engine's shared
// WebAssembly.Memory, read here through its base address), and the N-API functions src/model/kernels-native.ts calls.
//
// A call is cut into chunks of its work range the way the wasm pool cuts it (src/model/kernels.ts), published to the
// pool through a generation counter, and every thread claims chunks until none are left.
//
// OpenBLAS is optional: the addon neither includes nor links it, and looks for Debian's libopenblas.so.0 when it loads
// (dlopen), so that it builds with the compiler alone and a machine without OpenBLAS still gets the native engine.
// Where it is found it runs one thread per call (openblas_set_num_threads(1)): the pool is the only source of
// parallelism, so its threads and BLAS's never compete for the cores (the engine notes measured 3-10x slowdowns from
// the two stacked).
#include <node_api.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <dlfcn.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() std::atomic_signal_fence(std::memory_order_seq_cst)
#endif

#include "kernels.h"

namespace canvasgym {

/** OpenBLAS's calls, where its library was found at load time (all null otherwise). */
struct OpenBlas {
  SgemmFn sgemm = nullptr;
  void (*setNumThreads)(int) = nullptr;
  char* (*config)() = nullptr;
  char* (*corename)() = nullptr;
  /** Why it is not used, where it is not. */
  std::string missing;
};
OpenBlas blas;

/** Looks for OpenBLAS by its soname (CANVASGYM_OPENBLAS names another file); CANVASGYM_NATIVE_GEMM=own skips it. */
void findOpenBlas() {
  const char* gemm = std::getenv("CANVASGYM_NATIVE_GEMM");
  if (gemm && std::strcmp(gemm, "own") == 0) {
    blas.missing = "CANVASGYM_NATIVE_GEMM=own";
    return;
  }
  // Before the library's constructor starts its own thread pool: one thread, as the pool wants it.
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  const char* path = std::getenv("CANVASGYM_OPENBLAS");
  void* lib = nullptr;
  for (const char* name : {path, "libopenblas.so.0", "libopenblas.so"}) {
    if (name && (lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (path) break;
  }
  if (!lib) {
    blas.missing = path ? std::string("cannot load ") + path : "no libopenblas.so.0";
    return;
  }
  blas.sgemm = reinterpret_cast<SgemmFn>(dlsym(lib, "cblas_sgemm"));
  blas.setNumThreads = reinterpret_cast<void (*)(int)>(dlsym(lib, "openblas_set_num_threads"));
  blas.config = reinterpret_cast<char* (*)()>(dlsym(lib, "openblas_get_config"));
  blas.corename = reinterpret_cast<char* (*)()>(dlsym(lib, "openblas_get_corename"));
  if (!blas.sgemm || !blas.setNumThreads) {
    blas = OpenBlas{};
    blas.missing = "the library found has no cblas_sgemm";
  }
}

float* scratch(int slot, size_t n) {
  thread_local std::vector<float> buf[3];
  std::vector<float>& b = buf[slot];
  if (b.size() < n + 16) b.resize(n + n / 4 + 16);
  const uintptr_t p = reinterpret_cast<uintptr_t>(b.data());
  return reinterpret_cast<float*>((p + 63) & ~static_cast<uintptr_t>(63));
}

namespace {

// ---------------------------------------------------------------- waiting

/** Polls before a thread sleeps: a few tens of microseconds, about the gap between the kernel calls of a step. */
constexpr int SPIN = 4000;

struct Waitable {
  std::atomic<uint32_t> word{0};
  std::atomic<int> sleepers{0};

  /** Returns once word != seen. */
  void waitWhile(uint32_t seen) {
    for (int i = 0; i < SPIN; i++) {
      if (word.load(std::memory_order_acquire) != seen) return;
      CPU_RELAX();
    }
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    while (word.load(std::memory_order_seq_cst) == seen) {
#ifdef __linux__
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
#else
      word.wait(seen);
#endif
    }
    sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }

  void wake() {
    if (sleepers.load(std::memory_order_seq_cst) == 0) return;
#ifdef __linux__
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
#else
    word.notify_all();
#endif
  }
};

// ---------------------------------------------------------------- the pool

const KernelSet* K = nullptr;

struct Pool {
  Waitable gen;   // bumped once per parallel call; workers wait on it
  Waitable done;  // chunks finished in the current call; the caller waits on it
  /** (generation << 16) | next chunk to claim: a thread that woke late for an earlier call claims nothing. */
  std::atomic<uint32_t> next{0};
  // The current call, written before the generation is published (atomics: read by threads that may be late).
  std::atomic<KernelFn> fn{nullptr};
  std::atomic<const double*> args{nullptr};
  std::atomic<char*> base{nullptr};
  std::atomic<int> total{0}, chunks{0}, align{1}, participants{1};
  std::atomic<bool> team{false};
  std::atomic<int> workers{0};
  std::mutex lock;  // one call at a time (the addon may be loaded by several JS threads)
};

Pool* pool = new Pool();  // never freed: detached workers may still be parked in it when the process exits

inline int chunkStart(int total, int n, int align, int c) {
  if (c >= n) return total;
  return static_cast<int>(std::floor(static_cast<double>(total) * c / n / align + 0.5)) * align;
}

// ---------------------------------------------------------------- a barrier for Split::Team calls

struct Barrier {
  std::atomic<int> arrived{0};
  Waitable phase;
  int count = 1;
};
Barrier barrier;

/** The phases between meetings are tens of microseconds: a thread polls for a while, then sleeps on a futex, so that
 *  while the cores are shared a waiting thread does not spend the CPU share its late partner needs. */
void teamSync() {
  if (barrier.count <= 1) return;
  const uint32_t ph = barrier.phase.word.load(std::memory_order_acquire);
  if (barrier.arrived.fetch_add(1, std::memory_order_acq_rel) == barrier.count - 1) {
    barrier.arrived.store(0, std::memory_order_relaxed);
    barrier.phase.word.store(ph + 1, std::memory_order_seq_cst);
    barrier.phase.wake();
    return;
  }
  barrier.phase.waitWhile(ph);
}

void runChunks(uint32_t g, int index) {
  const KernelFn fn = pool->fn.load(std::memory_order_relaxed);
  const Call call{pool->args.load(std::memory_order_relaxed), pool->base.load(std::memory_order_relaxed), teamSync,
                  pool->total.load(std::memory_order_relaxed), pool->team.load(std::memory_order_relaxed)};
  const int n = pool->chunks.load(std::memory_order_relaxed), total = pool->total.load(std::memory_order_relaxed);
  const int align = pool->align.load(std::memory_order_relaxed);
  const uint32_t tag = (g & 0xffff) << 16;
  if (pool->team.load(std::memory_order_relaxed)) {
    // one "chunk" per thread, taken by thread `index` itself: the threads must all run at once, for the barrier
    uint32_t v = pool->next.load(std::memory_order_acquire);
    if ((v & 0xffff0000u) != tag || index >= n) return;
    fn(call, index, n);
    pool->done.word.fetch_add(1, std::memory_order_acq_rel);
    pool->done.wake();
    return;
  }
  for (;;) {
    uint32_t v = pool->next.load(std::memory_order_acquire);
    if ((v & 0xffff0000u) != tag || static_cast<int>(v & 0xffff) >= n) return;
    if (!pool->next.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
    const int c = static_cast<int>(v & 0xffff);
    fn(call, chunkStart(total, n, align, c), chunkStart(total, n, align, c + 1));
    pool->done.word.fetch_add(1, std::memory_order_acq_rel);
    pool->done.wake();
  }
}

void workerLoop(int index, uint32_t seen) {
  if (blas.setNumThreads) blas.setNumThreads(1);
  for (;;) {
    pool->gen.waitWhile(seen);
    seen = pool->gen.word.load(std::memory_order_acquire);
    if (index < pool->participants.load(std::memory_order_relaxed)) runChunks(seen, index);
  }
}

void ensureWorkers(int n) {
  while (pool->workers.load() < n) {
    const int index = pool->workers.load() + 1;
    // The generation before the call that starts it, so that the new thread takes part in that call (a team call
    // needs every thread).
    std::thread(workerLoop, index, pool->gen.word.load(std::memory_order_relaxed)).detach();
    pool->workers.store(index);
  }
}

/** Calls fn over [0, total) on `threads` threads (this one included), cut as the wasm pool cuts it. */
void dispatch(const KernelEntry& k, Call call, int total, int grain, int align, int chunksPerThread, int threads) {
  if (total <= 0) return;
  const bool team = k.split == Split::Team && threads > 1 && (!k.teamWhen || k.teamWhen(call));
  call.team = team;
  align = std::max(1, align);
  grain = std::max(grain, align);
  const int parts = team ? threads : std::max(1, std::min(threads, total / grain));
  if (parts == 1) {
    k.fn(call, 0, total);
    return;
  }
  int chunks = team ? threads : std::min({parts * chunksPerThread, total / std::max(align, (grain + 1) / 2), 0xffff});
  // BLAS packs the shared operand once per call: GEMM chunks of at least 256 rows (2 per thread at most).
  if (k.split == Split::GemmRows) chunks = std::max(parts, std::min({chunks, total / 256, 2 * parts}));
  std::lock_guard<std::mutex> guard(pool->lock);
  ensureWorkers(threads - 1);
  const uint32_t g = pool->gen.word.load(std::memory_order_relaxed) + 1;
  const uint32_t tag = (g & 0xffff) << 16;
  // Close the claim counter under the new tag before any field changes, so that a thread still reading the previous
  // call's fields fails its claim.
  pool->next.store(tag | 0xffff, std::memory_order_seq_cst);
  pool->fn.store(k.fn, std::memory_order_relaxed);
  pool->args.store(call.args, std::memory_order_relaxed);
  pool->base.store(call.base, std::memory_order_relaxed);
  pool->total.store(total, std::memory_order_relaxed);
  pool->chunks.store(chunks, std::memory_order_relaxed);
  pool->align.store(align, std::memory_order_relaxed);
  pool->participants.store(threads, std::memory_order_relaxed);
  pool->team.store(team, std::memory_order_relaxed);
  barrier.count = team ? threads : 1;
  pool->done.word.store(0, std::memory_order_relaxed);
  pool->next.store(tag, std::memory_order_seq_cst);
  pool->gen.word.store(g, std::memory_order_seq_cst);
  pool->gen.wake();
  runChunks(g, 0);
  uint32_t d;
  while ((d = pool->done.word.load(std::memory_order_acquire)) < static_cast<uint32_t>(chunks)) pool->done.waitWhile(d);
}

// ---------------------------------------------------------------- engines: an arena and an argument buffer each

struct Bound {
  char* base = nullptr;
  size_t bytes = 0;
  double* args = nullptr;
  napi_ref memoryRef = nullptr, argsRef = nullptr;
};
std::vector<Bound> bound;

/** Asks for transparent huge pages over the arena's [0, bytes) (where the kernel leaves them to madvise): the kernels
 *  stream tens of megabytes of KV cache and activations, which in 4 KiB pages miss the TLB every 1,024 floats, and
 *  under a hypervisor each miss walks two page tables. */
void hugePages(char* base, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t HUGE = 2u << 20;
  const uintptr_t a = (reinterpret_cast<uintptr_t>(base) + HUGE - 1) & ~(HUGE - 1);
  const uintptr_t b = (reinterpret_cast<uintptr_t>(base) + bytes) & ~(HUGE - 1);
  if (b > a && !std::getenv("CANVASGYM_NO_HUGE")) madvise(reinterpret_cast<void*>(a), b - a, MADV_HUGEPAGE);
#else
  (void)base, (void)bytes;
#endif
}

// ---------------------------------------------------------------- N-API

#define CHECK(call)                                                         \
  do {                                                                      \
    if ((call) != napi_ok) {                                                \
      napi_throw_error(env, nullptr, "canvasgym native: " #call " failed"); \
      return nullptr;                                                       \
    }                                                                       \
  } while (0)

napi_value throwError(napi_env env, const std::string& message) {
  napi_throw_error(env, nullptr, message.c_str());
  return nullptr;
}

bool typedArrayData(napi_env env, napi_value v, void** data, size_t* bytes) {
  bool is = false;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  napi_typedarray_type type;
  size_t length, offset;
  napi_value buffer;
  if (napi_get_typedarray_info(env, v, &type, &length, data, &buffer, &offset) != napi_ok || !*data) return false;
  const size_t elem = type == napi_float64_array ? 8 : type == napi_float32_array || type == napi_int32_array || type == napi_uint32_array ? 4 : 1;
  *bytes = length * elem;
  return true;
}

/** The call's N arguments, false if fewer came; with `engine`, the first must name a bound engine, which it returns. */
template <size_t N>
bool callArgs(napi_env env, napi_callback_info info, napi_value (&argv)[N], Bound** engine = nullptr) {
  size_t argc = N;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < N) return false;
  if (!engine) return true;
  int32_t id;
  if (napi_get_value_int32(env, argv[0], &id) != napi_ok || id < 0 || id >= static_cast<int32_t>(bound.size()) || !bound[id].base) return false;
  *engine = &bound[id];
  return true;
}

/** Where the GEMMs run: 0 gemm.h, 1 OpenBLAS, 2 each shape where it measured faster (kernels.cc, viaBlas). */
int gemmMode = 0;

void setGemm(int mode) {
  gemmMode = blas.sgemm ? mode : 0;
  K->setBlas(gemmMode, blas.sgemm);
}

/** setGemm("own" | "blas" | "auto"): where the GEMMs run from the next call on (the bench compares them in one process);
 *  without OpenBLAS every mode is "own". Returns the mode now in force. */
napi_value SetGemm(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  char mode[8] = {0};
  size_t len = 0;
  if (!callArgs(env, info, argv) || napi_get_value_string_utf8(env, argv[0], mode, sizeof mode, &len) != napi_ok) return throwError(env, "setGemm(mode): mode must be a string");
  const std::string m(mode, len);
  if (m != "own" && m != "blas" && m != "auto") return throwError(env, "setGemm(mode): mode must be own, blas or auto");
  setGemm(m == "blas" ? 1 : m == "auto" ? 2 : 0);
  napi_value out;
  CHECK(napi_create_string_utf8(env, gemmMode == 0 ? "own" : gemmMode == 1 ? "blas" : "auto", NAPI_AUTO_LENGTH, &out));
  return out;
}

/** info(): { isa, blas, core, blasMissing, gemm, names } */
napi_value Info(napi_env env, napi_callback_info) {
  napi_value out, v, names;
  CHECK(napi_create_object(env, &out));
  const char* isa = K->isa;
  if (std::strncmp(isa, "isa_", 4) == 0) isa += 4;
  const std::pair<const char*, const char*> fields[] = {
    {"isa", isa},
    {"blas", blas.config ? blas.config() : blas.sgemm ? "OpenBLAS" : ""},
    {"core", blas.corename ? blas.corename() : ""},
    {"blasMissing", blas.missing.c_str()},
    {"gemm", gemmMode == 0 ? "own" : gemmMode == 1 ? "blas" : "auto"},
  };
  for (const auto& [name, text] : fields) {
    CHECK(napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &v));
    CHECK(napi_set_named_property(env, out, name, v));
  }
  CHECK(napi_create_array_with_length(env, K->count, &names));
  for (int i = 0; i < K->count; i++) {
    CHECK(napi_create_string_utf8(env, K->entries[i].name, NAPI_AUTO_LENGTH, &v));
    CHECK(napi_set_element(env, names, i, v));
  }
  CHECK(napi_set_named_property(env, out, "names", names));
  return out;
}

/** bind(memory: Uint8Array over the arena's SharedArrayBuffer, args: Float64Array) -> engine id. The arena is a shared
 *  WebAssembly.Memory, which grows in place: its base address never changes. */
napi_value Bind(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!callArgs(env, info, argv)) return throwError(env, "bind(memory, args) takes two typed arrays");
  Bound b;
  void *mem, *args;
  size_t argsBytes;
  if (!typedArrayData(env, argv[0], &mem, &b.bytes)) return throwError(env, "bind: memory must be a typed array over the arena");
  if (!typedArrayData(env, argv[1], &args, &argsBytes)) return throwError(env, "bind: args must be a Float64Array");
  b.base = static_cast<char*>(mem);
  b.args = static_cast<double*>(args);
  hugePages(b.base, b.bytes);
  CHECK(napi_create_reference(env, argv[0], 1, &b.memoryRef));
  CHECK(napi_create_reference(env, argv[1], 1, &b.argsRef));
  bound.push_back(b);
  napi_value id;
  CHECK(napi_create_int32(env, static_cast<int32_t>(bound.size() - 1), &id));
  return id;
}


/** grown(id, memory): the arena grew (same base address; checked). */
napi_value Grown(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Bound* b;
  void* mem;
  size_t bytes;
  if (!callArgs(env, info, argv, &b) || !typedArrayData(env, argv[1], &mem, &bytes)) return throwError(env, "grown(id, memory): bad arguments");
  if (static_cast<char*>(mem) != b->base) return throwError(env, "the arena moved when it grew (expected a shared WebAssembly.Memory)");
  napi_delete_reference(env, b->memoryRef);
  CHECK(napi_create_reference(env, argv[1], 1, &b->memoryRef));
  b->bytes = bytes;
  hugePages(b->base, b->bytes);
  return nullptr;
}

/** unbind(id): drops the engine's references (after this, run(id) is refused). */
napi_value Unbind(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Bound* b;
  if (!callArgs(env, info, argv, &b)) return nullptr;
  napi_delete_reference(env, b->memoryRef);
  napi_delete_reference(env, b->argsRef);
  *b = Bound();
  return nullptr;
}

/** run(id, op, total, grain, align, chunksPerThread, threads): the kernel's arguments are in the engine's args buffer. */
napi_value Run(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Bound* b;
  if (!callArgs(env, info, argv, &b)) return throwError(env, "run: unknown or released engine");
  int32_t n[6];
  for (int i = 0; i < 6; i++) CHECK(napi_get_value_int32(env, argv[i + 1], &n[i]));
  if (n[0] < 0 || n[0] >= K->count) return throwError(env, "run: unknown kernel");
  dispatch(K->entries[n[0]], Call{b->args, b->base, teamSync, n[1]}, n[1], n[2], n[3], std::max(1, n[4]), std::max(1, n[5]));
  return nullptr;
}

/** sumSquares(id, ptr, n) -> sum of squares of n floats at ptr (in float64). */
napi_value SumSquares(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Bound* b;
  double ptr, n;
  if (!callArgs(env, info, argv, &b)) return throwError(env, "sumSquares: unknown or released engine");
  CHECK(napi_get_value_double(env, argv[1], &ptr));
  CHECK(napi_get_value_double(env, argv[2], &n));
  if (ptr < 0 || n < 0 || ptr + 4 * n > static_cast<double>(b->bytes)) return throwError(env, "sumSquares: range outside the arena");
  napi_value out;
  CHECK(napi_create_double(env, K->sumSquares(reinterpret_cast<const float*>(b->base + static_cast<size_t>(ptr)), static_cast<long>(n)), &out));
  return out;
}

/** packedLayerFloats(C): floats of one layer's matmul weights packed for decoding (the layout of packLayers). */
napi_value PackedLayerFloats(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t C;
  if (!callArgs(env, info, argv) || napi_get_value_int32(env, argv[0], &C) != napi_ok || C < 1) return throwError(env, "packedLayerFloats(C): C must be a positive integer");
  napi_value out;
  CHECK(napi_create_double(env, static_cast<double>(K->packedLayerFloats(C)), &out));
  return out;
}

/** The widest kernel set this CPU runs; CANVASGYM_NATIVE_ISA=generic|avx2|avx512 asks for a narrower one (tests). */
const KernelSet* chooseKernels() {
  const char* want = std::getenv("CANVASGYM_NATIVE_ISA");
  const std::string w = want ? want : "";
#if (defined(__x86_64__) || defined(__i386__)) && defined(CANVASGYM_X86_ISAS)
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  if (avx512 && (w.empty() || w == "avx512")) return &isa_avx512::kernels();
  if (avx2 && (w.empty() || w == "avx512" || w == "avx2")) return &isa_avx2::kernels();
#endif
  return &isa_generic::kernels();
}

napi_value Init(napi_env env, napi_value exports) {
  if (!K) {
    K = chooseKernels();
    findOpenBlas();
    if (blas.setNumThreads) blas.setNumThreads(1);
    const char* gemm = std::getenv("CANVASGYM_NATIVE_GEMM");
    setGemm(gemm && std::strcmp(gemm, "blas") == 0 ? 1 : gemm && std::strcmp(gemm, "auto") == 0 ? 2 : 0);
  }
  const napi_property_descriptor props[] = {
    {"info", nullptr, Info, nullptr, nullptr, nullptr, napi_default, nullptr},
    {"bind", nullptr, Bind, nullptr, nullptr, nullptr, napi_default, nullptr},
    {"grown", nullptr, Grown, nullptr, nullptr, nullptr, napi_default, nullptr},
    {"unbind", nullptr, Unbind, nullptr, nullptr, nullptr, napi_default, nullptr},
    {"run", nullptr, Run, nullptr, nullptr, nullptr, napi_default, nullptr},
    {"sumSquares", nullptr, SumSquares, nullptr, nullptr, nullptr, napi_default, nullptr},
    {"packedLayerFloats", nullptr, PackedLayerFloats, nullptr, nullptr, nullptr, napi_default, nullptr},
    {"setGemm", nullptr, SetGemm, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return nullptr;
  return exports;
}

}  // namespace
}  // namespace canvasgym

NAPI_MODULE(NODE_GYP_MODULE_NAME, canvasgym::Init)
