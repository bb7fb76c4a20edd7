// A compute thread of the engine (see kernels.ts): instantiates the kernels on the shared memory, then waits for work
// on the control buffer, runs its part of each kernel call and reports done.
import { parentPort, workerData } from 'node:worker_threads';
import { ARG_SLOTS, CTRL, KERNEL_NAMES, SPIN_LIMIT } from './kernels.ts';

interface Init {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  ctrl: SharedArrayBuffer;
  args: SharedArrayBuffer;
  index: number;
}

const init = workerData as Init;
const instance = new WebAssembly.Instance(init.module, { env: { memory: init.memory } });
const fns = KERNEL_NAMES.map((n) => instance.exports[n] as (...a: number[]) => void);
const ctrl = new Int32Array(init.ctrl);
const args = new Float64Array(init.args);
const row = init.index * ARG_SLOTS;

let seen = Atomics.load(ctrl, CTRL.seq);
parentPort!.postMessage('ready');
for (;;) {
  let spins = 0;
  while (Atomics.load(ctrl, CTRL.seq) === seen) {
    if (++spins > SPIN_LIMIT) Atomics.wait(ctrl, CTRL.seq, seen);
  }
  seen = Atomics.load(ctrl, CTRL.seq);
  if (Atomics.load(ctrl, CTRL.quit)) break;
  const n = args[row];
  if (n > 0) {
    try {
      fns[Atomics.load(ctrl, CTRL.op)](...Array.from(args.subarray(row + 1, row + 1 + n)));
    } catch (err) {
      console.error(err);
      Atomics.store(ctrl, CTRL.failed, 1);
    }
  }
  Atomics.add(ctrl, CTRL.done, 1);
  Atomics.notify(ctrl, CTRL.done);
}
parentPort!.close();
