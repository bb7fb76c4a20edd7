// Plane geometry of canvas shapes: where a line enters and leaves a shape, where arrows start and end.
// Pure functions over plain boxes, shared by the renderer and the reward's layout checks.
import type { ShapeKind } from '../language/actions.ts';

export interface Point {
  x: number;
  y: number;
}

/** A shape's outline: its kind and its bounding box (top-left corner, width, height). Text shapes are their box. */
export interface Outline {
  shape: ShapeKind;
  x: number;
  y: number;
  w: number;
  h: number;
}

export const center = (s: Outline): Point => ({ x: s.x + s.w / 2, y: s.y + s.h / 2 });

const sub = (a: Point, b: Point): Point => ({ x: a.x - b.x, y: a.y - b.y });
const along = (p: Point, d: Point, t: number): Point => ({ x: p.x + t * d.x, y: p.y + t * d.y });
export const distance = (a: Point, b: Point): number => Math.hypot(a.x - b.x, a.y - b.y);

/**
 * The parameter interval [tIn, tOut] where the line p + t·d lies inside the shape (border included),
 * or null when the line misses it. `d` need not be unit length; t is in units of |d|.
 */
export function lineInterval(s: Outline, p: Point, d: Point): [number, number] | null {
  const a = s.w / 2;
  const b = s.h / 2;
  const c = center(s);
  const u = p.x - c.x;
  const v = p.y - c.y;
  if (s.shape === 'ellipse') {
    // (u + t dx)^2 / a^2 + (v + t dy)^2 / b^2 = 1
    const A = (d.x * d.x) / (a * a) + (d.y * d.y) / (b * b);
    const B = 2 * ((u * d.x) / (a * a) + (v * d.y) / (b * b));
    const C = (u * u) / (a * a) + (v * v) / (b * b) - 1;
    if (A === 0) return C <= 0 ? [-Infinity, Infinity] : null;
    const disc = B * B - 4 * A * C;
    if (disc < 0) return null;
    const root = Math.sqrt(disc);
    return [(-B - root) / (2 * A), (-B + root) / (2 * A)];
  }
  // Rectangles and diamonds are intersections of half-planes n·(u, v) <= 1: clip the line against each (Cyrus-Beck).
  const normals: [number, number][] =
    s.shape === 'diamond'
      ? [
          [1 / a, 1 / b],
          [1 / a, -1 / b],
          [-1 / a, 1 / b],
          [-1 / a, -1 / b],
        ]
      : [
          [1 / a, 0],
          [-1 / a, 0],
          [0, 1 / b],
          [0, -1 / b],
        ];
  let lo = -Infinity;
  let hi = Infinity;
  for (const [nx, ny] of normals) {
    const num = 1 - (nx * u + ny * v);
    const den = nx * d.x + ny * d.y;
    if (den === 0) {
      if (num < 0) return null;
    } else if (den > 0) {
      hi = Math.min(hi, num / den);
    } else {
      lo = Math.max(lo, num / den);
    }
  }
  return lo <= hi ? [lo, hi] : null;
}

/** Distance from the shape's centre to its border in direction `dir`. */
export function radius(s: Outline, dir: Point): number {
  const len = Math.hypot(dir.x, dir.y);
  const span = lineInterval(s, center(s), { x: dir.x / len, y: dir.y / len });
  return span ? span[1] : 0;
}

/** Whether the segment a-b passes through the inside of the shape (touching the border counts). */
export function segmentHitsShape(a: Point, b: Point, s: Outline): boolean {
  const span = lineInterval(s, a, sub(b, a));
  return span !== null && span[0] <= 1 && span[1] >= 0;
}

/** Whether segments p1-p2 and q1-q2 cross at a point interior to both (shared endpoints do not count). */
export function segmentsCross(p1: Point, p2: Point, q1: Point, q2: Point): boolean {
  const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const d1 = cross(q1, q2, p1);
  const d2 = cross(q1, q2, p2);
  const d3 = cross(p1, p2, q1);
  const d4 = cross(p1, p2, q2);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

export interface ArrowPath {
  start: Point;
  end: Point;
  /** False when the shapes overlap along the arrow, so it could not run from border to border. */
  clipped: boolean;
}

const MIN_ARROW = 1e-6;

/**
 * A straight arrow from `from` to `to`, shifted sideways by `offset` (to the arrow's left, in canvas units),
 * starting where the line leaves `from` and ending where it enters `to`.
 * When the shapes overlap along the line it falls back to running from the source's centre line into the target.
 */
export function arrowPath(from: Outline, to: Outline, offset = 0): ArrowPath {
  const c0 = center(from);
  const c1 = center(to);
  let d = sub(c1, c0);
  const len = Math.hypot(d.x, d.y);
  // Concentric shapes have no direction between them: point right, so the arrow is at least visible.
  d = len > MIN_ARROW ? { x: d.x / len, y: d.y / len } : { x: 1, y: 0 };
  const normal = { x: d.y, y: -d.x };
  const p = along(c0, normal, offset);
  const out = lineInterval(from, p, d);
  const into = lineInterval(to, p, d);
  if (out && into && out[1] < into[0]) {
    return { start: along(p, d, out[1]), end: along(p, d, into[0]), clipped: true };
  }
  if (into && into[0] > MIN_ARROW) return { start: p, end: along(p, d, into[0]), clipped: false };
  const end = len > MIN_ARROW ? along(p, d, len) : along(p, d, out ? out[1] : 1);
  return { start: p, end, clipped: false };
}

const pairKey = (a: { from: string; to: string }) => (a.from < a.to ? `${a.from}\u0000${a.to}` : `${a.to}\u0000${a.from}`);

export interface Lane {
  /** Sideways position in lane widths, measured to the arrow's own left. */
  lane: number;
  /** Arrows sharing this arrow's pair of shapes, itself included. */
  of: number;
}

/**
 * Lanes for arrows that share a pair of shapes: a lone arrow gets lane 0; two arrows between the same pair
 * (either direction) get -0.5 and 0.5, and so on, so that parallel and opposite arrows never coincide.
 */
export function arrowLanes(arrows: readonly { from: string; to: string }[]): Lane[] {
  const groups = new Map<string, number[]>();
  arrows.forEach((a, i) => {
    const g = groups.get(pairKey(a));
    if (g) g.push(i);
    else groups.set(pairKey(a), [i]);
  });
  const lanes: Lane[] = arrows.map(() => ({ lane: 0, of: 1 }));
  for (const members of groups.values()) {
    members.forEach((i, k) => {
      const lane = k - (members.length - 1) / 2;
      // Lanes are laid out in the pair's canonical direction; an arrow running the other way has its left flipped.
      lanes[i] = { lane: arrows[i].from < arrows[i].to ? lane : -lane, of: members.length };
    });
  }
  return lanes;
}
