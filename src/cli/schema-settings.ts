// `canvasgym schema`'s settings.
import { z } from 'zod';
import { DEFAULT_MAX_ACTIONS } from '../diagram/language/actions.ts';

export const SchemaSettings = z.object({
  editing: z.boolean().default(false).describe('include the editing actions (update_shape, delete_shape, disconnect) used in multi-turn episodes'),
  // A schema with no room for an action is one no response can satisfy.
  max_actions: z.int().positive().default(DEFAULT_MAX_ACTIONS).describe('maximum actions per response'),
});
