import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { epochBatches, makeBatch, withStutters, readSftData, runSft, sftConfig, splitRows, type Example, type SFTConfig } from '../../src/train/sft.ts';
import { learningRateAt } from '../../src/train/schedule.ts';
import { StudentPolicy } from '../../src/policy/student.ts';
import { interruptAfter } from '../helpers/interrupt.ts';
import { inProcessCli } from '../helpers/cli.ts';
import { diagramEnv } from '../../src/diagram/diagram-env.ts';

const ENTITIES = ['Client', 'API', 'Auth', 'Database', 'Cache', 'Queue', 'Worker', 'Logs'];

/** Small valid teacher-like rows: a chain of 2-3 boxes and its arrows, compact JSON. */
function syntheticRow(i: number): string {
  const n = 2 + (i % 2);
  const names = Array.from({ length: n }, (_, k) => ENTITIES[(i + 3 * k) % ENTITIES.length]);
  const ids = names.map((s) => s.toLowerCase());
  const actions: object[] = names.map((text, k) => ({ type: 'create_shape', id: ids[k], shape: 'rectangle', x: 40 + 200 * k, y: 40, w: 140, h: 60, text }));
  for (let k = 1; k < n; k++) actions.push({ type: 'connect', from: ids[k - 1], to: ids[k] });
  const messages = [
    { role: 'system', content: 'Return JSON actions.' },
    { role: 'user', content: `Draw ${names.join(' then ')}.` },
    { role: 'assistant', content: JSON.stringify({ actions }) },
  ];
  return JSON.stringify({ messages });
}

function dataFile(rows = 64): string {
  const path = join(mkdtempSync(join(tmpdir(), 'sftdata-')), 'train.jsonl');
  writeFileSync(path, Array.from({ length: rows }, (_, i) => syntheticRow(i)).join('\n') + '\n');
  return path;
}

const readLog = (dir: string) => readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('sft data', () => {
  it('names the line and the problem of a bad row', () => {
    const path = dataFile(3);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    const write = (bad: string) => writeFileSync(path, [lines[0], bad, lines[1]].join('\n'));
    write('{"messages": [');
    expect(() => readSftData(path, diagramEnv.spec)).toThrow(/train\.jsonl line 2: invalid JSON/);
    write(JSON.stringify({ messages: [{ role: 'tool', content: 'x' }] }));
    expect(() => readSftData(path, diagramEnv.spec)).toThrow(/line 2: messages\.0\.role: Invalid option/);
    write(JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }));
    expect(() => readSftData(path, diagramEnv.spec)).toThrow(/line 2: the last message must be the assistant's/);
    write(JSON.stringify({ prompt: 'x' }));
    expect(() => readSftData(path, diagramEnv.spec)).toThrow(/line 2: messages: /);
  });

  it('holds out whole prompts', () => {
    const rows = readSftData(dataFile(40), diagramEnv.spec);
    const { train, heldOut } = splitRows(rows, 0.25, 1);
    expect(heldOut.length).toBeGreaterThan(0);
    const prompt = (r: (typeof rows)[number]) => r.messages[1].content;
    const trainPrompts = new Set(train.map(prompt));
    expect(heldOut.some((r) => trainPrompts.has(prompt(r)))).toBe(false);
    expect(train.length + heldOut.length).toBe(rows.length);
  });

  it('batches every example once per epoch within the token budget, the same way for the same seed', () => {
    const examples: Example[] = Array.from({ length: 50 }, (_, i) => ({ ids: new Int32Array(10 + ((i * 7) % 40)), mask: new Uint8Array(10 + ((i * 7) % 40)).fill(1) }));
    const batches = epochBatches(examples, 0, 200, 5);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(examples.map((_, i) => i));
    for (const b of batches) expect(b.length * Math.max(...b.map((i) => examples[i].ids.length))).toBeLessThanOrEqual(200);
    expect(epochBatches(examples, 0, 200, 5)).toEqual(batches);
    expect(epochBatches(examples, 1, 200, 5)).not.toEqual(batches);
  });

  it('targets only the assistant tokens, shifted by one', () => {
    const ex: Example = { ids: Int32Array.from([7, 8, 9, 10, 11]), mask: Uint8Array.from([0, 0, 1, 1, 1]) };
    const b = makeBatch([ex, { ids: Int32Array.from([7, 12]), mask: Uint8Array.from([0, 1]) }], 99, 512);
    expect(b.T).toBe(8);
    expect(Array.from(b.targets.subarray(0, 8))).toEqual([-1, 9, 10, 11, -1, -1, -1, -1]);
    expect(Array.from(b.targets.subarray(8, 10))).toEqual([12, -1]);
    expect(Array.from(b.tokens.subarray(8, 11))).toEqual([7, 12, 99]);
    expect(b.numTargets).toBe(4);
  });

  it('stutter noise repeats the last 1-3 assistant tokens in the input and trains the token after each repeat, never the repeat', () => {
    const ex: Example = { ids: Int32Array.from([7, 8, 9, 10, 11]), mask: Uint8Array.from([0, 0, 1, 1, 1]) };
    expect(withStutters(ex, 0, () => 0, 512)).toBe(ex);
    // rand() < rate repeats; the next draw picks the span: 0.1 -> 1 token, 0.5 -> 2, 0.9 -> 3 (never before the answer).
    const draws = (xs: number[]) => () => xs.shift() ?? 0.99;
    const one = withStutters(ex, 0.5, draws([0.1, 0.1]), 512);
    expect(Array.from(one.ids)).toEqual([7, 8, 9, 9, 10, 11]);
    expect(Array.from(makeBatch([one], 99, 512).targets.subarray(0, 6))).toEqual([-1, 9, -1, 10, 11, -1]);
    const two = withStutters(ex, 0.5, draws([0.99, 0.1, 0.5]), 512);
    expect(Array.from(two.ids)).toEqual([7, 8, 9, 10, 9, 10, 11]);
    expect(Array.from(makeBatch([two], 99, 512).targets.subarray(0, 7))).toEqual([-1, 9, 10, -1, -1, 11, -1]);
    const clipped = withStutters(ex, 0.5, draws([0.1, 0.9]), 512);
    expect(Array.from(clipped.ids)).toEqual([7, 8, 9, 9, 10, 11]);
    expect(Array.from(withStutters(ex, 0.5, draws([0.1, 0.1]), 4).ids)).toEqual([7, 8, 9, 9]);
    expect(Array.from(withStutters(ex, 0.5, () => 0.9, 512).ids)).toEqual(Array.from(ex.ids));
  });

  it('warms up linearly, then decays by a cosine to the floor', () => {
    const o = { learningRate: 1, totalSteps: 110, warmupSteps: 10, minLrRate: 0.1 };
    expect(learningRateAt(0, o)).toBeCloseTo(0.1);
    expect(learningRateAt(9, o)).toBeCloseTo(1);
    expect(learningRateAt(60, o)).toBeCloseTo(0.55);
    expect(learningRateAt(110, o)).toBeCloseTo(0.1);
  });
});

describe('sft training', () => {
  const config = (out: string, o: Partial<SFTConfig> = {}) => sftConfig('tiny', out, { max_steps: 8, eval_steps: 4, save_steps: 100, eval_samples: 3, eval_fraction: 0.1, ...o });

  it('trains, logs every step and evaluation, and writes a checkpoint the student policy loads', async () => {
    const data = dataFile(80);
    const out = mkdtempSync(join(tmpdir(), 'sft-'));
    const result = await runSft({ env: diagramEnv, config: config(out, { max_steps: 16, eval_steps: 8 }), dataPath: data });
    expect(result.steps).toBe(16);
    const log = readLog(out);
    const steps = log.filter((r) => 'loss' in r);
    const evals = log.filter((r) => 'eval_loss' in r);
    expect(steps.map((r) => r.step)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    for (const r of steps) for (const k of ['lr', 'grad_norm', 'tokens_per_s', 'elapsed']) expect(Number.isFinite(r[k])).toBe(true);
    expect(evals.map((r) => r.step)).toEqual([8, 16]);
    expect(evals[1].eval_samples).toBeGreaterThan(0);
    expect(steps.at(-1).loss).toBeLessThan(steps[0].loss * 0.7);
    const samples = readFileSync(join(out, 'eval_samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const plain = samples.filter((x) => !x.structured_output), guided = samples.filter((x) => x.structured_output);
    expect(plain.filter((x) => x.step === 16)).toHaveLength(evals[1].eval_samples);
    expect(plain.filter((x) => x.step === 16 && x.valid).length / evals[1].eval_samples).toBe(evals[1].eval_valid_rate);
    // The last evaluation samples the same prompts again with structured output; the one before does not.
    expect(evals[0].eval_structured_reward).toBeUndefined();
    expect(guided.map((x) => x.step)).toEqual(Array(evals[1].eval_samples).fill(16));
    expect(guided.map((x) => x.prompt)).toEqual(plain.filter((x) => x.step === 16).map((x) => x.prompt));
    expect(guided.filter((x) => x.valid).length / evals[1].eval_samples).toBe(evals[1].eval_structured_valid_rate);
    expect(guided.reduce((t, x) => t + x.reward, 0) / evals[1].eval_samples).toBeCloseTo(evals[1].eval_structured_reward, 12);
    for (const x of guided) {
      expect(x.completion.startsWith('{"actions":[')).toBe(true);
      if (x.finish_reason === 'stop') expect(x.valid).toBe(true);
    }
    const student = await StudentPolicy.load(join(out, 'final'));
    const [[a], [b]] = await student.generate(
      [
        [{ role: 'system', content: 'Return JSON actions.' }, { role: 'user', content: 'Draw Client then API.' }],
        [{ role: 'user', content: 'x'.repeat(5000) }],
      ],
      { seed: 1, maxTokens: 20 },
    );
    expect(a.completionTokens).toBeGreaterThan(0);
    expect(a.completionTokens).toBeLessThanOrEqual(20);
    expect(['stop', 'length']).toContain(a.finishReason);
    expect(b.finishReason).toBe('error');
    await student.close();
  });

  it('--resume continues exactly: the same losses as an uninterrupted run', async () => {
    const data = dataFile(80);
    const straight = mkdtempSync(join(tmpdir(), 'sft-a-'));
    const noisy = { stutter_rate: 0.05 };
    await runSft({ env: diagramEnv, config: config(straight, noisy), dataPath: data });

    const split = mkdtempSync(join(tmpdir(), 'sft-b-'));
    const controller = new AbortController();
    const first = await runSft({
      env: diagramEnv,
      config: config(split, noisy),
      dataPath: data,
      signal: controller.signal,
      onProgress: (p) => p.step === 4 && controller.abort(),
    });
    expect(first.interrupted).toBe(true);
    expect(existsSync(join(split, 'checkpoint-4', 'optimizer.safetensors'))).toBe(true);
    expect(existsSync(join(split, 'final'))).toBe(false);
    // A kill while a row was being written leaves it torn: the resume cuts it off instead of failing on it.
    appendFileSync(join(split, 'log.jsonl'), '{"step":5,"epoch":0.3,"lo');
    appendFileSync(join(split, 'eval_samples.jsonl'), '{"step":8,"pro');
    const second = await runSft({ env: diagramEnv, config: config(split, noisy), dataPath: data, resume: true });
    expect(second.steps).toBe(8);

    const losses = (dir: string) => readLog(dir).filter((r) => 'loss' in r).map((r) => [r.step, r.loss, r.grad_norm, r.lr]);
    expect(losses(split)).toEqual(losses(straight));
    const evalLoss = (dir: string) => readLog(dir).filter((r) => 'eval_loss' in r).map((r) => [r.step, r.eval_loss, r.eval_reward]);
    expect(evalLoss(split)).toEqual(evalLoss(straight));
    await expect(runSft({ env: diagramEnv, config: config(split, { ...noisy, learning_rate: 0.1 }), dataPath: data, resume: true })).rejects.toThrow(/--resume: learning_rate was/);
    await expect(runSft({ env: diagramEnv, config: config(split, noisy), dataPath: data })).rejects.toThrow(/already holds checkpoints .* --resume/);
  });

  it('canvasgym sft reports a bad data row as a usage error', () => {
    const path = dataFile(3);
    writeFileSync(path, readFileSync(path, 'utf8') + '{"messages": "nope"}\n');
    const out = mkdtempSync(join(tmpdir(), 'sft-cli-'));
    const r = spawnSync(process.execPath, ['bin/canvasgym.js', 'sft', '--data', path, '--out', out, '--preset', 'tiny'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 4: messages: .*expected array/);
  });

  it('canvasgym sft stops on Ctrl-C after the current step with a checkpoint, exits 130, and --resume continues from it', async () => {
    const data = dataFile(40);
    const out = mkdtempSync(join(tmpdir(), 'sft-int-'));
    const args = ['sft', '--data', data, '--out', out, '--preset', 'tiny', '--steps', '40', '--eval-steps', '1000', '--save-steps', '1000', '--no-progress'];
    const r = await interruptAfter(args, join(out, 'log.jsonl'), 2);
    expect(r.code, r.stderr).toBe(130);
    expect(r.ms).toBeLessThan(5000);
    expect(r.stderr).toContain('canvasgym sft: SIGINT: stopping after this step and saving a checkpoint');
    const stopped = readLog(out).filter((x) => 'loss' in x).length;
    expect(stopped).toBeLessThan(40);
    expect(r.stdout).toContain(`stopped ${stopped} steps`);
    expect(existsSync(join(out, `checkpoint-${stopped}`, 'optimizer.safetensors'))).toBe(true);

    const resumed = spawnSync(process.execPath, ['bin/canvasgym.js', ...args, '--resume'], { encoding: 'utf8' });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming from ${join(out, `checkpoint-${stopped}`)} at step ${stopped}`);
    expect(readLog(out).filter((x) => 'loss' in x).map((x) => x.step)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  }, 60_000);

  it('canvasgym sft stops at the first step whose loss, gradient or weights are not finite, naming it', () => {
    const out = mkdtempSync(join(tmpdir(), 'sft-nan-'));
    const r = spawnSync(process.execPath, ['bin/canvasgym.js', 'sft', '--data', dataFile(20), '--out', out, '--preset', 'tiny', '--steps', '20', '--learning-rate', '1e308', '--no-progress'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^canvasgym: step 1: training diverged \(.*weight norm (NaN|Infinity)\) at learning rate .*: lower --learning-rate/);
    expect(existsSync(join(out, 'final'))).toBe(false);
  });

  it("canvasgym sft without --data leaves an earlier run's reference.jsonl as it was when it refuses the run", async () => {
    const out = mkdtempSync(join(tmpdir(), 'sft-cli-'));
    mkdirSync(join(out, 'final'));
    writeFileSync(join(out, 'reference.jsonl'), 'earlier\n');
    const r = await inProcessCli(['sft', '--env', 'arithmetic', '--out', out, '--preset', 'tiny', '--num-tasks', '20', '--threads', '1', '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('already holds checkpoints of a run');
    expect(readFileSync(join(out, 'reference.jsonl'), 'utf8')).toBe('earlier\n');
    expect(readdirSync(out).sort()).toEqual(['final', 'reference.jsonl']);
  });

  it('canvasgym sft names a bad batch budget or warmup ratio', () => {
    const path = dataFile(3);
    const out = mkdtempSync(join(tmpdir(), 'sft-cli-'));
    const run = (...flags: string[]) => spawnSync(process.execPath, ['bin/canvasgym.js', 'sft', '--data', path, '--out', out, '--preset', 'tiny', ...flags], { encoding: 'utf8' });
    const budget = run('--tokens-per-batch', '0');
    expect(budget.status).toBe(2);
    expect(budget.stderr).toMatch(/--tokens-per-batch must be a positive integer, got "0"/);
    const warmup = run('--warmup-ratio', '1.5');
    expect(warmup.status).toBe(2);
    expect(warmup.stderr).toMatch(/--warmup-ratio must be a number in \[0, 1\), got "1.5"/);
  });
});
