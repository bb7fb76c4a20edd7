import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arithmeticEnv } from '../../src/arithmetic/arithmetic-env.ts';
import { ENV_NAMES, getEnv } from '../../src/cli/environments.ts';
import { spawnCli } from '../helpers/cli.ts';

const readJsonl = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('the environment registry', () => {
  it('holds the arithmetic environment beside the diagram one and refuses other names', () => {
    expect(ENV_NAMES).toEqual(['diagram', 'arithmetic']);
    expect(getEnv('arithmetic')).toBe(arithmeticEnv);
    expect(() => getEnv('toString')).toThrow(/unknown environment "toString": use diagram or arithmetic/);
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
