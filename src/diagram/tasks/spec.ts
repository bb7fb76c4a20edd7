// The ground truth a task carries: which entities a diagram must show and which directed edges connect them.
import { z } from 'zod';
import { ShapeKind } from '../language/actions.ts';
import { EDGE_LABEL_KEY_CHARS, LIMITS, overLimit, promptRefusal } from './limits.ts';

export const DIAGRAM_KINDS = ['chain', 'decision', 'fan_out', 'fan_in', 'tree', 'cycle', 'layered', 'mixed'] as const;
export const DiagramKind = z.enum(DIAGRAM_KINDS);
export type DiagramKind = z.infer<typeof DiagramKind>;

/** A string of at most `max` characters, refused with the limit's name. */
const bounded = (max: number) => z.string().max(max, { error: (issue) => overLimit((issue.input as string).length, 'characters', max) });
const name = bounded(LIMITS.nameChars).min(1);

/** A record of at most `max` keys, each of at most `keyChars` characters. */
function boundedRecord<V extends z.ZodType>(value: V, max: number, what: string, keyChars: number) {
  return z.record(z.string(), value).check((ctx) => {
    const keys = Object.keys(ctx.value);
    if (keys.length > max) ctx.issues.push({ code: 'custom', message: overLimit(keys.length, what, max), input: ctx.value });
    const long = keys.find((k) => k.length > keyChars);
    if (long !== undefined) ctx.issues.push({ code: 'custom', message: `a key of ${overLimit(long.length, 'characters', keyChars)}`, input: ctx.value });
  });
}

export const DiagramSpec = z.object({
  /** Entity labels, as the prompt names them (the fuller form when it abbreviates). */
  entities: z
    .array(name)
    .min(1)
    .max(LIMITS.entities, { error: (issue) => overLimit((issue.input as unknown[]).length, 'entities', LIMITS.entities) }),
  /** Directed edges by entity label: [from, to]. */
  edges: z.array(z.tuple([name, name])).max(LIMITS.edges, { error: (issue) => overLimit((issue.input as unknown[]).length, 'edges', LIMITS.edges) }),
  kind: DiagramKind.optional(),
  difficulty: z.number().int().min(0).optional(),
  /** Arrow labels the prompt asks for, keyed "from->to". */
  edgeLabels: boundedRecord(bounded(LIMITS.nameChars), LIMITS.edges, 'arrow labels', EDGE_LABEL_KEY_CHARS).optional(),
  /** Shapes the prompt implies for some entities (a decision is a diamond); others are free. */
  shapes: boundedRecord(ShapeKind, LIMITS.entities, 'shape hints', LIMITS.nameChars).optional(),
});
export type DiagramSpec = z.infer<typeof DiagramSpec>;

/** A user's request, within the prompt limit. */
const Prompt = z.string().check((ctx) => {
  const why = promptRefusal(ctx.value);
  if (why !== null) ctx.issues.push({ code: 'custom', message: why, input: ctx.value });
});

export const Task = z.object({ id: z.string().min(1), prompt: Prompt.min(1), spec: DiagramSpec });
export type Task = z.infer<typeof Task>;
