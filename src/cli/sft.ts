// `canvasgym sft`: trains the student GPT from scratch on teacher traces (TRL `messages` JSONL).
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { runSft, sftConfig, SftInputError, type SFTConfig } from '../train/sft.ts';
import { SftSettings } from '../train/sft-settings.ts';
import { pickSettings } from '../settings.ts';
import { writeReferenceData } from '../train/reference-data.ts';
import type { TextEnv } from '../environment/text-env.ts';
import { UsageError } from './usage-error.ts';
import { envFlag } from './env-flag.ts';
import { SFT_VARIANTS, SftCommandSettings } from './sft-settings.ts';
import { addSettingFlags, givenSettings, readSettings } from './settings-flags.ts';
import { stopOnSignals } from './interrupt.ts';
import { outputDirFlag } from './flags.ts';

export function registerSft(cmd: Command): void {
  addSettingFlags(cmd, SftCommandSettings, SFT_VARIANTS).action(async (flags: Record<string, unknown>) => {
    // What the command line leaves out takes the preset's default, not the schema's.
    const given = givenSettings(SftCommandSettings, flags);
    const s = readSettings(SftCommandSettings, flags);
    if (given.steps !== undefined && given.epochs !== undefined) throw new UsageError('give --steps or --epochs, not both');
    const env = envFlag(s.env);
    if (s.data === undefined && !env.reference) throw new UsageError(`--data is required: the ${env.name} environment has no reference answers (make teacher traces with \`canvasgym teacher\`)`);
    if (s.data !== undefined && !existsSync(s.data)) throw new UsageError(`--data: ${s.data} does not exist`);
    outputDirFlag('--out', s.output_dir);
    const overrides: Partial<SFTConfig> = {
      ...pickSettings(SftSettings, given),
      max_steps: given.steps ?? (given.epochs !== undefined ? 0 : undefined),
      num_train_epochs: given.epochs,
    };
    const config = sftConfig(s.preset, s.output_dir, overrides);
    if (s.data !== undefined) return runCommand(s, env, s.data, config);
    // Written beside its place and moved there once runSft accepts the run, so a refused run leaves an earlier run's
    // reference.jsonl as it was.
    const reference = join(s.output_dir, 'reference.jsonl');
    const pending = `${reference}.partial`;
    process.stderr.write(`${writeReferenceData(env, pending, s.num_tasks, config.seed)} reference answers of the ${env.name} environment in ${reference}\n`);
    try {
      await runCommand(s, env, pending, config, () => renameSync(pending, reference));
    } finally {
      rmSync(pending, { force: true });
    }
  });
}

async function runCommand(flags: { resume: boolean; progress: boolean }, env: TextEnv, data: string, config: SFTConfig, onAccepted?: () => void): Promise<void> {
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
      onAccepted,
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
        e ? `held-out loss ${e.eval_loss.toFixed(4)}, valid-action rate ${(100 * e.eval_valid_rate).toFixed(1)}%, mean ${env.evalRewards[0]} reward ${e.eval_reward.toFixed(3)} (${e.eval_samples} samples)` : '',
        e?.eval_structured_reward !== undefined
          ? `with structured output: valid-action rate ${(100 * e.eval_structured_valid_rate!).toFixed(1)}%, mean ${env.evalRewards[0]} reward ${e.eval_structured_reward.toFixed(3)}`
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
