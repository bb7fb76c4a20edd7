// Multi-turn editing of an existing diagram, in Gymnasium's contract (src/environment/env.ts): an existing canvas and an
// instruction. Each step is one batch of actions (editing actions allowed). Terminated when the goal is met or the
// agent says it is done; truncated at the turn limit. The reward is 0 on every step but the last, which gets the
// final canvas's score against the goal spec (the editing rubric, tasks.ts; sparse, so that the episode return is
// exactly the final score).
import { z } from 'zod';
import { ACTION_TYPES, responseJsonSchema } from '../diagram/language/actions.ts';
import { applyActions } from '../diagram/language/apply.ts';
import { Canvas, type CanvasJson } from '../diagram/language/canvas.ts';
import { extractJson, parseCompletion } from '../diagram/language/parse.ts';
import type { Split } from '../diagram/tasks/scenarios.ts';
import { asText, checkOptions, DEFAULT_MAX_TURNS, freshSeed, int, MAX_TURNS_LIMIT, observationJsonSchema, parseTask, splitOption, type CanvasEnv, type EpisodeState, type Observation } from '../diagram/episode.ts';
import { EpisodeError, type ResetRequest, type ResetResult, type StepAction, type StepResult } from '../environment/env.ts';
import { EDIT_KINDS, EditingTask, EditKind, editingTaskForSeed, scoreEdit, type ActionCounts, type EditScore } from './tasks.ts';

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
export class EditingEpisode implements CanvasEnv {
  readonly name = 'editing' as const;
  readonly actionSchema = editingActionJsonSchema();
  readonly observationSchema = observationJsonSchema();
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

  reset(req: ResetRequest = {}): ResetResult<Observation> {
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

  step(action: StepAction): StepResult<Observation> {
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
