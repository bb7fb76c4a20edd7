// `canvasgym sft`'s settings: SFT's own (src/train/sft-settings.ts) and the command's (the environment, the data,
// --steps or --epochs, resume, the progress bar). A setting left out takes the preset's default.
import { z } from 'zod';
import { PRESET_CHANGES, SftSettings } from '../train/sft-settings.ts';
import { envSetting } from './env-flag.ts';

export const SftCommandSettings = z.object({
  env: envSetting,
  data: z.string().optional().describe("TRL messages JSONL, e.g. DIR/train.jsonl; without it, the environment's reference answers (OUT/reference.jsonl)").meta({ arg: 'file' }),
  num_tasks: z.int().positive().default(2000).describe('without --data: train tasks whose reference answers are the data'),
  steps: z.int().positive().optional().describe('optimizer steps (max_steps)').meta({ shownDefault: "the preset's max_steps" }),
  epochs: z.number().positive().optional().describe('passes over the data (num_train_epochs), when --steps is not given'),
  resume: z.boolean().default(false).describe('continue from the latest OUT/checkpoint-N exactly where it stopped'),
  ...SftSettings.shape,
  progress: z.boolean().default(true).describe('a progress bar'),
});

/** The presets' defaults where they differ from the schema's (the `default` preset's), for the help and the docs. */
export const SFT_VARIANTS = { tiny: PRESET_CHANGES.tiny, large: PRESET_CHANGES.large };
