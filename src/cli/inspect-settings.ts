// `canvasgym inspect`'s settings.
import { z } from 'zod';

export const InspectSettings = z.object({
  runs_dir: z.string().default('runs').describe('the folder whose runs (canvasgym run) the inspector shows').meta({ arg: 'dir' }),
  host: z.string().default('127.0.0.1').describe('address to listen on (loopback: only this machine)').meta({ arg: 'host' }),
  port: z.number().int().min(0).max(65535).default(8787).describe('port to listen on (0: a free one)').meta({ arg: 'port' }),
});
