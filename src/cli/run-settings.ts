// `canvasgym run`'s settings.
import { z } from 'zod';
import { RUN_CONFIGS, RUN_PRESETS, type RunPreset } from '../pipeline/run.ts';
import { grpoConfig } from '../train/grpo.ts';
import { sftConfig } from '../train/sft.ts';

/** A preset's sizes, read from its config so that the help cannot drift from what runs. Wall time depends on the
 *  machine, so none is promised here (README.md's "Measured" table has this machine's). */
function presetSizes(p: RunPreset): string {
  const c = RUN_CONFIGS[p];
  const sft = sftConfig(c.sft.preset, '', c.sft);
  const grpo = grpoConfig({ output_dir: '', init: '', ...c.grpo });
  return `${p}: ${c.trainTasks} train / ${c.heldoutTasks} held-out tasks, ${sft.preset} SFT (${sft.max_steps} steps), ${grpo.max_steps} GRPO steps`;
}

export const RunSettings = z.object({
  name: z.string().optional().describe('run directory name under --runs-dir').meta({ shownDefault: 'the preset name' }),
  preset: z.enum(RUN_PRESETS).default('default').describe(`the run's sizes: ${RUN_PRESETS.map(presetSizes).join('; ')}`).meta({ arg: 'preset', choices: 'list' }),
  walk: z.boolean().default(true).describe("the teacher's walked answers: each shape says the request's words through its name, shapes lettered on a grid, arrows target first (docs/sft.md); --no-walk: the plain answers"),
  fresh: z.boolean().default(false).describe('start over instead of continuing the run directory'),
  runs_dir: z.string().default('runs').describe('where runs live').meta({ arg: 'dir' }),
  progress: z.boolean().default(true).describe('progress bars (else plain log lines)'),
});
