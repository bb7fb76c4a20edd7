import { describe, expect, it } from 'vitest';
import { checkEnv } from '../../src/environment/check-env.ts';
import { EpisodeError, type Env, type ResetRequest, type ResetResult, type StepAction, type StepResult } from '../../src/environment/env.ts';
import { DiagramEpisode, type Observation } from '../../src/diagram/episode.ts';
import { EditingEpisode } from '../../src/editing/episode.ts';
import { DIAGRAM_ANSWER, editingActions } from '../helpers/episodes.ts';

interface CountObs {
  left: number;
}

/** A conforming environment of no canvas at all: count down from a seeded start; each step's action is "tick". */
class Countdown implements Env<CountObs, { left: number | null }> {
  readonly name = 'countdown';
  readonly actionSchema = { type: 'string' };
  readonly observationSchema: Record<string, unknown> = {
    type: 'object',
    properties: { left: { type: 'integer', minimum: 0 } },
    required: ['left'],
    additionalProperties: false,
  };
  readonly systemPrompt = 'Say tick.';
  protected left: number | null = null;

  reset(req: ResetRequest = {}): ResetResult<CountObs> {
    this.left = 1 + ((req.seed ?? 0) % 3);
    return { observation: { left: this.left }, info: { start: this.left } };
  }

  step(action: StepAction): StepResult<CountObs> {
    if (this.left === null) throw new EpisodeError('step() before reset()', 'not_started');
    if (this.left === 0) throw new EpisodeError('step() after the episode ended (terminated)', 'finished');
    const ticked = action === 'tick';
    if (ticked) this.left--;
    return { observation: { left: this.left }, reward: ticked ? 1 : 0, terminated: this.left === 0, truncated: false, info: { ticked } };
  }

  state() {
    return { left: this.left };
  }
}

describe('checkEnv on an environment of its own', () => {
  it('passes a conforming environment and counts its steps', () => {
    const report = checkEnv(() => new Countdown(), { actions: () => ['tick'], seeds: [0, 1, 2] });
    expect(report).toEqual({ ok: true, failures: [], steps: 1 + 2 + 3 });
  });

  it('names a step before reset that does not throw, and one that throws the wrong error', () => {
    class Eager extends Countdown {
      override step(action: StepAction) {
        if (this.left === null) this.left = 1;
        return super.step(action);
      }
    }
    const eager = checkEnv(() => new Eager(), { actions: () => ['tick'], seeds: [0] });
    expect(eager.ok).toBe(false);
    expect(eager.failures).toContain('countdown: step() before reset() did not throw');
    class Crashy extends Countdown {
      override step(action: StepAction) {
        if (this.left === null) throw new TypeError('left is null');
        return super.step(action);
      }
    }
    expect(checkEnv(() => new Crashy(), { actions: () => ['tick'], seeds: [0] }).failures).toEqual(['countdown: step() before reset() threw left is null, not an EpisodeError']);
  });

  it('names an observation outside its schema, at reset and at a step', () => {
    class Negative extends Countdown {
      override reset(req: ResetRequest = {}) {
        const r = super.reset(req);
        return { ...r, observation: { left: -r.observation.left } };
      }
    }
    const atReset = checkEnv(() => new Negative(), { actions: () => ['tick'], seeds: [1] }).failures;
    expect(atReset).toHaveLength(1);
    expect(atReset[0]).toMatch(/^countdown seed 1: reset observation does not match the observation JSON Schema: left: /);
    class Chatty extends Countdown {
      override step(action: StepAction) {
        const r = super.step(action);
        return { ...r, observation: { ...r.observation, note: 'extra' } as CountObs };
      }
    }
    const atStep = checkEnv(() => new Chatty(), { actions: () => ['tick'], seeds: [0] }).failures;
    expect(atStep).toHaveLength(1);
    expect(atStep[0]).toMatch(/^countdown seed 0: step 1 observation does not match the observation JSON Schema/);
  });

  it('names an episode that never ends and a step after the end that does not throw', () => {
    const stuck = checkEnv(() => new Countdown(), { actions: () => ['wait'], seeds: [0], maxSteps: 4 });
    expect(stuck.failures).toEqual(['countdown seed 0: episode did not end within 4 steps']);
    class Forgiving extends Countdown {
      override step(action: StepAction) {
        if (this.left === 0) return { observation: { left: 0 }, reward: 0, terminated: true, truncated: false, info: { ticked: false } };
        return super.step(action);
      }
    }
    expect(checkEnv(() => new Forgiving(), { actions: () => ['tick'], seeds: [0] }).failures).toEqual(['countdown seed 0: step() after the episode ended did not throw']);
  });
});

describe('checkEnv on the canvas environments, broken on purpose', () => {
  it('catches rewards, info and observations that break the contract, randomness, and episodes that overrun', () => {
    class Sloppy extends EditingEpisode {
      override step(action: string): StepResult<Observation> {
        const r = super.step(action);
        return { ...r, reward: Number.NaN, info: { ...r.info, when: new Date(0) }, observation: { ...r.observation, turn: -1 } };
      }
    }
    const report = checkEnv(() => new Sloppy(), { actions: editingActions, seeds: [1], options: { max_turns: 2 } });
    const text = report.failures.join('\n');
    expect(text).toMatch(/reward is not a finite number: NaN/);
    expect(text).toMatch(/info is not a JSON object/);
    expect(text).toMatch(/does not match the observation JSON Schema: turn/);

    let calls = 0;
    class Random extends DiagramEpisode {
      override reset(req = {}) {
        const r = super.reset(req);
        return { ...r, info: { ...r.info, nonce: calls++ } };
      }
    }
    expect(checkEnv(() => new Random(), { actions: () => [DIAGRAM_ANSWER], seeds: [1] }).failures.join('\n')).toMatch(/same seed and actions gave a different episode/);

    class Endless extends EditingEpisode {
      override step(action: string): StepResult<Observation> {
        return { ...super.step(action), terminated: false, truncated: false };
      }
    }
    const endless = checkEnv(() => new Endless(), { actions: editingActions, seeds: [1], options: { max_turns: 2 }, maxSteps: 5 });
    expect(endless.failures.join('\n')).toMatch(/step 3 threw before the episode said it ended: .*after the episode ended \(truncated\)/);
    const long = checkEnv(() => new EditingEpisode(), { actions: editingActions, seeds: [1], options: { max_turns: 32 }, maxSteps: 5 });
    expect(long.failures.join('\n')).toMatch(/did not end within 5 steps/);
  });
});
