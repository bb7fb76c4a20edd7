// The compute engine under the student GPT: one shared WebAssembly.Memory (an arena holding weights, activations and
// gradients) and a backend that runs kernels on it. wasm: the SIMD kernels compiled from assembly/kernels.ts, and a pool
// of worker threads that run the same kernels on other rows of the same memory. native (kernels-native.ts): the same
// kernels in C++ with OpenBLAS GEMMs, in a Node addon that reads the arena through its base address and runs its own
// threads. Dispatch is synchronous either way (Atomics, or a plain call), so a kernel call costs microseconds.
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_THREADS } from '../settings.ts';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { announceBackend, resolveBackend, type Backend, type NativeAddon } from './kernels-native.ts';
import { workerEntry } from '../io/worker-entry.ts';

export { BACKENDS, setDefaultBackend, type Backend } from './kernels-native.ts';

const WASM_URL = new URL('../../assembly/build/kernels.wasm', import.meta.url);
const PAGE_BYTES = 65536;
const MAX_PAGES = 65536; // 4 GiB, the wasm32 limit
/** Below this offset lives AssemblyScript's static data: tensors stay above it. */
const RESERVED_BYTES = 1 << 20;
/** Kernels may read (never write) a few floats past the end of a tensor: keep slack after every allocation. */
const SLACK_BYTES = 64;

/** Protocol between the pool and its workers: Int32 slots of the control buffer. */
export const CTRL = { seq: 0, completed: 1, op: 2, quit: 3, failed: 4, next: 5, chunks: 6, total: 7, align: 8, nargs: 9 } as const;
const CTRL_SLOTS = 16;
/** Float64 slots for a kernel call's arguments. */
export const ARG_SLOTS = 24;
/** How long a thread polls for new work before it sleeps on a futex (loop iterations, a few microseconds). Short: the
 *  cores are shared, and with the kernel's autogroup scheduling a spinning thread spends the CPU share its sibling
 *  needs to finish the chunk being waited for (measured: 500 beat 20,000 by 2-10% in wall time and CPU time). */
export const SPIN_LIMIT = 500;
/** Chunks per thread in one call: threads claim chunks until none are left, so a thread that the OS has descheduled
 *  (the cores are shared) delays a call by one chunk at most instead of by its whole share. */
const CHUNKS_PER_THREAD = 4;

/** Start of chunk c of [0, total) cut into n chunks whose boundaries are multiples of align. */
function chunkStart(total: number, n: number, align: number, c: number): number {
  return c >= n ? total : Math.round((total * c) / n / align) * align;
}

/**
 * Claims and runs chunks of call `gen` until none are left. The claim counter holds (gen << 16 | next chunk), so a
 * thread that woke late for an earlier call, and may have read this call's arguments half-written, claims nothing.
 */
export function runChunks(ctrl: Int32Array, args: Float64Array, fn: (...a: number[]) => unknown, gen: number, scratch: number): void {
  const n = Atomics.load(ctrl, CTRL.chunks), total = Atomics.load(ctrl, CTRL.total), align = Atomics.load(ctrl, CTRL.align);
  const a = Array.from(args.subarray(0, Atomics.load(ctrl, CTRL.nargs)));
  for (;;) {
    const v = Atomics.load(ctrl, CTRL.next);
    if (v >>> 16 !== gen || (v & 0xffff) >= n) return;
    if (Atomics.compareExchange(ctrl, CTRL.next, v, v + 1) !== v) continue;
    const c = v & 0xffff;
    try {
      fn(...a, chunkStart(total, n, align, c), chunkStart(total, n, align, c + 1), scratch);
    } catch (err) {
      console.error(err);
      Atomics.store(ctrl, CTRL.failed, 1);
    } finally {
      Atomics.add(ctrl, CTRL.completed, 1);
      Atomics.notify(ctrl, CTRL.completed);
    }
  }
}

/** Names of the kernels the pool can run: the worker resolves an op index to the same export. */
export const KERNEL_NAMES = [
  'gemmRows', 'gemmCols', 'transpose', 'embed', 'embedBackward', 'layerNorm', 'layerNormBackward',
  'layerNormParamsBackward', 'gelu', 'mul', 'softmaxRows', 'softmaxRowsBackward', 'attnForward', 'attnBackward',
  'decodeRows', 'scale', 'adamw', 'gemmRowsTA', 'gemmRowsGelu', 'gemmRowsMul', 'gemmRowsRes', 'packPanels', 'packLayers',
  'sampleWeights', 'linearBackward', 'rope',
] as const;
export type KernelName = (typeof KERNEL_NAMES)[number];

type KernelFn = (...args: number[]) => number;
interface KernelExports {
  gemmScratchFloats: number;
  attnScratchFloats(T: number, hs: number): number;
  packedLayerFloats(C: number): number;
  sumSquares(ptr: number, n: number): number;
  fns: Record<KernelName, KernelFn>;
}

let compiled: WebAssembly.Module | undefined;

/** The compiled kernel module; the first call turns off V8's baseline wasm tier, 3-5x slower on SIMD code. */
export function kernelModule(): WebAssembly.Module {
  if (!compiled) {
    if (!existsSync(WASM_URL)) {
      throw new Error(`compute kernels are not built (${fileURLToPath(WASM_URL)} is missing): run \`npm run build:kernels\``);
    }
    v8.setFlagsFromString('--no-liftoff');
    v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
    compiled = new WebAssembly.Module(readFileSync(WASM_URL));
  }
  return compiled;
}

function bindExports(instance: WebAssembly.Instance): KernelExports {
  const ex = instance.exports as Record<string, unknown>;
  const fns = {} as Record<KernelName, KernelFn>;
  for (const name of KERNEL_NAMES) fns[name] = ex[name] as KernelFn;
  return {
    gemmScratchFloats: (ex.GEMM_SCRATCH_FLOATS as WebAssembly.Global).value as number,
    attnScratchFloats: ex.attnScratchFloats as (T: number, hs: number) => number,
    packedLayerFloats: ex.packedLayerFloats as (C: number) => number,
    sumSquares: ex.sumSquares as (ptr: number, n: number) => number,
    fns,
  };
}

export interface RunOptions {
  /** Work items below which a part is not worth a thread. */
  grain?: number;
  /** Part boundaries are multiples of this (e.g. 4 rows for the GEMM micro-kernel). */
  align?: number;
  /** Name of the call in a profile (default: the kernel's name). */
  label?: string;
  /** Chunks per thread (default CHUNKS_PER_THREAD): 1 where every chunk repeats a large fixed cost (packing a shared operand). */
  chunksPerThread?: number;
}

/** Wall time and call count per label, collected while Engine.profile is set. */
export type Profile = Map<string, { ms: number; calls: number }>;

/** The native addon bound to one engine: its id there, the buffer its kernel arguments go through, kernel indices. */
interface NativeBinding {
  addon: NativeAddon;
  id: number;
  args: Float64Array;
  ops: Map<KernelName, number>;
}

/** A bump allocator over one shared memory plus the threads that compute in it. Pointers are byte offsets. */
export class Engine {
  readonly memory: WebAssembly.Memory;
  readonly threads: number;
  readonly backend: Backend;
  /** wasm backend: the kernels instantiated on the memory (this thread's instance). */
  private readonly k?: KernelExports;
  private readonly native?: NativeBinding;
  private readonly workers: Worker[] = [];
  private readonly ctrl: Int32Array;
  private readonly args: Float64Array;
  /** Scratch pointer of each thread (index 0: this one), read by the workers at each call. */
  private readonly scratch: Float64Array;
  private gen = 0;
  private readonly opIndex = new Map<KernelName, number>(KERNEL_NAMES.map((n, i) => [n, i]));
  private top = RESERVED_BYTES;
  private scratchFloats = 0;
  private disposed = false;
  /** When set, every run() adds its wall time under its label (bench/model.ts --profile). */
  profile?: Profile;

  private constructor(threads: number, backend: Backend, addon?: NativeAddon) {
    this.threads = threads;
    this.backend = backend;
    this.memory = new WebAssembly.Memory({ initial: RESERVED_BYTES / PAGE_BYTES + 1, maximum: MAX_PAGES, shared: true });
    this.ctrl = new Int32Array(new SharedArrayBuffer(CTRL_SLOTS * 4));
    this.args = new Float64Array(new SharedArrayBuffer(ARG_SLOTS * 8));
    this.scratch = new Float64Array(new SharedArrayBuffer(threads * 8));
    if (addon) {
      const args = new Float64Array(ARG_SLOTS);
      const names = addon.info().names;
      const ops = new Map<KernelName, number>();
      for (const name of KERNEL_NAMES) {
        const i = names.indexOf(name);
        if (i < 0) throw new Error(`the native addon has no kernel ${name}: rebuild it (npm run build:native)`);
        ops.set(name, i);
      }
      this.native = { addon, id: addon.bind(new Uint8Array(this.memory.buffer), args), args, ops };
    } else {
      this.k = bindExports(new WebAssembly.Instance(kernelModule(), { env: { memory: this.memory } }));
    }
  }

  /** threads defaults to the machine's cores (at most 2 are used well by the models here); backend to native where its
   *  addon loads, wasm otherwise (see resolveBackend; the choice and its reason are printed once per process). */
  static async create(threads?: number, backend?: Backend): Promise<Engine> {
    const n = threads ?? DEFAULT_THREADS;
    if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`threads must be an integer in 1..64, got ${threads}`);
    const choice = resolveBackend(backend);
    announceBackend(choice.backend, choice.why, n);
    const engine = new Engine(n, choice.backend, choice.addon);
    // The native backend runs its own threads: the wasm worker pool is not started.
    if (engine.native) return engine;
    const module = kernelModule();
    const started: Promise<void>[] = [];
    for (let i = 1; i < n; i++) {
      const worker = new Worker(workerEntry('workers', import.meta.url), {
        eval: true,
        workerData: { module, memory: engine.memory, ctrl: engine.ctrl.buffer, args: engine.args.buffer, scratch: engine.scratch.buffer, index: i },
      });
      engine.workers.push(worker);
      started.push(new Promise((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      }));
    }
    await Promise.all(started);
    engine.ensureScratch(engine.k!.gemmScratchFloats);
    return engine;
  }

  /** Allocates n floats (or int32s), 64-byte aligned; never freed except by release(). */
  alloc(n: number): number {
    const ptr = this.top;
    const end = ptr + Math.ceil((n * 4 + SLACK_BYTES) / 64) * 64;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      const pages = Math.ceil((end - have) / PAGE_BYTES);
      if (have / PAGE_BYTES + pages > MAX_PAGES) throw new Error(`model memory would exceed 4 GiB (asked for ${n} more floats)`);
      this.memory.grow(pages);
      this.native?.addon.grown(this.native.id, new Uint8Array(this.memory.buffer));
    }
    this.top = end;
    return ptr;
  }

  /** Current top of the arena, for release(). */
  mark(): number {
    return this.top;
  }

  /** Frees everything allocated since mark (stack discipline). */
  release(mark: number): void {
    if (mark > this.top || mark < RESERVED_BYTES) throw new Error(`bad arena mark ${mark}`);
    this.top = mark;
  }

  f32(ptr: number, n: number): Float32Array {
    return new Float32Array(this.memory.buffer, ptr, n);
  }

  i32(ptr: number, n: number): Int32Array {
    return new Int32Array(this.memory.buffer, ptr, n);
  }

  /** Makes sure every thread has at least n floats of private scratch (the native kernels keep their own). */
  ensureScratch(n: number): void {
    if (n <= this.scratchFloats || this.native) return;
    for (let t = 0; t < this.threads; t++) this.scratch[t] = this.alloc(n);
    this.scratchFloats = n;
  }

  attnScratchFloats(T: number, hs: number): number {
    return this.k ? this.k.attnScratchFloats(T, hs) : 0;
  }

  /** Floats of one layer's matmul weights packed for decoding (kernels' packPanels layout). */
  packedLayerFloats(C: number): number {
    return this.native ? this.native.addon.packedLayerFloats(C) : this.k!.packedLayerFloats(C);
  }

  sumSquares(ptr: number, n: number): number {
    if (this.disposed) throw new Error('the model was disposed');
    return this.native ? this.native.addon.sumSquares(this.native.id, ptr, n) : this.k!.sumSquares(ptr, n);
  }

  /** Runs kernel(...args, lo, hi, scratch) over [0, total) split between the threads; returns when all parts are done. */
  run(name: KernelName, args: number[], total: number, opts: RunOptions = {}): void {
    if (this.disposed) throw new Error('the model was disposed');
    if (total <= 0) return;
    if (!this.profile) return this.dispatch(name, args, total, opts);
    const t0 = performance.now();
    this.dispatch(name, args, total, opts);
    const key = opts.label ?? name;
    const entry = this.profile.get(key) ?? { ms: 0, calls: 0 };
    entry.ms += performance.now() - t0;
    entry.calls++;
    this.profile.set(key, entry);
  }

  private dispatch(name: KernelName, args: number[], total: number, opts: RunOptions): void {
    const align = opts.align ?? 1;
    const grain = Math.max(opts.grain ?? 1, align);
    const native = this.native;
    if (native) {
      // The addon cuts the call as below (and GEMMs into fewer, larger chunks: BLAS packs the shared operand per call).
      native.args.set(args);
      native.addon.run(native.id, native.ops.get(name)!, total, grain, align, opts.chunksPerThread ?? CHUNKS_PER_THREAD, this.threads);
      return;
    }
    const fn = this.k!.fns[name];
    const parts = Math.max(1, Math.min(this.threads, Math.floor(total / grain)));
    if (parts === 1) {
      fn(...args, 0, total, this.scratch[0]);
      return;
    }
    const chunks = Math.min(parts * (opts.chunksPerThread ?? CHUNKS_PER_THREAD), Math.floor(total / Math.max(align, Math.ceil(grain / 2))), 0xffff);
    this.gen = (this.gen + 1) & 0x7fff;
    const ctrl = this.ctrl;
    this.args.set(args);
    Atomics.store(ctrl, CTRL.nargs, args.length);
    Atomics.store(ctrl, CTRL.op, this.opIndex.get(name)!);
    Atomics.store(ctrl, CTRL.chunks, chunks);
    Atomics.store(ctrl, CTRL.total, total);
    Atomics.store(ctrl, CTRL.align, align);
    Atomics.store(ctrl, CTRL.completed, 0);
    Atomics.store(ctrl, CTRL.next, this.gen << 16);
    Atomics.store(ctrl, CTRL.seq, this.gen);
    Atomics.notify(ctrl, CTRL.seq);
    runChunks(ctrl, this.args, fn, this.gen, this.scratch[0]);
    let spins = 0;
    for (;;) {
      const done = Atomics.load(ctrl, CTRL.completed);
      if (done >= chunks) break;
      if (++spins > SPIN_LIMIT) Atomics.wait(ctrl, CTRL.completed, done, 1);
    }
    if (Atomics.load(ctrl, CTRL.failed)) throw new Error(`kernel ${name} failed in a worker thread (see its stderr)`);
  }

  /** Stops the worker threads, so that the process can exit (the native backend's threads never hold it). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.native) {
      this.native.addon.unbind(this.native.id);
      return;
    }
    Atomics.store(this.ctrl, CTRL.quit, 1);
    Atomics.store(this.ctrl, CTRL.seq, -1);
    Atomics.notify(this.ctrl, CTRL.seq);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
    })));
  }
}
