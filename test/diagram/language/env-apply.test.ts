import { describe, expect, it } from 'vitest';
import { applyActions } from '../../../src/diagram/language/apply.ts';
import { Canvas } from '../../../src/diagram/language/canvas.ts';
import { executeCompletion } from '../../../src/diagram/language/execute.ts';

const box = (id: string, extra: Record<string, unknown> = {}) => ({ type: 'create_shape', id, shape: 'rectangle', x: 0, y: 0, w: 100, h: 50, text: id, ...extra });
const arrow = (from: string, to: string) => ({ type: 'connect', from, to });

describe('applyActions', () => {
  it('applies actions in order and never mutates the start canvas', () => {
    const start = applyActions([box('a')]).canvas;
    const r = applyActions([box('b'), arrow('a', 'b')], start);
    expect(r.errors).toEqual([]);
    expect([...r.canvas.shapes.keys()]).toEqual(['a', 'b']);
    expect(r.canvas.arrows).toEqual([{ from: 'a', to: 'b', text: '' }]);
    expect(start.shapes.size).toBe(1);
  });

  it.each([
    [{ type: 'spline' }, 'type', 'unknown action type: spline'],
    [{ id: 'x' }, 'type', 'type must be a non-empty string'],
    [box('a', { shape: 'hexagon' }), 'shape', 'unknown shape type: "hexagon"'],
    [box('a', { x: 'left' }), 'x', 'x must be a finite number, got a string'],
    [box('a', { y: true }), 'y', 'y must be a finite number, got a boolean'],
    [box('a', { h: undefined }), 'h', 'h is required'],
    [box('a', { w: 0 }), 'w', 'w must be positive, got 0'],
    [box('a', { h: -5 }), 'h', 'h must be positive, got -5'],
    [box('a', { w: 1000.5 }), 'w', 'w is too large: 1000.5 > 1000'],
    [box('', {}), 'id', 'id must be a non-empty string'],
    [box('a', { text: 7 }), 'text', 'text must be a string, got a number'],
  ])('refuses a malformed action: %j', (action, field, reason) => {
    const r = applyActions([action as Record<string, unknown>]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ index: 0, field, kind: 'schema', reason, message: `action 0: ${reason}` });
  });

  it('refuses what the canvas cannot do, naming index, field and reason', () => {
    const r = applyActions([box('a'), box('a'), arrow('a', 'ghost'), arrow('ghost', 'a'), arrow('a', 'a')]);
    expect(r.errors.map((e) => [e.index, e.field, e.kind, e.reason])).toEqual([
      [1, 'id', 'canvas', 'duplicate shape id: a'],
      [2, 'to', 'canvas', 'arrow target does not exist: ghost'],
      [3, 'from', 'canvas', 'arrow source does not exist: ghost'],
      [4, 'to', 'canvas', 'arrow cannot connect a shape to itself'],
    ]);
    expect(r.outcomes.map((o) => o.applied)).toEqual([true, false, false, false, false]);
  });

  it('edits: update, delete (with its arrows, said so) and disconnect', () => {
    const r = applyActions([
      box('a'),
      box('b'),
      box('c'),
      arrow('a', 'b'),
      arrow('b', 'c'),
      arrow('a', 'c'),
      { type: 'update_shape', id: 'a', text: 'Alpha', x: 40 },
      { type: 'delete_shape', id: 'b' },
      { type: 'disconnect', from: 'a', to: 'c' },
      { type: 'disconnect', from: 'a', to: 'c' },
      { type: 'update_shape', id: 'b', x: 1 },
      { type: 'update_shape', id: 'a' },
      { type: 'update_shape', id: 'a', w: 0 },
    ]);
    expect(r.canvas.shapes.get('a')).toMatchObject({ text: 'Alpha', x: 40 });
    expect([...r.canvas.shapes.keys()]).toEqual(['a', 'c']);
    expect(r.canvas.arrows).toEqual([]);
    expect(r.outcomes[7].notes).toEqual(['deleted b and 2 arrows attached to it']);
    expect(r.outcomes[8].notes).toEqual(['removed 1 arrow from a to c']);
    expect(r.errors.map((e) => [e.index, e.reason])).toEqual([
      [9, 'no arrow from a to c'],
      [10, 'shape does not exist: b'],
      [11, 'update_shape changes nothing: give at least one of shape, x, y, w, h, text'],
      [12, 'w must be positive, got 0'],
    ]);
  });

  it('keeps single-turn answers to the seed language unless editing', () => {
    const text = JSON.stringify({ actions: [box('a'), { type: 'delete_shape', id: 'a' }] });
    expect(executeCompletion(text).errors).toEqual(['action 1: unknown action type: delete_shape (allowed here: create_shape, connect)']);
    const start = applyActions([box('z')]).canvas;
    expect(executeCompletion(text, { start }).errors).toEqual([]);
  });
});

describe('Canvas JSON', () => {
  it('round-trips and rejects dangling arrows', () => {
    const c = applyActions([box('a'), box('b', { shape: 'diamond', text: 'B?' }), { ...arrow('a', 'b'), text: 'yes' }]).canvas;
    const back = Canvas.fromJSON(JSON.parse(JSON.stringify(c)));
    expect(back.toJSON()).toEqual(c.toJSON());
    expect(() => Canvas.fromJSON({ shapes: [], arrows: [{ from: 'a', to: 'b', text: '' }] })).toThrow(/arrow 0 refers to a missing shape/);
    expect(() => Canvas.fromJSON({ shapes: [{ id: 'a' }], arrows: [] })).toThrow();
  });
});
