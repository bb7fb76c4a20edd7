// The judge's settings, the same on `score`, `eval`, `grpo` and `run`: off unless --judge names a model.
import { z } from 'zod';

/** Where `score` and `eval` keep judgments when --judge-cache is not given. */
export const DEFAULT_JUDGE_CACHE = '.canvasgym/judge-cache';

/** Where each command keeps judgments when --judge-cache is not given, as its help says it. */
export const JUDGE_CACHES = { score: DEFAULT_JUDGE_CACHE, eval: DEFAULT_JUDGE_CACHE, grpo: 'OUT/judge-cache', run: 'RUNS_DIR/NAME/judge-cache' } as const;

/** The settings, with where the command keeps its judgments when --judge-cache is not given. */
export const judgeSettings = (cacheWhere: string) =>
  z.object({
    judge: z.string().optional().describe('also ask a chat model whether each diagram satisfies its request: openai:MODEL (OpenAI-compatible; off when not given)').meta({ arg: 'model' }),
    judge_weight: z.number().min(0).lt(1).default(0).describe("the judge's weight: reward = (1 - w) x rubric + w x judgment; 0 logs the judgment only").meta({ arg: 'w', note: 'the rubric keeps the rest' }),
    judge_base_url: z.string().optional().describe("the judge's server").meta({ arg: 'url', shownDefault: "OPENAI_BASE_URL, then OpenAI's API" }),
    judge_api_key: z.string().optional().describe("the judge's API key").meta({ arg: 'key', shownDefault: 'OPENAI_API_KEY' }),
    judge_image: z.boolean().default(false).describe('send the rendered PNG (a vision model) instead of the canvas as text'),
    judge_cache: z.string().optional().describe('where judgments are cached').meta({ arg: 'dir', shownDefault: cacheWhere }),
    judge_timeout: z.int().positive().default(60_000).describe('milliseconds one judge request may take before it is retried').meta({ arg: 'ms' }),
  });
