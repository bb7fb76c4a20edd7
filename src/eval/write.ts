// Writes an evaluation to a directory: metrics.json, rollouts.jsonl, one PNG per rendered diagram; and reads it back.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { executeCompletion } from '../env/execute.ts';
import { renderPng } from '../render/png.ts';
import { renderSvg } from '../render/svg.ts';
import type { EvalMetrics, Rollout } from './evaluate.ts';

const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120);

/** Writes the directory; every rollout whose completion yields a canvas gets `images/<task>-<sample>.png`. */
export function writeEvalDir(dir: string, result: { rollouts: Rollout[]; metrics: EvalMetrics }, o: { images?: boolean; pngWidth?: number } = {}): void {
  mkdirSync(join(dir, 'images'), { recursive: true });
  const lines: string[] = [];
  for (const r of result.rollouts) {
    if (o.images !== false) {
      const exec = executeCompletion(r.completion);
      if (exec.canvas && exec.canvas.shapes.size > 0) {
        const file = `images/${safeName(r.task_id)}-${r.sample}.png`;
        writeFileSync(join(dir, file), renderPng(renderSvg(exec.canvas, { title: r.prompt, errors: exec.errors }), { width: o.pngWidth ?? 640 }));
        r.image = file;
      }
    }
    lines.push(JSON.stringify(r));
  }
  writeFileSync(join(dir, 'rollouts.jsonl'), lines.join('\n') + (lines.length ? '\n' : ''));
  writeFileSync(join(dir, 'metrics.json'), JSON.stringify(result.metrics, null, 2) + '\n');
}

/** Reads an evaluation directory written by writeEvalDir; errors name the missing or broken file. */
export function readEvalDir(dir: string): { rollouts: Rollout[]; metrics: EvalMetrics } {
  const metricsFile = join(dir, 'metrics.json');
  const rolloutsFile = join(dir, 'rollouts.jsonl');
  for (const f of [metricsFile, rolloutsFile]) if (!existsSync(f)) throw new Error(`${dir} is not an eval directory: ${f} is missing`);
  let metrics: EvalMetrics;
  try {
    metrics = JSON.parse(readFileSync(metricsFile, 'utf8'));
  } catch (err) {
    throw new Error(`${metricsFile}: ${(err as Error).message}`);
  }
  const rollouts = readFileSync(rolloutsFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l) as Rollout;
      } catch (err) {
        throw new Error(`${rolloutsFile} line ${i + 1}: ${(err as Error).message}`);
      }
    });
  return { rollouts, metrics };
}
