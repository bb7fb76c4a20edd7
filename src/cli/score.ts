// `canvasgym score`: scores JSONL rows {prompt, completion, spec?} with a reward preset, streaming, one row out per
// row in and in order. A bad line becomes an error row naming its line number; the run goes on.
import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { JsonlWriter, readLines, type Line } from '../io/jsonl.ts';
import { getRubric } from '../diagram/reward/presets.ts';
import type { Rubric } from '../diagram/reward/rubric.ts';
import { judgeSummary } from '../diagram/reward/judge.ts';
import { withJudgment } from '../environment/judge.ts';
import { scoreInputLine } from '../diagram/reward/rows.ts';
import type { TldrawDriver } from '../diagram/tldraw/driver.ts';
import { parseRenderer } from '../diagram/tldraw/renderer.ts';
import { UsageError } from './usage-error.ts';
import { addJudgeOptions, judgeFromFlags, type JudgeFlags } from './judge-flags.ts';
import { DEFAULT_JUDGE_CACHE, JUDGE_CACHES } from './judge-settings.ts';
import { DEFAULT_THREADS } from '../settings.ts';
import { ScoreSettings } from './score-settings.ts';
import { scoreFileThreaded } from './score-threads.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';

type ScoreFlags = JudgeFlags & { reward: string; in?: string; out?: string; renderer?: string; threads?: string };

/** Lines per browser call with --renderer tldraw, and per batch of concurrent judge requests. */
const TLDRAW_CHUNK = 64;
const JUDGE_CHUNK = 32;

export async function runScore(opts: ScoreFlags): Promise<{ rows: number; failed: number; threads: number; judge?: string }> {
  const flags = readSettings(ScoreSettings, opts);
  let rubric: Rubric;
  try {
    rubric = getRubric(flags.reward);
  } catch (err) {
    throw new UsageError(`--reward: ${(err as Error).message}`);
  }
  if (flags.in !== undefined && flags.in !== '-') {
    if (!existsSync(flags.in)) throw new UsageError(`--in: no such file: ${flags.in}`);
    if (!statSync(flags.in).isFile()) throw new UsageError(`--in: not a file: ${flags.in}`);
  }
  let renderer;
  try {
    renderer = parseRenderer(flags.renderer);
  } catch (err) {
    throw new UsageError(`--renderer: ${(err as Error).message}`);
  }
  const judged = judgeFromFlags(opts, DEFAULT_JUDGE_CACHE);
  // Opening --out empties it: it comes after every other check, and never onto the file being read.
  if (flags.in !== undefined && flags.in !== '-' && flags.out !== undefined && existsSync(flags.out)) {
    const [a, b] = [statSync(flags.in), statSync(flags.out)];
    if (a.dev === b.dev && a.ino === b.ino) throw new UsageError(`--out: ${flags.out} is the input file (--in ${flags.in}); writing it would empty it before it is read`);
  }
  let out: JsonlWriter;
  try {
    out = JsonlWriter.open(flags.out, { batch: true });
  } catch (err) {
    throw new UsageError(`--out: cannot write ${flags.out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let rows = 0;
  let failed = 0;
  let driver: TldrawDriver | undefined;
  let lineReadbacks: typeof import('../diagram/tldraw/score.ts').lineReadbacks | undefined;
  // With tldraw, lines go to the browser in chunks (one page call per chunk), still written in order.
  const chunk: Line[] = [];
  const flush = async () => {
    const readbacks = driver && lineReadbacks ? await lineReadbacks(driver, chunk.map((l) => l.text)) : [];
    const scored = chunk.map((line, k) => scoreInputLine(rubric, line, readbacks[k]));
    const judgments = judged ? await judged.judge.judgeAll(scored.filter((s) => s.ok).map((s) => ({ prompt: s.row.prompt as string, completion: s.row.completion as string }))) : [];
    let next = 0;
    for (const { ok, row, json } of scored) {
      rows++;
      if (!ok) failed++;
      if (ok && judged) {
        const judgment = judgments[next++];
        const blended = withJudgment(row as { reward: number; components: Record<string, number> }, judgment, judged.weight);
        await out.write({ ...blended, judgment });
      } else if (json) await out.writeJson(json);
      else await out.write(row);
    }
    chunk.length = 0;
  };
  try {
    if (renderer === 'tldraw') {
      try {
        ({ lineReadbacks } = await import('../diagram/tldraw/score.ts'));
        driver = await (await import('../diagram/tldraw/driver.ts')).TldrawDriver.start();
      } catch (err) {
        throw new UsageError(`--renderer tldraw: ${(err as Error).message}`);
      }
    }
    // A file scored on its own is read without waiting on the event loop (the stream's chunks and promises cost
    // about 10 µs a row, a tenth of what scoring a row takes), on threads where the file is worth it.
    const fromFile = flags.in !== undefined && flags.in !== '-' && !driver && !judged;
    if (fromFile) return await scoreFileThreaded(flags.in!, flags.reward, rubric, flags.threads ?? DEFAULT_THREADS, out);
    // A line that is not text is answered with an error row, as a line that is not JSON is.
    for await (const line of readLines(flags.in, { badText: 'mark' })) {
      if (line.text.trim() === '' && !line.notText) continue;
      chunk.push(line);
      if (chunk.length >= (driver ? TLDRAW_CHUNK : judged ? JUDGE_CHUNK : 1)) await flush();
    }
    await flush();
  } finally {
    out.close();
    await driver?.close();
  }
  return { rows, failed, threads: 1, ...(judged ? { judge: judgeSummary(judged.judge) } : {}) };
}

export function registerScore(cmd: Command): void {
  addSettingFlags(cmd, ScoreSettings);
  addJudgeOptions(cmd, JUDGE_CACHES.score)
    .addHelpText(
      'after',
      '\nA line that is not a JSON object with string "prompt" and "completion" (or has an invalid "spec") gives an output\n' +
        'row with "line" and "error" naming the line number; scoring goes on and the exit code stays 0.',
    )
    .action(async (flags: ScoreFlags) => {
      const started = Date.now();
      const { rows, failed, threads, judge } = await runScore(flags);
      const secs = (Date.now() - started) / 1000;
      const where = flags.out ?? 'stdout';
      process.stderr.write(`canvasgym score: ${rows} row${rows === 1 ? '' : 's'} scored with ${flags.reward}${threads > 1 ? ` on ${threads} threads` : ''} in ${secs.toFixed(1)}s` +
        `${failed ? `, ${failed} with errors` : ''} -> ${where}\n${judge ? `${judge}\n` : ''}`);
    });
}
