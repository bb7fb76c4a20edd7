// The judge the --judge flags ask for (src/cli/judge-settings.ts).
import type { Command } from 'commander';
import { Judge, parseJudgeSpec } from '../diagram/reward/judge.ts';
import { UsageError } from './usage-error.ts';
import { outputDirFlag } from './flags.ts';
import { judgeSettings } from './judge-settings.ts';
import { flagOf } from '../settings.ts';
import { addSettingFlags, givenSettings } from './settings-flags.ts';

export interface JudgeFlags {
  judge?: string;
  judgeWeight?: string;
  judgeBaseUrl?: string;
  judgeApiKey?: string;
  judgeImage?: boolean;
  judgeCache?: string;
  judgeTimeout?: string;
}

export const addJudgeOptions = (cmd: Command, cacheWhere: string): Command => addSettingFlags(cmd, judgeSettings(cacheWhere));

/** The judge the flags ask for, or undefined; every flag is checked before any work starts. */
export function judgeFromFlags(flags: JudgeFlags, defaultCache: string): { judge: Judge; weight: number } | undefined {
  const schema = judgeSettings(defaultCache);
  const given = givenSettings(schema, flags);
  if (given.judge === undefined) {
    const stray = Object.keys(given)[0];
    if (stray) throw new UsageError(`${flagOf(stray, schema.shape[stray as keyof typeof schema.shape])} needs --judge openai:MODEL`);
    return undefined;
  }
  const s = schema.parse(given);
  const spec = parseJudgeSpec(given.judge);
  if ('error' in spec) throw new UsageError(`--judge ${spec.error}`);
  const cacheDir = outputDirFlag('--judge-cache', s.judge_cache ?? defaultCache);
  return { judge: new Judge({ model: spec.model, baseURL: s.judge_base_url, apiKey: s.judge_api_key, image: s.judge_image, cacheDir, timeoutMs: s.judge_timeout, maxRetries: 2 }), weight: s.judge_weight };
}
