// `--backend`, on every command that runs the student (src/model/kernels.ts).
import { z } from 'zod';
import { BACKENDS } from '../model/kernels-native.ts';

export const BackendSettings = z.object({
  backend: z
    .enum(BACKENDS)
    .optional()
    .describe('model compute backend')
    .meta({ arg: 'backend', shownDefault: 'native where it is built, else wasm; $CANVASGYM_BACKEND' }),
});
