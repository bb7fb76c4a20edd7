import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GPT } from '../../src/model/gpt.ts';
import { generate, type Sample } from '../../src/model/sampler.ts';
import { trainTokenizer } from '../../src/model/tokenizer.ts';
import { renderGenerationPrompt } from '../../src/model/chat.ts';
import { loadCheckpoint, saveCheckpoint } from '../../src/model/checkpoint.ts';
import { conversationFor } from '../../src/diagram/language/prompt.ts';
import { defineRubric, type Rubric } from '../../src/diagram/reward/rubric.ts';
import type { Task } from '../../src/diagram/tasks/spec.ts';
import { groupAdvantages, policyLoss, type LossType } from '../../src/train/grpo-loss.ts';
import { packCompletions } from '../../src/train/grpo-batch.ts';
import { levelCap, promptsForStep } from '../../src/train/grpo-prompts.ts';
import { configFromFlags, grpoTasks } from '../../src/cli/grpo.ts';
import { interruptAfter } from '../helpers/interrupt.ts';
import { randomCheckpoint } from '../helpers/checkpoint.ts';
import { activeCompletions, grpoConfig, microBatchScale, trainGrpo, updatePolicy, TIMING_FIELDS, type GRPOConfig } from '../../src/train/grpo.ts';
import { diagramEnv, rubricReward } from '../../src/diagram/diagram-env.ts';
import { arithmeticEnv } from '../../src/arithmetic/arithmetic-env.ts';

const WORDS = ['Client', 'API', 'Auth', 'Database', 'Cache', 'Queue', 'Worker', 'Logs', 'Billing', 'Search'];

/** Short tasks: the system prompt dominates the prompt, so a small tokenizer keeps rows short. */
function toyTasks(n: number): Task[] {
  return Array.from({ length: n }, (_, i) => {
    const names = [WORDS[i % WORDS.length], WORDS[(i + 3) % WORDS.length], WORDS[(i + 7) % WORDS.length]].slice(0, 2 + (i % 2));
    return {
      id: `toy-${i}`,
      prompt: `Draw ${names.join(' then ')}${'.'.repeat(1 + (i % 2))}`,
      spec: { entities: names, edges: names.slice(1).map((b, k) => [names[k], b] as [string, string]), kind: 'chain' as const, difficulty: i % 3 },
    };
  });
}

/** A random tiny student saved as a checkpoint (what --init takes). */
const tinyCheckpoint = () => randomCheckpoint(toyTasks(10).map((t) => t.prompt));

const toyRubric = (name: string, fn: (prompt: string, completion: string) => number): Rubric =>
  defineRubric<{ prompt: string; completion: string }>({
    name,
    description: 'toy reward for tests',
    prepare: (input) => ({ prompt: input.prompt, completion: input.completion }),
    components: [{ name: 'toy', weight: 1, description: 'toy', fn: (c) => fn(c.prompt, c.completion) }],
    errors: () => [],
  });

function tinyConfig(init: string, overrides: Partial<GRPOConfig> = {}): GRPOConfig {
  return grpoConfig({
    output_dir: mkdtempSync(join(tmpdir(), 'grpo-out-')),
    init,
    num_generations: 4,
    generation_batch_size: 8,
    per_device_train_batch_size: 3,
    max_steps: 4,
    max_completion_length: 12,
    learning_rate: 1e-2,
    log_completions_steps: 2,
    num_completions_to_print: 2,
    save_steps: 2,
    threads: 1,
    ...overrides,
  });
}

const readJsonl = (path: string) => readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
const weightsOf = async (dir: string) => {
  const { model } = await loadCheckpoint(dir, { threads: 1 });
  const flat = model.parameters().flatMap((p) => Array.from(p.data));
  await model.dispose();
  return flat;
};

describe('grpo batch layout', () => {
  it('puts completion token j of a P-token prompt at position P - 1 + j, with its sampler log-prob and mask', () => {
    const prompts = [Int32Array.from([1, 2, 3]), Int32Array.from([4])];
    const samples: Sample[] = [
      { promptIndex: 0, tokens: Int32Array.from([5, 6]), logprobs: Float32Array.from([-0.5, -0.25]), finishReason: 'stop' },
      { promptIndex: 1, tokens: Int32Array.from([7, 8, 9]), logprobs: Float32Array.from([-1, -2, -3]), finishReason: 'length' },
    ];
    const b = packCompletions(prompts, samples, 0, [true, false]);
    expect(b.T).toBe(4);
    expect(Array.from(b.tokens)).toEqual([1, 2, 3, 5, 4, 7, 8, 0]);
    expect(Array.from(b.targets)).toEqual([-1, -1, 5, 6, 7, 8, 9, -1]);
    expect(Array.from(b.oldLogprobs)).toEqual([0, 0, -0.5, -0.25, -1, -2, -3, 0]);
    expect(Array.from(b.mask)).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
  });

  it('leaves skipped groups and, when asked, truncated completions out of the loss', () => {
    const s = (finishReason: Sample['finishReason']): Sample => ({ promptIndex: 0, tokens: new Int32Array(1), logprobs: new Float32Array(1), finishReason });
    const samples = [s('stop'), s('length'), s('stop'), s('stop')];
    expect(activeCompletions(samples, [false, true], 2, true)).toEqual([true, false, false, false]);
    expect(activeCompletions(samples, [false, true], 2, false)).toEqual([true, true, false, false]);
  });

  it('splits a batch into micro-batches whose rescaled gradients add up to the whole batch gradient', () => {
    const S = 4, T = 3;
    const logprobs = [-1, -0.5, -2, -0.3, -0.7, -1.1, -0.2, -0.9, -1.5, -0.4, -0.6, -0.8];
    const oldLogprobs = logprobs.map((l, i) => l + 0.05 * ((i % 3) - 1));
    const refLogprobs = logprobs.map((l, i) => l - 0.1 * (i % 2));
    // Rows of 1, 2, 3 and 3 tokens: the normalisations differ per loss type.
    const mask = [1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1];
    const advantages = [1, -1, 0.5, -0.5];
    const base = { epsilon: 0.2, epsilonHigh: 0.28, beta: 0.04, maxCompletionLength: 3 };
    for (const lossType of ['grpo', 'dr_grpo', 'dapo'] as LossType[]) {
      const whole = policyLoss({ ...base, S, T, logprobs, oldLogprobs, refLogprobs, mask, advantages, lossType });
      const rows = (from: number, to: number) => (xs: number[]) => xs.slice(from * T, to * T);
      const parts = [[0, 1], [1, 4]].map(([from, to]) => {
        const r = rows(from, to);
        const pl = policyLoss({ ...base, S: to - from, T, logprobs: r(logprobs), oldLogprobs: r(oldLogprobs), refLogprobs: r(refLogprobs), mask: r(mask), advantages: advantages.slice(from, to), lossType, numItemsInBatch: whole.activeTokens });
        const scale = microBatchScale(lossType, { rows: to - from, rowsWithTokens: to - from }, { rows: S, rowsWithTokens: S });
        return { loss: pl.loss * scale, d: Array.from(pl.dLogprobs, (x) => x * scale) };
      });
      expect(parts[0].loss + parts[1].loss).toBeCloseTo(whole.loss, 6);
      const joined = [...parts[0].d, ...parts[1].d];
      joined.forEach((x, i) => expect(x).toBeCloseTo(whole.dLogprobs[i], 6));
    }
  });
});

describe('grpo prompts', () => {
  const tasks = toyTasks(30);
  const o = { curriculum: true, curriculumRatio: 0.5, maxSteps: 12 };

  it('draws distinct prompts per step, the same ones for the same seed and step', () => {
    const a = promptsForStep(tasks, 3, 5, 1, { ...o, curriculum: false }, diagramEnv.level);
    expect(new Set(a.tasks.map((t) => t.id)).size).toBe(5);
    expect(promptsForStep(tasks, 3, 5, 1, { ...o, curriculum: false }, diagramEnv.level).tasks).toEqual(a.tasks);
    expect(promptsForStep(tasks, 4, 5, 1, { ...o, curriculum: false }, diagramEnv.level).tasks).not.toEqual(a.tasks);
  });

  it('climbs the difficulty levels over the ramp, then draws from all of them', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 11].map((s) => levelCap(s, [0, 1, 2], o))).toEqual([0, 0, 1, 1, 2, 2, 2, 2]);
    for (let step = 0; step < 12; step++) {
      const { tasks: picked, levelCap: cap } = promptsForStep(tasks, step, 4, 0, o, diagramEnv.level);
      for (const t of picked) expect(t.spec.difficulty).toBeLessThanOrEqual(cap);
    }
  });
});

describe('grpo update', () => {
  it('moves probability toward the higher-reward completions of a group', async () => {
    const init = await tinyCheckpoint();
    const { model, tokenizer: tok } = await loadCheckpoint(init, { threads: 1 });
    const prompts = [Int32Array.from(renderGenerationPrompt(tok, conversationFor(toyTasks(1)[0].prompt)))];
    const samples = await generate(model, prompts, { n: 8, maxNewTokens: 6, temperature: 1, seed: 5, stopTokens: [tok.endId] });
    // Toy reward: completions whose first token has an even id are the good ones.
    const rewards = samples.map((s) => (s.tokens[0] % 2 === 0 ? 1 : 0));
    const { advantages, skipped } = groupAdvantages(rewards, 8, 'group');
    expect(skipped).toEqual([false]);
    const batch = packCompletions(prompts, samples, tok.endId, samples.map(() => true));
    const sequenceLogprobs = () => {
      const { logprobs } = model.forward(batch.tokens, batch.targets, batch.S, batch.T);
      return samples.map((_, s) => logprobs.slice(s * batch.T, (s + 1) * batch.T).reduce((a, b) => a + b, 0));
    };
    const before = sequenceLogprobs();
    const cfg = { ...grpoConfig({ output_dir: '', init }), num_iterations: 1, per_device_train_batch_size: 3, max_grad_norm: 1 };
    const stats = updatePolicy({ model, ref: null, prompts, samples, advantages, active: samples.map(() => true), padId: tok.endId, cfg: { ...cfg, beta: 0 }, lrs: [1e-2] });
    const after = sequenceLogprobs();
    const change = (good: boolean) => {
      const idx = rewards.map((r, i) => (r === (good ? 1 : 0) ? i : -1)).filter((i) => i >= 0);
      return idx.reduce((s, i) => s + after[i] - before[i], 0) / idx.length;
    };
    expect(stats.updates).toBe(1);
    expect(stats.clipFraction).toBe(0);
    expect(change(true)).toBeGreaterThan(0);
    expect(change(false)).toBeLessThan(0);
    await model.dispose();
  });
});

describe('grpo trainer', () => {
  it('counts zero-variance groups as skipped and trains only on the others', async () => {
    const init = await tinyCheckpoint();
    const tasks = toyTasks(12);
    // Prompts of even length get a flat reward (their groups carry no signal); the others reward longer completions.
    const rubric = toyRubric('toy', (prompt, completion) => (prompt.length % 2 === 0 ? 0.5 : Math.min(1, completion.length / 40)));
    const cfg = tinyConfig(init, { max_steps: 3 });
    const rows: { skipped_groups: number; groups: number; step: number }[] = [];
    await trainGrpo(cfg, { env: diagramEnv, tasks, reward: rubricReward(rubric), onStep: (r) => rows.push(r) });
    expect(rows.map((r) => r.step)).toEqual([1, 2, 3]);
    rows.forEach((r, step) => {
      const picked = promptsForStep(tasks, step, 2, cfg.seed, { curriculum: false, curriculumRatio: 0.5, maxSteps: 3 }, diagramEnv.level).tasks;
      expect(r.groups).toBe(2);
      expect(r.skipped_groups).toBe(picked.filter((t) => t.prompt.length % 2 === 0).length);
    });
    expect(rows.some((r) => r.skipped_groups > 0)).toBe(true);

    const flat = tinyConfig(init, { max_steps: 2 });
    const flatRows: { skipped_groups: number; groups: number; kl: number }[] = [];
    const result = await trainGrpo(flat, { env: diagramEnv, tasks, reward: rubricReward(toyRubric('flat', () => 0.5)), onStep: (r) => flatRows.push(r) });
    expect(flatRows.every((r) => r.skipped_groups === r.groups && r.kl === 0)).toBe(true);
    expect(await weightsOf(result.finalDir!)).toEqual(await weightsOf(init));
  }, 60_000);

  it('masks truncated completions out of the loss when asked, and trains on them when not', async () => {
    const init = await tinyCheckpoint();
    const tasks = toyTasks(6);
    // A random model almost never says <|end|> within 3 tokens: every completion is cut.
    const rubric = toyRubric('chars', (_, completion) => Math.min(1, completion.length / 20));
    const masked = await trainGrpo(tinyConfig(init, { max_steps: 1, max_completion_length: 3, mask_truncated_completions: true }), { env: diagramEnv, tasks, reward: rubricReward(rubric) });
    const maskedLog = readJsonl(masked.logPath)[0];
    expect(maskedLog.truncated_fraction).toBe(1);
    expect(maskedLog.skipped_groups).toBeLessThan(maskedLog.groups);
    expect(await weightsOf(masked.finalDir!)).toEqual(await weightsOf(init));
    const unmasked = await trainGrpo(tinyConfig(init, { max_steps: 1, max_completion_length: 3, mask_truncated_completions: false }), { env: diagramEnv, tasks, reward: rubricReward(rubric) });
    expect(await weightsOf(unmasked.finalDir!)).not.toEqual(await weightsOf(init));
  }, 60_000);

  it('writes every log field and rollouts, and resumes exactly where an interrupted run stopped', async () => {
    const init = await tinyCheckpoint();
    const tasks = toyTasks(12);
    const rubric = toyRubric('chars', (_, completion) => Math.min(1, completion.length / 30));
    const straight = tinyConfig(init, { num_iterations: 2, beta: 0.1, lr_scheduler_type: 'cosine' });
    const a = await trainGrpo(straight, { env: diagramEnv, tasks, reward: rubricReward(rubric) });

    const split = { ...straight, output_dir: mkdtempSync(join(tmpdir(), 'grpo-out-')) };
    const controller = new AbortController();
    const first = await trainGrpo(split, { env: diagramEnv, tasks, reward: rubricReward(rubric), signal: controller.signal, onStep: (r) => r.step === 1 && controller.abort() });
    expect(first.interrupted).toBe(true);
    expect(first.lastCheckpoint).toBe(join(split.output_dir, 'checkpoint-1'));
    // A kill while a row was being written leaves it torn: the resume cuts it off instead of failing on it.
    appendFileSync(first.logPath, '{"step":2,"level_cap":2,"lr":0.0');
    appendFileSync(first.rolloutsPath, '{"step":2,"task_id":"to');
    const resumed = await trainGrpo(split, { env: diagramEnv, tasks, reward: rubricReward(rubric), resume: true });
    expect(resumed.steps).toBe(4);

    const strip = (rows: Record<string, unknown>[]) => rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !(TIMING_FIELDS as readonly string[]).includes(k))));
    const logA = readJsonl(a.logPath);
    expect(logA).toHaveLength(4);
    expect(strip(readJsonl(resumed.logPath))).toEqual(strip(logA));
    expect(readJsonl(resumed.rolloutsPath)).toEqual(readJsonl(a.rolloutsPath));
    expect(await weightsOf(resumed.finalDir!)).toEqual(await weightsOf(a.finalDir!));

    const row = logA[3];
    for (const key of ['reward_mean', 'reward_std', 'reward_max', 'reward_min', 'valid_action_rate', 'kl', 'clip_fraction', 'entropy', 'completion_length', 'truncated_fraction', 'skipped_groups', 'tokens_per_s', 'elapsed', 'lr', 'grad_norm']) {
      expect(typeof row[key], key).toBe('number');
    }
    expect(Object.keys(row.reward_components)).toEqual(['toy']);
    expect(row.kl).toBeGreaterThan(0);
    expect(row.lr).toBeLessThan(straight.learning_rate);
    const rollouts = readJsonl(a.rolloutsPath);
    expect(rollouts.map((r) => r.step)).toEqual([2, 2, 4, 4]);
    expect(rollouts[0]).toMatchObject({ task_id: expect.any(String), prompt: expect.any(String), completion: expect.any(String), components: { toy: expect.any(Number) } });

    await expect(trainGrpo({ ...split, beta: 0.2 }, { env: diagramEnv, tasks, reward: rubricReward(rubric), resume: true })).rejects.toThrow(/--resume: beta was 0.1 .* now 0.2/);
  }, 120_000);

  it("trains an environment on its defaultReward when the config names none, and saves the reward it used", async () => {
    const tasks = arithmeticEnv.tasks('train', 4, 0);
    const dir = join(mkdtempSync(join(tmpdir(), 'grpo-init-')), 'init');
    const corpus = [...tasks.flatMap((t) => arithmeticEnv.conversation(t).map((m) => m.content)), '0123456789'];
    const tokenizer = trainTokenizer(corpus, { vocabSize: 300 });
    const model = await GPT.create({ vocabSize: tokenizer.vocabSize, nCtx: 256, nEmbd: 32, nLayer: 1, nHead: 2 }, { seed: 3, threads: 1 });
    saveCheckpoint(dir, { model, tokenizer });
    await model.dispose();
    const cfg = tinyConfig(dir, { max_steps: 1, num_generations: 2, generation_batch_size: 4, max_completion_length: 4 });
    expect(cfg.reward).toBeUndefined();
    const said: string[] = [];
    const result = await trainGrpo(cfg, { env: arithmeticEnv, tasks, onMessage: (l) => said.push(l) });
    expect(result.steps).toBe(1);
    expect(said.join('\n')).toContain('reward answer');
    expect(JSON.parse(readFileSync(join(result.finalDir!, 'trainer_state.json'), 'utf8')).args.reward).toBe('answer');
  }, 60_000);

  it('stops at the first step whose loss, gradient or weights are not finite, naming it, with no checkpoint of it', async () => {
    const init = await tinyCheckpoint();
    const rubric = toyRubric('chars', (_, completion) => Math.min(1, completion.length / 30));
    const cfg = tinyConfig(init, { learning_rate: 1e308, mask_truncated_completions: false, save_steps: 1 });
    await expect(trainGrpo(cfg, { env: diagramEnv, tasks: toyTasks(6), reward: rubricReward(rubric) })).rejects.toThrow(/^step 1: training diverged \(.*weight norm (NaN|Infinity)\) at learning rate .*: lower --learning-rate/);
    expect(existsSync(join(cfg.output_dir, 'checkpoint-1'))).toBe(false);
  }, 60_000);
});

describe('canvasgym grpo', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/canvasgym.js', 'grpo', ...args], { encoding: 'utf8' });

  it('names the bad flag and exits with code 2', async () => {
    const init = await tinyCheckpoint();
    const r = cli('--init', init, '--out', 'x', '--loss-type', 'ppo');
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--loss-type must be one of grpo, dr_grpo, dapo, got "ppo"/);

    const tasksFile = join(mkdtempSync(join(tmpdir(), 'grpo-tasks-')), 'tasks.jsonl');
    writeFileSync(tasksFile, toyTasks(3).map((t) => JSON.stringify(t)).join('\n') + '\n');
    const flags = { init, out: 'x', numTasks: '10', progress: true };
    expect(() => configFromFlags({ ...flags, init: undefined })).toThrow(/--init is required/);
    expect(() => configFromFlags({ ...flags, init: '/nonexistent' })).toThrow(/\/nonexistent is not a checkpoint: it has no config.json/);
    expect(() => configFromFlags({ ...flags, numGenerations: '1' })).toThrow(/--num-generations must be an integer >= 2, got "1"/);
    expect(() => configFromFlags({ ...flags, beta: '-0.1' })).toThrow(/--beta must be a number >= 0, got "-0.1"/);
    expect(() => configFromFlags({ ...flags, reward: 'nice' })).toThrow(/--reward must be one of seed, strong, task, got "nice"/);
    await expect(grpoTasks({ tasks: tasksFile, split: 'train', numTasks: 10, seed: 0 })).rejects.toThrow(/give --tasks FILE or --split train, not both/);
    await expect(grpoTasks({ split: 'heldout', numTasks: 10, seed: 0 })).rejects.toThrow(/--split must be train/);
    // Bare prompts are the teacher's: GRPO scores completions against each task's spec.
    const bare = join(mkdtempSync(join(tmpdir(), 'grpo-tasks-')), 'prompts.txt');
    writeFileSync(bare, 'Draw Client -> API.\n');
    await expect(grpoTasks({ tasks: bare, numTasks: 10, seed: 0 })).rejects.toThrow(/prompts\.txt line 1: no spec: /);
    expect(configFromFlags({ ...flags, numGenerations: '6' }).generation_batch_size).toBe(24);
  }, 60_000);

  it('stops on Ctrl-C after the current step with a checkpoint, exits 130, and --resume continues from it', async () => {
    const init = await tinyCheckpoint();
    const dir = mkdtempSync(join(tmpdir(), 'grpo-int-'));
    const tasksFile = join(dir, 'tasks.jsonl');
    writeFileSync(tasksFile, toyTasks(4).map((t) => JSON.stringify(t)).join('\n') + '\n');
    const out = join(dir, 'out');
    const args = ['grpo', '--init', init, '--tasks', tasksFile, '--out', out, '--steps', '40', '--num-generations', '2', '--max-completion-length', '4', '--save-steps', '1000', '--threads', '1', '--no-progress'];
    const r = await interruptAfter(args, join(out, 'log.jsonl'), 2);
    expect(r.code, r.stderr).toBe(130);
    expect(r.ms).toBeLessThan(5000);
    expect(r.stderr).toContain('canvasgym grpo: SIGINT: stopping after this step and saving a checkpoint');
    const stopped = readJsonl(join(out, 'log.jsonl')).length;
    expect(stopped).toBeLessThan(40);
    expect(r.stdout).toContain(`stopped ${stopped} GRPO steps`);
    expect(existsSync(join(out, `checkpoint-${stopped}`, 'optimizer.safetensors'))).toBe(true);

    const resumed = cli(...args.slice(1), '--resume');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming from ${join(out, `checkpoint-${stopped}`)} at step ${stopped}`);
    expect(readJsonl(join(out, 'log.jsonl')).map((x) => x.step)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  }, 60_000);

  it('trains from a task file and says where it wrote', async () => {
    const init = await tinyCheckpoint();
    const dir = mkdtempSync(join(tmpdir(), 'grpo-cli-'));
    const tasksFile = join(dir, 'tasks.jsonl');
    writeFileSync(tasksFile, toyTasks(4).map((t) => JSON.stringify(t)).join('\n') + '\n');
    const out = join(dir, 'out');
    const r = cli('--init', init, '--tasks', tasksFile, '--out', out, '--steps', '2', '--num-generations', '2', '--max-completion-length', '4', '--threads', '1', '--no-progress');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/trained 2 GRPO steps/);
    expect(r.stdout).toContain(join(out, 'final'));
    expect(readJsonl(join(out, 'log.jsonl'))).toHaveLength(2);
  }, 60_000);
});
