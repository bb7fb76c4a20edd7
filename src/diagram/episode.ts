// The canvas episodes, in Gymnasium's contract (src/environment/env.ts): what they show (an Observation: the request,
// the canvas, the text a model reads), what state() reports, the checks their reset requests share, and the seed's
// single-turn task as one: `diagram`, one step, the completion scored by a reward preset, always terminated. The
// multi-turn `editing` episode (src/editing/episode.ts) is built from the same parts.
import { z } from 'zod';
import { responseJsonSchema } from './language/actions.ts';
import { Canvas, CanvasState, type CanvasJson } from './language/canvas.ts';
import { executeCompletion } from './language/execute.ts';
import { getRubric } from './reward/presets.ts';
import type { Rubric } from './reward/rubric.ts';
import { SYSTEM_PROMPT } from './language/prompt.ts';
import { generateTasks } from './tasks/generate.ts';
import { SPLITS, type Split } from './tasks/scenarios.ts';
import { Task } from './tasks/spec.ts';
import { EpisodeError, type Env, type ResetRequest, type ResetResult, type StepAction, type StepResult } from '../environment/env.ts';

export const EPISODE_NAMES = ['diagram', 'editing'] as const;
export type EpisodeName = (typeof EPISODE_NAMES)[number];

export const DEFAULT_MAX_TURNS = 4;
/** Turn limits a caller may ask for. */
export const MAX_TURNS_LIMIT = 32;

export const Observation = z.object({
  env: z.enum(EPISODE_NAMES),
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

export interface EpisodeState {
  env: EpisodeName;
  task: unknown;
  canvas: CanvasJson;
  turn: number;
  max_turns: number;
  terminated: boolean;
  truncated: boolean;
  history: { turn: number; reward: number; applied: number; sent: number; errors: string[] }[];
}

/** A canvas episode: Gymnasium's Env over the canvas Observation. */
export interface CanvasEnv extends Env<Observation, EpisodeState> {
  readonly name: EpisodeName;
}

export function observationJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(Observation, { target: 'draft-2020-12' }) as Record<string, unknown>;
}

export function int(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new EpisodeError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`, 'bad_request');
  }
  return v;
}

export function splitOption(v: unknown): Split {
  if (v === undefined) return 'train';
  if (typeof v !== 'string' || !(SPLITS as readonly string[]).includes(v)) {
    throw new EpisodeError(`options.split must be one of ${SPLITS.join(', ')}, got ${JSON.stringify(v)}`, 'bad_request');
  }
  return v as Split;
}

export function checkOptions(options: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length) throw new EpisodeError(`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}: known are ${known.join(', ')}`, 'bad_request');
}

export function parseTask<T>(schema: z.ZodType<T>, task: unknown, what: string): T {
  const parsed = schema.safeParse(task);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EpisodeError(`task is not ${what}: ${issue.path.map(String).join('.') || 'task'}: ${issue.message}`, 'bad_request');
  }
  return parsed.data;
}

/** A seed for a reset that gives none: drawn here and reported in info, so that the episode can be replayed. */
export const freshSeed = () => Math.floor(Math.random() * 2 ** 31);

export const asText = (action: StepAction): string => (typeof action === 'string' ? action : JSON.stringify(action));

/** The seed's single-turn task as an episode: one completion, scored by a reward preset. */
export class DiagramEpisode implements CanvasEnv {
  readonly name = 'diagram' as const;
  readonly actionSchema = responseJsonSchema();
  readonly observationSchema = observationJsonSchema();
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

  reset(req: ResetRequest = {}): ResetResult<Observation> {
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

  step(action: StepAction): StepResult<Observation> {
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
