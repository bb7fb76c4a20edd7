// assembly/strong-layout.ts skips segmentHitsBox's divisions for a shape the arrow's segment lies wholly beyond (one
// side of the shape shrunk by THROUGH_INSET), and the overlap and crowding terms of two boxes at least MIN_GAP apart
// along one axis: the layout tallies must stay those of layout.ts, also when the segment runs exactly along a shrunk
// side (the clipping still counts the arrow as passing through) and when a gap is just under MIN_GAP.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/random.ts';
import type { ScoreInput } from '../src/reward/rubric.ts';
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

describe('strong layout: far shapes skipped, for arrows through shapes and for crowding', () => {
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

  it('counts pairs just under the crowding gap along either axis, in either order (far pairs are skipped)', () => {
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
});
