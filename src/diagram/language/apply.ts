// Executes actions on a canvas. One handler per action type, each with the same shape:
// check the action against its schema, check it against the canvas, apply it, report what happened.
// Refusals are values (ActionError), never exceptions: the reward and the logs count them.
import type { z } from 'zod';
import {
  ACTION_TYPES,
  CreateShape,
  Connect,
  UpdateShape,
  DeleteShape,
  Disconnect,
  MAX_SIDE,
  type ActionType,
} from './actions.ts';
import { Canvas } from './canvas.ts';
import { describeJson } from './parse.ts';

export type ActionErrorKind = 'schema' | 'canvas';

export interface ActionError {
  index: number;
  field: string;
  /** `schema`: the action itself is malformed; `canvas`: well-formed but the canvas refuses it (missing shape, duplicate id, ...). */
  kind: ActionErrorKind;
  reason: string;
  message: string;
}

export interface ActionOutcome {
  index: number;
  type: string;
  applied: boolean;
  error?: ActionError;
  /** Side effects worth reporting, e.g. arrows removed along with a deleted shape. */
  notes?: string[];
}

export interface ApplyResult {
  canvas: Canvas;
  outcomes: ActionOutcome[];
  errors: ActionError[];
}

export interface ApplyOptions {
  /** Action types this episode accepts; others are refused as unknown. Defaults to all. */
  allowedTypes?: readonly ActionType[];
}

type Refusal = { field: string; reason: string; kind?: ActionErrorKind };
type HandlerResult = Refusal | { notes?: string[] };

interface Handler<S extends z.ZodType> {
  schema: S;
  apply(canvas: Canvas, action: z.infer<S>): HandlerResult;
}

const handler = <S extends z.ZodType>(h: Handler<S>): Handler<S> => h;

const UPDATABLE = ['shape', 'x', 'y', 'w', 'h', 'text'] as const;

const refuse = (field: string, reason: string): Refusal => ({ field, reason, kind: 'canvas' });

const HANDLERS: { [K in ActionType]: Handler<z.ZodType> } = {
  create_shape: handler({
    schema: CreateShape,
    apply(canvas, a: CreateShape) {
      if (canvas.shapes.has(a.id)) return refuse('id', `duplicate shape id: ${a.id}`);
      canvas.shapes.set(a.id, { id: a.id, shape: a.shape, x: a.x, y: a.y, w: a.w, h: a.h, text: a.text ?? '' });
      return {};
    },
  }),
  connect: handler({
    schema: Connect,
    apply(canvas, a: Connect) {
      if (!canvas.shapes.has(a.from)) return refuse('from', `arrow source does not exist: ${a.from}`);
      if (!canvas.shapes.has(a.to)) return refuse('to', `arrow target does not exist: ${a.to}`);
      if (a.from === a.to) return refuse('to', 'arrow cannot connect a shape to itself');
      canvas.arrows.push({ from: a.from, to: a.to, text: a.text ?? '' });
      return {};
    },
  }),
  update_shape: handler({
    schema: UpdateShape,
    apply(canvas, a: UpdateShape) {
      const shape = canvas.shapes.get(a.id);
      if (!shape) return refuse('id', `shape does not exist: ${a.id}`);
      const fields = UPDATABLE.filter((k) => a[k] !== undefined);
      if (fields.length === 0) return { field: 'id', reason: `update_shape changes nothing: give at least one of ${UPDATABLE.join(', ')}`, kind: 'schema' };
      for (const k of fields) (shape as Record<string, unknown>)[k] = a[k];
      return { notes: [`updated ${fields.join(', ')} of ${a.id}`] };
    },
  }),
  delete_shape: handler({
    schema: DeleteShape,
    apply(canvas, a: DeleteShape) {
      if (!canvas.shapes.has(a.id)) return refuse('id', `shape does not exist: ${a.id}`);
      canvas.shapes.delete(a.id);
      const before = canvas.arrows.length;
      canvas.arrows = canvas.arrows.filter((r) => r.from !== a.id && r.to !== a.id);
      const removed = before - canvas.arrows.length;
      return { notes: removed > 0 ? [`deleted ${a.id} and ${removed} arrow${removed === 1 ? '' : 's'} attached to it`] : [`deleted ${a.id}`] };
    },
  }),
  disconnect: handler({
    schema: Disconnect,
    apply(canvas, a: Disconnect) {
      const before = canvas.arrows.length;
      canvas.arrows = canvas.arrows.filter((r) => !(r.from === a.from && r.to === a.to));
      const removed = before - canvas.arrows.length;
      if (removed === 0) return refuse('from', `no arrow from ${a.from} to ${a.to}`);
      return { notes: [`removed ${removed} arrow${removed === 1 ? '' : 's'} from ${a.from} to ${a.to}`] };
    },
  }),
};

/** Turns the first zod issue into a field and a reason a model (and a person) can act on. */
function schemaRefusal(action: Record<string, unknown>, issues: z.core.$ZodIssue[]): Refusal {
  const issue = issues[0];
  const field = issue.path.map(String).join('.') || 'action';
  const value = action[issue.path[0] as string];
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return { field, reason: `${field} is required`, kind: 'schema' };
      if (issue.expected === 'number') return { field, reason: `${field} must be a finite number, got ${describeJson(value)}`, kind: 'schema' };
      return { field, reason: `${field} must be a ${issue.expected}, got ${describeJson(value)}`, kind: 'schema' };
    case 'too_small':
      if (typeof value === 'string') return { field, reason: `${field} must be a non-empty string`, kind: 'schema' };
      return { field, reason: `${field} must be positive, got ${String(value)}`, kind: 'schema' };
    case 'too_big':
      return { field, reason: `${field} is too large: ${String(value)} > ${MAX_SIDE}`, kind: 'schema' };
    case 'invalid_value':
      return { field, reason: `unknown ${field === 'shape' ? 'shape type' : field}: ${JSON.stringify(value)}`, kind: 'schema' };
    default:
      return { field, reason: `${field}: ${issue.message}`, kind: 'schema' };
  }
}

function failed(index: number, type: unknown, r: Refusal): ActionOutcome {
  return {
    index,
    type: typeof type === 'string' ? type : '',
    applied: false,
    error: { index, field: r.field, kind: r.kind ?? 'schema', reason: r.reason, message: `action ${index}: ${r.reason}` },
  };
}

/** Applies one raw action to the canvas in place; returns its outcome. */
export function applyAction(canvas: Canvas, action: Record<string, unknown>, index: number, opts: ApplyOptions = {}): ActionOutcome {
  const type = action.type;
  if (typeof type !== 'string' || type === '') return failed(index, type, { field: 'type', reason: 'type must be a non-empty string' });
  const allowed = opts.allowedTypes ?? ACTION_TYPES;
  if (!allowed.includes(type as ActionType)) {
    const known = (ACTION_TYPES as readonly string[]).includes(type);
    return failed(index, type, { field: 'type', reason: `unknown action type: ${type}${known ? ` (allowed here: ${allowed.join(', ')})` : ''}` });
  }
  const h = HANDLERS[type as ActionType];
  const parsed = h.schema.safeParse(action);
  if (!parsed.success) return failed(index, type, schemaRefusal(action, parsed.error.issues));
  const r = h.apply(canvas, parsed.data);
  if ('reason' in r) return failed(index, type, r);
  return r.notes ? { index, type, applied: true, notes: r.notes } : { index, type, applied: true };
}

/** Applies actions in order to a copy of `start` (an empty canvas by default). Pure. */
export function applyActions(actions: Record<string, unknown>[], start?: Canvas, opts: ApplyOptions = {}): ApplyResult {
  const canvas = start ? start.clone() : new Canvas();
  const outcomes: ActionOutcome[] = [];
  const errors: ActionError[] = [];
  for (let i = 0; i < actions.length; i++) {
    const o = applyAction(canvas, actions[i], i, opts);
    outcomes.push(o);
    if (o.error) errors.push(o.error);
  }
  return { canvas, outcomes, errors };
}
