// `canvasgym serve`'s settings: the server's (src/server/settings.ts) and the command's (origins as one flag, the
// student to serve).
import { z } from 'zod';
import { ServerSettings } from '../server/settings.ts';

export const ServeSettings = z.object({
  ...ServerSettings.shape,
  allow_origin: z.string().optional().describe("comma-separated browser origins allowed beside loopback pages, e.g. https://app.example.com ('*': any page)").meta({ arg: 'origins' }),
  policy: z.string().optional().describe('student checkpoint directory to serve on /v1/chat/completions and /v1/completions').meta({ arg: 'ckpt' }),
  structured_output: z.boolean().default(false).describe("with --policy: guided decoding, every answer in the seed's action language (create_shape, connect) with arrows between shapes it created"),
});
