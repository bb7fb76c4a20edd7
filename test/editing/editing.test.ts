import { describe, expect, it } from 'vitest';
import { Canvas } from '../../src/diagram/language/canvas.ts';
import { applyActions } from '../../src/diagram/language/apply.ts';
import {
  EDIT_KINDS,
  generateEditingTasks,
  removeAndReconnect,
  scoreEdit,
  insertBetween,
  solveEdit as solve,
} from '../../src/editing/tasks.ts';
import { entityNames } from '../../src/diagram/tasks/stats.ts';
import { scoreCanvasLayout } from '../../src/diagram/reward/layout.ts';

describe('editing tasks', () => {
  const tasks = generateEditingTasks({ split: 'train', n: 60, seed: 7 });

  it('are the same for the same seed and differ for another', () => {
    expect(generateEditingTasks({ split: 'train', n: 60, seed: 7 })).toEqual(tasks);
    const other = generateEditingTasks({ split: 'train', n: 60, seed: 8 });
    expect(other.map((t) => t.id)).not.toEqual(tasks.map((t) => t.id));
  });

  it('cover every kind of edit with distinct ids', () => {
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    for (const kind of EDIT_KINDS) expect(tasks.filter((t) => t.edit === kind).length).toBeGreaterThanOrEqual(8);
  });

  it('start from a clean canvas that does not already meet the goal, and a careful edit meets it', () => {
    for (const task of tasks) {
      const start = Canvas.fromJSON(task.start);
      expect(scoreCanvasLayout(start).counts.overlaps, task.id).toBe(0);
      expect(scoreEdit(task, start, { sent: 0, applied: 0 }).goalMet, task.id).toBe(false);
      const actions = solve(task);
      const { canvas, errors } = applyActions(actions, start);
      expect(errors, task.id).toEqual([]);
      const score = scoreEdit(task, canvas, { sent: actions.length, applied: actions.length });
      expect(score.goalMet, `${task.id}: ${task.instruction}`).toBe(true);
      expect(score.reward).toBeGreaterThan(0.75);
    }
  });

  it('draw new names from the same split only', () => {
    const heldout = generateEditingTasks({ split: 'ood', n: 30, seed: 1 });
    const trainNames = entityNames('train');
    const heldoutNames = entityNames('ood');
    for (const t of heldout) for (const e of t.goal.entities) expect(heldoutNames.has(e), e).toBe(true);
    for (const t of tasks) for (const e of t.goal.entities) expect(trainNames.has(e), e).toBe(true);
  });

  it('edit specs as the instruction says', () => {
    const spec = { entities: ['A', 'B', 'C', 'D'], edges: [['A', 'B'], ['B', 'C'], ['B', 'D']] as [string, string][], edgeLabels: { 'A->B': 'x', 'B->C': 'y' } };
    expect(removeAndReconnect(spec, 'B')).toEqual({ entities: ['A', 'C', 'D'], edges: [['A', 'C'], ['A', 'D']] });
    expect(insertBetween(spec, 'A', 'B', 'N').edges).toEqual([['A', 'N'], ['N', 'B'], ['B', 'C'], ['B', 'D']]);
    expect(insertBetween(spec, 'A', 'B', 'N').edgeLabels).toEqual({ 'B->C': 'y' });
  });

  it('score partial edits between the start and the goal, and refuse extra shapes', () => {
    const task = tasks.find((t) => t.edit === 'insert_between')!;
    const start = Canvas.fromJSON(task.start);
    const actions = solve(task);
    const half = applyActions(actions.slice(0, 1), start).canvas;
    const none = scoreEdit(task, start, { sent: 0, applied: 0 }).reward;
    const part = scoreEdit(task, half, { sent: 1, applied: 1 }).reward;
    const full = scoreEdit(task, applyActions(actions, start).canvas, { sent: actions.length, applied: actions.length });
    expect(part).toBeGreaterThan(none);
    expect(full.reward).toBeGreaterThan(part);
    const spam = applyActions([...actions, { type: 'create_shape', id: 'junk', shape: 'rectangle', x: -900, y: -900, w: 50, h: 50, text: 'junk' }], start).canvas;
    const spammed = scoreEdit(task, spam, { sent: actions.length + 1, applied: actions.length + 1 });
    expect(spammed.goalMet).toBe(false);
    expect(spammed.components.entities_present).toBeLessThan(full.components.entities_present);
  });

  it('score doing nothing near 0 on every kind of edit, and each part of the edit in proportion', () => {
    const many = generateEditingTasks({ split: 'heldout', n: 200, seed: 3 });
    const idle = many.map((t) => scoreEdit(t, Canvas.fromJSON(t.start), { sent: 0, applied: 0 }).reward);
    const done = (t: (typeof many)[number], actions: Record<string, unknown>[]) => {
      const { canvas } = applyActions(actions, Canvas.fromJSON(t.start));
      return scoreEdit(t, canvas, { sent: Math.max(1, actions.length), applied: Math.max(1, actions.length) });
    };
    // An empty batch sent and applied: action_validity has nothing refused, and still no credit for the untouched canvas.
    const emptyBatch = many.map((t) => scoreEdit(t, Canvas.fromJSON(t.start), { sent: 1, applied: 1 }).reward);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(idle)).toBeLessThanOrEqual(0.1);
    expect(mean(emptyBatch)).toBeLessThanOrEqual(0.1);
    for (const kind of EDIT_KINDS) {
      const ofKind = many.filter((t) => t.edit === kind);
      expect(ofKind.length, kind).toBeGreaterThan(0);
      for (const t of ofKind) {
        const full = done(t, solve(t));
        expect(full.components.edit_done, t.id).toBe(1);
        expect(scoreEdit(t, Canvas.fromJSON(t.start), { sent: 1, applied: 1 }).components.edit_done, t.id).toBe(0);
      }
    }
    // insert_between asks for four changes (the new box, its two arrows, the old arrow gone): each one counts.
    const t = many.find((x) => x.edit === 'insert_between')!;
    const actions = solve(t);
    const steps = [1, 2, actions.length].map((k) => done(t, actions.slice(0, k)));
    expect(steps[0].components.edit_done).toBeGreaterThan(0);
    expect(steps[0].components.edit_done).toBeLessThan(steps[2].components.edit_done);
    expect(steps[0].reward).toBeLessThan(steps[2].reward);
  });

  it('count a re-layout only when arrows point the asked way', () => {
    const task = tasks.find((t) => t.edit === 'relayout')!;
    const start = Canvas.fromJSON(task.start);
    const before = scoreEdit(task, start, { sent: 0, applied: 0 });
    expect(before.directionShare).toBeLessThan(1);
    const after = scoreEdit(task, applyActions(solve(task), start).canvas, { sent: 1, applied: 1 });
    expect(after.directionShare).toBe(1);
  });

  it('refuse bad requests with a message', () => {
    expect(() => generateEditingTasks({ split: 'nope' as 'train', n: 1 })).toThrow(/unknown split "nope"/);
    expect(() => generateEditingTasks({ split: 'train', n: 1, edits: ['paint' as 'rename'] })).toThrow(/unknown edit "paint"/);
    expect(() => generateEditingTasks({ split: 'train', n: -1 })).toThrow(/non-negative integer/);
  });
});
