// `canvasgym run` (what `npm start` runs): the whole pipeline under runs/<name>/, ending with the report's path.
import { join } from 'node:path';
import type { Command } from 'commander';
import { StageProgress } from '../io/progress.ts';
import { badRunName, RUN_CONFIGS, RunDirError, runPipeline, STAGES } from '../pipeline/run.ts';
import { UsageError } from './usage-error.ts';
import { outputDirFlag } from './flags.ts';
import { addJudgeOptions, judgeFromFlags } from './judge-flags.ts';
import { JUDGE_CACHES } from './judge-settings.ts';
import { RunSettings } from './run-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';

export function registerRun(cmd: Command): void {
  addSettingFlags(cmd, RunSettings);
  addJudgeOptions(cmd, JUDGE_CACHES.run)
    .action(async (opts: Record<string, unknown>) => {
      const flags = readSettings(RunSettings, opts);
      const name = flags.name ?? flags.preset;
      const bad = badRunName(name);
      if (bad) throw new UsageError(`--name ${bad}`);
      outputDirFlag('--runs-dir', join(flags.runs_dir, name));
      const judge = judgeFromFlags(opts, join(flags.runs_dir, name, 'judge-cache'));
      const progress = new StageProgress(STAGES, { bars: flags.progress && Boolean(process.stderr.isTTY) });
      try {
        const r = await runPipeline({ runsDir: flags.runs_dir, name, config: { ...RUN_CONFIGS[flags.preset], teacher: { ...RUN_CONFIGS[flags.preset].teacher, walk: flags.walk } }, fresh: flags.fresh, progress, judge });
        progress.stop();
        const f = (v: number) => v.toFixed(3);
        const width = Math.max(...r.table.map((t) => t.label.length));
        const lines = r.table.map(
          ({ label, metrics: m }) =>
            `  ${label.padEnd(width)}  task ${f(m.reward.task.mean)} [${f(m.reward.task.lo)}, ${f(m.reward.task.hi)}]  strong ${f(m.reward.strong.mean)}  valid ${f(m.renderer_accept_rate.mean)}  entities ${f(m.components.entities_present.mean)}  edges ${f(m.components.edges_correct.mean)}`,
        );
        const g = r.rlGain;
        lines.push(`  GRPO - SFT, entities_present + edges_correct (paired, 95% bootstrap): ${f(g.mean)} [${f(g.lo)}, ${f(g.hi)}]`);
        process.stdout.write(`${lines.join('\n')}\nfinished in ${(r.seconds / 60).toFixed(1)} min; report: ${r.report}\n`);
      } catch (err) {
        progress.stop();
        if (err instanceof RunDirError) throw new UsageError(err.message);
        throw err;
      }
    });
}
