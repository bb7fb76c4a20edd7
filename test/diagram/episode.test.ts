import { describe, expect, it } from 'vitest';
import { checkEnv } from '../../src/environment/check-env.ts';
import { DiagramEpisode } from '../../src/diagram/episode.ts';
import { EpisodeError } from '../../src/environment/env.ts';
import { getRubric } from '../../src/diagram/reward/presets.ts';
import { DIAGRAM_ANSWER } from '../helpers/episodes.ts';

describe('diagram episode under the contract checker', () => {
  it('passes the single-turn diagram environment', () => {
    const report = checkEnv(() => new DiagramEpisode(), { actions: () => [DIAGRAM_ANSWER], seeds: [0, 1, 5] });
    expect(report.failures).toEqual([]);
    expect(report.steps).toBe(3);
  });
});

describe('diagram episode', () => {
  it('scores the one step with the reward preset, exactly as the rubric does', () => {
    const env = new DiagramEpisode({ reward: 'strong' });
    const { observation, info } = env.reset({ seed: 4 });
    expect(observation.canvas).toEqual({ shapes: [], arrows: [] });
    const step = env.step(DIAGRAM_ANSWER);
    const expected = getRubric('strong').score({ prompt: observation.instruction, completion: DIAGRAM_ANSWER, spec: info.spec as never });
    expect(step.reward).toBe(expected.reward);
    expect(step.info.components).toEqual(expected.components);
    expect(step.terminated).toBe(true);
    expect(step.observation.canvas.shapes.map((s) => s.text)).toEqual(['Client', 'API']);
    expect(() => env.step(DIAGRAM_ANSWER)).toThrow(EpisodeError);
  });

  it('accepts a given task and refuses a bad one', () => {
    const env = new DiagramEpisode();
    const task = { id: 't', prompt: 'Draw Client then API.', spec: { entities: ['Client', 'API'], edges: [['Client', 'API']] } };
    expect(env.reset({ task }).observation.text).toBe(task.prompt);
    expect(env.step(DIAGRAM_ANSWER).reward).toBeGreaterThan(0.9);
    expect(() => env.reset({ task: { prompt: 'x' } })).toThrow(/task is not a diagram task .*: id: /);
    expect(() => env.reset({ seed: 1, options: { reward: 'nope' } })).toThrow(/options.reward: unknown reward preset "nope"/);
    expect(() => env.reset({ seed: -3 })).toThrow(/seed must be an integer from 0/);
  });
});
