// `canvasgym tasks`'s settings.
import { z } from 'zod';
import { DIAGRAM_KINDS } from '../diagram/tasks/spec.ts';
import { MAX_LEVEL } from '../diagram/tasks/difficulty.ts';
import { SPLITS } from '../diagram/tasks/scenarios.ts';

export const TasksSettings = z.object({
  split: z
    .enum(SPLITS)
    .optional()
    .describe("the suite's split: heldout is IID (train's phrasings, made-up names never used in train); ood shares no entity name, phrasing template or connector word with train (required unless --stats)")
    .meta({ arg: 'split', choices: 'or' }),
  n: z.int().min(1).optional().describe('how many distinct tasks (required unless --stats)'),
  seed: z.int().min(0).default(0).describe('the same seed gives the same tasks'),
  difficulty: z.int().min(0).max(MAX_LEVEL).optional().describe('only one difficulty level').meta({ arg: 'level' }),
  kinds: z.string().optional().describe(`only these kinds, comma-separated: ${DIAGRAM_KINDS.join(', ')}`).meta({ arg: 'k1,k2' }),
  synthetic_names: z.number().min(0).max(1).optional().describe('share of tasks whose entities get made-up names (training data that makes a student copy names)').meta({ arg: 'share' }),
  out: z.string().optional().describe('JSONL file to write').meta({ arg: 'file', shownDefault: 'stdout' }),
  from_prompts: z
    .string()
    .optional()
    .describe('make tasks of your own requests instead: a file of prompts (one a line, or JSONL rows {prompt, id?}); each row gets a spec and its spec_source')
    .meta({ arg: 'file' }),
  spec_model: z.string().optional().describe('with --from-prompts: a chat model writes each spec (openai:MODEL, OpenAI-compatible, structured output); the extraction where it fails').meta({ arg: 'model', shownDefault: 'the extraction' }),
  spec_base_url: z.string().optional().describe("the spec model's server").meta({ arg: 'url', shownDefault: "OPENAI_BASE_URL, then OpenAI's API" }),
  spec_api_key: z.string().optional().describe("the spec model's API key").meta({ arg: 'key', shownDefault: 'OPENAI_API_KEY' }),
  spec_timeout: z.int().positive().default(60_000).describe('milliseconds one spec request may take before it is retried').meta({ arg: 'ms' }),
  spec_cache: z.string().default('.canvasgym/spec-cache').describe("where the model's specs are cached").meta({ arg: 'dir' }),
  review: z.string().optional().describe('with --spec-model: JSONL of the prompts whose extracted and model specs disagree, what each holds that the other lacks').meta({ arg: 'file' }),
  stats: z.boolean().default(false).describe('print counts per kind and difficulty, distinct entities and templates per split'),
});
