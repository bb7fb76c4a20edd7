// `canvasgym run` (what `npm start` runs): the whole pipeline under runs/<name>/, ending with the report's path.
import { join } from 'node:path';
import type { Command } from 'commander';
import { StageProgress } from '../io/progress.ts';
import { badRunName, RUN_CONFIGS, RUN_PRESETS, RunDirError, runPipeline, STAGES, type RunPreset } from '../pipeline/run.ts';
import { UsageError } from './usage-error.ts';
import { outputDirFlag } from './flags.ts';
import { addJudgeOptions, judgeFromFlags, type JudgeFlags } from './judge-flags.ts';

interface RunFlags extends JudgeFlags {
  name?: string;
  preset: string;
  fresh?: boolean;
  runsDir: string;
  progress: boolean;
}

export function registerRun(cmd: Command): void {
  cmd
    .option('--name <name>', 'run directory name under --runs-dir (default: the preset name)')
    .option('--preset <preset>', `${RUN_PRESETS.join(' | ')}: quick takes under 3 minutes, default under 15, full longer and better`, 'default')
    .option('--fresh', 'start over instead of continuing the run directory')
    .option('--runs-dir <dir>', 'where runs live', 'runs')
    .option('--no-progress', 'plain log lines instead of progress bars');
  addJudgeOptions(cmd, 'RUNS_DIR/NAME/judge-cache')
    .action(async (flags: RunFlags) => {
      if (!(RUN_PRESETS as readonly string[]).includes(flags.preset)) throw new UsageError(`--preset must be ${RUN_PRESETS.join(', ')}, got ${JSON.stringify(flags.preset)}`);
      const name = flags.name ?? flags.preset;
      const bad = badRunName(name);
      if (bad) throw new UsageError(`--name ${bad}`);
      outputDirFlag('--runs-dir', join(flags.runsDir, name));
      const judge = judgeFromFlags(flags, join(flags.runsDir, name, 'judge-cache'));
      const progress = new StageProgress(STAGES, { bars: flags.progress && Boolean(process.stderr.isTTY) });
      try {
        const r = await runPipeline({ runsDir: flags.runsDir, name, config: RUN_CONFIGS[flags.preset as RunPreset], fresh: flags.fresh, progress, judge });
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
