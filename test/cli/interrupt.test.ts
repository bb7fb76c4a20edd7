// The first SIGINT or SIGTERM asks for a stop (the run saves and exits 128 + the signal's number); a second ends the
// process at once, even while a step holds the thread.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const INTERRUPT = pathToFileURL(join(import.meta.dirname, '..', '..', 'src', 'cli', 'interrupt.ts')).href;

/** A trainer stand-in: short steps that yield between them; once asked to stop, it says so and then holds the thread
 *  for a minute (a long last step), which only a signal's default action can cut short. */
const TRAINER = `
import { stopOnSignals } from ${JSON.stringify(INTERRUPT)};
const stop = stopOnSignals('test');
const busy = (ms) => { const end = Date.now() + ms; while (Date.now() < end); };
process.stdout.write('ready\\n');
for (;;) {
  busy(20);
  await new Promise((r) => setImmediate(r));
  if (stop.signal.aborted) {
    process.stdout.write('stopping ' + stop.exitCode + '\\n');
    busy(60_000);
    process.exit(1);
  }
}
`;

async function signalTwice(signal: NodeJS.Signals) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', TRAINER], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: (() => void)[] = [];
  child.stdout.on('data', (d: Buffer) => {
    stdout += d;
    for (const check of waiting) check();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig })));
  const saw = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => stdout.includes(text) && resolve();
      waiting.push(check);
      check();
    });
  await saw('ready');
  child.kill(signal);
  await saw('stopping');
  const sent = performance.now();
  child.kill(signal);
  const end = await exited;
  return { ...end, stdout, stderr, ms: performance.now() - sent };
}

describe('stopOnSignals', () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal}: the first asks for a stop with exit code ${code}, the second ends the process at once`, async () => {
      const r = await signalTwice(signal);
      expect(r.stdout).toContain(`stopping ${code}`);
      expect(r.stderr).toContain(`canvasgym test: ${signal}: stopping after this step and saving a checkpoint (Ctrl-C again to quit now)`);
      expect(r.signal).toBe(signal);
      expect(r.ms).toBeLessThan(5000);
    }, 60_000);
  }
});
