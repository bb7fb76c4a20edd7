import { describe, expect, it } from 'vitest';
import { LABEL_FONT_SIZE, LABEL_PADDING, MIN_GAP, arrowSegment, scoreLayoutGeometry, textOverflow, type Box, type Link } from '../../../src/diagram/reward/layout.ts';
import { LINE_HEIGHT, textWidth, wrapText } from '../../../src/render/text.ts';

const box = (x: number, y: number, text = 'Node', w = 140, h = 60, shape = 'rectangle'): Box => ({ x, y, w, h, text, shape });
/** A chain of `n` boxes left to right, `gap` units apart, each linked to the next. */
function chain(n: number, gap: number): { boxes: Box[]; links: Link[] } {
  const boxes = Array.from({ length: n }, (_, i) => box(40 + i * (140 + gap), 40, `Step ${i + 1}`));
  return { boxes, links: boxes.slice(1).map((_, i) => ({ from: i, to: i + 1 })) };
}

function scoreChain(n: number, gap: number) {
  const { boxes, links } = chain(n, gap);
  return scoreLayoutGeometry(boxes, links);
}

describe('scoreLayoutGeometry', () => {
  it('scores a clean layered layout with 40-80 unit gaps at 1', () => {
    for (const gap of [40, 60, 80]) {
      const { boxes, links } = chain(5, gap);
      // A second row under the first, wired down, as layered layouts do.
      const lower = boxes.map((b, i) => box(b.x, b.y + 60 + gap, `Worker ${i + 1}`));
      const all = [...boxes, ...lower];
      const down = lower.map((_, i) => ({ from: i, to: boxes.length + i }));
      const r = scoreLayoutGeometry(all, [...links, ...down]);
      expect(r.score).toBe(1);
      expect(Object.values(r.penalties).every((p) => p === 0)).toBe(true);
    }
  });

  it('charges cramped spacing visibly, more the closer the shapes', () => {
    const clean = scoreChain(5, 60).score;
    const cramped = scoreChain(5, 10);
    const touching = scoreChain(5, 0).score;
    expect(cramped.counts.crowded).toBe(4);
    expect(clean - cramped.score).toBeGreaterThan(0.15);
    expect(touching).toBeLessThan(cramped.score);
    expect(scoreChain(5, MIN_GAP).score).toBe(1);
  });

  it('charges one small overlap visibly and weights overlaps by area', () => {
    const { boxes, links } = chain(4, 60);
    const nudged = boxes.map((b, i) => (i === 2 ? { ...b, x: b.x - 70 } : b)); // 10 units into its neighbour
    const small = scoreLayoutGeometry(nudged, links);
    expect(small.counts.overlaps).toBe(1);
    expect(small.score).toBeLessThan(0.8);
    const deep = scoreLayoutGeometry(boxes.map((b, i) => (i === 2 ? { ...b, x: boxes[1].x + 5 } : b)), links);
    expect(deep.score).toBeLessThan(small.score);
    const stacked = scoreLayoutGeometry(boxes.map((b) => ({ ...b, x: 0, y: 0 })), links);
    expect(stacked.counts.overlaps).toBe(6);
    expect(stacked.score).toBeLessThan(0.01);
  });

  it('finds labels that do not fit, by measured width and wrapped height', () => {
    expect(textOverflow(box(0, 0, 'Database'))).toBe(0);
    expect(textOverflow(box(0, 0, 'Authentication Service', 160, 60))).toBe(0); // wraps onto two lines
    expect(textOverflow(box(0, 0, 'Authentication', 80, 60))).toBeGreaterThan(0.3);
    expect(textOverflow(box(0, 0, 'one two three four five six seven eight nine ten', 140, 40))).toBeGreaterThan(0.5);
    // An ellipse or a diamond has less room than its bounding box.
    expect(textOverflow(box(0, 0, 'Payment Gateway', 150, 60, 'diamond'))).toBeGreaterThan(textOverflow(box(0, 0, 'Payment Gateway', 150, 60, 'rectangle')));
    const r = scoreLayoutGeometry([box(0, 0, 'A very long label that cannot possibly fit', 60, 30)], []);
    expect(r.counts.textOverflow).toBe(1);
    expect(r.score).toBeLessThan(0.7);
  });

  it('wraps labels exactly as the renderer does: the same overflow, to the last bit, as wrapText and textWidth', () => {
    const usable: Record<string, number> = { rectangle: 1, text: 1, ellipse: 0.75, diamond: 0.6 };
    /** The overflow measured the plain way: wrap with the renderer's wrapText, measure each line with textWidth. */
    const reference = (b: Box) => {
      const text = b.text.trim();
      if (!text) return 0;
      const pad = b.shape === 'text' ? 0 : LABEL_PADDING;
      const availW = Math.max(1, b.w * usable[b.shape] - 2 * pad);
      const availH = Math.max(1, b.h * usable[b.shape] - 2 * pad);
      const lines = wrapText(text, availW, LABEL_FONT_SIZE);
      const needW = Math.max(0, ...lines.map((l) => textWidth(l, LABEL_FONT_SIZE)));
      const needH = lines.length * LABEL_FONT_SIZE * LINE_HEIGHT;
      return Math.min(2, Math.max(0, needW / availW - 1) + Math.max(0, needH / availH - 1));
    };
    const words = ['API', 'Gateway', 'Authentication', 'db', 'Données', 'Café', '数据库', '🚀', 'x', 'WWWWWW', 'i', 'Load-Balancer'];
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const seps = [' ', '  ', '\n', ' \r\n ', '\t', '\n\n'];
    for (let i = 0; i < 1500; i++) {
      const n = Math.floor(rand() * 9);
      let text = rand() < 0.2 ? ' ' : '';
      for (let k = 0; k < n; k++) text += (k ? seps[Math.floor(rand() * seps.length)] : '') + words[Math.floor(rand() * words.length)];
      if (rand() < 0.2) text += '\n ';
      const shape = Object.keys(usable)[Math.floor(rand() * 4)];
      const b = box(0, 0, text, 8 + rand() * 300, 8 + rand() * 200, shape);
      expect({ text, w: b.w, h: b.h, shape, over: textOverflow(b) }).toEqual({ text, w: b.w, h: b.h, shape, over: reference(b) });
    }
  });

  it('charges shapes off any sane canvas and slivers', () => {
    const far = scoreLayoutGeometry([box(0, 0), box(3_000_000, 0)], []);
    expect(far.counts.outside).toBe(1);
    expect(far.score).toBeLessThan(0.7);
    const slivers = scoreLayoutGeometry([box(0, 0, '', 0.5, 0.5), box(200, 0, '', 400, 5)], []);
    expect(slivers.counts.slivers).toBe(2);
    expect(slivers.score).toBeLessThan(0.5);
  });

  it('clips arrows at shape borders and charges arrows through shapes and across each other', () => {
    const s = arrowSegment(box(0, 0, 'a', 100, 100), box(300, 0, 'b', 100, 100))!;
    expect(s).toEqual({ x1: 100, y1: 50, x2: 300, y2: 50 });
    expect(arrowSegment(box(0, 0), box(0, 0))).toBeNull();
    const row = [box(0, 0, 'A'), box(200, 0, 'B'), box(400, 0, 'C')];
    const through = scoreLayoutGeometry(row, [{ from: 0, to: 2 }]);
    expect(through.counts.arrowThroughShape).toBe(1);
    expect(through.score).toBeLessThan(1);
    const square = [box(0, 0, 'A'), box(300, 0, 'B'), box(0, 200, 'C'), box(300, 200, 'D')];
    const crossing = scoreLayoutGeometry(square, [{ from: 0, to: 3 }, { from: 1, to: 2 }]);
    expect(crossing.counts.arrowCrossings).toBe(1);
    const parallel = scoreLayoutGeometry(square, [{ from: 0, to: 1 }, { from: 2, to: 3 }]);
    expect(parallel.score).toBe(1);
  });

  it('counts an arrow along a shape\'s side shrunk by 2 as through it, and none through a shape whose shrunk sides meet', () => {
    const rect = (x: number, y: number, w: number, h: number) => box(x, y, 'N', w, h);
    // A vertical arrow at x = 50 between two shapes.
    const ends = [rect(0, 0, 100, 100), rect(0, 300, 100, 100)];
    const link = [{ from: 0, to: 1 }];
    for (const x of [48, -48]) {
      const along = scoreLayoutGeometry([...ends, rect(x, 150, 100, 100)], link);
      expect(along.counts.arrowThroughShape).toBe(1);
      const off = scoreLayoutGeometry([...ends, rect(x + Math.sign(x), 150, 100, 100)], link);
      expect(off.counts.arrowThroughShape).toBe(0);
      expect(off.score).toBeGreaterThan(along.score);
    }
    // 4 units wide: shrunk by 2 on each side nothing is left; 5 units wide, the arrow passes through.
    expect(scoreLayoutGeometry([...ends, rect(48, 150, 4, 100)], link).counts.arrowThroughShape).toBe(0);
    expect(scoreLayoutGeometry([...ends, rect(48, 150, 5, 100)], link).counts.arrowThroughShape).toBe(1);
  });

  it('counts a pair just under the crowding gap along either axis, in either order, and not one at the gap', () => {
    for (const gap of [29.9, 29.9999, 29.99999999, 30]) {
      const pairs = [
        [box(0, 0, 'A', 100, 60), box(100 + gap, 0, 'B', 100, 60)],
        [box(100 + gap, 0, 'B', 100, 60), box(0, 0, 'A', 100, 60)],
        [box(0, 0, 'A', 100, 60), box(0, 60 + gap, 'B', 100, 60)],
        [box(0, 60 + gap, 'B', 100, 60), box(0, 0, 'A', 100, 60)],
      ];
      for (const boxes of pairs) {
        const r = scoreLayoutGeometry(boxes, []);
        expect({ gap, crowded: r.counts.crowded }).toEqual({ gap, crowded: gap < MIN_GAP ? 1 : 0 });
        if (gap < MIN_GAP) expect(r.score).toBeLessThan(1);
      }
    }
  });

  it('scores an empty layout 0 and reports a breakdown', () => {
    const r = scoreLayoutGeometry([], []);
    expect(r.score).toBe(0);
    expect(r.counts.shapes).toBe(0);
  });
});
