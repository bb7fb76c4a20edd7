// `canvasgym render`'s settings.
import { z } from 'zod';

export const RenderSettings = z.object({
  in: z.string().optional().describe('file holding the completion').meta({ arg: 'file' }),
  out: z.string().optional().describe('output file, .svg or .png (a directory with --sample)').meta({ arg: 'path' }),
  prompt: z.string().optional().describe('title shown above the diagram').meta({ arg: 'text', shownDefault: 'the record\'s "prompt", if any' }),
  errors: z.boolean().default(true).describe('the footer listing refused actions'),
  scale: z.number().positive().default(2).describe('PNG pixels per canvas unit'),
  width: z.number().positive().optional().describe('PNG width in pixels (overrides --scale)').meta({ arg: 'px' }),
  sample: z.boolean().default(false).describe("write the seed's example and a 10-node branching flow as SVG and PNG, with their rewards"),
  renderer: z.string().default('canvas').describe("canvas (built in) or tldraw: tldraw's own PNG export (docs/tldraw.md)"),
});
