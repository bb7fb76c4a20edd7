// `canvasgym sft`: trains the student GPT from scratch on teacher traces (TRL `messages` JSONL).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { PRESETS, runSft, sftConfig, SftInputError, type SFTConfig } from '../train/sft.ts';
import { MODEL_INITS } from '../model/gpt.ts';
import { MAX_VOCAB_SIZE, MIN_VOCAB_SIZE } from '../model/tokenizer.ts';
import { writeReferenceData } from '../train/reference-data.ts';
import type { TextEnv } from '../environment/text-env.ts';
import { UsageError } from './usage-error.ts';
import { ENV_FLAG_HELP, envFlag } from './env-flag.ts';
import { stopOnSignals } from './interrupt.ts';
import { choiceFlag, numberFlag, outputDirFlag, threadsFlag } from './flags.ts';

interface SftFlags {
  env?: string;
  data?: string;
  numTasks: string;
  out: string;
  preset: string;
  steps?: string;
  epochs?: string;
  resume?: boolean;
  learningRate?: string;
  tokensPerBatch?: string;
  vocabSize?: string;
  modelInit?: string;
  stutterRate?: string;
  warmupRatio?: string;
  evalSteps?: string;
  saveSteps?: string;
  evalSamples?: string;
  seed?: string;
  threads?: string;
  progress: boolean;
}

export function registerSft(cmd: Command): void {
  cmd
    .option('--env <name>', ENV_FLAG_HELP)
    .option('--data <file>', 'TRL messages JSONL, e.g. DIR/train.jsonl; without it, the environment\'s reference answers (OUT/reference.jsonl)')
    .option('--num-tasks <n>', 'without --data: train tasks whose reference answers are the data', '2000')
    .requiredOption('--out <dir>', 'output directory: log.jsonl, checkpoint-N/, final/')
    .option('--preset <name>', `model and training preset: ${PRESETS.join(', ')}`, 'default')
    .option('--steps <n>', 'optimizer steps (max_steps); overrides the preset')
    .option('--epochs <n>', 'passes over the data (num_train_epochs), when --steps is not given')
    .option('--resume', 'continue from the latest OUT/checkpoint-N exactly where it stopped')
    .option('--learning-rate <x>', 'peak learning rate')
    .option('--model-init <scheme>', `how a new run's weights start: ${MODEL_INITS.join(', ')} (induction plants a copying circuit)`)
    .option('--stutter-rate <r>', 'share of assistant tokens repeated once in the input, untrained (teaches recovery from a stutter), in [0, 1)')
    .option('--vocab-size <n>', 'BPE vocabulary size of a new run (bytes, merges and the chat tokens)')
    .option('--tokens-per-batch <n>', 'padded tokens per batch (rows x longest row)')
    .option('--warmup-ratio <r>', 'share of the steps spent warming the learning rate up, in [0, 1)')
    .option('--eval-steps <n>', 'evaluate every n steps')
    .option('--save-steps <n>', 'save a checkpoint every n steps')
    .option('--eval-samples <n>', 'held-out prompts sampled at each evaluation')
    .option('--seed <n>', 'seed for initialisation, data order and evaluation sampling')
    .option('--threads <n>', 'worker threads for the model kernels')
    .option('--no-progress', 'no progress bar')
    .action(async (flags: SftFlags) => {
      const preset = choiceFlag('--preset', flags.preset, PRESETS);
      if (flags.steps !== undefined && flags.epochs !== undefined) throw new UsageError('give --steps or --epochs, not both');
      const env = envFlag(flags.env);
      if (flags.data === undefined && !env.reference) throw new UsageError(`--data is required: the ${env.name} environment has no reference answers (make teacher traces with \`canvasgym teacher\`)`);
      if (flags.data !== undefined && !existsSync(flags.data)) throw new UsageError(`--data: ${flags.data} does not exist`);
      outputDirFlag('--out', flags.out);
      const numTasks = numberFlag('--num-tasks', flags.numTasks, { integer: true, positive: true });
      const positiveInt = { integer: true, positive: true };
      const share = { min: 0, below: 1 };
      const steps = numberFlag('--steps', flags.steps, positiveInt);
      const epochs = numberFlag('--epochs', flags.epochs, { positive: true });
      const overrides: Partial<SFTConfig> = {
        max_steps: steps ?? (epochs !== undefined ? 0 : undefined),
        num_train_epochs: epochs,
        learning_rate: numberFlag('--learning-rate', flags.learningRate, { positive: true }),
        tokens_per_batch: numberFlag('--tokens-per-batch', flags.tokensPerBatch, positiveInt),
        vocab_size: numberFlag('--vocab-size', flags.vocabSize, { integer: true, min: MIN_VOCAB_SIZE, max: MAX_VOCAB_SIZE, note: '256 bytes and the chat tokens, then merges' }),
        model_init: choiceFlag('--model-init', flags.modelInit, MODEL_INITS),
        stutter_rate: numberFlag('--stutter-rate', flags.stutterRate, share),
        warmup_ratio: numberFlag('--warmup-ratio', flags.warmupRatio, share),
        eval_steps: numberFlag('--eval-steps', flags.evalSteps, positiveInt),
        save_steps: numberFlag('--save-steps', flags.saveSteps, positiveInt),
        eval_samples: numberFlag('--eval-samples', flags.evalSamples, positiveInt),
        seed: numberFlag('--seed', flags.seed, { integer: true }),
        threads: threadsFlag(flags.threads),
      };
      const config = sftConfig(preset, flags.out, overrides);
      let data = flags.data;
      if (data === undefined) {
        data = join(flags.out, 'reference.jsonl');
        process.stderr.write(`${writeReferenceData(env, data, numTasks, config.seed)} reference answers of the ${env.name} environment in ${data}\n`);
      }
      await runCommand(flags, env, data, config);
    });
}

async function runCommand(flags: SftFlags, env: TextEnv, data: string, config: SFTConfig): Promise<void> {
  const bar = new cliProgress.SingleBar(
    {
      format: 'sft |{bar}| {value}/{total} steps | loss {loss} | {tps} tok/s | held-out valid {valid} reward {reward} | ETA {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  const interrupt = stopOnSignals('sft');
  // Without a terminal (CI, a log file) the bar would print nothing: print a line every logging_steps instead.
  const showBar = flags.progress && process.stderr.isTTY === true;
  let started = false;
  let valid = '-';
  let reward = '-';
  const say = (line: string) => {
    if (started && showBar) process.stderr.write('\n');
    process.stderr.write(line + '\n');
  };
  try {
    const result = await runSft({
      config,
      env,
      dataPath: data,
      resume: flags.resume,
      signal: interrupt.signal,
      onMessage: say,
      onProgress: (p) => {
        if (p.eval) {
          valid = `${(100 * p.eval.eval_valid_rate).toFixed(0)}%`;
          reward = p.eval.eval_reward.toFixed(3);
        }
        if (!showBar) {
          if (p.log && p.step % config.logging_steps === 0) say(JSON.stringify(p.log));
          if (p.eval) say(JSON.stringify(p.eval));
          return;
        }
        const payload = { loss: p.log?.loss.toFixed(3) ?? '-', tps: Math.round(p.log?.tokens_per_s ?? 0), valid, reward };
        if (!started) {
          bar.start(p.maxSteps, p.step - 1, payload);
          started = true;
        }
        bar.update(p.step, payload);
      },
    });
    if (started) bar.stop();
    started = false;
    const e = result.lastEval;
    const where = result.finalDir ?? result.lastCheckpoint;
    process.stdout.write(
      [
        `${result.interrupted ? 'stopped' : 'trained'} ${result.steps} steps in ${result.seconds.toFixed(0)} s on ${result.trainRows} rows (${result.heldOutRows} held out)`,
        e ? `held-out loss ${e.eval_loss.toFixed(4)}, valid-action rate ${(100 * e.eval_valid_rate).toFixed(1)}%, mean ${env.evalReward} reward ${e.eval_reward.toFixed(3)} (${e.eval_samples} samples)` : '',
        e?.eval_structured_reward !== undefined
          ? `with structured output: valid-action rate ${(100 * e.eval_structured_valid_rate!).toFixed(1)}%, mean ${env.evalReward} reward ${e.eval_structured_reward.toFixed(3)}`
          : '',
        `checkpoint: ${where}`,
        `log: ${join(config.output_dir, 'log.jsonl')}`,
        result.interrupted ? 'continue with the same command and --resume' : '',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
    // Stopped by a signal: the exit status says so, as a shell reports a process the signal ended.
    if (result.interrupted) process.exitCode = interrupt.exitCode;
  } catch (err) {
    if (started) bar.stop();
    if (err instanceof SftInputError) throw new UsageError(err.message);
    throw err;
  } finally {
    interrupt.dispose();
  }
}
