// `canvasgym grpo`: GRPO from a student checkpoint on the train split or a task file, with a progress bar and resume.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { DEFAULT_ENV, getEnv } from './environments.ts';
import type { EnvTask, TextEnv } from '../environment/text-env.ts';
import { envFlag } from './env-flag.ts';
import { grpoCommandSettings } from './grpo-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';
import { GRPO_DEFAULTS, grpoConfig, GrpoInputError, trainGrpo, type GRPOConfig } from '../train/grpo.ts';
import { GrpoSettings } from '../train/grpo-settings.ts';
import { pickSettings } from '../settings.ts';
import { judgeSummary } from '../diagram/reward/judge.ts';
import { readTasks } from './task-file.ts';
import { checkCheckpoint } from '../model/checkpoint.ts';
import { UsageError } from './usage-error.ts';
import { addJudgeOptions, judgeFromFlags } from './judge-flags.ts';
import { JUDGE_CACHES } from './judge-settings.ts';
import { stopOnSignals } from './interrupt.ts';
import { outputDirFlag } from './flags.ts';

type GrpoFlags = Record<string, unknown>;

/** The prompt pool: a task file, or the first `n` tasks drawn from the environment's train split. */
export async function grpoTasks(flags: { env?: string; tasks?: string; split?: string; numTasks: number; seed: number }): Promise<EnvTask[]> {
  const env = envFlag(flags.env);
  const train = env.splits[0];
  if (flags.tasks !== undefined && flags.split !== undefined) throw new UsageError(`give --tasks FILE or --split ${train}, not both`);
  if (flags.tasks !== undefined) {
    if (env.name !== DEFAULT_ENV) throw new UsageError(`--tasks reads the diagram environment's task files; the ${env.name} environment draws its tasks with --split`);
    return readTasks(flags.tasks);
  }
  const split = flags.split ?? train;
  if (split !== train) throw new UsageError(`--split must be ${train} (held-out tasks are for evaluation), got ${JSON.stringify(split)}`);
  return env.tasks(train, flags.numTasks, flags.seed);
}

/** The command's settings and the config they give; every bad value is a UsageError naming its flag. */
function fromFlags(flags: GrpoFlags) {
  const env = envFlag(flags.env as string | undefined);
  const settings = readSettings(grpoCommandSettings(env), flags);
  outputDirFlag('--out', settings.output_dir);
  checkCheckpoint(settings.init);
  const config = grpoConfig(pickSettings(GrpoSettings, settings));
  if (flags.numGenerations !== undefined && flags.generationBatchSize === undefined && config.generation_batch_size % config.num_generations !== 0) {
    // Keep the default number of prompts per step when only the group size changes.
    config.generation_batch_size = config.num_generations * Math.max(1, Math.round(GRPO_DEFAULTS.generation_batch_size / GRPO_DEFAULTS.num_generations));
  }
  return { env, settings, config };
}

export const configFromFlags = (flags: GrpoFlags): GRPOConfig => fromFlags(flags).config;

export function registerGrpo(cmd: Command): void {
  addSettingFlags(cmd, grpoCommandSettings(getEnv(DEFAULT_ENV)));
  addJudgeOptions(cmd, JUDGE_CACHES.grpo)
    .action(async (flags: GrpoFlags) => {
      const { env, settings, config } = fromFlags(flags);
      const judge = judgeFromFlags(flags, join(config.output_dir, 'judge-cache'));
      const tasks = await grpoTasks({ env: settings.env, tasks: settings.tasks, split: settings.split, numTasks: settings.num_tasks, seed: config.seed });
      await runCommand(settings, env, config, tasks, judge);
    });
}

async function runCommand(flags: { resume: boolean; progress: boolean }, env: TextEnv, config: GRPOConfig, tasks: EnvTask[], judge: ReturnType<typeof judgeFromFlags>): Promise<void> {
  const bar = new cliProgress.SingleBar(
    {
      format: 'grpo |{bar}| step {value}/{total} | reward {reward} | valid {valid} | KL {kl} | skipped {skipped} | {tps} tok/s | ETA {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  const interrupt = stopOnSignals('grpo');
  let started = false;
  const say = (line: string) => {
    if (started) process.stderr.write('\n');
    process.stderr.write(line + '\n');
  };
  try {
    const result = await trainGrpo(config, {
      env,
      tasks,
      judge,
      resume: flags.resume,
      signal: interrupt.signal,
      onMessage: say,
      onStep: (row, maxSteps) => {
        if (!flags.progress) {
          process.stderr.write(JSON.stringify(row) + '\n');
          return;
        }
        const payload = {
          reward: row.reward_mean.toFixed(3),
          valid: `${(100 * row.valid_action_rate).toFixed(0)}%`,
          kl: row.kl.toFixed(4),
          skipped: `${row.skipped_groups}/${row.groups}`,
          tps: Math.round(row.tokens_per_s),
        };
        if (!started) {
          bar.start(maxSteps, row.step - 1, payload);
          started = true;
        }
        bar.update(row.step, payload);
      },
    });
    if (started) bar.stop();
    started = false;
    const l = result.last;
    process.stdout.write(
      [
        `${result.interrupted ? 'stopped' : 'trained'} ${result.steps} GRPO steps in ${result.seconds.toFixed(0)} s`,
        l ? `last step: reward ${l.reward_mean.toFixed(3)} (min ${l.reward_min.toFixed(3)}, max ${l.reward_max.toFixed(3)}), valid-action rate ${(100 * l.valid_action_rate).toFixed(1)}%, KL ${l.kl.toFixed(4)}, skipped groups ${l.skipped_groups}/${l.groups}` : '',
        `checkpoint: ${result.finalDir ?? result.lastCheckpoint}`,
        `log: ${result.logPath}`,
        `rollouts: ${result.rolloutsPath}`,
        judge ? judgeSummary(judge.judge) : '',
        result.interrupted ? `continue with the same command and --resume` : '',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
    // Stopped by a signal: the exit status says so, as a shell reports a process the signal ended.
    if (result.interrupted) process.exitCode = interrupt.exitCode;
  } catch (err) {
    if (started) bar.stop();
    if (err instanceof GrpoInputError) throw new UsageError(err.message);
    throw err;
  } finally {
    interrupt.dispose();
  }
}
