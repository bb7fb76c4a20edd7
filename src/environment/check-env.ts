// Checks an environment against the episode contract, as Gymnasium's check_env does: reset and step return what they
// promise, observations match the published JSON Schema, rewards are finite, info is JSON, a seed replays the same
// episode, an episode ends within its turn limit, and stepping a finished (or never started) episode is an error.
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { EpisodeError, type Env, type ResetRequest, type StepAction, type StepResult } from './env.ts';

export interface CheckOptions {
  /** Seeds to reset with; each is replayed on a second environment and compared. */
  seeds?: number[];
  /** Actions to play in order from each reset (the last is repeated until the episode ends). */
  actions: (observation: unknown) => StepAction[];
  /** Extra reset options (e.g. a turn limit). */
  options?: Record<string, unknown>;
  /** Steps after which an episode that has not ended fails the check. */
  maxSteps?: number;
}

export interface CheckReport {
  ok: boolean;
  /** One line per broken promise, naming the environment, the seed and what was wrong. */
  failures: string[];
  steps: number;
}

/** JSON round trip that keeps what JSON keeps: anything else (undefined, NaN, Map, class instances) shows as a difference. */
function jsonSafe(value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value);
  } catch {
    return false;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

export function checkEnv(make: () => Env, opts: CheckOptions): CheckReport {
  const failures: string[] = [];
  const seeds = opts.seeds ?? [0, 1, 2];
  const maxSteps = opts.maxSteps ?? 64;
  let steps = 0;
  const probe = make();
  const observationSchema = z.fromJSONSchema(probe.observationSchema);
  const where = (seed: number, what: string) => `${probe.name} seed ${seed}: ${what}`;

  const stepBefore = make();
  try {
    stepBefore.step('{"actions": []}');
    failures.push(`${probe.name}: step() before reset() did not throw`);
  } catch (err) {
    if (!(err instanceof EpisodeError)) failures.push(`${probe.name}: step() before reset() threw ${(err as Error).message}, not an EpisodeError`);
  }

  const checkObservation = (seed: number, what: string, obs: unknown) => {
    const r = observationSchema.safeParse(obs);
    if (!r.success) failures.push(where(seed, `${what} observation does not match the observation JSON Schema: ${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`));
    if (!jsonSafe(obs)) failures.push(where(seed, `${what} observation does not survive a JSON round trip`));
  };

  for (const seed of seeds) {
    const req: ResetRequest = { seed, options: opts.options };
    const play = (env: Env) => {
      const trace: unknown[] = [];
      const first = env.reset(req);
      trace.push(first);
      const actions = opts.actions(first.observation);
      for (let i = 0; i < maxSteps; i++) {
        let result: StepResult;
        try {
          result = env.step(actions[Math.min(i, actions.length - 1)]);
        } catch (err) {
          failures.push(where(seed, `step ${i + 1} threw before the episode said it ended: ${(err as Error).message}`));
          return { trace, ended: false, threw: true };
        }
        trace.push(result);
        if (result.terminated || result.truncated) return { trace, ended: true, threw: false };
      }
      return { trace, ended: false, threw: false };
    };

    const env = make();
    const reset = env.reset(req);
    if (!isPlainObject(reset) || !('observation' in reset) || !('info' in reset)) {
      failures.push(where(seed, 'reset() must return {observation, info}'));
      continue;
    }
    checkObservation(seed, 'reset', reset.observation);
    if (!isPlainObject(reset.info) || !jsonSafe(reset.info)) failures.push(where(seed, 'reset info is not a JSON object'));

    const first = play(env);
    steps += first.trace.length - 1;
    if (!first.ended && !first.threw) failures.push(where(seed, `episode did not end within ${maxSteps} steps`));
    first.trace.slice(1).forEach((r, i) => {
      const s = r as Record<string, unknown>;
      const keys = ['observation', 'reward', 'terminated', 'truncated', 'info'];
      if (!isPlainObject(s) || keys.some((k) => !(k in s))) {
        failures.push(where(seed, `step ${i + 1} must return {${keys.join(', ')}}`));
        return;
      }
      checkObservation(seed, `step ${i + 1}`, s.observation);
      if (typeof s.reward !== 'number' || !Number.isFinite(s.reward)) failures.push(where(seed, `step ${i + 1} reward is not a finite number: ${String(s.reward)}`));
      if (typeof s.terminated !== 'boolean' || typeof s.truncated !== 'boolean') failures.push(where(seed, `step ${i + 1} terminated and truncated must be booleans`));
      if (s.terminated === true && s.truncated === true) failures.push(where(seed, `step ${i + 1} is both terminated and truncated`));
      if (!isPlainObject(s.info) || !jsonSafe(s.info)) failures.push(where(seed, `step ${i + 1} info is not a JSON object`));
    });
    if (!jsonSafe(env.state())) failures.push(where(seed, 'state() does not survive a JSON round trip'));

    if (first.ended) {
      try {
        env.step(opts.actions(reset.observation)[0]);
        failures.push(where(seed, 'step() after the episode ended did not throw'));
      } catch (err) {
        if (!(err instanceof EpisodeError)) failures.push(where(seed, `step() after the end threw ${(err as Error).message}, not an EpisodeError`));
      }
    }

    const replay = play(make());
    if (!isDeepStrictEqual(replay.trace, first.trace)) failures.push(where(seed, 'the same seed and actions gave a different episode on a fresh environment'));
    const again = play(env);
    if (!isDeepStrictEqual(again.trace, first.trace)) failures.push(where(seed, 'reset() with the same seed on a used environment gave a different episode'));
  }
  return { ok: failures.length === 0, failures, steps };
}
