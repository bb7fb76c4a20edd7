// `canvasgym grpo`: GRPO from a student checkpoint on the train split or a task file, with a progress bar and resume.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { DEFAULT_ENV, getEnv } from '../environments.ts';
import type { EnvTask, TextEnv } from '../environment/text-env.ts';
import { ENV_FLAG_HELP, envFlag } from './env-flag.ts';
import { GRPO_DEFAULTS, grpoConfig, GrpoInputError, LOSS_TYPES, LR_SCHEDULERS, SCALE_REWARDS, trainGrpo, type GRPOConfig } from '../train/grpo.ts';
import { judgeSummary } from '../reward/judge.ts';
import { readTasks } from './teacher.ts';
import { UsageError } from './usage-error.ts';
import { addJudgeOptions, judgeFromFlags, type JudgeFlags } from './judge-flags.ts';
import { stopOnSignals } from './interrupt.ts';
import { choiceFlag, numberFlag, outputDirFlag, threadsFlag } from './flags.ts';

interface GrpoFlags extends JudgeFlags {
  env?: string;
  init?: string;
  tasks?: string;
  split?: string;
  numTasks: string;
  out?: string;
  resume?: boolean;
  reward?: string;
  numGenerations?: string;
  generationBatchSize?: string;
  perDeviceTrainBatchSize?: string;
  steps?: string;
  numIterations?: string;
  learningRate?: string;
  lrScheduler?: string;
  warmupRatio?: string;
  beta?: string;
  epsilon?: string;
  epsilonHigh?: string;
  lossType?: string;
  scaleRewards?: string;
  maskTruncatedCompletions?: boolean;
  maxCompletionLength?: string;
  temperature?: string;
  topP?: string;
  topK?: string;
  curriculum?: boolean;
  maxGradNorm?: string;
  logCompletionsSteps?: string;
  saveSteps?: string;
  seed?: string;
  threads?: string;
  progress: boolean;
}

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

/** Flags to a config; every bad value is a UsageError naming its flag. */
export function configFromFlags(flags: GrpoFlags): GRPOConfig {
  if (flags.init === undefined) throw new UsageError('--init is required: the student checkpoint to start from (e.g. RUN/sft/final)');
  if (flags.out === undefined) throw new UsageError('--out is required: the output directory');
  outputDirFlag('--out', flags.out);
  const env = envFlag(flags.env);
  if (!existsSync(join(flags.init, 'config.json'))) throw new UsageError(`--init: ${flags.init} is not a checkpoint directory (no config.json)`);
  const config = grpoConfig({
    output_dir: flags.out,
    init: flags.init,
    reward: choiceFlag('--reward', flags.reward, env.rewards) ?? env.defaultReward,
    num_generations: numberFlag('--num-generations', flags.numGenerations, { integer: true, min: 2 }),
    generation_batch_size: numberFlag('--generation-batch-size', flags.generationBatchSize, { integer: true, positive: true }),
    per_device_train_batch_size: numberFlag('--per-device-train-batch-size', flags.perDeviceTrainBatchSize, { integer: true, positive: true }),
    max_steps: numberFlag('--steps', flags.steps, { integer: true, positive: true }),
    num_iterations: numberFlag('--num-iterations', flags.numIterations, { integer: true, positive: true }),
    learning_rate: numberFlag('--learning-rate', flags.learningRate, { positive: true }),
    lr_scheduler_type: choiceFlag('--lr-scheduler', flags.lrScheduler, LR_SCHEDULERS),
    warmup_ratio: numberFlag('--warmup-ratio', flags.warmupRatio, { min: 0, below: 1 }),
    beta: numberFlag('--beta', flags.beta, { min: 0 }),
    epsilon: numberFlag('--epsilon', flags.epsilon, { min: 0 }),
    epsilon_high: numberFlag('--epsilon-high', flags.epsilonHigh, { min: 0 }),
    loss_type: choiceFlag('--loss-type', flags.lossType, LOSS_TYPES),
    scale_rewards: choiceFlag('--scale-rewards', flags.scaleRewards, SCALE_REWARDS),
    mask_truncated_completions: flags.maskTruncatedCompletions === false ? false : undefined,
    max_completion_length: numberFlag('--max-completion-length', flags.maxCompletionLength, { integer: true, positive: true }),
    temperature: numberFlag('--temperature', flags.temperature, { positive: true }),
    top_p: numberFlag('--top-p', flags.topP, { positive: true, max: 1 }),
    top_k: numberFlag('--top-k', flags.topK, { integer: true, min: 0 }),
    curriculum: flags.curriculum,
    max_grad_norm: numberFlag('--max-grad-norm', flags.maxGradNorm, { positive: true }),
    log_completions_steps: numberFlag('--log-completions-steps', flags.logCompletionsSteps, { integer: true, positive: true }),
    save_steps: numberFlag('--save-steps', flags.saveSteps, { integer: true, positive: true }),
    seed: numberFlag('--seed', flags.seed, { integer: true }),
    threads: threadsFlag(flags.threads),
  });
  if (flags.numGenerations !== undefined && flags.generationBatchSize === undefined && config.generation_batch_size % config.num_generations !== 0) {
    // Keep the default number of prompts per step when only the group size changes.
    config.generation_batch_size = config.num_generations * Math.max(1, Math.round(GRPO_DEFAULTS.generation_batch_size / GRPO_DEFAULTS.num_generations));
  }
  return config;
}

export function registerGrpo(cmd: Command): void {
  const d = GRPO_DEFAULTS;
  cmd
    .option('--env <name>', ENV_FLAG_HELP)
    .option('--init <dir>', 'student checkpoint to start from; also the frozen reference model')
    .option('--tasks <file>', 'prompt pool: tasks JSONL (from `canvasgym tasks`)')
    .option('--split <split>', 'prompt pool: the train split of the task suite (the default)')
    .option('--num-tasks <n>', 'tasks drawn from the split', '2000')
    .option('--out <dir>', 'output directory: log.jsonl, rollouts.jsonl, checkpoint-N/, final/')
    .option('--resume', 'continue from the latest OUT/checkpoint-N exactly where it stopped')
    .option('--reward <name>', `reward preset, one of the environment's (diagram: ${getEnv(DEFAULT_ENV).rewards.join(', ')}; default ${d.reward})`)
    .option('--num-generations <n>', `completions per prompt (default ${d.num_generations})`)
    .option('--generation-batch-size <n>', `completions per step, a multiple of --num-generations (default ${d.generation_batch_size})`)
    .option('--per-device-train-batch-size <n>', `completions per forward/backward pass (default ${d.per_device_train_batch_size})`)
    .option('--steps <n>', `steps: generation batches (default ${d.max_steps})`)
    .option('--num-iterations <n>', `optimizer updates per generation batch (default ${d.num_iterations})`)
    .option('--learning-rate <x>', `peak learning rate (default ${d.learning_rate})`)
    .option('--lr-scheduler <name>', `${LR_SCHEDULERS.join(' or ')} after warmup (default ${d.lr_scheduler_type})`)
    .option('--warmup-ratio <x>', `share of updates spent warming up (default ${d.warmup_ratio})`)
    .option('--beta <x>', `KL coefficient to the reference model, k3 estimator; 0 drops the reference (default ${d.beta})`)
    .option('--epsilon <x>', `lower clip: ratio >= 1 - epsilon (default ${d.epsilon})`)
    .option('--epsilon-high <x>', `upper clip: ratio <= 1 + epsilon_high (default ${d.epsilon_high})`)
    .option('--loss-type <name>', `token normalisation: ${LOSS_TYPES.join(', ')} (default ${d.loss_type})`)
    .option('--scale-rewards <how>', `advantage scaling: ${SCALE_REWARDS.join(', ')} (default ${d.scale_rewards})`)
    .option('--no-mask-truncated-completions', `train on completions cut by the length limit too (default: ${d.mask_truncated_completions ? 'left out of the loss' : 'trained on'})`)
    .option('--max-completion-length <n>', `new tokens per completion (default ${d.max_completion_length})`)
    .option('--temperature <t>', `sampling temperature (default ${d.temperature})`)
    .option('--top-p <p>', `nucleus sampling (default ${d.top_p})`)
    .option('--top-k <k>', `top-k sampling, 0 for off (default ${d.top_k})`)
    .option('--curriculum', 'raise the difficulty level over the first half of the steps')
    .option('--max-grad-norm <x>', `gradient clipping (default ${d.max_grad_norm})`)
    .option('--log-completions-steps <n>', `write rollouts every n steps (default ${d.log_completions_steps})`)
    .option('--save-steps <n>', `checkpoint every n steps (default ${d.save_steps})`)
    .option('--seed <n>', `seed for prompts and sampling (default ${d.seed})`)
    .option('--threads <n>', 'worker threads per model')
    .option('--no-progress', 'no progress bar; one JSON line per step on stderr');
  addJudgeOptions(cmd, 'OUT/judge-cache')
    .action(async (flags: GrpoFlags) => {
      const config = configFromFlags(flags);
      const judge = judgeFromFlags(flags, join(config.output_dir, 'judge-cache'));
      const tasks = await grpoTasks({ env: flags.env, tasks: flags.tasks, split: flags.split, numTasks: numberFlag('--num-tasks', flags.numTasks, { integer: true, positive: true }), seed: config.seed });
      await runCommand(flags, envFlag(flags.env), config, tasks, judge);
    });
}

async function runCommand(flags: GrpoFlags, env: TextEnv, config: GRPOConfig, tasks: EnvTask[], judge: ReturnType<typeof judgeFromFlags>): Promise<void> {
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
