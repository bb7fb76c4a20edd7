// `canvasgym run`'s settings.
import { z } from 'zod';
import { RUN_PRESETS } from '../pipeline/run.ts';

export const RunSettings = z.object({
  name: z.string().optional().describe('run directory name under --runs-dir').meta({ shownDefault: 'the preset name' }),
  preset: z.enum(RUN_PRESETS).default('default').describe('quick takes under 3 minutes, default under 15, full longer and better').meta({ arg: 'preset', choices: 'list' }),
  fresh: z.boolean().default(false).describe('start over instead of continuing the run directory'),
  runs_dir: z.string().default('runs').describe('where runs live').meta({ arg: 'dir' }),
  progress: z.boolean().default(true).describe('progress bars (else plain log lines)'),
});
