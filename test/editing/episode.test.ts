import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkEnv } from '../../src/environment/check-env.ts';
import { observationJsonSchema } from '../../src/diagram/episode.ts';
import { EditingEpisode, editingActionJsonSchema, parseEditStep } from '../../src/editing/episode.ts';
import type { Env } from '../../src/environment/env.ts';
import { generateEditingTasks, solveEdit as solve } from '../../src/editing/tasks.ts';
import { editingActions } from '../helpers/episodes.ts';

describe('editing episode under the contract checker', () => {
  it('passes the editing environment, played to its turn limit', () => {
    const report = checkEnv(() => new EditingEpisode(), { actions: editingActions, seeds: [0, 3, 11], options: { max_turns: 3 } });
    expect(report.failures).toEqual([]);
    expect(report.steps).toBe(9);
  });
  it('passes the editing environment, played to the stop signal', () => {
    const report = checkEnv(() => new EditingEpisode(), { actions: () => ['{"actions": [], "done": true}'], seeds: [2] });
    expect(report.failures).toEqual([]);
    expect(report.steps).toBe(1);
  });
});

describe('editing episode', () => {
  const tasks = generateEditingTasks({ split: 'train', n: 12, seed: 21 });

  it('shows the instruction and the canvas, as text and as JSON', () => {
    const env = new EditingEpisode();
    const { observation, info } = env.reset({ task: tasks[0] });
    expect(observation.canvas).toEqual(tasks[0].start);
    expect(observation.text.startsWith(tasks[0].instruction)).toBe(true);
    for (const s of tasks[0].start.shapes) expect(observation.text).toContain(`- ${s.id}: ${s.shape} ${JSON.stringify(s.text)}`);
    expect(observation.text).toContain('Turn 1 of 4.');
    expect(info.task_id).toBe(tasks[0].id);
    expect(z.fromJSONSchema(observationJsonSchema()).safeParse(observation).success).toBe(true);
  });

  it('terminates when the goal is met and pays the final score then, not before', () => {
    for (const task of tasks) {
      const env = new EditingEpisode({ maxTurns: 4 });
      env.reset({ task });
      const actions = solve(task);
      const half = Math.ceil(actions.length / 2);
      const first = env.step({ actions: actions.slice(0, half) });
      const steps = [first];
      if (!first.terminated) steps.push(env.step({ actions: actions.slice(half) }));
      const last = steps.at(-1)!;
      expect(last.terminated, task.instruction).toBe(true);
      expect(last.info.goal_met).toBe(true);
      expect(last.reward).toBe(last.info.score);
      for (const s of steps.slice(0, -1)) expect(s.reward).toBe(0);
      expect(env.state().terminated).toBe(true);
      expect(() => env.step('{"actions": [], "done": true}')).toThrow(/after the episode ended \(terminated\)/);
    }
  });

  it('stops on {"actions": [], "done": true} and on done with a last batch', () => {
    const env = new EditingEpisode();
    env.reset({ task: tasks[1] });
    const stop = env.step('{"actions": [], "done": true}');
    expect(stop.terminated).toBe(true);
    expect(stop.info.stopped).toBe(true);
    expect(stop.info.components).toMatchObject({ action_validity: 0 });
    env.reset({ task: tasks[1] });
    // A last batch that makes part of the edit is applied and paid; nudging a shape is no edit and earns nothing.
    const first = tasks[1].start.shapes[0];
    const nudge = env.step({ actions: [{ type: 'update_shape', id: first.id, x: first.x + 1 }], done: true });
    expect(nudge.terminated).toBe(true);
    expect(nudge.reward).toBe(0);
    env.reset({ task: tasks[1] });
    const r = env.step({ actions: solve(tasks[1]).slice(0, 1), done: true });
    expect(r.terminated).toBe(true);
    expect(r.reward).toBeGreaterThan(0);
  });

  it('truncates at the turn limit and feeds errors back to the next observation', () => {
    const env = new EditingEpisode();
    env.reset({ task: tasks[2], options: { max_turns: 2 } });
    const a = env.step('```json\n{"actions": [{"type": "delete_shape", "id": "ghost"}]}\n```');
    expect(a.truncated).toBe(false);
    expect(a.reward).toBe(0);
    expect(a.observation.feedback).toEqual(['action 0: shape does not exist: ghost']);
    expect(a.observation.text).toContain('Last step: action 0: shape does not exist: ghost');
    const b = env.step('I think the diagram is fine');
    expect(b.truncated).toBe(true);
    expect(b.terminated).toBe(false);
    expect(b.observation.feedback).toEqual(['model output does not contain JSON']);
    expect(b.info.components).toMatchObject({ action_validity: 0 });
    expect(env.state().history.map((h) => h.turn)).toEqual([1, 2]);
  });

  it('parses steps: the stop signal, done flags, empty batches', () => {
    expect(parseEditStep('{"done": true}')).toEqual({ ok: true, actions: [], done: true });
    expect(parseEditStep('{"actions": [{"type": "x"}], "done": false}')).toEqual({ ok: true, actions: [{ type: 'x' }], done: false });
    expect(parseEditStep('{"actions": []}')).toMatchObject({ ok: false, error: expect.stringMatching(/empty: send actions, or/) });
    expect(parseEditStep('{"actions": [], "done": "yes"}')).toMatchObject({ ok: false, error: '"done" must be true or false, got "yes"' });
  });

  it('draws tasks by seed and split, and refuses unknown options', () => {
    const env: Env = new EditingEpisode();
    const a = env.reset({ seed: 9, options: { split: 'ood', edits: ['rename'] } });
    expect(a.info.edit).toBe('rename');
    expect(String(a.info.task_id)).toMatch(/^ood-edit-rename-/);
    expect(() => env.reset({ seed: 1, options: { turns: 3 } })).toThrow(/unknown option "turns": known are split, max_turns, edits/);
    expect(() => env.reset({ seed: 1, options: { max_turns: 0 } })).toThrow(/options.max_turns must be an integer from 1 to 32/);
    expect(() => env.reset({ seed: 1, options: { edits: ['paint'] } })).toThrow(/task is not a list of edits/);
  });

  it('publishes an action schema that admits the stop signal', () => {
    const schema = z.fromJSONSchema(editingActionJsonSchema());
    expect(schema.safeParse({ actions: [], done: true }).success).toBe(true);
    expect(schema.safeParse({ actions: [{ type: 'delete_shape', id: 'a' }] }).success).toBe(true);
    expect(schema.safeParse({ actions: [{ type: 'paint' }] }).success).toBe(false);
  });
});
