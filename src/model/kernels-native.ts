// The native backend of the engine (native/: a Node addon built by node-gyp at install, C++ kernels for the CPU's widest
// instruction set, OpenBLAS's GEMMs where the library is there and asked for): loading it, and which backend a model
// gets. kernels.ts runs the kernels.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The engine's compute backends: the same kernels (names, arguments, work ranges) on the same arena. */
export const BACKENDS = ['native', 'wasm'] as const;
export type Backend = (typeof BACKENDS)[number];

/** What native/src/addon.cc exports. */
export interface NativeAddon {
  /** blas: OpenBLAS's build ('' where it was not found, blasMissing saying why); gemm: where the GEMMs run now. */
  info(): { isa: string; blas: string; core: string; blasMissing: string; gemm: GemmMode; names: string[] };
  /** Sends the GEMMs to gemm.h (own), OpenBLAS (blas) or each to the faster by shape (auto); without OpenBLAS always
   *  own. Returns the mode in force. */
  setGemm(mode: GemmMode): GemmMode;
  /** Binds an engine: its arena (a view over the shared memory) and the buffer its kernel arguments are written to. */
  bind(memory: Uint8Array, args: Float64Array): number;
  /** The arena grew (in place: a shared memory never moves). */
  grown(id: number, memory: Uint8Array): void;
  unbind(id: number): void;
  /** Runs kernel `op` (an index into info().names) over [0, total) on `threads` threads; arguments in the args buffer. */
  run(id: number, op: number, total: number, grain: number, align: number, chunksPerThread: number, threads: number): void;
  sumSquares(id: number, ptr: number, n: number): number;
  packedLayerFloats(C: number): number;
}

export type GemmMode = 'own' | 'blas' | 'auto';

const ADDON_URL = new URL('../../native/build/Release/canvasgym_native.node', import.meta.url);

let loaded: { addon: NativeAddon; describe: string } | { error: string } | undefined;

/** The addon, or why it is not there (not built, built for another Node, a library missing). */
export function loadNative(): { addon: NativeAddon; describe: string } | { error: string } {
  if (loaded) return loaded;
  // CANVASGYM_NATIVE_ADDON: another build of the addon (comparing builds without replacing the installed one).
  const path = process.env.CANVASGYM_NATIVE_ADDON || fileURLToPath(ADDON_URL);
  if (!existsSync(path)) {
    loaded = { error: 'native addon not built: run `npm run build:native` (needs g++ and make)' };
    return loaded;
  }
  try {
    const addon = createRequire(import.meta.url)(path) as NativeAddon;
    loaded = { addon, describe: describeNative(addon) };
  } catch (err) {
    loaded = { error: `native addon failed to load: ${(err as Error).message.split('\n')[0]}` };
  }
  return loaded;
}

/** One line of what the addon runs: its kernels' instruction set and where the GEMMs go. */
export function describeNative(addon: NativeAddon): string {
  const info = addon.info();
  const blas = info.blas.split(' ').slice(0, 2).join(' ');
  if (info.gemm === 'own') return `${info.isa} kernels, own GEMMs${info.blas ? ` (${blas} found, not used)` : ` (no OpenBLAS: ${info.blasMissing})`}`;
  return `${info.isa} kernels, ${info.gemm === 'blas' ? '' : 'some '}GEMMs in ${blas}${info.core ? ` for ${info.core}` : ''}`;
}

let chosen: Backend | undefined;

/** Sets the backend that models created from now on use (the `--backend` flag); undefined: back to the default. */
export function setDefaultBackend(backend: Backend | undefined): void {
  if (backend !== undefined && !BACKENDS.includes(backend)) throw new Error(`backend must be one of ${BACKENDS.join(', ')}, got ${JSON.stringify(backend)}`);
  chosen = backend;
}

/**
 * The backend for a new model, and why: the one asked for (argument, then setDefaultBackend, then the
 * CANVASGYM_BACKEND environment variable), else native where the addon loads and wasm otherwise. Asking for native
 * where it does not load is an error that says why.
 */
export function resolveBackend(requested?: Backend): { backend: Backend; why: string; addon?: NativeAddon } {
  const env = process.env.CANVASGYM_BACKEND;
  if (requested === undefined && chosen === undefined && env !== undefined && env !== '' && !BACKENDS.includes(env as Backend)) {
    throw new Error(`CANVASGYM_BACKEND must be one of ${BACKENDS.join(', ')}, got ${JSON.stringify(env)}`);
  }
  const asked = requested ?? chosen ?? (env ? (env as Backend) : undefined);
  const how = requested !== undefined || chosen !== undefined ? 'asked for' : env ? 'CANVASGYM_BACKEND' : 'default';
  if (asked === 'wasm') return { backend: 'wasm', why: how === 'default' ? 'default' : `${how} wasm` };
  const native = loadNative();
  if ('addon' in native) return { backend: 'native', why: native.describe, addon: native.addon };
  if (asked === 'native') throw new Error(`the native backend was ${how === 'asked for' ? 'asked for' : `set by ${how}`} but is not available: ${native.error}`);
  return { backend: 'wasm', why: native.error };
}

const announced = new Set<string>();

/** Says once per process (per distinct choice) which backend the models run on and why, in one line on stderr. */
export function announceBackend(backend: Backend, why: string, threads: number): void {
  const line = `canvasgym: model backend ${backend} (${why}; ${threads} thread${threads > 1 ? 's' : ''})`;
  if (announced.has(line) || process.env.CANVASGYM_QUIET_BACKEND === '1') return;
  announced.add(line);
  process.stderr.write(`${line}\n`);
}
