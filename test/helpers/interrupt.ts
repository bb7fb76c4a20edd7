// Runs the real CLI and sends it a signal once its training log holds some steps: what Ctrl-C does to a user's run.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export interface Interrupted {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from the signal to the exit. */
  ms: number;
}

const loggedSteps = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l.startsWith('{"step"')).length : 0);

/** Starts `node bin/canvasgym.js ...args` and sends `signal` once `logPath` holds `steps` step rows. */
export async function interruptAfter(args: string[], logPath: string, steps: number, signal: NodeJS.Signals = 'SIGINT'): Promise<Interrupted> {
  const child = spawn(process.execPath, ['bin/canvasgym.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  // 'close' comes once the output is read to its end as well.
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  while (!exited && loggedSteps(logPath) < steps) await new Promise((r) => setTimeout(r, 10));
  const sent = performance.now();
  child.kill(signal);
  const code = await exit;
  return { code, stdout, stderr, ms: performance.now() - sent };
}
