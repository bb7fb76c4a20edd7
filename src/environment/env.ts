// Episodes with Gymnasium's contract: reset({task | seed, options}) -> {observation, info} and
// step(action) -> {observation, reward, terminated, truncated, info}. Stepping a finished episode, or one never reset,
// is the caller's bug: it throws EpisodeError. The canvas episodes (src/diagram/episode.ts, src/editing) are
// environments of this kind; checkEnv (check-env.ts) holds any of them to it.

export interface ResetResult<Obs = unknown> {
  observation: Obs;
  info: Record<string, unknown>;
}

export interface StepResult<Obs = unknown> {
  observation: Obs;
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

/** An environment with Gymnasium's contract. `Obs` is what it shows the agent, `State` what state() reports. */
export interface Env<Obs = unknown, State = unknown> {
  readonly name: string;
  /** JSON Schema of what step() accepts when given an object (the model's response). */
  readonly actionSchema: Record<string, unknown>;
  /** JSON Schema of the observations reset() and step() return (checkEnv holds them to it). */
  readonly observationSchema: Record<string, unknown>;
  /** The system prompt a model playing this environment is given. */
  readonly systemPrompt: string;
  reset(req?: ResetRequest): ResetResult<Obs>;
  step(action: StepAction): StepResult<Obs>;
  state(): State;
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
