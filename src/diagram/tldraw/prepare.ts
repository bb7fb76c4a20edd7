// Node side of the validator, before the browser: checks each action with the canvas's own schemas, caps what tldraw
// cannot take gracefully, and afterwards turns the page's answer into the environment's outcome types. Pure.
import { MAX_SIDE, type ActionType } from '../language/actions.ts';
import { applyActions, type ActionError, type ActionOutcome, type ApplyOptions } from '../language/apply.ts';
import type { Canvas } from '../language/canvas.ts';
import type { Lints, PageAction, PageDiagram, PageResult, ReadArrow, ReadShape } from './protocol.ts';

/** Coordinates beyond this are clamped: tldraw takes them, but an export of such a diagram is huge and slow. */
export const COORD_CAP = 20_000;
/** Labels longer than this are cut: no diagram label needs more, and measuring a 200 kB label stalls the page. */
export const TEXT_CAP = 1_000;

export interface PreparedDiagram {
  page: PageDiagram;
  /** The built-in canvas's verdict on every action, for comparison and for actions tldraw never sees. */
  canvas: { outcomes: ActionOutcome[]; canvas: Canvas };
  /** What was clamped or cut before tldraw saw it, one line each. */
  capped: string[];
}

function capNumber(v: number, name: string, index: number, capped: string[]): number {
  const c = Math.min(COORD_CAP, Math.max(-COORD_CAP, v));
  if (c !== v) capped.push(`action ${index}: ${name} ${v} clamped to ${c}`);
  return c;
}

function capText(v: unknown, index: number, capped: string[]): string | undefined {
  if (typeof v !== 'string') return undefined;
  if (v.length <= TEXT_CAP) return v;
  capped.push(`action ${index}: text of ${v.length} characters cut to ${TEXT_CAP}`);
  return v.slice(0, TEXT_CAP);
}

/** Builds the page's form of an action that passed its schema; `raw` is known to be well-formed. */
function toPageAction(raw: Record<string, unknown>, index: number, capped: string[]): PageAction {
  const num = (k: string) => (typeof raw[k] === 'number' ? capNumber(raw[k] as number, k, index, capped) : undefined);
  const side = (k: string) => (typeof raw[k] === 'number' ? Math.min(MAX_SIDE, raw[k] as number) : undefined);
  const str = (k: string) => raw[k] as string;
  const text = capText(raw.text, index, capped);
  switch (raw.type as ActionType) {
    case 'create_shape':
      return { index, type: 'create_shape', id: str('id'), shape: raw.shape as never, x: num('x')!, y: num('y')!, w: side('w')!, h: side('h')!, text: text ?? '' };
    case 'connect':
      return { index, type: 'connect', from: str('from'), to: str('to'), text: text ?? '' };
    case 'update_shape': {
      const a: PageAction = { index, type: 'update_shape', id: str('id') };
      if (raw.shape !== undefined) a.shape = raw.shape as never;
      if (raw.x !== undefined) a.x = num('x');
      if (raw.y !== undefined) a.y = num('y');
      if (raw.w !== undefined) a.w = side('w');
      if (raw.h !== undefined) a.h = side('h');
      if (text !== undefined) a.text = text;
      return a;
    }
    case 'delete_shape':
      return { index, type: 'delete_shape', id: str('id') };
    case 'disconnect':
      return { index, type: 'disconnect', from: str('from'), to: str('to') };
  }
}

/**
 * Runs the actions through the built-in canvas and keeps for tldraw every action that passed its schema.
 * Actions the canvas refused for reference reasons (missing shape, taken id) still go to tldraw, which judges them
 * against its own store: that is what the agreement check compares.
 */
export function prepareDiagram(actions: Record<string, unknown>[], opts: ApplyOptions = {}): PreparedDiagram {
  const run = applyActions(actions, undefined, opts);
  const capped: string[] = [];
  const page: PageAction[] = [];
  for (const o of run.outcomes) {
    if (o.applied || o.error?.kind === 'canvas') page.push(toPageAction(actions[o.index], o.index, capped));
  }
  return { page: { actions: page }, canvas: { outcomes: run.outcomes, canvas: run.canvas }, capped };
}

/** tldraw's verdict on a diagram, in the environment's own types, plus what the editor reads back. */
export interface TldrawReadback {
  outcomes: ActionOutcome[];
  errors: ActionError[];
  shapes: ReadShape[];
  arrows: ReadArrow[];
  lints: Lints;
  capped: string[];
  /** PNG bytes, when an export was asked for and the diagram has shapes. */
  png?: Buffer;
  /** Set when the editor crashed on this diagram twice: tldraw refused the whole diagram. */
  crashed?: string;
}

/** Merges the page's outcomes with the schema refusals that never reached the page. */
export function toReadback(prepared: PreparedDiagram, result: PageResult): TldrawReadback {
  const fromPage = new Map(result.outcomes.map((o) => [o.index, o]));
  const outcomes = prepared.canvas.outcomes.map((c): ActionOutcome => {
    const p = fromPage.get(c.index);
    if (!p) {
      if (c.error?.kind === 'schema') return c;
      const reason = `the editor crashed before this action: ${result.crashed ?? 'unknown'}`;
      return { index: c.index, type: c.type, applied: false, error: { index: c.index, field: 'action', kind: 'canvas', reason, message: `action ${c.index}: ${reason}` } };
    }
    if (p.applied) return { index: c.index, type: c.type, applied: true };
    const { field, reason } = p.error!;
    return { index: c.index, type: c.type, applied: false, error: { index: c.index, field, kind: 'canvas', reason, message: `action ${c.index}: ${reason}` } };
  });
  return {
    outcomes,
    errors: outcomes.flatMap((o) => (o.error ? [o.error] : [])),
    shapes: result.shapes,
    arrows: result.arrows,
    lints: result.lints,
    capped: prepared.capped,
    ...(result.png ? { png: Buffer.from(result.png, 'base64') } : {}),
    ...(result.crashed ? { crashed: result.crashed } : {}),
  };
}
