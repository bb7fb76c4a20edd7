// The action language, defined once. TypeScript types and the JSON Schema sent to models both derive from here.
import { z } from 'zod';

export const SHAPE_KINDS = ['rectangle', 'ellipse', 'diamond', 'text'] as const;
export const ShapeKind = z.enum(SHAPE_KINDS);
export type ShapeKind = z.infer<typeof ShapeKind>;

/** The seed's size rule: 0 < w, h <= 1000. */
export const MAX_SIDE = 1000;

const id = z.string().min(1).describe('stable, meaningful shape id');
const coord = z.number().describe('finite canvas coordinate of the top-left corner');
const side = z.number().gt(0).lte(MAX_SIDE).describe(`size in canvas units, 0 < size <= ${MAX_SIDE}`);
const label = z.string().describe('short readable label');

/** Read by nothing: the environment, the canvas and every reward ignore it (docs/sft.md, "The request walk"). */
const say = z
  .string()
  .describe("the request's own words from where the previous shape's name ended through this shape's name, as the request writes them (optional; nothing reads it)");

export const CreateShape = z
  .object({
    type: z.literal('create_shape'),
    say: say.optional(),
    id,
    shape: ShapeKind,
    x: coord,
    y: coord,
    w: side,
    h: side,
    text: label.optional(),
  })
  .describe('Create a shape. Create every shape before connecting it.');

export const Connect = z
  .object({
    type: z.literal('connect'),
    from: id.describe('id of the source shape'),
    to: id.describe('id of the target shape'),
    text: label.optional(),
  })
  .describe('Draw an arrow from one existing shape to another.');

export const UpdateShape = z
  .object({
    type: z.literal('update_shape'),
    id,
    shape: ShapeKind.optional(),
    x: coord.optional(),
    y: coord.optional(),
    w: side.optional(),
    h: side.optional(),
    text: label.optional(),
  })
  .describe('Change some fields of an existing shape.');

export const DeleteShape = z
  .object({ type: z.literal('delete_shape'), id })
  .describe('Delete a shape and every arrow attached to it.');

export const Disconnect = z
  .object({
    type: z.literal('disconnect'),
    from: id.describe('id of the source shape'),
    to: id.describe('id of the target shape'),
  })
  .describe('Remove the arrows from one shape to another.');

export const Action = z.discriminatedUnion('type', [CreateShape, Connect, UpdateShape, DeleteShape, Disconnect]);
export type Action = z.infer<typeof Action>;
export type CreateShape = z.infer<typeof CreateShape>;
export type Connect = z.infer<typeof Connect>;
export type UpdateShape = z.infer<typeof UpdateShape>;
export type DeleteShape = z.infer<typeof DeleteShape>;
export type Disconnect = z.infer<typeof Disconnect>;
export type ActionType = Action['type'];
export const ACTION_TYPES: readonly ActionType[] = ['create_shape', 'connect', 'update_shape', 'delete_shape', 'disconnect'];

/** The seed's single-turn language: what a diagram answer may use. */
export const SEED_ACTION_TYPES: readonly ActionType[] = ['create_shape', 'connect'];

export const DEFAULT_MAX_ACTIONS = 40;

/** The response object a model returns: `{"actions": [...]}`. */
export function responseSchema(opts: { maxActions?: number; editing?: boolean } = {}) {
  const max = opts.maxActions ?? DEFAULT_MAX_ACTIONS;
  const action = opts.editing ? Action : z.discriminatedUnion('type', [CreateShape, Connect]);
  return z.object({ actions: z.array(action).min(1).max(max) }).describe('A batch of diagram actions, applied in order.');
}

/** JSON Schema (draft 2020-12) of the response object, for structured output. */
export function responseJsonSchema(opts: { maxActions?: number; editing?: boolean } = {}): Record<string, unknown> {
  return z.toJSONSchema(responseSchema(opts), { target: 'draft-2020-12' }) as Record<string, unknown>;
}
