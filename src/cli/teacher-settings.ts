// `canvasgym teacher`'s settings.
import { z } from 'zod';
import { RUBRIC_NAMES } from '../diagram/reward/presets.ts';
import { QUIRK_HELP, QUIRK_NAMES } from '../diagram/teacher/quirks.ts';
import { POLICY_FORMS } from '../diagram/teacher/registry.ts';
import { REMOTE_DEFAULTS } from '../policy/remote.ts';

export const TeacherSettings = z.object({
  tasks: z.string().describe('tasks JSONL (from `canvasgym tasks`), `{"prompt"}` rows, or plain text with one prompt a line').meta({ arg: 'file' }),
  out: z.string().describe('output directory: train.jsonl, rejected.jsonl, summary.json, run.json').meta({ arg: 'dir' }),
  policy: z.string().default('scripted').describe(`the teacher: ${POLICY_FORMS}`).meta({ arg: 'name' }),
  attempts: z.int().positive().default(4).describe('completions per task'),
  min_reward: z.number().min(0).max(1).default(0.6).describe('accept an attempt with no errors and at least this reward').meta({ arg: 'r' }),
  quirks: z.string().optional().describe(`scripted teacher habits with rates, e.g. abbrev=0.3,cramped=0.2 (${QUIRK_NAMES.map((q) => `${q}: ${QUIRK_HELP[q]}`).join('; ')})`).meta({ arg: 'list' }),
  walk: z.boolean().default(false).describe("the scripted teacher's walked answers, written for a student to copy: each shape says the request's words through its name, shapes lettered on a grid, arrows target first (docs/sft.md)"),
  seed: z.int().default(0).describe('sampling seed'),
  temperature: z.number().min(0).max(2).default(1).describe('sampling temperature (the scripted teacher varies spacing with it)').meta({ arg: 't' }),
  reward: z.enum(RUBRIC_NAMES as [string, ...string[]]).default('strong').describe('reward preset (docs/reward.md)'),
  batch_size: z.int().positive().default(8).describe('tasks per generate call'),
  max_tokens: z.int().positive().optional().describe('completion token limit for remote policies'),
  base_url: z.string().optional().describe('server base URL').meta({ arg: 'url', shownDefault: 'OPENAI_BASE_URL for openai:' }),
  api_key: z.string().optional().describe('API key').meta({ arg: 'key', shownDefault: 'OPENAI_API_KEY or GEMINI_API_KEY' }),
  concurrency: z.int().positive().default(REMOTE_DEFAULTS.concurrency).describe('remote requests in flight'),
  timeout: z.number().positive().default(REMOTE_DEFAULTS.timeoutMs / 1000).describe('seconds per remote request').meta({ arg: 's' }),
  max_retries: z.int().min(0).default(REMOTE_DEFAULTS.maxRetries).describe('retries on 429, 5xx and timeouts'),
  single_choice: z.boolean().default(false).describe('one choice per request (servers that refuse n, e.g. llama.cpp)'),
  progress: z.boolean().default(true).describe('a progress bar'),
});
