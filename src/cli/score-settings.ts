// `canvasgym score`'s settings.
import { z } from 'zod';
import { RUBRIC_NAMES } from '../diagram/reward/presets.ts';
import { threadsSetting } from '../settings.ts';

export const ScoreSettings = z.object({
  reward: z.string().describe(`reward preset: ${RUBRIC_NAMES.join(' | ')}`).meta({ arg: 'preset' }),
  in: z.string().optional().describe('input JSONL; blank lines are skipped').meta({ arg: 'file', shownDefault: 'stdin' }),
  out: z.string().optional().describe('output JSONL, one row per input row in order').meta({ arg: 'file', shownDefault: 'stdout' }),
  threads: threadsSetting('most scoring threads for an --in file, the main one included; more than one start only when the first rows say the file is worth it (stdin, --judge and tldraw score on the main thread)'),
  renderer: z.string().default('canvas').describe('canvas (built in) or tldraw (the real editor in Chromium, docs/tldraw.md)').meta({ arg: 'name' }),
});
