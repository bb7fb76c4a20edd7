// Episodes with Gymnasium's contract: reset({task | seed, options}) -> {observation, info} and
// step(action) -> {observation, reward, terminated, truncated, info}. Two environments share it:
// - `diagram`: the single-turn seed task. One step: the completion is scored by a reward preset; always terminated.
// - `editing`: an existing canvas and an instruction. Each step is one batch of actions (editing actions allowed).
//   Terminated when the goal is met or the agent says it is done; truncated at the turn limit. The reward is 0 on
//   every step but the last, which gets the final canvas's score against the goal spec (sparse, so that the episode
//   return is exactly the final score).
// Stepping a finished episode, or one never reset, is the caller's bug: it throws EpisodeError.
import { z } from 'zod';
import { ACTION_TYPES, responseJsonSchema } from './language/actions.ts';
import { applyActions } from './language/apply.ts';
import { Canvas, CanvasState, type CanvasJson } from './language/canvas.ts';
import { executeCompletion } from './language/execute.ts';
import { extractJson, parseCompletion } from './language/parse.ts';
import { getRubric } from './reward/presets.ts';
import type { Rubric } from './reward/rubric.ts';
import { SYSTEM_PROMPT } from './language/prompt.ts';
import { generateTasks } from './tasks/generate.ts';
import { SPLITS, type Split } from './tasks/scenarios.ts';
import { Task } from './tasks/spec.ts';
import { EDIT_KINDS, EditingTask, EditKind, editingTaskForSeed, scoreEdit, type ActionCounts, type EditScore } from '../editing/tasks.ts';

export const ENV_NAMES = ['diagram', 'editing'] as const;
export type EnvName = (typeof ENV_NAMES)[number];

export const DEFAULT_MAX_TURNS = 4;
/** Turn limits a caller may ask for. */
export const MAX_TURNS_LIMIT = 32;

export const Observation = z.object({
  env: z.enum(ENV_NAMES),
  /** What the user asks: the diagram request or the edit instruction. */
  instruction: z.string(),
  canvas: CanvasState,
  /** The user message for a model: the instruction, the canvas as compact lines, the turn, the last step's feedback. */
  text: z.string(),
  /** Steps taken so far. */
  turn: z.number().int().min(0),
  max_turns: z.number().int().min(1),
  /** What went wrong in the last step (parse failure, refused actions); empty on reset. */
  feedback: z.array(z.string()),
});
export type Observation = z.infer<typeof Observation>;

export interface ResetResult {
  observation: Observation;
  info: Record<string, unknown>;
}

export interface StepResult {
  observation: Observation;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

export interface ResetRequest {
  /** A task to play; otherwise one is drawn from the suite with `seed`. */
  task?: unknown;
  seed?: number;
  options?: Record<string, unknown>;
}

/** A step's action: the model's raw text, or the response object it would have written. */
export type StepAction = string | Record<string, unknown>;

export interface EpisodeState {
  env: EnvName;
  task: unknown;
  canvas: CanvasJson;
  turn: number;
  max_turns: number;
  terminated: boolean;
  truncated: boolean;
  history: { turn: number; reward: number; applied: number; sent: number; errors: string[] }[];
}

export interface Env {
  readonly name: EnvName;
  /** JSON Schema of what step() accepts when given an object (the model's response). */
  readonly actionSchema: Record<string, unknown>;
  /** The system prompt a model playing this environment is given. */
  readonly systemPrompt: string;
  reset(req?: ResetRequest): ResetResult;
  step(action: StepAction): StepResult;
  state(): EpisodeState;
}

/** Misuse of an episode (step before reset or after the end) or a bad reset request; the server answers 4xx. */
export class EpisodeError extends Error {
  constructor(
    message: string,
    readonly code: 'not_started' | 'finished' | 'bad_request',
  ) {
    super(message);
  }
}

export function observationJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(Observation, { target: 'draft-2020-12' }) as Record<string, unknown>;
}

/** The editing response: a batch of any actions, and `done` to end the episode ({"actions": [], "done": true} to stop). */
export function editingActionJsonSchema(): Record<string, unknown> {
  const base = responseJsonSchema({ editing: true }) as { properties: Record<string, Record<string, unknown>>; [k: string]: unknown };
  return {
    ...base,
    properties: {
      actions: { ...base.properties.actions, minItems: 0 },
      done: { type: 'boolean', description: 'true when the edit is finished: the episode ends after this batch' },
    },
  };
}

export const EDITING_SYSTEM_PROMPT = `You are a diagram editing agent. You see a diagram as a list of shapes and arrows, and an instruction.
Return only JSON: {"actions": [...], "done": true|false}. Actions are applied in order.

Actions:
- {"type": "create_shape", "id": "...", "shape": "rectangle" | "ellipse" | "diamond" | "text", "x": number, "y": number, "w": number, "h": number, "text": "..."}
- {"type": "update_shape", "id": "existing id", and any of "shape", "x", "y", "w", "h", "text"}
- {"type": "delete_shape", "id": "existing id"} (its arrows go with it)
- {"type": "connect", "from": "shape id", "to": "shape id", "text": "optional arrow label"}
- {"type": "disconnect", "from": "shape id", "to": "shape id"}

Rules:
- Keep every shape and arrow the instruction does not change.
- Avoid overlaps; keep the layout readable.
- Send "done": true with your last batch, or {"actions": [], "done": true} when nothing is left to do.
- Return only JSON. No markdown.`;

const round = (v: number) => Math.round(v * 10) / 10;

/** The canvas as one line per shape and arrow: short enough for a small model's context, complete enough to edit. */
export function canvasText(canvas: CanvasJson): string {
  const lines = [`Canvas: ${canvas.shapes.length} shape${canvas.shapes.length === 1 ? '' : 's'}, ${canvas.arrows.length} arrow${canvas.arrows.length === 1 ? '' : 's'}`];
  for (const s of canvas.shapes) lines.push(`- ${s.id}: ${s.shape} ${JSON.stringify(s.text)} x=${round(s.x)} y=${round(s.y)} w=${round(s.w)} h=${round(s.h)}`);
  for (const a of canvas.arrows) lines.push(`- ${a.from} -> ${a.to}${a.text ? ` ${JSON.stringify(a.text)}` : ''}`);
  return lines.join('\n');
}

function int(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new EpisodeError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`, 'bad_request');
  }
  return v;
}

function splitOption(v: unknown): Split {
  if (v === undefined) return 'train';
  if (typeof v !== 'string' || !(SPLITS as readonly string[]).includes(v)) {
    throw new EpisodeError(`options.split must be one of ${SPLITS.join(', ')}, got ${JSON.stringify(v)}`, 'bad_request');
  }
  return v as Split;
}

function checkOptions(options: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length) throw new EpisodeError(`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}: known are ${known.join(', ')}`, 'bad_request');
}

function parseTask<T>(schema: z.ZodType<T>, task: unknown, what: string): T {
  const parsed = schema.safeParse(task);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EpisodeError(`task is not ${what}: ${issue.path.map(String).join('.') || 'task'}: ${issue.message}`, 'bad_request');
  }
  return parsed.data;
}

/** A seed for a reset that gives none: drawn here and reported in info, so that the episode can be replayed. */
const freshSeed = () => Math.floor(Math.random() * 2 ** 31);

const asText = (action: StepAction): string => (typeof action === 'string' ? action : JSON.stringify(action));

// ---------------------------------------------------------------------------------------------------------------------

/** The seed's single-turn task as an episode: one completion, scored by a reward preset. */
export class DiagramEnv implements Env {
  readonly name = 'diagram' as const;
  readonly actionSchema = responseJsonSchema();
  readonly systemPrompt = SYSTEM_PROMPT;
  private task: Task | null = null;
  private canvas = new Canvas();
  private done = false;
  private turn = 0;
  private rubric: Rubric;
  private history: EpisodeState['history'] = [];

  constructor(opts: { reward?: string } = {}) {
    this.rubric = getRubric(opts.reward ?? 'strong');
  }

  reset(req: ResetRequest = {}): ResetResult {
    const options = req.options ?? {};
    checkOptions(options, ['split', 'reward']);
    if (options.reward !== undefined) {
      try {
        this.rubric = getRubric(String(options.reward));
      } catch (err) {
        throw new EpisodeError(`options.reward: ${(err as Error).message}`, 'bad_request');
      }
    }
    let seed: number | undefined;
    if (req.task !== undefined) this.task = parseTask(Task, req.task, 'a diagram task {id, prompt, spec}');
    else {
      seed = int(req.seed, 'seed', 0, 2 ** 31 - 1) ?? freshSeed();
      this.task = generateTasks({ split: splitOption(options.split), n: 1, seed })[0];
    }
    this.canvas = new Canvas();
    this.done = false;
    this.turn = 0;
    this.history = [];
    return { observation: this.observe([]), info: { task_id: this.task.id, ...(seed !== undefined ? { seed } : {}), reward_preset: this.rubric.name, spec: this.task.spec } };
  }

  step(action: StepAction): StepResult {
    if (!this.task) throw new EpisodeError('step() before reset(): reset the episode first', 'not_started');
    if (this.done) throw new EpisodeError('step() after the episode ended: reset it first', 'finished');
    const completion = asText(action);
    const score = this.rubric.score({ prompt: this.task.prompt, completion, spec: this.task.spec });
    const exec = executeCompletion(completion);
    if (exec.canvas) this.canvas = exec.canvas;
    this.turn = 1;
    this.done = true;
    const applied = exec.outcomes.filter((o) => o.applied).length;
    this.history.push({ turn: 1, reward: score.reward, applied, sent: exec.outcomes.length, errors: score.errors });
    return {
      observation: this.observe(score.errors),
      reward: score.reward,
      terminated: true,
      truncated: false,
      info: { components: score.components, weights: score.weights, errors: score.errors },
    };
  }

  state(): EpisodeState {
    return { env: this.name, task: this.task, canvas: this.canvas.toJSON(), turn: this.turn, max_turns: 1, terminated: this.done, truncated: false, history: this.history };
  }

  private observe(feedback: string[]): Observation {
    const prompt = this.task!.prompt;
    return { env: this.name, instruction: prompt, canvas: this.canvas.toJSON(), text: prompt, turn: this.turn, max_turns: 1, feedback };
  }
}

// ---------------------------------------------------------------------------------------------------------------------

type ParsedStep = { ok: true; actions: Record<string, unknown>[]; done: boolean } | { ok: false; error: string };

/** A step's text: `{"actions": [...], "done"?: bool}`; an empty batch is accepted only as the stop signal. */
export function parseEditStep(text: string): ParsedStep {
  const found = extractJson(text);
  if (found.ok && typeof found.value === 'object' && found.value !== null && !Array.isArray(found.value)) {
    const v = found.value as Record<string, unknown>;
    if (v.done !== undefined && typeof v.done !== 'boolean') return { ok: false, error: `"done" must be true or false, got ${JSON.stringify(v.done)}` };
    if (v.done === true && (v.actions === undefined || (Array.isArray(v.actions) && v.actions.length === 0))) return { ok: true, actions: [], done: true };
  }
  const parsed = parseCompletion(text);
  if (!parsed.ok) return { ok: false, error: parsed.error.code === 'empty_actions' ? 'actions array is empty: send actions, or {"actions": [], "done": true} to stop' : parsed.error.message };
  const done = found.ok && (found.value as Record<string, unknown>).done === true;
  return { ok: true, actions: parsed.actions, done };
}

export interface EditingEnvOptions {
  split?: Split;
  maxTurns?: number;
  edits?: readonly EditKind[];
}

/** Multi-turn editing of an existing diagram toward a goal spec. */
export class EditingEnv implements Env {
  readonly name = 'editing' as const;
  readonly actionSchema = editingActionJsonSchema();
  readonly systemPrompt = EDITING_SYSTEM_PROMPT;
  private task: EditingTask | null = null;
  private canvas = new Canvas();
  private turn = 0;
  private maxTurns: number;
  private terminated = false;
  private truncated = false;
  private counts: ActionCounts = { sent: 0, applied: 0 };
  private history: EpisodeState['history'] = [];

  constructor(private readonly defaults: EditingEnvOptions = {}) {
    this.maxTurns = defaults.maxTurns ?? DEFAULT_MAX_TURNS;
  }

  reset(req: ResetRequest = {}): ResetResult {
    const options = req.options ?? {};
    checkOptions(options, ['split', 'max_turns', 'edits']);
    this.maxTurns = int(options.max_turns, 'options.max_turns', 1, MAX_TURNS_LIMIT) ?? this.defaults.maxTurns ?? DEFAULT_MAX_TURNS;
    let seed: number | undefined;
    if (req.task !== undefined) {
      this.task = parseTask(EditingTask, req.task, 'an editing task {id, edit, instruction, start, goal, direction?}');
      try {
        Canvas.fromJSON(this.task.start);
      } catch (err) {
        throw new EpisodeError(`task.start: ${(err as Error).message}`, 'bad_request');
      }
    } else {
      seed = int(req.seed, 'seed', 0, 2 ** 31 - 1) ?? freshSeed();
      const edits = options.edits === undefined ? this.defaults.edits : parseTask(z.array(EditKind).min(1), options.edits, `a list of edits (${EDIT_KINDS.join(', ')})`);
      this.task = editingTaskForSeed(options.split === undefined ? (this.defaults.split ?? 'train') : splitOption(options.split), seed, edits);
    }
    this.canvas = Canvas.fromJSON(this.task.start);
    this.turn = 0;
    this.terminated = false;
    this.truncated = false;
    this.counts = { sent: 0, applied: 0 };
    this.history = [];
    return {
      observation: this.observe([]),
      info: { task_id: this.task.id, edit: this.task.edit, ...(seed !== undefined ? { seed } : {}), goal: this.task.goal, ...(this.task.direction ? { direction: this.task.direction } : {}) },
    };
  }

  step(action: StepAction): StepResult {
    if (!this.task) throw new EpisodeError('step() before reset(): reset the episode first', 'not_started');
    if (this.terminated || this.truncated) throw new EpisodeError(`step() after the episode ended (${this.terminated ? 'terminated' : 'truncated'}): reset it first`, 'finished');
    this.turn++;
    const parsed = parseEditStep(asText(action));
    let errors: string[];
    let sent: number;
    let applied = 0;
    let done = false;
    if (parsed.ok) {
      const result = applyActions(parsed.actions, this.canvas, { allowedTypes: ACTION_TYPES });
      this.canvas = result.canvas;
      sent = parsed.actions.length;
      applied = result.outcomes.filter((o) => o.applied).length;
      errors = result.errors.map((e) => e.message);
      done = parsed.done;
    } else {
      sent = 1;
      errors = [parsed.error];
    }
    this.counts = { sent: this.counts.sent + sent, applied: this.counts.applied + applied };
    const score = scoreEdit(this.task, this.canvas, this.counts);
    this.terminated = done || score.goalMet;
    this.truncated = !this.terminated && this.turn >= this.maxTurns;
    const reward = this.terminated || this.truncated ? score.reward : 0;
    this.history.push({ turn: this.turn, reward, applied, sent: parsed.ok ? sent : 0, errors });
    return { observation: this.observe(errors), reward, terminated: this.terminated, truncated: this.truncated, info: this.stepInfo(score, errors, done) };
  }

  state(): EpisodeState {
    return {
      env: this.name,
      task: this.task,
      canvas: this.canvas.toJSON(),
      turn: this.turn,
      max_turns: this.maxTurns,
      terminated: this.terminated,
      truncated: this.truncated,
      history: this.history,
    };
  }

  private stepInfo(score: EditScore, errors: string[], stopped: boolean): Record<string, unknown> {
    return {
      // The score the canvas would get if the episode ended now (the reward is paid only at the end).
      score: score.reward,
      components: score.components,
      weights: score.weights,
      goal_met: score.goalMet,
      stopped,
      errors,
      extra_shapes: score.extraShapes,
      edges: score.edges,
      direction_share: score.directionShare,
      actions_sent: this.counts.sent,
      actions_applied: this.counts.applied,
    };
  }

  private observe(feedback: string[]): Observation {
    const task = this.task!;
    const canvas = this.canvas.toJSON();
    const left = this.maxTurns - this.turn;
    const lines = [task.instruction, '', canvasText(canvas), '', `Turn ${this.turn + 1} of ${this.maxTurns}${left > 0 ? '' : ' (over)'}.`];
    if (feedback.length) lines.push(`Last step: ${feedback.slice(0, 5).join('; ')}${feedback.length > 5 ? `; and ${feedback.length - 5} more` : ''}`);
    return { env: this.name, instruction: task.instruction, canvas, text: lines.join('\n'), turn: this.turn, max_turns: this.maxTurns, feedback };
  }
}

/** A fresh environment by name. */
export function makeEnv(name: EnvName, opts: { reward?: string; maxTurns?: number } = {}): Env {
  return name === 'diagram' ? new DiagramEnv({ reward: opts.reward }) : new EditingEnv({ maxTurns: opts.maxTurns });
}
