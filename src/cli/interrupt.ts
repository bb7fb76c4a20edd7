// Stopping a training command: the first SIGINT (Ctrl-C) or SIGTERM asks the trainer to stop after its current step,
// which saves a checkpoint, and the command then exits with 128 + the signal's number (130, 143), as a shell reports
// a process the signal ended. A trainer computes without leaving the thread within a step and sees the signal only
// when it yields between steps, so a second signal handled the same way would wait for that step: the first one hands
// both signals back to their default action instead, and a second ends the process at once. That cannot tear a
// checkpoint: each is written to a temporary directory and renamed.
import { constants } from 'node:os';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface Interrupt {
  /** Aborted by the first signal: what the trainer's `signal` option takes. */
  readonly signal: AbortSignal;
  /** 128 + the number of the signal that came; undefined while none did. */
  readonly exitCode: number | undefined;
  /** Stops listening, giving the signals back to their default action. */
  dispose(): void;
}

export function stopOnSignals(command: string): Interrupt {
  const controller = new AbortController();
  let exitCode: number | undefined;
  const dispose = () => {
    for (const s of SIGNALS) process.off(s, onSignal);
  };
  function onSignal(signal: NodeJS.Signals) {
    dispose();
    exitCode = 128 + constants.signals[signal];
    controller.abort();
    process.stderr.write(`\ncanvasgym ${command}: ${signal}: stopping after this step and saving a checkpoint (Ctrl-C again to quit now)\n`);
  }
  for (const s of SIGNALS) process.on(s, onSignal);
  return {
    signal: controller.signal,
    get exitCode() {
      return exitCode;
    },
    dispose,
  };
}
