// `canvasgym eval`: a policy on held-out tasks -> metrics.json, rollouts.jsonl, PNGs and report.html; or --compare.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { z } from 'zod';
import cliProgress from 'cli-progress';
import { evaluatePolicy, type EvalRenderer } from '../eval/evaluate.ts';
import { compareTable } from '../eval/compare.ts';
import { renderReport } from '../eval/report.ts';
import { readEvalDir, writeEvalDir } from '../eval/write.ts';
import { BASELINE_NAMES } from '../diagram/teacher/baselines.ts';
import { policyFromSpec } from '../diagram/teacher/registry.ts';
import { RUBRIC_NAMES } from '../diagram/reward/presets.ts';
import { generateTasks, maxDistinct } from '../diagram/tasks/generate.ts';
import type { Task } from '../diagram/tasks/spec.ts';
import { parseRenderer } from '../diagram/tldraw/renderer.ts';
import { CheckpointError } from '../model/checkpoint-error.ts';
import { UsageError } from './usage-error.ts';
import { outputDirFlag } from './flags.ts';
import { EvalSettings, SPLIT_TASKS } from './eval-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';
import { readTasks } from './task-file.ts';
import { addJudgeOptions, judgeFromFlags } from './judge-flags.ts';
import { DEFAULT_JUDGE_CACHE, JUDGE_CACHES } from './judge-settings.ts';
import { judgeSummary } from '../diagram/reward/judge.ts';
import { diagramEnv } from '../diagram/diagram-env.ts';

type EvalFlags = z.infer<typeof EvalSettings>;

async function tasksFrom(flags: EvalFlags): Promise<Task[]> {
  if (flags.tasks && flags.split) throw new UsageError('give --tasks FILE or --split, not both');
  if (flags.tasks) {
    const tasks = await readTasks(flags.tasks);
    return flags.n ? tasks.slice(0, flags.n) : tasks;
  }
  const split = flags.split ?? 'heldout';
  const n = flags.n ?? SPLIT_TASKS;
  const max = maxDistinct(split);
  if (n > max) throw new UsageError(`--n ${n} is more than the ${split} split holds (${max} distinct tasks)`);
  return generateTasks({ split, n, seed: flags.seed });
}

export function registerEval(cmd: Command): void {
  addSettingFlags(cmd, EvalSettings);
  addJudgeOptions(cmd, JUDGE_CACHES.eval)
    .action(async (opts: Record<string, unknown>) => {
      const flags = readSettings(EvalSettings, opts);
      if (flags.compare) {
        if (flags.compare.length < 1) throw new UsageError('--compare needs at least one eval directory');
        const evals = flags.compare.map((dir) => {
          try {
            return { name: dir, ...readEvalDir(dir) };
          } catch (err) {
            throw new UsageError((err as Error).message);
          }
        });
        process.stdout.write(compareTable(evals) + '\n');
        return;
      }
      if (!flags.policy) throw new UsageError('--policy is required (or --compare DIR...)');
      if (!flags.out) throw new UsageError('--out DIR is required');
      outputDirFlag('--out', flags.out);
      const rubrics = flags.rubrics.split(',').map((r) => r.trim()).filter(Boolean);
      if (rubrics.length === 0) throw new UsageError(`--rubrics names no rubric: give one or more of ${RUBRIC_NAMES.join(', ')}, comma-separated`);
      const unknown = rubrics.find((r) => !RUBRIC_NAMES.includes(r));
      if (unknown) throw new UsageError(`--rubrics: unknown rubric ${JSON.stringify(unknown)}; known: ${RUBRIC_NAMES.join(', ')}`);
      // Every flag is checked before the tasks are read and the policy loaded, which may take a while.
      const { samples } = flags;
      const passThreshold = flags.pass_threshold;
      const sampling = { temperature: flags.temperature, topP: flags.top_p, maxTokens: flags.max_tokens, seed: flags.seed };
      let rendererName;
      try {
        rendererName = parseRenderer(flags.renderer);
      } catch (err) {
        throw new UsageError(`--renderer: ${(err as Error).message}`);
      }
      const judge = judgeFromFlags(opts, DEFAULT_JUDGE_CACHE);
      const tasks = await tasksFrom(flags);
      const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
      let policy;
      try {
        policy = await policyFromSpec(flags.policy, { specFor: (prompt) => specs.get(prompt), structuredOutput: flags.structured_output });
      } catch (err) {
        if (err instanceof CheckpointError) throw err;
        throw new UsageError(`--policy: ${(err as Error).message}`);
      }
      const tldraw = rendererName === 'tldraw' ? await startTldraw(flags.images) : null;
      const bar = flags.progress ? new cliProgress.SingleBar({ format: 'eval {bar} {value}/{total} tasks | {eta_formatted} left', hideCursor: true }, cliProgress.Presets.shades_classic) : null;
      bar?.start(tasks.length, 0);
      try {
        const result = await evaluatePolicy(diagramEnv, policy, tasks, {
          samples,
          rubrics,
          passThreshold,
          sampling,
          renderer: tldraw?.renderer,
          judge,
          onProgress: (done) => bar?.update(done),
        });
        bar?.stop();
        writeEvalDir(diagramEnv, flags.out, result, { images: flags.images });
        // What a score is worth: fixed answers that read only the request, scored on the same tasks.
        const baselines = [];
        if (flags.baselines) {
          for (const name of BASELINE_NAMES) {
            const b = await evaluatePolicy(diagramEnv, await policyFromSpec(`baseline:${name}`, { specFor: (prompt) => specs.get(prompt) }), tasks, { rubrics, passThreshold });
            writeEvalDir(diagramEnv, join(flags.out, 'baselines', name), b, { images: false });
            baselines.push({ label: `baseline:${name}`, ...b });
          }
        }
        writeFileSync(
          join(flags.out, 'report.html'),
          renderReport({ env: diagramEnv, title: `canvasgym eval: ${policy.name}`, subtitle: `${tasks.length} tasks x ${samples} samples; baselines are fixed answers that read only the request`, evals: [{ label: policy.name, ...result }, ...baselines], gallery: [policy.name] }),
        );
        const m = result.metrics;
        const f = (v: number) => v.toFixed(3);
        process.stdout.write(
          [
            `policy ${policy.name}: ${m.completions} completions on ${m.tasks} tasks`,
            ...Object.keys(m.reward).map((r) => `  ${r} reward ${f(m.reward[r].mean)} [${f(m.reward[r].lo)}, ${f(m.reward[r].hi)}]`),
            `  parse ${f(m.parse_rate.mean)}  schema-valid ${f(m.schema_valid_rate.mean)}  renderer-accept ${f(m.renderer_accept_rate.mean)}`,
            ...(m.pass_at_k ? [`  ${Object.entries(m.pass_at_k).map(([k, v]) => `${k} ${f(v)}`).join('  ')}`] : []),
            ...(judge ? [`  ${judgeSummary(judge.judge)}`] : []),
            ...(m.judge ? [`  judge mean ${f(m.judge.mean.mean)}; Spearman with ${m.judge.versus} ${m.judge.spearman[`${m.judge.versus} reward`]?.toFixed(2) ?? 'n/a'}; ${m.judge.disagreements.length} disagreements listed in the report`] : []),
            ...baselines.map((b) => `  ${b.label.padEnd(20)} ${rubrics.map((r) => `${r} ${f(b.metrics.reward[r].mean)}`).join('  ')}`),
            `wrote ${join(flags.out, 'metrics.json')}, rollouts.jsonl, images/${baselines.length ? ', baselines/' : ''} and ${join(flags.out, 'report.html')}`,
          ].join('\n') + '\n',
        );
      } finally {
        bar?.stop();
        await policy.close?.();
        await tldraw?.close();
      }
    });
}

/** The real tldraw editor as the eval's renderer; playwright loads only when asked for. */
async function startTldraw(pictures: boolean): Promise<{ renderer: EvalRenderer; close: () => Promise<void> }> {
  const { TldrawDriver } = await import('../diagram/tldraw/driver.ts');
  const { tldrawReadbacks, rendererReadback } = await import('../diagram/tldraw/score.ts');
  let driver;
  try {
    driver = await TldrawDriver.start();
  } catch (err) {
    throw new UsageError(`--renderer tldraw: ${(err as Error).message}`);
  }
  const started = driver;
  return {
    renderer: {
      name: 'tldraw',
      async render(completions) {
        const rbs = await tldrawReadbacks(started, completions, { png: pictures });
        return rbs.map((rb) => (rb ? { readback: rendererReadback(rb), png: rb.png } : undefined));
      },
    },
    close: () => started.close(),
  };
}
