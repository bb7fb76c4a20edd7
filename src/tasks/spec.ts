// The ground truth a task carries: which entities a diagram must show and which directed edges connect them.
import { z } from 'zod';
import { ShapeKind } from '../env/actions.ts';

export const DIAGRAM_KINDS = ['chain', 'decision', 'fan_out', 'fan_in', 'tree', 'cycle', 'layered', 'mixed'] as const;
export const DiagramKind = z.enum(DIAGRAM_KINDS);
export type DiagramKind = z.infer<typeof DiagramKind>;

export const DiagramSpec = z.object({
  /** Entity labels, as the prompt names them (the fuller form when it abbreviates). */
  entities: z.array(z.string().min(1)).min(1),
  /** Directed edges by entity label: [from, to]. */
  edges: z.array(z.tuple([z.string().min(1), z.string().min(1)])),
  kind: DiagramKind.optional(),
  difficulty: z.number().int().min(0).optional(),
  /** Arrow labels the prompt asks for, keyed "from->to". */
  edgeLabels: z.record(z.string(), z.string()).optional(),
  /** Shapes the prompt implies for some entities (a decision is a diamond); others are free. */
  shapes: z.record(z.string(), ShapeKind).optional(),
});
export type DiagramSpec = z.infer<typeof DiagramSpec>;

export const Task = z.object({ id: z.string().min(1), prompt: z.string().min(1), spec: DiagramSpec });
export type Task = z.infer<typeof Task>;
