// One completion through the environment: parse, then apply. The single-turn case of an episode.
import { parseCompletion, type ParseOptions, type ParseResult } from './parse.ts';
import { applyActions, type ActionOutcome, type ApplyOptions } from './apply.ts';
import { SEED_ACTION_TYPES } from './actions.ts';
import { Canvas } from './canvas.ts';

export interface Execution {
  parse: ParseResult;
  /** null when the completion did not parse. */
  canvas: Canvas | null;
  outcomes: ActionOutcome[];
  /** Human-readable errors: the parse failure, or one line per refused action. */
  errors: string[];
}

export interface ExecuteOptions extends ParseOptions, ApplyOptions {
  /** Canvas to start from (multi-turn editing); empty by default. */
  start?: Canvas;
}

/** Runs a completion. Single-turn diagram answers use the seed's language unless `allowedTypes` says otherwise. */
export function executeCompletion(text: string, opts: ExecuteOptions = {}): Execution {
  const parse = parseCompletion(text, opts);
  if (!parse.ok) return { parse, canvas: null, outcomes: [], errors: [parse.error.message] };
  const allowedTypes = opts.allowedTypes ?? (opts.start ? undefined : SEED_ACTION_TYPES);
  const { canvas, outcomes, errors } = applyActions(parse.actions, opts.start, { allowedTypes });
  return { parse, canvas, outcomes, errors: errors.map((e) => e.message) };
}
