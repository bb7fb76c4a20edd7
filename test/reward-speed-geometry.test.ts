// assembly/strong-layout.ts clips an arrow's segment only against the shapes it does not lie wholly beyond (one side
// of the shape shrunk by THROUGH_INSET), two shapes at a time with every slab under a mask, and computes the overlap
// and crowding terms of two pairs at a time, masked: the layout tallies must stay those of layout.ts, also when the
// segment runs exactly along a shrunk side (the clipping still counts the arrow as passing through), when a shape's
// shrunk sides meet, and when a gap is just under MIN_GAP.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/random.ts';
import type { ScoreInput } from '../src/reward/rubric.ts';
import { scoreLayoutGeometry } from '../src/reward/layout.ts';
import { executeCountsFast } from '../src/reward/strong-fast.ts';
import { analyzeStrong, strongRubric } from '../src/reward/strong.ts';

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function completion(boxes: Box[], arrows: [number, number][]): string {
  const actions = boxes.map((b, i) => ({ type: 'create_shape', id: `s${i}`, shape: 'rectangle', ...b, text: `Node ${i}` }));
  const links = arrows.map(([a, b]) => ({ type: 'connect', from: `s${a}`, to: `s${b}` }));
  return JSON.stringify({ actions: [...actions, ...links] });
}

/** layout_quality through the WebAssembly checks (asserted) and through the exact path. */
function layoutBothWays(text: string): { fast: number; exact: number } {
  const input: ScoreInput = { prompt: 'p', completion: text, spec: { entities: ['Node 0'], edges: [] } };
  expect(executeCountsFast(text)?.checks).toBe('wasm');
  return { fast: strongRubric.score(input).components.layout_quality, exact: analyzeStrong(input).values.layout_quality };
}

describe('strong layout in WebAssembly: arrows through shapes, crossings, overlaps and crowding', () => {
  // A vertical arrow at x = 50 between two shapes, and a third shape whose side shrunk by 2 lies on x = 50.
  const ends: Box[] = [
    { x: 0, y: 0, w: 100, h: 100 },
    { x: 0, y: 300, w: 100, h: 100 },
  ];
  it('counts a segment along the shrunk left or right side as through, as layout.ts does', () => {
    for (const third of [
      { x: 48, y: 150, w: 100, h: 100 },
      { x: -48, y: 150, w: 100, h: 100 },
    ]) {
      const { fast, exact } = layoutBothWays(completion([...ends, third], [[0, 1]]));
      expect(fast).toBe(exact);
      // The same shape moved off the line by one unit: no arrow through it, a better score.
      const off = layoutBothWays(completion([...ends, { ...third, x: third.x + (third.x > 0 ? 1 : -1) }], [[0, 1]]));
      expect(off.fast).toBe(off.exact);
      expect(off.exact).toBeGreaterThan(exact);
    }
  });

  it('counts no arrow through a shape whose shrunk sides meet, also where the arrow runs along them', () => {
    // 4 units wide or high: shrunk by 2 on each side, nothing is left, and layout.ts's segmentHitsBox answers false.
    const across: Box[] = [
      { x: 0, y: 0, w: 100, h: 100 },
      { x: 300, y: 0, w: 100, h: 100 },
    ];
    for (const [boxes, third] of [
      [ends, { x: 48, y: 150, w: 4, h: 100 }],
      [across, { x: 150, y: 48, w: 100, h: 4 }],
    ] as [Box[], Box][]) {
      const text = completion([...boxes, third], [[0, 1]]);
      expect(executeCountsFast(text)!.canvas!.geometry[4]).toBe(0);
      const { fast, exact } = layoutBothWays(text);
      expect(fast).toBe(exact);
      // One unit wider or higher, the same arrow passes through it.
      const wider = completion([...boxes, { ...third, w: third.w + (third.w === 4 ? 1 : 0), h: third.h + (third.h === 4 ? 1 : 0) }], [[0, 1]]);
      expect(executeCountsFast(wider)!.canvas!.geometry[4]).toBe(1);
    }
  });

  it('counts a segment along the shrunk top or bottom side as through', () => {
    const across: Box[] = [
      { x: 0, y: 0, w: 100, h: 100 },
      { x: 300, y: 0, w: 100, h: 100 },
    ];
    for (const third of [
      { x: 150, y: 48, w: 100, h: 100 },
      { x: 150, y: -48, w: 100, h: 100 },
    ]) {
      const { fast, exact } = layoutBothWays(completion([...across, third], [[0, 1]]));
      expect(fast).toBe(exact);
    }
  });

  it('counts pairs just under the crowding gap along either axis, in either order', () => {
    for (const gap of [29.9, 29.9999, 29.99999999, 29.999999999999996, 30, 30.000000000000004]) {
      const pairs: Box[][] = [
        [{ x: 0, y: 0, w: 100, h: 60 }, { x: 100 + gap, y: 0, w: 100, h: 60 }],
        [{ x: 100 + gap, y: 0, w: 100, h: 60 }, { x: 0, y: 0, w: 100, h: 60 }],
        [{ x: 0, y: 0, w: 100, h: 60 }, { x: 0, y: 60 + gap, w: 100, h: 60 }],
        [{ x: 0, y: 60 + gap, w: 100, h: 60 }, { x: 0, y: 0, w: 100, h: 60 }],
      ];
      for (const boxes of pairs) {
        const { fast, exact } = layoutBothWays(completion(boxes, []));
        expect({ boxes, fast }).toEqual({ boxes, fast: exact });
        // A crowding penalty under about 1e-16 leaves exp(-penalty) at 1.
        if (gap <= 29.99999999) expect(exact).toBeLessThan(1);
      }
    }
  });

  it('agrees on 3,000 random layouts on a coarse grid (segments that meet shrunk sides exactly)', () => {
    const next = mulberry32(7);
    const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
    let through = 0;
    for (let t = 0; t < 3000; t++) {
      const n = int(3, 12);
      const boxes = Array.from({ length: n }, () => ({ x: 2 * int(-20, 100), y: 2 * int(-20, 100), w: 4 * int(1, 25), h: 4 * int(1, 25) }));
      const arrows: [number, number][] = [];
      for (let k = int(1, 2 * n); k > 0; k--) {
        const a = int(0, n - 1);
        const b = int(0, n - 1);
        if (a !== b) arrows.push([a, b]);
      }
      const text = completion(boxes, arrows);
      const { fast, exact } = layoutBothWays(text);
      expect({ text, fast }).toEqual({ text, fast: exact });
      if (analyzeStrong({ prompt: 'p', completion: text }).layout!.counts.arrowThroughShape > 0) through++;
    }
    expect(through).toBeGreaterThan(500);
  });

  it('tallies what layout.ts tallies, term for term, for 1 to 39 shapes with the rest of the 40 actions arrows', () => {
    // Pairs, arrows through shapes and crossings are computed two at a time: odd and even counts, the last lane,
    // arrows along an axis (a zero slab), hidden arrows (overlapping ends) and shared ends all occur here.
    const next = mulberry32(11);
    const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
    const seen = { overlaps: 0, crowded: 0, through: 0, crossings: 0 };
    for (let t = 0; t < 1500; t++) {
      const n = int(1, 39);
      const grid = t % 2 === 0;
      const spread = int(50, 800);
      const boxes = Array.from({ length: n }, () =>
        grid
          ? { x: 10 * int(0, spread / 10), y: 10 * int(0, spread / 10), w: 10 * int(1, 12), h: 10 * int(1, 12) }
          : { x: next() * spread, y: next() * spread, w: 1 + next() * 150, h: 1 + next() * 150 },
      );
      const arrows: [number, number][] = [];
      for (let k = int(0, 40 - n); k > 0; k--) {
        const a = int(0, n - 1);
        const b = int(0, n - 1);
        if (a !== b) arrows.push([a, b]);
      }
      const text = completion(boxes, arrows);
      const counts = executeCountsFast(text);
      expect(counts?.checks).toBe('wasm');
      const fast = Array.from(counts!.canvas!.geometry);
      const report = scoreLayoutGeometry(
        boxes.map((b) => ({ ...b, shape: 'rectangle', text: '' })),
        arrows.map(([from, to]) => ({ from, to })),
      );
      const exact = [
        report.penalties.overlaps,
        report.penalties.crowded,
        report.counts.outside,
        report.counts.slivers,
        report.counts.arrowThroughShape,
        report.counts.arrowCrossings,
      ];
      expect({ text, fast }).toEqual({ text, fast: exact });
      if (exact[0] > 0) seen.overlaps++;
      if (exact[1] > 0) seen.crowded++;
      if (exact[4] > 0) seen.through++;
      if (exact[5] > 0) seen.crossings++;
    }
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(300);
  });
});
