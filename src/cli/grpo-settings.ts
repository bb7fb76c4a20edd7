// `canvasgym grpo`'s settings: GRPO's own (src/train/grpo-settings.ts) and the command's (the environment, the prompt
// pool, resume, the progress bar). The reward's choices are the environment's.
import { z } from 'zod';
import type { TextEnv } from '../environment/text-env.ts';
import { GrpoSettings } from '../train/grpo-settings.ts';
import { envSetting } from './env-flag.ts';

export const grpoCommandSettings = (env: TextEnv) =>
  z.object({
    env: envSetting,
    tasks: z.string().optional().describe('prompt pool: tasks JSONL (from `canvasgym tasks`)').meta({ arg: 'file' }),
    split: z.string().optional().describe("prompt pool: the environment's train split (the default)").meta({ arg: 'split' }),
    num_tasks: z.int().positive().default(2000).describe('tasks drawn from the split'),
    resume: z.boolean().default(false).describe('continue from the latest OUT/checkpoint-N exactly where it stopped'),
    ...GrpoSettings.shape,
    reward: z.enum(env.rewards as [string, ...string[]]).default(env.defaultReward).describe("reward preset, one of the environment's (docs/reward.md)").meta({ arg: 'name' }),
    progress: z.boolean().default(true).describe('a progress bar (else one JSON line per step on stderr)'),
  });
