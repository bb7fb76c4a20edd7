// GRPO on the student GPT: per step, a batch of prompts, num_generations completions each from the KV-cached sampler,
// rewards from the environment, group-relative advantages, and num_iterations clipped-surrogate updates with a k3 KL
// penalty to the frozen starting checkpoint. Knob names and meanings follow TRL's GRPOConfig; the arithmetic is in
// grpo-loss.ts, the batch layout in grpo-batch.ts and the prompt schedule in grpo-prompts.ts.
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import type { GPT } from '../model/gpt.ts';
import { generate, type Sample } from '../model/sampler.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { renderGenerationPrompt } from '../model/chat.ts';
import { loadCheckpoint, saveCheckpoint, type TrainerState } from '../model/checkpoint.ts';
import type { EnvReward, EnvTask, TextEnv } from '../environment/text-env.ts';
import { hashSeed } from '../random.ts';
import { withJudgment, type Judge, type Judgment } from '../environment/judge.ts';
import { groupAdvantages, policyLoss, type LossType } from './grpo-loss.ts';
import { packCompletions, type CompletionBatch } from './grpo-batch.ts';
import { promptsForStep } from './grpo-prompts.ts';
import { divergence } from './divergence.ts';
import { learningRateAt, warmupSteps } from './schedule.ts';
import { keepRowsUpTo, latestCheckpoint } from './sft.ts';
import { settingsIssue } from '../settings.ts';
import { CheckedGrpoSettings, GRPO_DEFAULTS, type GRPOConfig } from './grpo-settings.ts';

export { GRPO_DEFAULTS, LOSS_TYPES, LR_SCHEDULERS, SCALE_REWARDS, type GRPOConfig, type LrScheduler } from './grpo-settings.ts';

/** A config: the defaults (GrpoSettings) with what `o` sets; trainGrpo checks it. */
export function grpoConfig(o: { output_dir: string; init: string } & Partial<GRPOConfig>): GRPOConfig {
  const defined = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return { ...GRPO_DEFAULTS, ...defined } as GRPOConfig;
}

/** Bad settings, data or resume request: the user's to fix (the CLI reports it as a usage error). */
export class GrpoInputError extends Error {}

export function checkConfig(c: GRPOConfig, env: TextEnv): void {
  const fail = (msg: string) => {
    throw new GrpoInputError(msg);
  };
  const issue = settingsIssue(CheckedGrpoSettings, c, (key) => key);
  if (issue) fail(issue);
  try {
    env.reward(c.reward ?? env.defaultReward);
  } catch (err) {
    fail(`reward: ${(err as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// One step's pieces

export interface ScoredCompletion {
  text: string;
  reward: number;
  components: Record<string, number>;
  errors: string[];
  parsed: boolean;
  /** Accepted whole by the environment (the diagram: parsed and every action applied). */
  valid: boolean;
  /** The environment's per-rollout rates (the diagram: teacher quirks); null where they do not apply. */
  quirks: Record<string, number> | null;
  /** What the judge said, when one is asked (src/environment/judge.ts). */
  judgment?: Judgment;
}

/** The completion's text: its tokens without the stop token. */
export function completionText(tok: Tokenizer, s: Sample): string {
  const body = s.finishReason === 'stop' ? s.tokens.subarray(0, s.tokens.length - 1) : s.tokens;
  return tok.decode(body, { skipSpecial: true });
}

export function scoreCompletion<Spec>(env: TextEnv<Spec>, reward: EnvReward<Spec>, task: EnvTask<Spec>, text: string): ScoredCompletion {
  const score = reward.score(task, text);
  const outcome = env.outcome(task, text);
  return {
    text,
    reward: score.reward,
    components: score.components,
    errors: score.errors,
    parsed: outcome.parsed,
    valid: outcome.valid,
    quirks: outcome.metrics,
  };
}

/** Whether each completion takes part in the loss: its group has reward variance, and it is not a masked truncated one. */
export function activeCompletions(samples: Sample[], skipped: boolean[], groupSize: number, maskTruncated: boolean): boolean[] {
  return samples.map((s, i) => !skipped[Math.floor(i / groupSize)] && !(maskTruncated && s.finishReason === 'length'));
}

/**
 * policyLoss normalises within the rows it is given; the generation batch is split into micro-batches, so each one's
 * gradient is rescaled to the whole batch's normalisation (dapo gets the batch's token count directly).
 */
export function microBatchScale(lossType: LossType, micro: { rows: number; rowsWithTokens: number }, batch: { rows: number; rowsWithTokens: number }): number {
  switch (lossType) {
    case 'grpo':
      return micro.rowsWithTokens / batch.rowsWithTokens;
    case 'dr_grpo':
      return micro.rows / batch.rows;
    case 'dapo':
      return 1;
  }
}

export interface UpdateStats {
  loss: number;
  kl: number;
  clipFraction: number;
  lowClipFraction: number;
  highClipFraction: number;
  /** Mean next-token entropy over the trained completions' tokens (first pass). */
  entropy: number;
  gradNorm: number;
  activeTokens: number;
  updates: number;
}

export interface UpdateInput {
  model: GPT;
  ref: GPT | null;
  prompts: Int32Array[];
  samples: Sample[];
  advantages: ArrayLike<number>;
  active: boolean[];
  padId: number;
  cfg: Pick<GRPOConfig, 'num_iterations' | 'per_device_train_batch_size' | 'loss_type' | 'epsilon' | 'epsilon_high' | 'beta' | 'max_completion_length' | 'max_grad_norm' | 'adam_beta1' | 'adam_beta2' | 'adam_epsilon' | 'weight_decay'>;
  /** Learning rate of each of the num_iterations updates. */
  lrs: number[];
}

/**
 * num_iterations optimizer updates on one generation batch. Only active completions are packed; they are sorted by length
 * into micro-batches (little padding), each one a single batched forward for the reference and one for the policy.
 */
export function updatePolicy(u: UpdateInput): UpdateStats {
  const { model, ref, cfg } = u;
  const rows = u.samples.map((_, i) => i).filter((i) => u.active[i]);
  const stats: UpdateStats = { loss: 0, kl: 0, clipFraction: 0, lowClipFraction: 0, highClipFraction: 0, entropy: NaN, gradNorm: 0, activeTokens: 0, updates: 0 };
  if (rows.length === 0) return stats;
  const lengthOf = (i: number) => u.prompts[u.samples[i].promptIndex].length + u.samples[i].tokens.length;
  rows.sort((a, b) => lengthOf(a) - lengthOf(b) || a - b);
  const micro: { batch: CompletionBatch; advantages: Float64Array; refLogprobs?: Float32Array }[] = [];
  for (let from = 0; from < rows.length; from += cfg.per_device_train_batch_size) {
    const idx = rows.slice(from, from + cfg.per_device_train_batch_size);
    const batch = packCompletions(u.prompts, idx.map((i) => u.samples[i]), u.padId, idx.map(() => true));
    const advantages = Float64Array.from(idx, (i) => u.advantages[i]);
    const refLogprobs = ref && cfg.beta !== 0 ? ref.forward(batch.tokens, batch.targets, batch.S, batch.T).logprobs.slice() : undefined;
    micro.push({ batch, advantages, refLogprobs });
  }
  const total = { rows: u.samples.length, rowsWithTokens: rows.length };
  const activeTokens = micro.reduce((n, m) => n + m.batch.mask.reduce((a, b) => a + b, 0), 0);
  let entropySum = 0;
  for (let it = 0; it < cfg.num_iterations; it++) {
    model.zeroGrad();
    let loss = 0, kl = 0, low = 0, high = 0;
    for (const m of micro) {
      const b = m.batch;
      const first = it === 0;
      const out = model.forward(b.tokens, b.targets, b.S, b.T, { entropy: first });
      if (first) for (let p = 0; p < b.mask.length; p++) if (b.mask[p]) entropySum += out.entropy![p];
      const pl = policyLoss({
        S: b.S,
        T: b.T,
        logprobs: out.logprobs,
        oldLogprobs: b.oldLogprobs,
        refLogprobs: m.refLogprobs,
        mask: b.mask,
        advantages: m.advantages,
        epsilon: cfg.epsilon,
        epsilonHigh: cfg.epsilon_high,
        beta: cfg.beta,
        lossType: cfg.loss_type,
        maxCompletionLength: cfg.max_completion_length,
        numItemsInBatch: activeTokens,
      });
      const scale = microBatchScale(cfg.loss_type, { rows: b.S, rowsWithTokens: b.S }, total);
      if (scale !== 1) for (let p = 0; p < pl.dLogprobs.length; p++) pl.dLogprobs[p] *= scale;
      model.backward(pl.dLogprobs);
      loss += pl.loss * scale;
      kl += pl.kl * pl.activeTokens;
      low += pl.lowClipFraction * pl.activeTokens;
      high += pl.highClipFraction * pl.activeTokens;
    }
    const gradNorm = model.clipGradNorm(cfg.max_grad_norm);
    model.optimizer.update({ lr: u.lrs[it], beta1: cfg.adam_beta1, beta2: cfg.adam_beta2, eps: cfg.adam_epsilon, weightDecay: cfg.weight_decay });
    const n = cfg.num_iterations;
    stats.loss += loss / n;
    stats.kl += kl / activeTokens / n;
    stats.lowClipFraction += low / activeTokens / n;
    stats.highClipFraction += high / activeTokens / n;
    stats.gradNorm += gradNorm / n;
  }
  stats.clipFraction = stats.lowClipFraction + stats.highClipFraction;
  stats.entropy = entropySum / activeTokens;
  stats.activeTokens = activeTokens;
  stats.updates = cfg.num_iterations;
  return stats;
}

// ---------------------------------------------------------------------------------------------------------------------
// Logs

export interface GrpoLogRow {
  step: number;
  /** Highest difficulty level this step drew from. */
  level_cap: number;
  lr: number;
  loss: number;
  reward_mean: number;
  reward_std: number;
  reward_max: number;
  reward_min: number;
  /** Mean of each reward component over the step's completions. */
  reward_components: Record<string, number>;
  parse_rate: number;
  valid_action_rate: number;
  /** Mean k3 estimate of KL(policy || reference) over trained tokens. */
  kl: number;
  clip_fraction: number;
  clip_fraction_low: number;
  clip_fraction_high: number;
  entropy: number | null;
  grad_norm: number;
  completion_length: number;
  completion_length_max: number;
  /** Share of completions cut by max_completion_length. */
  truncated_fraction: number;
  groups: number;
  /** Groups with zero reward variance: no signal, left out of the loss. */
  skipped_groups: number;
  /** The environment's per-rollout rates (the diagram: teacher-quirk detectors) averaged over completions that have them. */
  quirks: Record<string, number>;
  completion_tokens: number;
  /** Completion tokens per second of the whole step. */
  tokens_per_s: number;
  sample_seconds: number;
  score_seconds: number;
  update_seconds: number;
  step_seconds: number;
  /** Wall time since the run began (resumed runs included). */
  elapsed: number;
  /** With a judge: completions the judge gave no judgment this step (counted warnings; their rewards leave it out). */
  judge_failures?: number;
}

/** Fields that measure time: they differ between runs even when the training is identical. */
export const TIMING_FIELDS = ['tokens_per_s', 'sample_seconds', 'score_seconds', 'update_seconds', 'step_seconds', 'elapsed'] as const;

export interface RolloutRow {
  step: number;
  task_id: string;
  prompt: string;
  sample: number;
  completion: string;
  finish_reason: string;
  completion_tokens: number;
  reward: number;
  advantage: number;
  /** Whether it took part in the loss. */
  trained: boolean;
  components: Record<string, number>;
  valid: boolean;
  errors: string[];
  judgment?: Judgment;
}

const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

// ---------------------------------------------------------------------------------------------------------------------
// The trainer

export interface GrpoRunOptions<Spec = unknown> {
  /** Poses the tasks, scores the completions (config.reward names one of its rewards; unset, its defaultReward). */
  env: TextEnv<Spec>;
  /** The prompt pool (train split or a task file). */
  tasks: EnvTask<Spec>[];
  /** A reward object instead of config.reward's preset (toy rewards in tests). */
  reward?: EnvReward<Spec>;
  /** Asks a judge about every completion and weighs its judgment into the reward (withJudgment). */
  judge?: { judge: Judge; weight: number };
  resume?: boolean;
  /** Stops after the current step, saving a checkpoint to resume from. */
  signal?: AbortSignal;
  onStep?: (row: GrpoLogRow, maxSteps: number) => void;
  /** One line per notable event (data summary, dropped prompts, checkpoints). */
  onMessage?: (line: string) => void;
}

export interface GrpoResult {
  steps: number;
  interrupted: boolean;
  finalDir?: string;
  lastCheckpoint?: string;
  logPath: string;
  rolloutsPath: string;
  seconds: number;
  last?: GrpoLogRow;
}

/** Settings that must match for a resume to continue the same run. */
const RUN_DEFINING: (keyof GRPOConfig)[] = [
  'init', 'reward', 'num_generations', 'generation_batch_size', 'max_steps', 'num_iterations', 'learning_rate', 'lr_scheduler_type',
  'warmup_ratio', 'min_lr_rate', 'weight_decay', 'adam_beta1', 'adam_beta2', 'adam_epsilon', 'max_grad_norm', 'beta', 'epsilon',
  'epsilon_high', 'loss_type', 'scale_rewards', 'mask_truncated_completions', 'max_completion_length', 'temperature', 'top_p',
  'top_k', 'curriculum', 'curriculum_ratio', 'seed',
];

const tasksFingerprint = (tasks: EnvTask[]) => hashSeed(...tasks.map((t) => t.id));

export async function trainGrpo<Spec>(config: GRPOConfig, o: GrpoRunOptions<Spec>): Promise<GrpoResult> {
  const env = o.env;
  checkConfig(config, env);
  // The reward resolved once, so the saved settings name it and a resume checks it like any other setting.
  const cfg: GRPOConfig & { reward: string } = { ...config, reward: config.reward ?? env.defaultReward };
  const say = o.onMessage ?? (() => {});
  const started = performance.now();
  if (!existsSync(join(cfg.init, 'config.json'))) throw new GrpoInputError(`init: ${cfg.init} is not a checkpoint directory (no config.json)`);
  if (o.tasks.length === 0) throw new GrpoInputError('no tasks to train on');
  const reward = o.reward ?? env.reward(cfg.reward);
  const logPath = join(cfg.output_dir, 'log.jsonl');
  const rolloutsPath = join(cfg.output_dir, 'rollouts.jsonl');

  const resumeFrom = o.resume ? latestCheckpoint(cfg.output_dir) : undefined;
  if (o.resume && !resumeFrom) throw new GrpoInputError(`--resume: ${cfg.output_dir} has no checkpoint-N with trainer state to resume from`);
  // Loaded before the output folder is made: a bad checkpoint leaves nothing behind.
  const loaded = await loadCheckpoint(resumeFrom ?? cfg.init, { threads: cfg.threads, withOptimizer: resumeFrom !== undefined });
  const model = loaded.model;
  const tok = loaded.tokenizer;
  let ref: GPT | null = null;
  try {
    mkdirSync(cfg.output_dir, { recursive: true });
    let state: TrainerState;
    let elapsedBefore = 0;
    if (resumeFrom) {
      state = loaded.trainerState!;
      for (const k of RUN_DEFINING) {
        if (state.args[k] !== cfg[k]) {
          throw new GrpoInputError(`--resume: ${k} was ${JSON.stringify(state.args[k])} in ${resumeFrom}, now ${JSON.stringify(cfg[k])}; resume with the same settings`);
        }
      }
      if (state.args.tasks_fingerprint !== tasksFingerprint(o.tasks)) throw new GrpoInputError(`--resume: the task pool differs from the one ${resumeFrom} was trained on`);
      elapsedBefore = Number(state.args.elapsed ?? 0);
      keepRowsUpTo(logPath, state.globalStep);
      keepRowsUpTo(rolloutsPath, state.globalStep);
      say(`resuming from ${resumeFrom} at step ${state.globalStep}`);
    } else {
      state = { globalStep: 0, epoch: 0, batchInEpoch: 0, maxSteps: cfg.max_steps, seed: cfg.seed, args: {} };
      writeFileSync(logPath, '');
      writeFileSync(rolloutsPath, '');
    }
    if (cfg.beta !== 0) ref = (await loadCheckpoint(cfg.init, { threads: cfg.threads })).model;
    if (ref && JSON.stringify(ref.config) !== JSON.stringify(model.config)) throw new GrpoInputError(`--resume: the checkpoint's model differs from ${cfg.init}'s`);

    // Prompts the context cannot hold with a full-length completion are left out up front.
    const nCtx = model.config.nCtx;
    const promptIds = new Map<string, Int32Array>();
    const pool = o.tasks.filter((t) => {
      const ids = Int32Array.from(renderGenerationPrompt(tok, env.conversation(t)));
      if (ids.length + cfg.max_completion_length > nCtx) return false;
      promptIds.set(t.id, ids);
      return true;
    });
    if (pool.length === 0) {
      throw new GrpoInputError(`no task's prompt leaves room for max_completion_length=${cfg.max_completion_length} in the model's context of ${nCtx} tokens`);
    }
    if (pool.length < o.tasks.length) say(`${o.tasks.length - pool.length} of ${o.tasks.length} tasks left out: prompt + max_completion_length exceed the context of ${nCtx}`);
    const promptsPerStep = cfg.generation_batch_size / cfg.num_generations;
    say(`${pool.length} tasks; ${cfg.max_steps} steps of ${promptsPerStep} prompts x ${cfg.num_generations} completions; reward ${reward.name}; loss ${cfg.loss_type}, beta ${cfg.beta}`);

    const updatesTotal = cfg.max_steps * cfg.num_iterations;
    const schedule = {
      learningRate: cfg.learning_rate,
      totalSteps: updatesTotal,
      warmupSteps: warmupSteps(updatesTotal, cfg.warmup_ratio),
      minLrRate: cfg.lr_scheduler_type === 'constant' ? 1 : cfg.min_lr_rate,
    };
    const curriculum = { curriculum: cfg.curriculum, curriculumRatio: cfg.curriculum_ratio, maxSteps: cfg.max_steps };
    const elapsed = () => elapsedBefore + (performance.now() - started) / 1000;
    const saveAt = (dir: string) =>
      saveCheckpoint(dir, {
        model,
        tokenizer: tok,
        trainerState: { ...state, args: { ...cfg, tasks_fingerprint: tasksFingerprint(o.tasks), elapsed: elapsed() } },
        generation: { temperature: cfg.temperature, topP: cfg.top_p, maxNewTokens: cfg.max_completion_length },
      });

    let last: GrpoLogRow | undefined;
    let lastCheckpoint: string | undefined;
    let interrupted = false;
    while (state.globalStep < cfg.max_steps) {
      const step = state.globalStep;
      const t0 = performance.now();
      const picked = promptsForStep(pool, step, promptsPerStep, cfg.seed, curriculum, (t) => env.level(t));
      const prompts = picked.tasks.map((t) => promptIds.get(t.id)!);
      const samples = await generate(model, prompts, {
        n: cfg.num_generations,
        maxNewTokens: cfg.max_completion_length,
        temperature: cfg.temperature,
        topP: cfg.top_p,
        topK: cfg.top_k,
        seed: hashSeed(cfg.seed, 'grpo-sample', step),
        stopTokens: [tok.endId],
      });
      const t1 = performance.now();
      const scored = samples.map((s) => scoreCompletion(env, reward, picked.tasks[s.promptIndex], completionText(tok, s)));
      let judgeFailures = 0;
      if (o.judge) {
        const judgments = await o.judge.judge.judgeAll(scored.map((c, i) => ({ prompt: picked.tasks[samples[i].promptIndex].prompt, completion: c.text })));
        scored.forEach((c, i) => {
          Object.assign(c, withJudgment(c, judgments[i], o.judge!.weight), { judgment: judgments[i] });
          if (judgments[i].score === null) judgeFailures++;
        });
      }
      const rewards = scored.map((s) => s.reward);
      const { advantages, skipped } = groupAdvantages(rewards, cfg.num_generations, cfg.scale_rewards);
      const active = activeCompletions(samples, skipped, cfg.num_generations, cfg.mask_truncated_completions);
      const t2 = performance.now();
      const lrs = Array.from({ length: cfg.num_iterations }, (_, i) => learningRateAt(step * cfg.num_iterations + i, schedule));
      const upd = updatePolicy({ model, ref, prompts, samples, advantages, active, padId: tok.endId, cfg, lrs });
      const t3 = performance.now();
      state.globalStep++;
      const diverged = divergence(model, { loss: upd.loss, gradNorm: upd.gradNorm, lr: lrs[0] });
      if (diverged) throw new GrpoInputError(`step ${state.globalStep}: ${diverged}`);

      const completionTokens = samples.reduce((n, s) => n + s.tokens.length, 0);
      const withMetrics = scored.filter((s) => s.parsed && s.quirks);
      const componentNames = [...new Set(scored.flatMap((s) => Object.keys(s.components)))];
      const row: GrpoLogRow = {
        step: state.globalStep,
        level_cap: picked.levelCap,
        lr: lrs[0],
        loss: upd.loss,
        reward_mean: meanOf(rewards),
        reward_std: Math.sqrt(meanOf(rewards.map((r) => (r - meanOf(rewards)) ** 2))),
        reward_max: Math.max(...rewards),
        reward_min: Math.min(...rewards),
        reward_components: Object.fromEntries(componentNames.map((c) => [c, meanOf(scored.flatMap((s) => (c in s.components ? [s.components[c]] : [])))])),
        parse_rate: meanOf(scored.map((s) => (s.parsed ? 1 : 0))),
        valid_action_rate: meanOf(scored.map((s) => (s.valid ? 1 : 0))),
        kl: upd.kl,
        clip_fraction: upd.clipFraction,
        clip_fraction_low: upd.lowClipFraction,
        clip_fraction_high: upd.highClipFraction,
        entropy: Number.isNaN(upd.entropy) ? null : upd.entropy,
        grad_norm: upd.gradNorm,
        completion_length: completionTokens / samples.length,
        completion_length_max: Math.max(...samples.map((s) => s.tokens.length)),
        truncated_fraction: meanOf(samples.map((s) => (s.finishReason === 'length' ? 1 : 0))),
        groups: skipped.length,
        skipped_groups: skipped.filter(Boolean).length,
        quirks: Object.fromEntries(env.metricNames.map((q) => [q, meanOf(withMetrics.map((s) => s.quirks![q]))])),
        completion_tokens: completionTokens,
        tokens_per_s: completionTokens / ((t3 - t0) / 1000),
        sample_seconds: (t1 - t0) / 1000,
        score_seconds: (t2 - t1) / 1000,
        update_seconds: (t3 - t2) / 1000,
        step_seconds: (t3 - t0) / 1000,
        elapsed: elapsed(),
        ...(o.judge ? { judge_failures: judgeFailures } : {}),
      };
      appendFileSync(logPath, JSON.stringify(row) + '\n');
      const lastStep = state.globalStep === cfg.max_steps;
      if (state.globalStep % cfg.log_completions_steps === 0 || lastStep) {
        const lines = samples.slice(0, cfg.num_completions_to_print).map((s, i) => {
          const task = picked.tasks[s.promptIndex];
          const r: RolloutRow = {
            step: state.globalStep,
            task_id: task.id,
            prompt: task.prompt,
            sample: i % cfg.num_generations,
            completion: scored[i].text,
            finish_reason: s.finishReason,
            completion_tokens: s.tokens.length,
            reward: scored[i].reward,
            advantage: advantages[i],
            trained: active[i],
            components: scored[i].components,
            valid: scored[i].valid,
            errors: scored[i].errors,
            ...(scored[i].judgment ? { judgment: scored[i].judgment } : {}),
          };
          return JSON.stringify(r) + '\n';
        });
        appendFileSync(rolloutsPath, lines.join(''));
      }
      last = row;
      o.onStep?.(row, cfg.max_steps);
      // Sampling and updates never leave the thread, and a signal's handler runs only between turns of the event
      // loop: without this turn, Ctrl-C would wait for the whole run.
      await nextTurn();
      if (!lastStep && (state.globalStep % cfg.save_steps === 0 || o.signal?.aborted)) {
        lastCheckpoint = join(cfg.output_dir, `checkpoint-${state.globalStep}`);
        saveAt(lastCheckpoint);
        say(`saved ${lastCheckpoint}`);
      }
      if (o.signal?.aborted && !lastStep) {
        interrupted = true;
        break;
      }
    }
    let finalDir: string | undefined;
    if (!interrupted) {
      finalDir = join(cfg.output_dir, 'final');
      saveAt(finalDir);
    }
    return { steps: state.globalStep, interrupted, finalDir, lastCheckpoint, logPath, rolloutsPath, seconds: (performance.now() - started) / 1000, last };
  } finally {
    await model.dispose();
    await ref?.dispose();
  }
}
