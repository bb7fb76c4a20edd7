// One rule per setting, said the same way by the library and the command line: trainGrpo and runSft check a config by
// the schema the flags come from (src/train/*-settings.ts), and the rule text is read off the schema.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { diagramEnv } from '../src/diagram/diagram-env.ts';
import { ruleOf, settingsIssue, defaultsOf } from '../src/settings.ts';
import { grpoConfig, GrpoInputError, trainGrpo } from '../src/train/grpo.ts';
import { GrpoSettings } from '../src/train/grpo-settings.ts';
import { runSft, sftConfig, SftInputError } from '../src/train/sft.ts';
import { inProcessCli } from './helpers/cli.ts';
import { Command } from 'commander';
import { addSettingFlags, givenSettings } from '../src/cli/settings-flags.ts';
import { SftCommandSettings } from '../src/cli/sft-settings.ts';

const out = () => mkdtempSync(join(tmpdir(), 'settings-'));

describe('a rule as the schema states it', () => {
  it.each([
    [z.int().positive(), 'a positive integer'],
    [z.int().min(2), 'an integer >= 2'],
    [z.int(), 'an integer'],
    [z.number().min(0).lt(1), 'a number in [0, 1)'],
    [z.number().positive().max(1), 'a number in (0, 1]'],
    [z.int().min(260).max(65536), 'an integer from 260 to 65536'],
    [z.enum(['a', 'b']), 'one of a, b'],
    [z.enum(['a', 'b']).meta({ choices: 'or' }), 'a or b'],
  ] as const)('%#: %s', (field, rule) => {
    expect(ruleOf(field)).toBe(rule);
  });

  it("a config's first bad setting is named with its rule and value; a rule between settings speaks for itself", () => {
    const schema = z.object({ n: z.int().min(2).default(8), share: z.number().min(0).lt(1).default(0.5) }).refine((c) => c.n % 2 === 0, { error: 'n must be even' });
    expect(defaultsOf(schema)).toEqual({ n: 8, share: 0.5 });
    expect(settingsIssue(schema, { n: 8, share: 0.5 }, (k) => k)).toBeUndefined();
    expect(settingsIssue(schema, { n: 1.5, share: 0.5 }, (k) => k)).toBe('n must be an integer >= 2, got 1.5');
    expect(settingsIssue(schema, { n: 8, share: 1 }, (k) => `--${k}`)).toBe('--share must be a number in [0, 1), got 1');
    expect(settingsIssue(schema, { n: 9, share: 0.5 }, (k) => k)).toBe('n must be even');
  });
});

describe('the settings a command line gives', () => {
  const given = (args: string[]) => {
    const cmd = addSettingFlags(new Command().exitOverride(), SftCommandSettings);
    return givenSettings(SftCommandSettings, cmd.parse(args, { from: 'user' }).opts());
  };

  it('leave out a setting on by default unless its --no- flag is given, so a preset can set it', () => {
    expect(given(['--out', 'o'])).toEqual({ output_dir: 'o' });
    expect(given(['--out', 'o', '--no-final-eval-structured-output'])).toEqual({ output_dir: 'o', final_eval_structured_output: false });
  });
});

describe('the library checks a config by the schema the flags come from', () => {
  it('trainGrpo refuses a setting out of its rule, as grpo --top-p does', async () => {
    const cfg = grpoConfig({ output_dir: out(), init: '/nonexistent', top_p: 2 });
    await expect(trainGrpo(cfg, { env: diagramEnv, tasks: [] })).rejects.toThrow(new GrpoInputError('top_p must be a number in (0, 1], got 2'));
    const cli = await inProcessCli(['grpo', '--init', '/nonexistent', '--out', out(), '--top-p', '2']);
    expect(cli.stderr).toBe(`canvasgym: --top-p must be ${ruleOf(GrpoSettings.shape.top_p)}, got "2"\n`);
  });

  it('trainGrpo refuses a generation batch that is not whole groups', async () => {
    const cfg = grpoConfig({ output_dir: out(), init: '/nonexistent', num_generations: 8, generation_batch_size: 30 });
    await expect(trainGrpo(cfg, { env: diagramEnv, tasks: [] })).rejects.toThrow('generation_batch_size (30) must be a multiple of num_generations (8)');
  });

  it('runSft refuses a setting out of its rule before reading any data', async () => {
    const config = sftConfig('tiny', out(), { warmup_ratio: 1, threads: 1 });
    await expect(runSft({ config, env: diagramEnv, dataPath: '/nonexistent.jsonl' })).rejects.toThrow(new SftInputError('warmup_ratio must be a number in [0, 1), got 1'));
  });
});
