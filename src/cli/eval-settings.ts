// `canvasgym eval`'s settings.
import { z } from 'zod';
import { BASELINE_NAMES } from '../diagram/teacher/baselines.ts';
import { POLICY_FORMS } from '../diagram/teacher/registry.ts';
import { RUBRIC_NAMES } from '../diagram/reward/presets.ts';
import { SPLITS } from '../diagram/tasks/scenarios.ts';
import { RENDERERS } from '../diagram/tldraw/renderer.ts';

/** Tasks drawn from a split when --n is not given. */
export const SPLIT_TASKS = 200;

export const EvalSettings = z.object({
  policy: z.string().optional().describe(`the policy: ${POLICY_FORMS} (required unless --compare)`).meta({ arg: 'policy' }),
  tasks: z.string().optional().describe('tasks JSONL (from `canvasgym tasks`)').meta({ arg: 'file' }),
  split: z.enum(SPLITS).optional().describe('tasks from the suite').meta({ arg: 'split', choices: 'or', shownDefault: 'heldout' }),
  n: z.int().positive().optional().describe('number of tasks').meta({ shownDefault: `${SPLIT_TASKS} from a split; all of a file` }),
  seed: z.int().min(0).default(0).describe('task draw and sampling seed'),
  samples: z.int().positive().default(1).describe('completions per task; k > 1 adds pass@k').meta({ arg: 'k' }),
  temperature: z.number().min(0).default(0.7).describe('sampling temperature').meta({ arg: 't' }),
  top_p: z.number().positive().max(1).optional().describe('nucleus sampling').meta({ arg: 'p' }),
  max_tokens: z.int().positive().default(768).describe('most tokens per completion'),
  structured_output: z.boolean().default(false).describe('student checkpoints: guided decoding, only answers in the action language whose arrows join shapes the answer created (remote models get the schema as response_format anyway)'),
  rubrics: z.string().default('task,strong,seed').describe(`rubrics to score with, comma-separated (${RUBRIC_NAMES.join(', ')})`).meta({ arg: 'names' }),
  baselines: z.boolean().default(true).describe(`score the fixed baselines (${BASELINE_NAMES.join(', ')}) on the same tasks`),
  pass_threshold: z.number().min(0).max(1).default(0.9).describe('a completion passes when every action applies and its strong reward reaches this').meta({ arg: 'r' }),
  images: z.boolean().default(true).describe('a PNG per rollout'),
  renderer: z.string().default('canvas').describe(`${RENDERERS.join(' | ')}: with tldraw, the real editor in Chromium executes and draws every completion (its verdicts and lints feed the strong reward; its PNGs are written)`).meta({ arg: 'renderer' }),
  progress: z.boolean().default(true).describe('a progress bar'),
  out: z.string().optional().describe('output directory (required unless --compare)').meta({ arg: 'dir' }),
  compare: z.array(z.string()).optional().describe('print a side-by-side table of eval directories and the difference of means against the first').meta({ arg: 'dirs' }),
});
