import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arithmeticEnv } from '../../src/arithmetic/arithmetic-env.ts';
import { diagramEnv } from '../../src/diagram/diagram-env.ts';
import { ENV_NAMES, getEnv } from '../../src/cli/environments.ts';
import { policyFromSpec } from '../../src/diagram/teacher/registry.ts';
import { generateTasks } from '../../src/diagram/tasks/generate.ts';
import { spawnCli } from '../helpers/cli.ts';

const readJsonl = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('the arithmetic environment', () => {
  const [task] = arithmeticEnv.tasks('train', 1, 0);
  const sum = String(task.spec.a + task.spec.b);
  const reward = arithmeticEnv.reward('answer');

  it('rewards the right sum, and answering with the bare number', () => {
    expect(reward.score(task, sum)).toEqual({ reward: 1, components: { correct: 1, format: 1 }, errors: [] });
    expect(reward.score(task, `The sum is ${sum}.`).components).toEqual({ correct: 1, format: 0 });
    const wrong = reward.score(task, String(Number(sum) + 1));
    expect(wrong.reward).toBeCloseTo(0.2, 12);
    expect(wrong.errors[0]).toContain(`the sum is ${sum}`);
    expect(arithmeticEnv.outcome(task, 'no idea')).toMatchObject({ parsed: false, valid: false, metrics: null });
    expect(() => arithmeticEnv.reward('strong')).toThrow(/unknown reward "strong": use answer/);
  });

  it('draws distinct tasks per split, the same ones for the same seed, and no task in both splits', () => {
    const train = arithmeticEnv.tasks('train', 500, 3);
    expect(new Set(train.map((t) => t.id)).size).toBe(500);
    expect(arithmeticEnv.tasks('train', 500, 3)).toEqual(train);
    expect(arithmeticEnv.tasks('train', 500, 4)).not.toEqual(train);
    const heldout = new Set(arithmeticEnv.tasks('heldout', 10_000, 0).map((t) => t.id));
    expect(heldout.size).toBeGreaterThan(500);
    expect(arithmeticEnv.tasks('train', 10_000, 0).filter((t) => heldout.has(t.id))).toEqual([]);
    for (const t of train) expect(t.prompt).toBe(`What is ${t.spec.a} + ${t.spec.b}?`);
    expect(() => arithmeticEnv.tasks('ood', 1, 0)).toThrow(/unknown split "ood": use train or heldout/);
  });

  it('is in the registry beside the diagram environment', () => {
    expect(ENV_NAMES).toEqual(['diagram', 'arithmetic']);
    expect(getEnv('arithmetic')).toBe(arithmeticEnv);
    expect(() => getEnv('toString')).toThrow(/unknown environment "toString": use diagram or arithmetic/);
  });
});

describe('the diagram environment', () => {
  it("scores through the rubric presets and reports the teacher's quirks as per-rollout rates", async () => {
    const [task] = generateTasks({ split: 'train', n: 1, seed: 1 });
    const answer = async (quirks: Record<string, number>) => {
      const policy = await policyFromSpec('scripted', { specFor: () => task.spec, quirks });
      return (await policy.generate([diagramEnv.conversation(task)], { seed: 0 }))[0][0].text;
    };
    const clean = await answer({});
    const outcome = diagramEnv.outcome(task, clean);
    expect(outcome).toMatchObject({ parsed: true, valid: true, errors: [] });
    expect(Object.keys(outcome.metrics!)).toEqual([...diagramEnv.metricNames]);
    expect(Object.values(outcome.metrics!)).toEqual([0, 0, 0, 0, 0]);
    expect(diagramEnv.outcome(task, await answer({ cramped: 1 })).metrics!.cramped).toBeGreaterThan(0);
    expect(diagramEnv.outcome(task, await answer({ missing_edge: 1 })).metrics!.missing_edge).toBeGreaterThan(0);
    const strong = diagramEnv.reward('strong');
    expect(strong.score(task, clean).reward).toBeGreaterThan(strong.score(task, '{"actions":[]}').reward);
    const prose = diagramEnv.outcome(task, 'prose only');
    expect(prose).toMatchObject({ parsed: false, wellFormed: false, valid: false });
    expect(prose.metrics).toEqual({ abbrev: 0, cramped: 0, overlap: 0, missing_edge: 0, prose: 1 });
  });
});

describe('canvasgym sft and grpo --env arithmetic', () => {
  it("trains the arithmetic environment from its reference answers, then with GRPO through the same trainer", () => {
    const dir = mkdtempSync(join(tmpdir(), 'env-arith-'));
    const sftOut = join(dir, 'sft');
    const sft = spawnCli(['sft', '--env', 'arithmetic', '--out', sftOut, '--preset', 'tiny', '--steps', '30', '--num-tasks', '300', '--eval-steps', '30', '--threads', '1', '--no-progress']);
    expect(sft.code, sft.stderr).toBe(0);
    expect(sft.stderr).toContain(`300 reference answers of the arithmetic environment in ${join(sftOut, 'reference.jsonl')}`);
    expect(sft.stdout).toMatch(/mean answer reward \d\.\d{3}/);
    const reference = readJsonl(join(sftOut, 'reference.jsonl'));
    expect(reference[0].messages.at(-1).content).toBe(String(reference[0].spec.a + reference[0].spec.b));

    const out = join(dir, 'grpo');
    const args = ['grpo', '--env', 'arithmetic', '--init', join(sftOut, 'final'), '--out', out, '--steps', '3', '--num-generations', '8', '--generation-batch-size', '16'];
    const grpo = spawnCli([...args, '--max-completion-length', '6', '--temperature', '1.5', '--curriculum', '--threads', '1', '--no-progress']);
    expect(grpo.code, grpo.stderr).toBe(0);
    expect(grpo.stderr).toContain('reward answer');
    expect(existsSync(join(out, 'final', 'config.json'))).toBe(true);
    const log = readJsonl(join(out, 'log.jsonl'));
    expect(log.map((r) => r.step)).toEqual([1, 2, 3]);
    for (const r of log) {
      expect(Object.keys(r.reward_components).sort()).toEqual(['correct', 'format']);
      expect(r.quirks).toEqual({});
    }
    // The curriculum starts on one-digit sums; some groups carry a signal and the policy moves from the reference.
    expect(log[0].level_cap).toBe(0);
    expect(log.some((r) => r.skipped_groups < r.groups && r.kl > 0)).toBe(true);
    const rollouts = readJsonl(join(out, 'rollouts.jsonl'));
    for (const r of rollouts) expect(r.prompt).toMatch(/^What is \d+ \+ \d+\?$/);

    const badEnv = spawnCli(['grpo', '--env', 'chess', '--init', join(sftOut, 'final'), '--out', join(dir, 'x')]);
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('--env must be one of diagram, arithmetic, got "chess"');
    const badReward = spawnCli([...args, '--reward', 'strong']);
    expect(badReward.code).toBe(2);
    expect(badReward.stderr).toContain('--reward must be one of answer, got "strong"');
    const noData = spawnCli(['sft', '--out', join(dir, 'y')]);
    expect(noData.code).toBe(2);
    expect(noData.stderr).toContain('--data is required: the diagram environment has no reference answers');
  }, 90_000);
});
