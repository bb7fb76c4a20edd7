// Supervised fine-tuning of the student GPT on TRL-style `messages` rows: loss on assistant tokens only, AdamW with
// warmup + cosine, gradient clipping, batches by token budget, held-out loss and sampled evaluation, resumable checkpoints.
// Settings use TRL's SFTConfig names where a knob exists there.
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { GPT, presetConfig, type GPTConfig } from '../model/gpt.ts';
import { inductionLayout } from '../model/induction-init.ts';
import { trainTokenizer, type Tokenizer } from '../model/tokenizer.ts';
import { renderChat, templateMessages } from '../model/chat.ts';
import { loadCheckpoint, saveCheckpoint, type TrainerState } from '../model/checkpoint.ts';
import type { ChatMessage } from '../policy/policy.ts';
import { userPrompt } from '../model/chat.ts';
import { hashSeed, seededRandom } from '../random.ts';
import { StudentPolicy } from '../policy/student.ts';
import type { TextEnv } from '../environment/text-env.ts';
import { JsonlError, MAX_ROW_BYTES, readLinesSync, readRowsForResume } from '../io/jsonl.ts';
import { divergence } from './divergence.ts';
import { learningRateAt, warmupSteps } from './schedule.ts';
import { settingsIssue } from '../settings.ts';
import { PRESET_DEFAULTS, SftSettings, type Preset, type SFTConfig } from './sft-settings.ts';

export { PRESET_DEFAULTS, PRESETS, type Preset, type SFTConfig } from './sft-settings.ts';

/** A config: the preset's defaults (SftSettings) with what `overrides` sets; runSft checks it. */
export function sftConfig(preset: Preset, outputDir: string, overrides: Partial<SFTConfig> = {}): SFTConfig {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { ...PRESET_DEFAULTS[preset], output_dir: outputDir, preset, ...defined };
}

// ---------------------------------------------------------------------------------------------------------------------
// Data

/** Bad data, settings or resume request: the user's to fix (the CLI reports it as a usage error). */
export class SftInputError extends Error {}

export interface SftRow {
  /** 1-based line in the JSONL file. */
  line: number;
  messages: ChatMessage[];
  /** The task's spec in the environment's terms, when the row carries one (scores held-out samples). */
  spec?: unknown;
}

const Message = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });

/** Reads TRL `messages` JSONL, each row's `spec` checked by `spec` (the environment's); a bad row (or one over
 *  MAX_ROW_BYTES) is an error naming its line and what is wrong. */
export function readSftData(path: string, spec: z.ZodType): SftRow[] {
  const Row = z.object({ messages: z.array(Message).min(1), spec });
  const rows: SftRow[] = [];
  try {
    for (const { lineNumber: line, text } of readLinesSync(path, { maxLineBytes: MAX_ROW_BYTES })) {
      if (text.trim() === '') continue;
      const where = `${path} line ${line}`;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new SftInputError(`${where}: invalid JSON: ${(err as Error).message}`);
      }
      const parsed = Row.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const at = issue.path.length ? issue.path.join('.') : 'the row';
        throw new SftInputError(`${where}: ${at}: ${issue.message}`);
      }
      const { messages } = parsed.data;
      if (messages.at(-1)!.role !== 'assistant') throw new SftInputError(`${where}: the last message must be the assistant's (the completion to learn)`);
      if (!messages.some((m) => m.role === 'user')) throw new SftInputError(`${where}: no user message`);
      rows.push({ line, messages, ...(parsed.data.spec !== undefined && { spec: parsed.data.spec }) });
    }
  } catch (err) {
    if (err instanceof SftInputError) throw err;
    throw new SftInputError(err instanceof JsonlError ? err.message : `cannot read ${path}: ${(err as Error).message}`);
  }
  if (rows.length === 0) throw new SftInputError(`${path} has no rows`);
  return rows;
}

/** Holds out whole prompts: a user prompt is either trained on or evaluated on, never both. */
export function splitRows(rows: SftRow[], evalFraction: number, seed: number): { train: SftRow[]; heldOut: SftRow[] } {
  const prompts = [...new Set(rows.map((r) => userPrompt(r.messages)))];
  const wanted = evalFraction > 0 && prompts.length > 1 ? Math.max(1, Math.round(prompts.length * evalFraction)) : 0;
  const ranked = prompts.map((p) => ({ p, h: hashSeed(seed, 'eval-split', p) })).sort((a, b) => a.h - b.h || (a.p < b.p ? -1 : 1));
  const held = new Set(ranked.slice(0, wanted).map((x) => x.p));
  const train = rows.filter((r) => !held.has(userPrompt(r.messages)));
  const heldOut = rows.filter((r) => held.has(userPrompt(r.messages)));
  return { train, heldOut };
}

export interface Example {
  ids: Int32Array;
  /** 1 where the token is trained on. */
  mask: Uint8Array;
}

/** Renders and truncates; a conversation whose assistant tokens all fall past max_length teaches nothing and is dropped. */
export function encodeRows(tok: Tokenizer, rows: SftRow[], maxLength: number): { examples: Example[]; truncated: number; dropped: number } {
  let truncated = 0;
  let dropped = 0;
  const examples: Example[] = [];
  for (const r of rows) {
    const { ids, mask } = renderChat(tok, r.messages);
    if (ids.length > maxLength) truncated++;
    const n = Math.min(ids.length, maxLength);
    if (!mask.slice(1, n).includes(1)) {
      dropped++;
      continue;
    }
    examples.push({ ids: Int32Array.from(ids.slice(0, n)), mask: Uint8Array.from(mask.slice(0, n)) });
  }
  return { examples, truncated, dropped };
}

/** Noisy teacher forcing against repetition loops: after each assistant token, with probability `rate`, the last 1 to 3
 *  tokens are repeated once in the input; the repeat carries no loss of its own while the token after it is trained as
 *  usual. Teacher text never repeats by mistake, so without this a student that copies names never sees a stutter, and
 *  at sampling a single one feeds its own copying ("Pond Pond Pond ...") to the end of the budget (docs/sft.md). */
export function withStutters(e: Example, rate: number, rand: () => number, maxLength: number): Example {
  if (rate <= 0) return e;
  const ids: number[] = [];
  const mask: number[] = [];
  for (let t = 0; t < e.ids.length; t++) {
    ids.push(e.ids[t]);
    mask.push(e.mask[t]);
    if (e.mask[t] && t + 1 < e.ids.length && rand() < rate) {
      let start = t + 1 - (1 + Math.floor(rand() * 3));
      while (!e.mask[start]) start++;
      for (let s = start; s <= t; s++) {
        ids.push(e.ids[s]);
        mask.push(0);
      }
    }
  }
  const n = Math.min(ids.length, maxLength);
  return { ids: Int32Array.from(ids.slice(0, n)), mask: Uint8Array.from(mask.slice(0, n)) };
}

export interface Batch {
  B: number;
  T: number;
  tokens: Int32Array;
  /** Next token to predict, or -1 where no loss is taken (prompt, padding). */
  targets: Int32Array;
  /** Positions with a target. */
  numTargets: number;
  /** Real (unpadded) tokens. */
  numTokens: number;
}

export function makeBatch(examples: Example[], padId: number, maxT: number): Batch {
  const B = examples.length;
  const longest = Math.max(...examples.map((e) => e.ids.length));
  const T = Math.min(maxT, Math.ceil(longest / 8) * 8);
  const tokens = new Int32Array(B * T).fill(padId);
  const targets = new Int32Array(B * T).fill(-1);
  let numTargets = 0;
  let numTokens = 0;
  examples.forEach((e, b) => {
    tokens.set(e.ids, b * T);
    numTokens += e.ids.length;
    for (let t = 0; t + 1 < e.ids.length; t++) {
      if (e.mask[t + 1]) {
        targets[b * T + t] = e.ids[t + 1];
        numTargets++;
      }
    }
  });
  return { B, T, tokens, targets, numTargets, numTokens };
}

function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

/** An epoch's batches, a pure function of (seed, epoch): rows shuffled, sorted by length within windows so that rows of a
 *  batch have similar lengths (little padding), cut by the token budget, and the batches shuffled again. */
export function epochBatches(examples: Example[], epoch: number, tokensPerBatch: number, seed: number): number[][] {
  const rand = seededRandom(hashSeed(seed, 'epoch', epoch));
  const order = shuffle(examples.map((_, i) => i), rand);
  const window = 256;
  const batches: number[][] = [];
  for (let w = 0; w < order.length; w += window) {
    const chunk = order.slice(w, w + window).sort((a, b) => examples[a].ids.length - examples[b].ids.length);
    let current: number[] = [];
    let longest = 0;
    for (const i of chunk) {
      const len = examples[i].ids.length;
      if (current.length && (current.length + 1) * Math.max(longest, len) > tokensPerBatch) {
        batches.push(current);
        current = [];
        longest = 0;
      }
      current.push(i);
      longest = Math.max(longest, len);
    }
    if (current.length) batches.push(current);
  }
  return shuffle(batches, rand);
}

// ---------------------------------------------------------------------------------------------------------------------
// Evaluation

export interface EvalResult {
  eval_loss: number;
  eval_valid_rate: number;
  eval_parse_rate: number;
  eval_reward: number;
  eval_samples: number;
}

/** Mean NLL per assistant token over the held-out examples. */
export function heldOutLoss(model: GPT, examples: Example[], padId: number, tokensPerBatch: number): number {
  let nll = 0;
  let count = 0;
  const sorted = [...examples].sort((a, b) => a.ids.length - b.ids.length);
  for (let i = 0; i < sorted.length; ) {
    const group: Example[] = [];
    while (i < sorted.length && (group.length + 1) * sorted[i].ids.length <= Math.max(tokensPerBatch, sorted[i].ids.length)) group.push(sorted[i++]);
    const b = makeBatch(group, padId, model.config.nCtx);
    const { logprobs } = model.forward(b.tokens, b.targets, b.B, b.T);
    for (let p = 0; p < logprobs.length; p++) if (b.targets[p] >= 0) nll -= logprobs[p];
    count += b.numTargets;
  }
  return count ? nll / count : NaN;
}

export interface EvalSample {
  prompt: string;
  completion: string;
  finish_reason?: string;
  parsed: boolean;
  valid: boolean;
  reward: number;
  errors: string[];
}

/** Samples one completion per held-out prompt and scores it: valid and parsed as the environment says, reward its main one. */
export async function sampledEval(
  env: TextEnv,
  model: GPT,
  tok: Tokenizer,
  rows: SftRow[],
  o: { temperature: number; seed: number; maxNewTokens: number; structuredOutput?: boolean },
): Promise<Omit<EvalResult, 'eval_loss'> & { samples: EvalSample[] }> {
  const reward = env.reward(env.evalRewards[0]);
  const policy = StudentPolicy.of(model, tok, 'student', { guide: o.structuredOutput ? env.guide?.(tok) : undefined });
  const conversations = rows.map((r) => r.messages.slice(0, -1));
  const out = await policy.generate(conversations, { n: 1, temperature: o.temperature, seed: o.seed, maxTokens: o.maxNewTokens });
  const samples = out.map(([c], i): EvalSample => {
    const task = { id: `line-${rows[i].line}`, prompt: userPrompt(conversations[i]), spec: rows[i].spec };
    const outcome = env.outcome(task, c.text);
    const score = reward.score(task, c.text);
    return { prompt: task.prompt, completion: c.text, finish_reason: c.finishReason, parsed: outcome.parsed, valid: outcome.valid, reward: score.reward, errors: outcome.errors };
  });
  const n = Math.max(1, rows.length);
  const count = (f: (s: EvalSample) => boolean) => samples.filter(f).length;
  return {
    eval_valid_rate: count((s) => s.valid) / n,
    eval_parse_rate: count((s) => s.parsed) / n,
    eval_reward: samples.reduce((t, s) => t + s.reward, 0) / n,
    eval_samples: rows.length,
    samples,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Training

export interface StepLog {
  step: number;
  epoch: number;
  loss: number;
  lr: number;
  grad_norm: number;
  tokens: number;
  tokens_per_s: number;
  elapsed: number;
}

export interface EvalLog extends EvalResult {
  step: number;
  /** The final evaluation's figures with structured output (final_eval_structured_output). */
  eval_structured_valid_rate?: number;
  eval_structured_parse_rate?: number;
  eval_structured_reward?: number;
  elapsed: number;
  eval_seconds: number;
}

export interface SftProgress {
  step: number;
  maxSteps: number;
  log?: StepLog;
  eval?: EvalLog;
}

export interface SftRunOptions {
  config: SFTConfig;
  /** Checks the rows' specs and scores the held-out samples. */
  env: TextEnv;
  dataPath: string;
  resume?: boolean;
  /** Stops after the current step, saving a checkpoint to resume from. */
  signal?: AbortSignal;
  onProgress?: (p: SftProgress) => void;
  /** One line per notable event (data summary, truncation, checkpoints). */
  onMessage?: (line: string) => void;
  /** Called once the settings, the data and the resume request are accepted, before the first step: what a refused
   *  run must leave as it was waits for this (the CLI's reference.jsonl). */
  onAccepted?: () => void;
}

export interface SftResult {
  steps: number;
  /** Whether it stopped early (signal) rather than finishing. */
  interrupted: boolean;
  finalDir?: string;
  lastCheckpoint?: string;
  trainRows: number;
  heldOutRows: number;
  lastEval?: EvalLog;
  seconds: number;
}

const CHECKPOINT_DIR = /^checkpoint-(\d+)$/;

export function latestCheckpoint(outDir: string): string | undefined {
  if (!existsSync(outDir)) return undefined;
  const steps = readdirSync(outDir)
    .map((d) => CHECKPOINT_DIR.exec(d))
    .filter((m): m is RegExpExecArray => m !== null && existsSync(join(outDir, m[0], 'trainer_state.json')))
    .map((m) => Number(m[1]));
  return steps.length ? join(outDir, `checkpoint-${Math.max(...steps)}`) : undefined;
}

/** Settings that must match for a resume to continue the same run. */
const RUN_DEFINING: (keyof SFTConfig)[] = [
  'preset', 'vocab_size', 'learning_rate', 'num_train_epochs', 'max_steps', 'warmup_ratio', 'min_lr_rate', 'weight_decay',
  'adam_beta1', 'adam_beta2', 'adam_epsilon', 'max_grad_norm', 'max_length', 'tokens_per_batch', 'eval_fraction', 'seed',
  'stutter_rate',
];

export async function runSft(o: SftRunOptions): Promise<SftResult> {
  const cfg = o.config;
  const say = o.onMessage ?? (() => {});
  if (!cfg.completion_only_loss) throw new SftInputError('completion_only_loss=false is not supported: the loss is taken on assistant tokens only');
  const issue = settingsIssue(SftSettings, cfg, (key) => key);
  if (issue) throw new SftInputError(issue);
  const started = performance.now();
  const rows = readSftData(o.dataPath, o.env.spec);
  const { train, heldOut } = splitRows(rows, cfg.eval_fraction, cfg.seed);
  if (train.length === 0) throw new SftInputError(`${o.dataPath}: every row is held out; lower eval_fraction`);
  mkdirSync(cfg.output_dir, { recursive: true });
  const logPath = join(cfg.output_dir, 'log.jsonl');
  const samplesPath = join(cfg.output_dir, 'eval_samples.jsonl');

  let model: GPT;
  let tok: Tokenizer;
  let state: TrainerState;
  let elapsedBefore = 0;
  const resumeFrom = o.resume ? latestCheckpoint(cfg.output_dir) : undefined;
  if (o.resume && !resumeFrom) throw new SftInputError(`--resume: ${cfg.output_dir} has no checkpoint-N with trainer state to resume from`);
  if (resumeFrom) {
    const loaded = await loadCheckpoint(resumeFrom, { threads: cfg.threads, withOptimizer: true });
    model = loaded.model;
    tok = loaded.tokenizer;
    state = loaded.trainerState!;
    for (const k of RUN_DEFINING) {
      if (state.args[k] !== cfg[k]) {
        await model.dispose();
        throw new SftInputError(`--resume: ${k} was ${JSON.stringify(state.args[k])} in ${resumeFrom}, now ${JSON.stringify(cfg[k])}; resume with the same settings`);
      }
    }
    elapsedBefore = Number(state.args.elapsed ?? 0);
    // Rows logged after the checkpoint belong to the part of the run that is repeated now.
    for (const path of [logPath, samplesPath]) keepRowsUpTo(path, state.globalStep);
    say(`resuming from ${resumeFrom} at step ${state.globalStep}`);
  } else {
    if (latestCheckpoint(cfg.output_dir) || existsSync(join(cfg.output_dir, 'final'))) {
      throw new SftInputError(`${cfg.output_dir} already holds checkpoints of a run: continue it with --resume, or choose another --out`);
    }
    // Trained on what the chat template renders (system messages are left out), every occurrence counting.
    tok = trainTokenizer(train.flatMap((r) => templateMessages(r.messages).map((m) => m.content)), { vocabSize: cfg.vocab_size });
    const preset = presetConfig(cfg.preset, tok.vocabSize);
    const longest = train.reduce((m, r) => Math.max(m, renderChat(tok, r.messages).ids.length), 0);
    const nCtx = Math.max(preset.nCtx, Math.min(cfg.max_length, Math.ceil(longest / 64) * 64));
    const gptConfig: GPTConfig = { ...preset, nCtx, ...(cfg.positions === 'rotary' ? { positions: 'rotary' as const } : {}) };
    if (cfg.model_init === 'induction') {
      try {
        inductionLayout(gptConfig);
      } catch (err) {
        throw new SftInputError(`model_init 'induction' with preset ${cfg.preset}: ${(err as Error).message}`);
      }
    }
    model = await GPT.create(gptConfig, { seed: cfg.seed, threads: cfg.threads, init: cfg.model_init });
    state = { globalStep: 0, epoch: 0, batchInEpoch: 0, maxSteps: 0, seed: cfg.seed, args: {} };
    writeFileSync(logPath, '');
    writeFileSync(samplesPath, '');
  }

  try {
    const maxLength = Math.min(cfg.max_length, model.config.nCtx);
    const { examples, truncated, dropped } = encodeRows(tok, train, maxLength);
    // One conversation per held-out prompt (the teacher may answer a prompt several times), in a fixed order.
    const heldOutOnce = [...new Map(heldOut.map((r) => [userPrompt(r.messages), r])).values()];
    const heldOutExamples = encodeRows(tok, heldOutOnce.slice(0, cfg.eval_loss_rows), maxLength).examples;
    if (truncated) {
      say(`warning: ${truncated} of ${train.length} training conversations are longer than max_length=${maxLength} tokens and were truncated (${dropped} dropped: no completion token left)`);
    }
    if (examples.length === 0) throw new SftInputError(`no training conversation fits max_length=${maxLength} with a completion token left`);
    o.onAccepted?.();
    const batchesOf = new Map<number, number[][]>();
    const batchesFor = (epoch: number) => {
      if (!batchesOf.has(epoch)) {
        batchesOf.clear();
        batchesOf.set(epoch, epochBatches(examples, epoch, cfg.tokens_per_batch, cfg.seed));
      }
      return batchesOf.get(epoch)!;
    };
    const maxSteps = cfg.max_steps > 0 ? cfg.max_steps : Math.max(1, Math.round(cfg.num_train_epochs * batchesFor(0).length));
    const schedule = { learningRate: cfg.learning_rate, totalSteps: maxSteps, warmupSteps: warmupSteps(maxSteps, cfg.warmup_ratio), minLrRate: cfg.min_lr_rate };
    const completionLengths = train.map((r) => tok.encode(r.messages.at(-1)!.content).length + 1).sort((a, b) => a - b);
    const evalMaxNewTokens = Math.ceil(completionLengths[completionLengths.length - 1] * 1.25);

    const meanTokens = examples.reduce((s, e) => s + e.ids.length, 0) / examples.length;
    say(
      `data: ${train.length} training rows, ${heldOut.length} held out (${heldOutOnce.length} prompts); vocabulary ${tok.vocabSize}; ` +
        `${meanTokens.toFixed(0)} tokens per conversation, completion median ${completionLengths[completionLengths.length >> 1]} tokens; ` +
        `model ${describeModel(model)}; ${maxSteps} steps of about ${cfg.tokens_per_batch} padded tokens`,
    );

    const elapsed = () => elapsedBefore + (performance.now() - started) / 1000;
    const argsNow = () => ({ ...cfg, elapsed: elapsed() }) as Record<string, unknown>;
    const saveAt = (dir: string) =>
      saveCheckpoint(dir, {
        model,
        tokenizer: tok,
        trainerState: { ...state, maxSteps, args: argsNow() },
        generation: { temperature: cfg.eval_temperature, maxNewTokens: evalMaxNewTokens },
      });
    const append = (row: object) => appendFileSync(logPath, JSON.stringify(row) + '\n');

    let lastEval: EvalLog | undefined;
    let lastCheckpoint: string | undefined;
    const evaluate = async (step: number, samples: number, structured: boolean): Promise<EvalLog> => {
      const t0 = performance.now();
      const evalRows = heldOutOnce.slice(0, samples);
      const eval_loss = heldOutExamples.length ? heldOutLoss(model, heldOutExamples, tok.endId, cfg.tokens_per_batch) : NaN;
      const sample = (structuredOutput: boolean) =>
        sampledEval(o.env, model, tok, evalRows, { temperature: cfg.eval_temperature, seed: hashSeed(cfg.seed, 'eval', step), maxNewTokens: evalMaxNewTokens, structuredOutput });
      const sampled = evalRows.length ? await sample(false) : { eval_valid_rate: NaN, eval_parse_rate: NaN, eval_reward: NaN, eval_samples: 0 };
      const guided = evalRows.length && structured ? await sample(true) : undefined;
      if ('samples' in sampled) {
        appendFileSync(samplesPath, sampled.samples.map((x) => JSON.stringify({ step, ...x }) + '\n').join(''));
      }
      if (guided) appendFileSync(samplesPath, guided.samples.map((x) => JSON.stringify({ step, structured_output: true, ...x }) + '\n').join(''));
      const row: EvalLog = {
        step,
        eval_loss,
        eval_valid_rate: sampled.eval_valid_rate,
        eval_parse_rate: sampled.eval_parse_rate,
        eval_reward: sampled.eval_reward,
        eval_samples: sampled.eval_samples,
        ...(guided && {
          eval_structured_valid_rate: guided.eval_valid_rate,
          eval_structured_parse_rate: guided.eval_parse_rate,
          eval_structured_reward: guided.eval_reward,
        }),
        eval_seconds: (performance.now() - t0) / 1000,
        elapsed: elapsed(),
      };
      append(row);
      return row;
    };

    let interrupted = false;
    while (state.globalStep < maxSteps) {
      let batches = batchesFor(state.epoch);
      if (state.batchInEpoch >= batches.length) {
        state.epoch++;
        state.batchInEpoch = 0;
        batches = batchesFor(state.epoch);
      }
      const t0 = performance.now();
      const noise = seededRandom(hashSeed(cfg.seed, 'stutter', state.globalStep));
      const rows = batches[state.batchInEpoch].map((i) => withStutters(examples[i], cfg.stutter_rate, noise, maxLength));
      const batch = makeBatch(rows, tok.endId, model.config.nCtx);
      const loss = trainStep(model, batch, cfg, learningRateAt(state.globalStep, schedule));
      state.globalStep++;
      state.batchInEpoch++;
      const diverged = divergence(model, loss);
      if (diverged) throw new SftInputError(`step ${state.globalStep}: ${diverged}`);
      const seconds = (performance.now() - t0) / 1000;
      const log: StepLog = {
        step: state.globalStep,
        epoch: state.epoch + state.batchInEpoch / batches.length,
        loss: loss.loss,
        lr: loss.lr,
        grad_norm: loss.gradNorm,
        tokens: batch.numTokens,
        tokens_per_s: batch.numTokens / seconds,
        elapsed: elapsed(),
      };
      append(log);
      const step = state.globalStep;
      const last = step === maxSteps;
      let evalRow: EvalLog | undefined;
      if (step % cfg.eval_steps === 0 || last) evalRow = lastEval = await evaluate(step, last ? cfg.final_eval_samples : cfg.eval_samples, last && cfg.final_eval_structured_output && o.env.guide !== undefined);
      o.onProgress?.({ step, maxSteps, log, eval: evalRow });
      // A step never leaves the thread, and a signal's handler runs only between turns of the event loop: without
      // this turn, Ctrl-C would wait for the whole run.
      await nextTurn();
      if (!last && (step % cfg.save_steps === 0 || o.signal?.aborted)) {
        lastCheckpoint = join(cfg.output_dir, `checkpoint-${step}`);
        saveAt(lastCheckpoint);
        say(`saved ${lastCheckpoint}`);
      }
      if (o.signal?.aborted && !last) {
        interrupted = true;
        break;
      }
    }
    let finalDir: string | undefined;
    if (!interrupted) {
      finalDir = join(cfg.output_dir, 'final');
      saveAt(finalDir);
    }
    return {
      steps: state.globalStep,
      interrupted,
      finalDir,
      lastCheckpoint,
      trainRows: train.length,
      heldOutRows: heldOut.length,
      lastEval,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await model.dispose();
  }
}

/** One update: mean NLL over the batch's assistant tokens, backward, clip, AdamW. */
export function trainStep(model: GPT, b: Batch, cfg: SFTConfig, lr: number): { loss: number; gradNorm: number; lr: number } {
  model.zeroGrad();
  const { logprobs } = model.forward(b.tokens, b.targets, b.B, b.T);
  const d = new Float32Array(b.B * b.T);
  let nll = 0;
  for (let p = 0; p < d.length; p++) {
    if (b.targets[p] >= 0) {
      nll -= logprobs[p];
      d[p] = -1 / b.numTargets;
    }
  }
  model.backward(d);
  const gradNorm = model.clipGradNorm(cfg.max_grad_norm);
  model.optimizer.update({ lr, beta1: cfg.adam_beta1, beta2: cfg.adam_beta2, eps: cfg.adam_epsilon, weightDecay: cfg.weight_decay });
  return { loss: nll / b.numTargets, gradNorm, lr };
}

/** Keeps the rows of a JSONL log up to `step`: what was logged after the checkpoint is about to be redone. A last line
 *  torn by a kill is cut off, as the teacher cuts off its own. */
export function keepRowsUpTo(path: string, step: number): void {
  const kept = readRowsForResume<{ step: number }>(path).filter((r) => r.step <= step);
  writeFileSync(path, kept.map((r) => JSON.stringify(r) + '\n').join(''));
}

export function describeModel(model: GPT): string {
  const c = model.config;
  const params = model.parameters().reduce((s, p) => s + p.data.length, 0);
  return `${(params / 1e6).toFixed(2)}M parameters (d ${c.nEmbd}, ${c.nLayer} layers, ${c.nHead} heads, context ${c.nCtx})`;
}
