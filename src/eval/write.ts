// Writes an evaluation to a directory: metrics.json, rollouts.jsonl, one PNG per rendered diagram; and reads it back.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { TextEnv } from '../environment/text-env.ts';
import { renderPng } from '../render/png.ts';
import { MAX_ROW_BYTES, readLinesSync } from '../io/jsonl.ts';
import type { EvalMetrics, EvalResult, Rollout } from './evaluate.ts';

const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120);

/** Writes the directory; every rollout whose completion the environment draws (not empty) gets `images/<task>-<sample>.png`. */
export function writeEvalDir(env: TextEnv, dir: string, result: EvalResult, o: { images?: boolean; pngWidth?: number } = {}): void {
  mkdirSync(join(dir, 'images'), { recursive: true });
  const lines: string[] = [];
  for (const [i, r] of result.rollouts.entries()) {
    if (o.images !== false) {
      const file = `images/${safeName(r.task_id)}-${r.sample}.png`;
      const rendered = result.pictures?.[i];
      const drawn = rendered || !env.draw ? null : env.draw(r.completion, { title: r.prompt, errors: true });
      if (rendered) {
        writeFileSync(join(dir, file), rendered);
        r.image = file;
      } else if (drawn && 'svg' in drawn && !drawn.empty) {
        writeFileSync(join(dir, file), renderPng(drawn.svg, { width: o.pngWidth ?? 640 }));
        r.image = file;
      }
    }
    lines.push(JSON.stringify(r));
  }
  writeFileSync(join(dir, 'rollouts.jsonl'), lines.join('\n') + (lines.length ? '\n' : ''));
  writeFileSync(join(dir, 'metrics.json'), JSON.stringify(result.metrics, null, 2) + '\n');
}

// What readers of an eval directory rely on (compare tables, the run's report); the other fields pass through. A
// directory from a user (--compare) may hold anything, and a field of the wrong type would crash the table.
const Mean = z.number().nullable(); // JSON writes a NaN mean (no completions) as null
const Interval = z.looseObject({ mean: Mean, lo: Mean, hi: Mean });
const Metrics = z.looseObject({
  completions: z.number(),
  parse_rate: Interval,
  schema_valid_rate: Interval,
  renderer_accept_rate: Interval,
  reward: z.record(z.string(), Interval),
  components: z.record(z.string(), Interval),
});
const RolloutRow = z.looseObject({ task_id: z.string(), sample: z.number(), rewards: z.record(z.string(), z.number()) });

function checked<T>(schema: z.ZodType, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return value as T;
  const issue = parsed.error.issues[0];
  throw new Error(`${where}: ${issue.path.join('.') || 'the value'}: ${issue.message}`);
}

/** Reads an evaluation directory written by writeEvalDir; errors name the missing or broken file and line. */
export function readEvalDir(dir: string): { rollouts: Rollout[]; metrics: EvalMetrics } {
  const metricsFile = join(dir, 'metrics.json');
  const rolloutsFile = join(dir, 'rollouts.jsonl');
  for (const f of [metricsFile, rolloutsFile]) if (!existsSync(f)) throw new Error(`${dir} is not an eval directory: ${f} is missing`);
  let metrics: unknown;
  try {
    metrics = JSON.parse(readFileSync(metricsFile, 'utf8'));
  } catch (err) {
    throw new Error(`${metricsFile}: ${(err as Error).message}`);
  }
  const rollouts: Rollout[] = [];
  for (const { lineNumber, text } of readLinesSync(rolloutsFile, { maxLineBytes: MAX_ROW_BYTES })) {
    if (!text.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch (err) {
      throw new Error(`${rolloutsFile} line ${lineNumber}: ${(err as Error).message}`);
    }
    rollouts.push(checked<Rollout>(RolloutRow, row, `${rolloutsFile} line ${lineNumber}`));
  }
  return { rollouts, metrics: checked<EvalMetrics>(Metrics, metrics, metricsFile) };
}
