import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Resvg } from '@resvg/resvg-js';
import { Canvas } from '../../../src/diagram/language/canvas.ts';
import { executeCompletion } from '../../../src/diagram/language/execute.ts';
import type { ShapeKind } from '../../../src/diagram/language/actions.ts';
import { arrowLanes, arrowPath, lineInterval, segmentHitsShape, segmentsCross, type Outline, type Point } from '../../../src/diagram/render/geometry.ts';
import { fitLabel, renderSvg } from '../../../src/diagram/render/svg.ts';
import { escapeXml } from '../../../src/io/xml.ts';
import { rasterize, renderPng } from '../../../src/render/png.ts';
import { textWidth } from '../../../src/render/text.ts';
import { readCompletion } from '../../../src/cli/render.ts';

const run = promisify(execFile);

/** Distance-like measure of how far `p` is from the outline's border, from each kind's own equation. */
function borderError(s: Outline, p: Point): number {
  const a = s.w / 2;
  const b = s.h / 2;
  const u = p.x - (s.x + a);
  const v = p.y - (s.y + b);
  if (s.shape === 'ellipse') return Math.abs(Math.hypot(u / a, v / b) - 1) * Math.min(a, b);
  if (s.shape === 'diamond') return Math.abs(Math.abs(u) / a + Math.abs(v) / b - 1) * Math.min(a, b);
  const inside = Math.max(Math.abs(u) - a, Math.abs(v) - b);
  return Math.abs(inside);
}

function canvasOf(actions: object[]): Canvas {
  const ex = executeCompletion(JSON.stringify({ actions }));
  expect(ex.errors).toEqual([]);
  return ex.canvas!;
}

const shape = (id: string, kind: ShapeKind, x: number, y: number, w: number, h: number, text = id) => ({ type: 'create_shape', id, shape: kind, x, y, w, h, text });
const connect = (from: string, to: string, text?: string) => ({ type: 'connect', from, to, ...(text ? { text } : {}) });

/** Mulberry32: a small seeded generator, so the random cases are the same every run. */
function rng(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

describe('geometry', () => {
  it('finds where a line crosses each kind of outline', () => {
    const box = (shape: ShapeKind): Outline => ({ shape, x: 0, y: 0, w: 200, h: 100 });
    const right = { x: 1, y: 0 };
    const centre = { x: 100, y: 50 };
    expect(lineInterval(box('rectangle'), centre, right)).toEqual([-100, 100]);
    expect(lineInterval(box('ellipse'), centre, right)).toEqual([-100, 100]);
    expect(lineInterval(box('diamond'), centre, right)).toEqual([-100, 100]);
    // Along the diagonal the diamond's border is halfway to the corner, the ellipse's at 1/sqrt(2) of it.
    const diag = { x: 100, y: 50 };
    expect(lineInterval(box('rectangle'), centre, diag)![1]).toBeCloseTo(1);
    expect(lineInterval(box('ellipse'), centre, diag)![1]).toBeCloseTo(Math.SQRT1_2);
    expect(lineInterval(box('diamond'), centre, diag)![1]).toBeCloseTo(0.5);
    expect(lineInterval(box('diamond'), { x: 0, y: -1 }, { x: -1, y: 0 })).toBeNull();
    // A line through the top corner touches the diamond at that one point.
    expect(lineInterval(box('diamond'), { x: 0, y: 0 }, { x: -1, y: 0 })).toEqual([-100, -100]);
    expect(segmentHitsShape({ x: -50, y: 50 }, { x: -1, y: 50 }, box('rectangle'))).toBe(false);
    expect(segmentHitsShape({ x: -50, y: 50 }, { x: 10, y: 50 }, box('rectangle'))).toBe(true);
    expect(segmentsCross({ x: 0, y: 0 }, { x: 10, y: 10 }, { x: 0, y: 10 }, { x: 10, y: 0 })).toBe(true);
    expect(segmentsCross({ x: 0, y: 0 }, { x: 10, y: 10 }, { x: 10, y: 10 }, { x: 20, y: 0 })).toBe(false);
  });

  it('runs arrows from border to border for every pair of kinds, straight or in lanes', () => {
    const random = rng(7);
    const kinds: ShapeKind[] = ['rectangle', 'ellipse', 'diamond', 'text'];
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const a: Outline = { shape: kinds[i % 4], x: random() * 50, y: random() * 50, w: 40 + random() * 200, h: 30 + random() * 150 };
      const b: Outline = { shape: kinds[(i >> 2) % 4], x: 400 + random() * 300, y: random() * 600 - 300, w: 40 + random() * 200, h: 30 + random() * 150 };
      const offset = (random() - 0.5) * 20;
      const p = arrowPath(a, b, offset);
      expect(p.clipped).toBe(true);
      expect(borderError(a, p.start)).toBeLessThan(1e-6);
      expect(borderError(b, p.end)).toBeLessThan(1e-6);
      checked++;
    }
    expect(checked).toBe(400);
  });

  it('gives parallel and opposite arrows distinct lanes', () => {
    const lanes = arrowLanes([
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
      { from: 'a', to: 'c' },
    ]);
    expect(lanes[2]).toEqual({ lane: 0, of: 1 });
    expect(lanes[0].of).toBe(2);
    const a: Outline = { shape: 'rectangle', x: 0, y: 0, w: 100, h: 60 };
    const b: Outline = { shape: 'rectangle', x: 300, y: 0, w: 100, h: 60 };
    const ab = arrowPath(a, b, lanes[0].lane * 20);
    const ba = arrowPath(b, a, lanes[1].lane * 20);
    // Opposite arrows must not lie on the same line.
    expect(Math.abs(ab.start.y - ba.end.y)).toBeGreaterThan(10);
  });

  it('falls back without NaN when shapes overlap or share a centre', () => {
    const a: Outline = { shape: 'rectangle', x: 0, y: 0, w: 200, h: 100 };
    for (const b of [
      { shape: 'ellipse' as const, x: 50, y: 20, w: 200, h: 100 },
      { shape: 'diamond' as const, x: 0, y: 0, w: 200, h: 100 },
    ]) {
      const p = arrowPath(a, b);
      expect(p.clipped).toBe(false);
      for (const v of [p.start.x, p.start.y, p.end.x, p.end.y]) expect(Number.isFinite(v)).toBe(true);
      expect(Math.hypot(p.end.x - p.start.x, p.end.y - p.start.y)).toBeGreaterThan(0);
    }
  });
});

describe('labels', () => {
  it('keeps a short label at full size on one line', () => {
    expect(fitLabel('rectangle', 180, 80, 'API')).toEqual({ size: 16, lines: ['API'] });
  });

  it('shrinks a long label, then wraps it, always within the shape', () => {
    const shrunk = fitLabel('rectangle', 180, 80, 'Authentication Service');
    expect(shrunk.lines).toHaveLength(1);
    expect(shrunk.size).toBeLessThan(16);
    expect(textWidth(shrunk.lines[0], shrunk.size)).toBeLessThanOrEqual(180);
    const wrapped = fitLabel('diamond', 200, 130, 'Is the session token still valid for this user?');
    expect(wrapped.lines.length).toBeGreaterThan(1);
    expect(wrapped.lines.join(' ')).toBe('Is the session token still valid for this user?');
    for (const l of wrapped.lines) expect(textWidth(l, wrapped.size)).toBeLessThan(200);
    expect(wrapped.lines.length * wrapped.size * 1.25).toBeLessThan(130);
  });

  it('draws at most a few hundred characters of a huge label, however large the box', () => {
    const huge = fitLabel('rectangle', 1000, 1000, 'lorem ipsum '.repeat(500));
    const drawn = huge.lines.join(' ');
    expect(drawn.length).toBeLessThanOrEqual(302);
    expect(drawn).toMatch(/\u2026$/);
  });

  it('cuts a label that cannot fit, with an ellipsis', () => {
    const cut = fitLabel('rectangle', 60, 30, 'word '.repeat(200));
    expect(cut.size).toBe(10);
    expect(cut.lines.at(-1)).toMatch(/\u2026$/);
    for (const l of cut.lines) expect(textWidth(l, cut.size)).toBeLessThanOrEqual(60);
  });
});

/** Shape outlines as drawn, read back from the SVG. */
function drawnShapes(svg: string): Map<string, Outline> {
  const out = new Map<string, Outline>();
  const attr = (el: string, name: string) => Number(new RegExp(`\\s${name}="([^"]*)"`).exec(el)![1]);
  for (const m of svg.matchAll(/<g class="shape" data-id="([^"]*)" data-kind="([^"]*)">(<[^>]*>)/g)) {
    const [, id, kind, el] = m;
    if (kind === 'rectangle') out.set(id, { shape: 'rectangle', x: attr(el, 'x'), y: attr(el, 'y'), w: attr(el, 'width'), h: attr(el, 'height') });
    if (kind === 'ellipse') {
      const [cx, cy, rx, ry] = ['cx', 'cy', 'rx', 'ry'].map((n) => attr(el, n));
      out.set(id, { shape: 'ellipse', x: cx - rx, y: cy - ry, w: 2 * rx, h: 2 * ry });
    }
    if (kind === 'diamond') {
      const pts = /points="([^"]*)"/.exec(el)![1].split(' ').map((p) => p.split(',').map(Number));
      const xs = pts.map((p) => p[0]);
      const ys = pts.map((p) => p[1]);
      out.set(id, { shape: 'diamond', x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) });
    }
  }
  return out;
}

const BRANCHING = [
  shape('start', 'ellipse', 0, 120, 140, 70, 'Start'),
  shape('check', 'diamond', 220, 95, 160, 120, 'Valid?'),
  shape('ok', 'rectangle', 460, 20, 160, 70, 'Accept'),
  shape('bad', 'rectangle', 460, 220, 160, 70, 'Reject'),
  shape('end', 'ellipse', 700, 120, 140, 70, 'End'),
  connect('start', 'check'),
  connect('check', 'ok', 'yes'),
  connect('check', 'bad', 'no'),
  connect('ok', 'end'),
  connect('bad', 'end'),
  connect('end', 'bad', 'again'),
];

describe('renderSvg', () => {
  it('draws one element per shape and per arrow, with arrow ends on the drawn borders', () => {
    const svg = renderSvg(canvasOf(BRANCHING));
    expect(svg.match(/class="shape"/g)).toHaveLength(5);
    expect(svg.match(/class="arrow"/g)).toHaveLength(6);
    expect(svg.match(/marker-end="url\(#cg-head\)"/g)).toHaveLength(6);
    const shapes = drawnShapes(svg);
    expect(shapes.size).toBe(5);
    for (const m of svg.matchAll(/class="arrow" data-from="([^"]*)" data-to="([^"]*)" data-start="([^"]*)" data-end="([^"]*)"/g)) {
      const [, from, to, start, end] = m;
      const [sx, sy] = start.split(',').map(Number);
      const [ex, ey] = end.split(',').map(Number);
      // Coordinates are written to 0.01, so a point on the border reads back within about that.
      expect(borderError(shapes.get(from)!, { x: sx, y: sy })).toBeLessThan(0.03);
      expect(borderError(shapes.get(to)!, { x: ex, y: ey })).toBeLessThan(0.03);
    }
    for (const label of ['Start', 'Valid?', 'Accept', 'yes', 'no', 'again']) expect(svg).toContain(`>${label}</tspan>`);
  });

  it('escapes text and drops characters XML cannot hold, so any label gives a valid document', () => {
    const nasty = 'a<b>&"c\'\u0001</svg>';
    const svg = renderSvg(canvasOf([shape('x"<', 'rectangle', 0, 0, 300, 80, nasty), shape('y', 'text', 400, 0, 300, 80, '<script>'), connect('x"<', 'y', '&amp;')]), {
      title: 'Draw <this> & that',
      errors: ['action 3: arrow source does not exist: <z>'],
    });
    expect(svg).not.toContain('<b>');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('a&lt;b&gt;&amp;&quot;c&apos;\uFFFD&lt;/svg&gt;');
    expect(svg).toContain('&amp;amp;');
    expect(escapeXml('\uD800x')).toBe('\uFFFDx');
    expect(() => new Resvg(svg)).not.toThrow();
  });

  it('shows the title and the refused actions when asked', () => {
    const ex = executeCompletion(JSON.stringify({ actions: [shape('a', 'rectangle', 0, 0, 100, 50), connect('a', 'ghost')] }));
    const svg = renderSvg(ex.canvas!, { title: 'Draw one box', errors: ex.errors });
    expect(svg).toContain('>Draw one box</tspan>');
    expect(svg).toContain('1 refused action:');
    expect(svg).toContain('arrow target does not exist: ghost');
    expect(renderSvg(ex.canvas!)).not.toContain('refused');
  });

  it('fits the view to the content wherever it lies, and draws scattered shapes closer with a note', () => {
    const viewBox = (svg: string) => /viewBox="0 0 ([^ ]+) ([^"]+)"/.exec(svg)!.slice(1).map(Number);
    const near = viewBox(renderSvg(canvasOf([shape('a', 'rectangle', 0, 0, 100, 50), shape('b', 'rectangle', 200, 0, 100, 50)])));
    const far = viewBox(renderSvg(canvasOf([shape('a', 'rectangle', 1e12, -1e12, 100, 50), shape('b', 'rectangle', 1e12 + 200, -1e12, 100, 50)])));
    expect(far).toEqual(near);
    const scattered = renderSvg(canvasOf([shape('a', 'rectangle', -1.7e308, 0, 100, 50), shape('b', 'rectangle', 1.7e308, 1e300, 100, 50), connect('a', 'b')]));
    const [w, h] = viewBox(scattered);
    expect(Math.max(w, h)).toBeLessThan(10_000);
    expect(scattered).toContain('closer together');
    expect(scattered).not.toMatch(/NaN|Infinity/);
    expect(renderSvg(new Canvas())).toContain('(empty canvas)');
  });
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('renderPng', () => {
  it('writes a valid PNG of the stated size, with ink where the shapes are and white elsewhere', () => {
    const svg = renderSvg(canvasOf(BRANCHING));
    const png = renderPng(svg, { scale: 1 });
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    const [vw, vh] = /viewBox="0 0 ([^ ]+) ([^"]+)"/.exec(svg)!.slice(1).map(Number);
    expect(png.readUInt32BE(16)).toBe(Math.ceil(vw));
    expect(png.readUInt32BE(20)).toBe(Math.ceil(vh));

    const image = rasterize(svg, { scale: 1 });
    const at = (x: number, y: number) => {
      const i = (Math.round(y) * image.width + Math.round(x)) * 4;
      return [...image.pixels.subarray(i, i + 3)];
    };
    const isWhite = (rgb: number[]) => rgb.every((c) => c > 245);
    const shapes = drawnShapes(svg);
    const accept = shapes.get('ok')!;
    // The fill, just inside the left border (clear of the label), and the border itself.
    expect(isWhite(at(accept.x + 6, accept.y + accept.h / 2))).toBe(false);
    expect(at(accept.x, accept.y + accept.h / 2).every((c) => c < 120)).toBe(true);
    // The empty corner between Start and Accept.
    expect(isWhite(at(accept.x - 60, accept.y + 5))).toBe(true);
    const dark = image.pixels.filter((_, i) => i % 4 === 0).filter((c) => c < 100).length;
    expect(dark).toBeGreaterThan(500);
  });

  it('honours a width, and caps the long side of a scattered diagram', () => {
    const svg = renderSvg(canvasOf(BRANCHING));
    expect(rasterize(svg, { width: 300 }).width).toBe(300);
    const scattered = renderSvg(canvasOf([shape('a', 'rectangle', 0, 0, 100, 50), shape('b', 'rectangle', 5000, 5000, 100, 50)]));
    const big = rasterize(scattered, { scale: 4 });
    expect(Math.max(big.width, big.height)).toBe(4096);
    expect(() => rasterize(svg, { scale: -1 })).toThrow(/scale must be a positive number/);
  });
});

describe('canvasgym render', () => {
  it('reads a completion, or a record holding one with its prompt', () => {
    const actions = JSON.stringify({ actions: [] });
    expect(readCompletion(actions)).toEqual({ completion: actions });
    expect(readCompletion('Sure! {"actions": []}')).toEqual({ completion: 'Sure! {"actions": []}' });
    expect(readCompletion(JSON.stringify({ prompt: 'Draw X', completion: 'text', reward: 1 }))).toEqual({ completion: 'text', prompt: 'Draw X' });
  });

  const dir = mkdtempSync(join(tmpdir(), 'canvasgym-render-'));
  const cli = (...args: string[]) => run('node', ['bin/canvasgym.js', 'render', ...args]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

  it('draws a JSON completion as PNG, and a fenced one inside prose as SVG', async () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ actions: BRANCHING }));
    const png = await cli('--in', good, '--out', join(dir, 'good.png'));
    expect(png.code).toBe(0);
    expect(png.stdout).toMatch(/wrote .*good\.png \(\d+x\d+ px, 5 shapes, 6 arrows\)/);
    expect(readFileSync(join(dir, 'good.png')).subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);

    const fenced = join(dir, 'fenced.txt');
    const actions = [shape('frontend', 'rectangle', 80, 100, 180, 80, 'Frontend'), shape('api', 'rectangle', 340, 100, 180, 80, 'API'), connect('frontend', 'api', 'request'), connect('api', 'db')];
    writeFileSync(fenced, `Here is the diagram:\n\n\`\`\`json\n${JSON.stringify({ actions }, null, 2)}\n\`\`\`\nHope it helps.`);
    const svg = await cli('--in', fenced, '--out', join(dir, 'fenced.svg'), '--prompt', 'Frontend calls API');
    expect(svg.code).toBe(0);
    expect(svg.stderr).toContain('warning: refused action 3: arrow target does not exist: db');
    const text = readFileSync(join(dir, 'fenced.svg'), 'utf8');
    expect(text.match(/class="shape"/g)).toHaveLength(2);
    expect(text).toContain('>Frontend calls API</tspan>');
    expect(text).toContain('1 refused action:');
  });

  it('reports bad input as one line with exit code 2', async () => {
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, 'I would draw {a box: and, an arrow}');
    const r1 = await cli('--in', bad, '--out', join(dir, 'bad.png'));
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/bad\.txt: the completion does not parse: invalid JSON/);
    expect(existsSync(join(dir, 'bad.png'))).toBe(false);
    const r2 = await cli('--in', join(dir, 'missing.json'), '--out', join(dir, 'x.svg'));
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('no such file');
    const r3 = await cli('--in', bad, '--out', join(dir, 'x.jpg'));
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('--out must end in .svg or .png');
  });

  it('writes the sample diagrams', async () => {
    const out = join(dir, 'sample');
    const r = await cli('--sample', '--out', out);
    expect(r.code).toBe(0);
    for (const f of ['seed.svg', 'seed.png', 'incident.svg', 'incident.png']) expect(existsSync(join(out, f))).toBe(true);
    expect(readFileSync(join(out, 'seed.svg'), 'utf8')).toContain('>request</tspan>');
  });
});
