// The compute engine under the student GPT: one shared WebAssembly.Memory (an arena holding weights, activations and
// gradients), the SIMD kernels compiled from assembly/kernels.ts, and a pool of worker threads that run the same kernels
// on other rows of the same memory. Dispatch is synchronous (Atomics), so a kernel call costs microseconds, not a message.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';

const WASM_URL = new URL('../../assembly/build/kernels.wasm', import.meta.url);
const PAGE_BYTES = 65536;
const MAX_PAGES = 65536; // 4 GiB, the wasm32 limit
/** Below this offset lives AssemblyScript's static data: tensors stay above it. */
const RESERVED_BYTES = 1 << 20;
/** Kernels may read (never write) a few floats past the end of a tensor: keep slack after every allocation. */
const SLACK_BYTES = 64;

/** Protocol between the pool and a worker (Int32 slots of the control buffer). */
export const CTRL = { seq: 0, done: 1, op: 2, quit: 3, failed: 4 } as const;
/** Float64 argument slots per worker. */
export const ARG_SLOTS = 24;
/** How long a thread polls for new work before it sleeps on a futex (loop iterations). */
export const SPIN_LIMIT = 20_000;

/** Names of the kernels the pool can run: the worker resolves an op index to the same export. */
export const KERNEL_NAMES = [
  'gemmRows', 'gemmCols', 'transpose', 'embed', 'embedBackward', 'layerNorm', 'layerNormBackward',
  'layerNormParamsBackward', 'gelu', 'mul', 'softmaxRows', 'softmaxRowsBackward', 'attnForward', 'attnBackward',
  'decodeRows', 'scale', 'adamw',
] as const;
export type KernelName = (typeof KERNEL_NAMES)[number];

type KernelFn = (...args: number[]) => number;
interface KernelExports {
  gemmScratchFloats: number;
  attnScratchFloats(T: number, hs: number): number;
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
    sumSquares: ex.sumSquares as (ptr: number, n: number) => number,
    fns,
  };
}

/** Worker threads do not inherit tsx (and Node 20 ignores `--import` in a worker's execArgv): the worker registers it
 *  itself, from this package's copy, then loads workers.ts. */
function workerBootstrap(): string {
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./workers.ts', import.meta.url).href);
  return `import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`;
}

export interface RunOptions {
  /** Work items below which a part is not worth a thread. */
  grain?: number;
  /** Part boundaries are multiples of this (e.g. 4 rows for the GEMM micro-kernel). */
  align?: number;
}

/** A bump allocator over one shared memory plus the thread pool that computes in it. Pointers are byte offsets. */
export class Engine {
  readonly memory: WebAssembly.Memory;
  readonly threads: number;
  private readonly k: KernelExports;
  private readonly workers: Worker[] = [];
  private readonly ctrl: Int32Array;
  private readonly args: Float64Array;
  private readonly opIndex = new Map<KernelName, number>(KERNEL_NAMES.map((n, i) => [n, i]));
  private top = RESERVED_BYTES;
  private scratchPtrs: number[] = [];
  private scratchFloats = 0;
  private disposed = false;

  private constructor(threads: number) {
    this.threads = threads;
    this.memory = new WebAssembly.Memory({ initial: RESERVED_BYTES / PAGE_BYTES + 1, maximum: MAX_PAGES, shared: true });
    this.k = bindExports(new WebAssembly.Instance(kernelModule(), { env: { memory: this.memory } }));
    this.ctrl = new Int32Array(new SharedArrayBuffer(32));
    this.args = new Float64Array(new SharedArrayBuffer(Math.max(1, threads - 1) * ARG_SLOTS * 8));
  }

  /** threads defaults to the machine's cores (at most 2 are used well by the models here). */
  static async create(threads?: number): Promise<Engine> {
    const n = threads ?? Math.min(2, availableParallelism());
    if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`threads must be an integer in 1..64, got ${threads}`);
    const engine = new Engine(n);
    const module = kernelModule();
    const started: Promise<void>[] = [];
    for (let i = 1; i < n; i++) {
      const worker = new Worker(workerBootstrap(), {
        eval: true,
        workerData: { module, memory: engine.memory, ctrl: engine.ctrl.buffer, args: engine.args.buffer, index: i - 1 },
      });
      engine.workers.push(worker);
      started.push(new Promise((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      }));
    }
    await Promise.all(started);
    engine.ensureScratch(engine.k.gemmScratchFloats);
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

  /** Makes sure every thread has at least n floats of private scratch. */
  ensureScratch(n: number): void {
    if (n <= this.scratchFloats) return;
    this.scratchPtrs = Array.from({ length: this.threads }, () => this.alloc(n));
    this.scratchFloats = n;
  }

  attnScratchFloats(T: number, hs: number): number {
    return this.k.attnScratchFloats(T, hs);
  }

  sumSquares(ptr: number, n: number): number {
    return this.k.sumSquares(ptr, n);
  }

  /** Runs kernel(...args, lo, hi, scratch) over [0, total) split between the threads; returns when all parts are done. */
  run(name: KernelName, args: number[], total: number, opts: RunOptions = {}): void {
    if (this.disposed) throw new Error('the model was disposed');
    if (total <= 0) return;
    const align = opts.align ?? 1;
    const grain = opts.grain ?? 1;
    const fn = this.k.fns[name];
    const parts = Math.max(1, Math.min(this.threads, Math.floor(total / Math.max(grain, align))));
    if (parts === 1) {
      fn(...args, 0, total, this.scratchPtrs[0]);
      return;
    }
    const bounds = [0];
    for (let p = 1; p < parts; p++) bounds.push(Math.round((total * p) / parts / align) * align);
    bounds.push(total);
    const nWorkers = parts - 1;
    for (let w = 0; w < nWorkers; w++) {
      const row = w * ARG_SLOTS;
      this.args[row] = args.length + 3;
      for (let i = 0; i < args.length; i++) this.args[row + 1 + i] = args[i];
      this.args[row + 1 + args.length] = bounds[w + 1];
      this.args[row + 2 + args.length] = bounds[w + 2];
      this.args[row + 3 + args.length] = this.scratchPtrs[w + 1];
    }
    // Workers past nWorkers see a zero-length part and only report done.
    for (let w = nWorkers; w < this.workers.length; w++) this.args[w * ARG_SLOTS] = 0;
    Atomics.store(this.ctrl, CTRL.op, this.opIndex.get(name)!);
    Atomics.store(this.ctrl, CTRL.done, 0);
    Atomics.add(this.ctrl, CTRL.seq, 1);
    Atomics.notify(this.ctrl, CTRL.seq);
    fn(...args, bounds[0], bounds[1], this.scratchPtrs[0]);
    const want = this.workers.length;
    let spins = 0;
    for (;;) {
      const done = Atomics.load(this.ctrl, CTRL.done);
      if (done >= want) break;
      if (++spins > SPIN_LIMIT) Atomics.wait(this.ctrl, CTRL.done, done, 1);
    }
    if (Atomics.load(this.ctrl, CTRL.failed)) throw new Error(`kernel ${name} failed in a worker thread (see its stderr)`);
  }

  /** Stops the worker threads, so that the process can exit. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    Atomics.store(this.ctrl, CTRL.quit, 1);
    Atomics.add(this.ctrl, CTRL.seq, 1);
    Atomics.notify(this.ctrl, CTRL.seq);
    await Promise.all(this.workers.map((w) => new Promise<void>((resolve) => {
      w.once('exit', () => resolve());
    })));
  }
}
