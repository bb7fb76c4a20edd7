// A compute thread of the engine (see kernels.ts): instantiates the kernels on the shared memory, then waits for
// kernel calls on the control buffer and claims chunks of each until none are left.
import { parentPort, workerData } from 'node:worker_threads';
import { CTRL, KERNEL_NAMES, SPIN_LIMIT, runChunks } from './kernels.ts';

interface Init {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  ctrl: SharedArrayBuffer;
  args: SharedArrayBuffer;
  scratch: SharedArrayBuffer;
  index: number;
}

const init = workerData as Init;
const instance = new WebAssembly.Instance(init.module, { env: { memory: init.memory } });
const fns = KERNEL_NAMES.map((n) => instance.exports[n] as (...a: number[]) => void);
const ctrl = new Int32Array(init.ctrl);
const args = new Float64Array(init.args);
const scratch = new Float64Array(init.scratch);

let seen = Atomics.load(ctrl, CTRL.seq);
parentPort!.postMessage('ready');
for (;;) {
  let spins = 0;
  while (Atomics.load(ctrl, CTRL.seq) === seen) {
    if (++spins > SPIN_LIMIT) Atomics.wait(ctrl, CTRL.seq, seen);
  }
  seen = Atomics.load(ctrl, CTRL.seq);
  if (Atomics.load(ctrl, CTRL.quit)) break;
  runChunks(ctrl, args, fns[Atomics.load(ctrl, CTRL.op)], seen, scratch[init.index]);
}
parentPort!.close();
