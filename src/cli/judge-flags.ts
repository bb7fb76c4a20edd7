// The judge's flags, the same on `score`, `eval`, `grpo` and `run`: off unless --judge names a model.
import type { Command } from 'commander';
import { Judge, parseJudgeSpec } from '../reward/judge.ts';
import { UsageError } from './usage-error.ts';
import { numberFlag, outputDirFlag } from './flags.ts';

export interface JudgeFlags {
  judge?: string;
  judgeWeight?: string;
  judgeBaseUrl?: string;
  judgeApiKey?: string;
  judgeImage?: boolean;
  judgeCache?: string;
  judgeTimeout?: string;
}

export function addJudgeOptions(cmd: Command, cacheWhere: string): Command {
  return cmd
    .option('--judge <model>', 'also ask a chat model whether each diagram satisfies its request: openai:MODEL (OpenAI-compatible; off by default)')
    .option('--judge-weight <w>', "the judge's weight in [0, 1): reward = (1 - w) x rubric + w x judgment; 0 logs the judgment only (default 0)")
    .option('--judge-base-url <url>', "the judge's server (default: OPENAI_BASE_URL, then OpenAI's API)")
    .option('--judge-api-key <key>', "the judge's API key (default: OPENAI_API_KEY)")
    .option('--judge-image', 'send the rendered PNG (a vision model) instead of the canvas as text')
    .option('--judge-cache <dir>', `where judgments are cached (default: ${cacheWhere})`)
    .option('--judge-timeout <ms>', 'milliseconds one judge request may take before it is retried (default 60000)');
}

/** The judge the flags ask for, or undefined; every flag is checked before any work starts. */
export function judgeFromFlags(flags: JudgeFlags, defaultCache: string): { judge: Judge; weight: number } | undefined {
  if (!flags.judge) {
    const stray = (['judgeWeight', 'judgeBaseUrl', 'judgeApiKey', 'judgeImage', 'judgeCache', 'judgeTimeout'] as const).find((k) => flags[k] !== undefined);
    if (stray) throw new UsageError(`--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --judge openai:MODEL`);
    return undefined;
  }
  const spec = parseJudgeSpec(flags.judge);
  if ('error' in spec) throw new UsageError(`--judge ${spec.error}`);
  const weight = numberFlag('--judge-weight', flags.judgeWeight ?? '0', { min: 0, below: 1, note: 'the rubric keeps the rest' });
  const timeoutMs = numberFlag('--judge-timeout', flags.judgeTimeout ?? '60000', { integer: true, positive: true });
  const cacheDir = outputDirFlag('--judge-cache', flags.judgeCache ?? defaultCache);
  return { judge: new Judge({ model: spec.model, baseURL: flags.judgeBaseUrl, apiKey: flags.judgeApiKey, image: flags.judgeImage, cacheDir, timeoutMs, maxRetries: 2 }), weight };
}
