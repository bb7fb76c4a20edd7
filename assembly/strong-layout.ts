// The geometric part of the layout score (src/reward/layout.ts tallyLayout) on strong-check.ts's canvas: overlaps,
// crowding, off-canvas boxes, slivers, arrows through shapes and arrow crossings, with the same float operations in
// the same order, so that JavaScript adds the label overflow and takes exp() to the same score. The weights and
// limits come from layout.ts (setLayoutConstants, once at load), which stays the definition the tests hold this to.

let minX: f64 = 0;
let minY: f64 = 0;
let maxX: f64 = 0;
let maxY: f64 = 0;
let minSide: f64 = 0;
let maxAspect: f64 = 0;
let minGap: f64 = 0;
let crowd: f64 = 0;
let overlapBase: f64 = 0;
let overlapDepth: f64 = 0;
let throughInset: f64 = 0;

export function setLayoutConstants(
  saneMinX: f64,
  saneMinY: f64,
  saneMaxX: f64,
  saneMaxY: f64,
  side: f64,
  aspect: f64,
  gap: f64,
  crowdWeight: f64,
  base: f64,
  depth: f64,
  inset: f64,
): void {
  minX = saneMinX;
  minY = saneMinY;
  maxX = saneMaxX;
  maxY = saneMaxY;
  minSide = side;
  maxAspect = aspect;
  minGap = gap;
  crowd = crowdWeight;
  overlapBase = base;
  overlapDepth = depth;
  throughInset = inset;
}

const MAX_LINKS: i32 = 40;
const MAX_BOXES: i32 = 40;
/**
 * Each box shrunk by throughInset (left, right, top, bottom: the bounds segmentHitsBox clips to), side by side for
 * two-lane compares; one slot of slack past the last box.
 */
const insetLeft = memory.data((MAX_BOXES + 2) * 8, 16);
const insetRight = memory.data((MAX_BOXES + 2) * 8, 16);
const insetTop = memory.data((MAX_BOXES + 2) * 8, 16);
const insetBottom = memory.data((MAX_BOXES + 2) * 8, 16);
/**
 * Each arrow's visible segment as four arrays (x1, y1, x2, y2), its ends as f64, and whether it shows (all ones) or
 * not (0), for compares of two arrows at a time; one slot of slack past the last arrow.
 */
const segX1 = memory.data((MAX_LINKS + 2) * 8, 16);
const segY1 = memory.data((MAX_LINKS + 2) * 8, 16);
const segX2 = memory.data((MAX_LINKS + 2) * 8, 16);
const segY2 = memory.data((MAX_LINKS + 2) * 8, 16);
const segFrom = memory.data((MAX_LINKS + 2) * 8, 16);
const segTo = memory.data((MAX_LINKS + 2) * 8, 16);
const showing = memory.data((MAX_LINKS + 2) * 8, 16);
/** Lane masks by whether a second lane is in range: [all ones, 0] then [all ones, all ones]. */
const LANES = memory.data<u64>([0xffffffffffffffff, 0, 0xffffffffffffffff, 0xffffffffffffffff]);

const ZERO = f64x2.splat(0);
const HALF = f64x2.splat(0.5);
const ONE = f64x2.splat(1);

/**
 * How many boxes other than its ends (a, b) the visible segment (x1, y1)-(x2, y2) passes through: layout.ts
 * segmentHitsBox on the boxes' inset bounds. The candidates are the boxes whose bounds the segment's do not lie
 * wholly beyond (clipping answers false there: a slab gives a ratio >= 1 past the other's <= 1, or one below 0),
 * found two boxes at a time; they are clipped two at a time, every slab applied under a mask of its direction's
 * sign: a clip's early exits all leave t0 >= t1, so the last test decides as they do. Which boxes and slabs apply
 * changes from arrow to arrow, and branches on them were mispredicted.
 */
@inline function arrowThrough(n: i32, a: i32, b: i32, x1: f64, y1: f64, x2: f64, y2: f64): i32 {
  const right = f64x2.splat(max(x1, x2));
  const left = f64x2.splat(min(x1, x2));
  const bottom = f64x2.splat(max(y1, y2));
  const top = f64x2.splat(min(y1, y2));
  let candidates: u64 = 0;
  for (let i = 0; i < n; i += 2) {
    const o = <usize>i << 3;
    const beyond = v128.or(
      v128.or(f64x2.lt(right, v128.load(insetLeft + o)), f64x2.gt(left, v128.load(insetRight + o))),
      v128.or(f64x2.lt(bottom, v128.load(insetTop + o)), f64x2.gt(top, v128.load(insetBottom + o))),
    );
    candidates |= <u64>(~i64x2.bitmask(beyond) & 3) << <u64>i;
  }
  candidates &= ~((<u64>1 << <u64>a) | (<u64>1 << <u64>b)) & ((<u64>1 << <u64>n) - 1);
  // segmentHitsBox's slabs, as (p, q): (-dx, x1 - lowX), (dx, highX - x1), (-dy, y1 - lowY), (dy, highY - y1). A
  // negative p raises t0 to q / p, a positive one lowers t1 to it. A zero p fails where q < 0, which no candidate
  // has: the segment then runs along the slab's axis, and a q < 0 puts it wholly beyond that side.
  const dx = x2 - x1;
  const dy = y2 - y1;
  const px = f64x2.splat(dx);
  const nx = f64x2.splat(-dx);
  const py = f64x2.splat(dy);
  const ny = f64x2.splat(-dy);
  const sx = f64x2.splat(x1);
  const sy = f64x2.splat(y1);
  const xNegative = f64x2.lt(px, ZERO);
  const xPositive = f64x2.gt(px, ZERO);
  const yNegative = f64x2.lt(py, ZERO);
  const yPositive = f64x2.gt(py, ZERO);
  let hits = 0;
  while (candidates != 0) {
    const i0 = <i32>ctz(candidates);
    candidates &= candidates - 1;
    // A second candidate when there is one; else the first again, its lane not counted.
    const two = <i32>(candidates != 0);
    const i1 = select<i32>(<i32>ctz(candidates), i0, two);
    candidates &= candidates - <u64>two;
    const o0 = <usize>i0 << 3;
    const o1 = <usize>i1 << 3;
    const lowX = f64x2.replace_lane(f64x2.splat(load<f64>(insetLeft + o0)), 1, load<f64>(insetLeft + o1));
    const highX = f64x2.replace_lane(f64x2.splat(load<f64>(insetRight + o0)), 1, load<f64>(insetRight + o1));
    const lowY = f64x2.replace_lane(f64x2.splat(load<f64>(insetTop + o0)), 1, load<f64>(insetTop + o1));
    const highY = f64x2.replace_lane(f64x2.splat(load<f64>(insetBottom + o0)), 1, load<f64>(insetBottom + o1));
    const q1 = f64x2.sub(sx, lowX);
    const q2 = f64x2.sub(highX, sx);
    const q3 = f64x2.sub(sy, lowY);
    const q4 = f64x2.sub(highY, sy);
    const r1 = f64x2.div(q1, nx);
    const r2 = f64x2.div(q2, px);
    const r3 = f64x2.div(q3, ny);
    const r4 = f64x2.div(q4, py);
    let t0 = ZERO;
    let t1 = f64x2.splat(1);
    t0 = v128.bitselect(f64x2.pmax(t0, r1), t0, xPositive);
    t1 = v128.bitselect(f64x2.pmin(t1, r1), t1, xNegative);
    t0 = v128.bitselect(f64x2.pmax(t0, r2), t0, xNegative);
    t1 = v128.bitselect(f64x2.pmin(t1, r2), t1, xPositive);
    t0 = v128.bitselect(f64x2.pmax(t0, r3), t0, yPositive);
    t1 = v128.bitselect(f64x2.pmin(t1, r3), t1, yNegative);
    t0 = v128.bitselect(f64x2.pmax(t0, r4), t0, yNegative);
    t1 = v128.bitselect(f64x2.pmin(t1, r4), t1, yPositive);
    const flat = v128.or(f64x2.ge(lowX, highX), f64x2.ge(lowY, highY));
    const hit = v128.andnot(f64x2.lt(t0, t1), flat);
    hits += <i32>popcnt(i64x2.bitmask(hit) & (1 | (two << 1)));
  }
  return hits;
}

/**
 * How many later showing arrows (k + 1 onwards) the visible segment of arrow k, from box a to box b, crosses:
 * layout.ts segmentsCross, two arrows at a time. Arrows that share a shape meet at its border by design and are not
 * counted. orient's signs multiply to a negative exactly when one cross product is positive and the other negative.
 */
@inline function arrowCrossings(k: i32, links: i32, a: i32, b: i32, x1: f64, y1: f64, x2: f64, y2: f64): i32 {
  const px1 = f64x2.splat(x1);
  const py1 = f64x2.splat(y1);
  const px2 = f64x2.splat(x2);
  const py2 = f64x2.splat(y2);
  const ex = f64x2.splat(x2 - x1);
  const ey = f64x2.splat(y2 - y1);
  const fromShape = f64x2.splat(<f64>a);
  const toShape = f64x2.splat(<f64>b);
  let count = 0;
  for (let m = k + 1; m < links; m += 2) {
    const o = <usize>m << 3;
    const qx1 = v128.load(segX1 + o);
    const qy1 = v128.load(segY1 + o);
    const qx2 = v128.load(segX2 + o);
    const qy2 = v128.load(segY2 + o);
    const fx = f64x2.sub(qx2, qx1);
    const fy = f64x2.sub(qy2, qy1);
    const d1 = f64x2.sub(f64x2.mul(ex, f64x2.sub(qy1, py1)), f64x2.mul(ey, f64x2.sub(qx1, px1)));
    const d2 = f64x2.sub(f64x2.mul(ex, f64x2.sub(qy2, py1)), f64x2.mul(ey, f64x2.sub(qx2, px1)));
    const d3 = f64x2.sub(f64x2.mul(fx, f64x2.sub(py1, qy1)), f64x2.mul(fy, f64x2.sub(px1, qx1)));
    const d4 = f64x2.sub(f64x2.mul(fx, f64x2.sub(py2, qy1)), f64x2.mul(fy, f64x2.sub(px2, qx1)));
    const apart12 = v128.or(v128.and(f64x2.gt(d1, ZERO), f64x2.lt(d2, ZERO)), v128.and(f64x2.lt(d1, ZERO), f64x2.gt(d2, ZERO)));
    const apart34 = v128.or(v128.and(f64x2.gt(d3, ZERO), f64x2.lt(d4, ZERO)), v128.and(f64x2.lt(d3, ZERO), f64x2.gt(d4, ZERO)));
    const c = v128.load(segFrom + o);
    const d = v128.load(segTo + o);
    const touching = v128.or(v128.or(f64x2.eq(c, fromShape), f64x2.eq(c, toShape)), v128.or(f64x2.eq(d, fromShape), f64x2.eq(d, toShape)));
    const live = v128.and(v128.load(showing + o), v128.load(LANES + (<usize>(m + 1 < links) << 4)));
    count += <i32>popcnt(i64x2.bitmask(v128.andnot(v128.and(v128.and(apart12, apart34), live), touching)));
  }
  return count;
}

/**
 * Scores the canvas of `n` boxes (f64 arrays at x, y, w, h) and `links` arrows (i32 ends at from, to) into out:
 * the overlap and crowding penalties, then the off-canvas, sliver, through-shape and crossing counts (f64 each).
 */
export function layoutGeometry(n: i32, links: i32, x: usize, y: usize, w: usize, h: usize, from: usize, to: usize, out: usize): void {
  let overlaps: f64 = 0;
  let crowded: f64 = 0;
  let outside: f64 = 0;
  let slivers: f64 = 0;
  // The weights as vectors, once: globals set at load, read here at every pair otherwise.
  const overlapBaseV = f64x2.splat(overlapBase);
  const overlapDepthV = f64x2.splat(overlapDepth);
  const crowdV = f64x2.splat(crowd);
  const limit = f64x2.splat(minGap);
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 3;
    const ax = load<f64>(x + o);
    const ay = load<f64>(y + o);
    const aw = load<f64>(w + o);
    const ah = load<f64>(h + o);
    if (ax < minX || ay < minY || ax + aw > maxX || ay + ah > maxY) outside++;
    store<f64>(insetLeft + o, ax + throughInset);
    store<f64>(insetRight + o, ax + aw - throughInset);
    store<f64>(insetTop + o, ay + throughInset);
    store<f64>(insetBottom + o, ay + ah - throughInset);
    const short = min(aw, ah);
    if (short < minSide || max(aw, ah) / short > maxAspect) slivers++;
    // The pairs (i, j) two at a time, every term computed and masked to 0 where it does not apply: whether two
    // boxes overlap, crowd or neither changes from pair to pair, and a branch on it was mispredicted about once a
    // pair. Terms are added lane by lane in pair order, so the sums round as layout.ts's do (adding 0 changes none).
    const left = f64x2.splat(ax);
    const top = f64x2.splat(ay);
    const right = f64x2.splat(ax + aw);
    const bottom = f64x2.splat(ay + ah);
    const area = f64x2.splat(aw * ah);
    for (let j = i + 1; j < n; j += 2) {
      const p = <usize>j << 3;
      const bx = v128.load(x + p);
      const by = v128.load(y + p);
      const bw = v128.load(w + p);
      const bh = v128.load(h + p);
      const bRight = f64x2.add(bx, bw);
      const bBottom = f64x2.add(by, bh);
      const iw = f64x2.sub(f64x2.pmin(right, bRight), f64x2.pmax(left, bx));
      const ih = f64x2.sub(f64x2.pmin(bottom, bBottom), f64x2.pmax(top, by));
      const shared = f64x2.mul(iw, ih);
      const inRange = v128.load(LANES + (<usize>(j + 1 < n) << 4));
      const overlap = v128.and(v128.and(f64x2.gt(iw, ZERO), f64x2.gt(ih, ZERO)), v128.and(f64x2.gt(shared, ZERO), inRange));
      const depth = f64x2.div(shared, f64x2.pmin(area, f64x2.mul(bw, bh)));
      const overlapTerm = v128.and(f64x2.add(overlapBaseV, f64x2.mul(overlapDepthV, depth)), overlap);
      // Euclidean gap between the two boxes (0 when they touch).
      const dx = f64x2.pmax(ZERO, f64x2.pmax(f64x2.sub(left, bRight), f64x2.sub(bx, right)));
      const dy = f64x2.pmax(ZERO, f64x2.pmax(f64x2.sub(top, bBottom), f64x2.sub(by, bottom)));
      const gap = f64x2.sqrt(f64x2.add(f64x2.mul(dx, dx), f64x2.mul(dy, dy)));
      const close = v128.andnot(v128.and(f64x2.lt(gap, limit), inRange), overlap);
      const crowdTerm = v128.and(f64x2.div(f64x2.mul(crowdV, f64x2.sub(limit, gap)), limit), close);
      overlaps += f64x2.extract_lane(overlapTerm, 0);
      overlaps += f64x2.extract_lane(overlapTerm, 1);
      crowded += f64x2.extract_lane(crowdTerm, 0);
      crowded += f64x2.extract_lane(crowdTerm, 1);
    }
  }
  // layout.ts segmentInto, two arrows at a time: whether an arrow shows changes from arrow to arrow. A side over a
  // zero distance is Infinity here as in exitAt (w / 2 > 0), and halving is exact, as a multiply or a divide.
  for (let k = 0; k < links; k += 2) {
    const k1 = select<i32>(k + 1, k, k + 1 < links);
    const a0 = <usize>load<i32>(from + (<usize>k << 2)) << 3;
    const a1 = <usize>load<i32>(from + (<usize>k1 << 2)) << 3;
    const b0 = <usize>load<i32>(to + (<usize>k << 2)) << 3;
    const b1 = <usize>load<i32>(to + (<usize>k1 << 2)) << 3;
    const aw = f64x2.replace_lane(f64x2.splat(load<f64>(w + a0)), 1, load<f64>(w + a1));
    const ah = f64x2.replace_lane(f64x2.splat(load<f64>(h + a0)), 1, load<f64>(h + a1));
    const bw = f64x2.replace_lane(f64x2.splat(load<f64>(w + b0)), 1, load<f64>(w + b1));
    const bh = f64x2.replace_lane(f64x2.splat(load<f64>(h + b0)), 1, load<f64>(h + b1));
    const ax = f64x2.replace_lane(f64x2.splat(load<f64>(x + a0)), 1, load<f64>(x + a1));
    const ay = f64x2.replace_lane(f64x2.splat(load<f64>(y + a0)), 1, load<f64>(y + a1));
    const bx = f64x2.replace_lane(f64x2.splat(load<f64>(x + b0)), 1, load<f64>(x + b1));
    const by = f64x2.replace_lane(f64x2.splat(load<f64>(y + b0)), 1, load<f64>(y + b1));
    const cx = f64x2.add(ax, f64x2.mul(aw, HALF));
    const cy = f64x2.add(ay, f64x2.mul(ah, HALF));
    const dx = f64x2.sub(f64x2.add(bx, f64x2.mul(bw, HALF)), cx);
    const dy = f64x2.sub(f64x2.add(by, f64x2.mul(bh, HALF)), cy);
    const adx = f64x2.abs(dx);
    const ady = f64x2.abs(dy);
    const t1 = f64x2.pmin(f64x2.div(f64x2.mul(aw, HALF), adx), f64x2.div(f64x2.mul(ah, HALF), ady));
    const t2 = f64x2.sub(ONE, f64x2.pmin(f64x2.div(f64x2.mul(bw, HALF), adx), f64x2.div(f64x2.mul(bh, HALF), ady)));
    // Boxes with the same centre need no test of their own: both exits are Infinity, and t1 >= t2.
    const shows = v128.not(f64x2.ge(t1, t2));
    const s = <usize>k << 3;
    v128.store(segX1 + s, f64x2.add(cx, f64x2.mul(dx, t1)));
    v128.store(segY1 + s, f64x2.add(cy, f64x2.mul(dy, t1)));
    v128.store(segX2 + s, f64x2.add(cx, f64x2.mul(dx, t2)));
    v128.store(segY2 + s, f64x2.add(cy, f64x2.mul(dy, t2)));
    v128.store(showing + s, shows);
    v128.store(segFrom + s, f64x2.convert_low_i32x4_s(i32x4.replace_lane(i32x4.splat(<i32>(a0 >> 3)), 1, <i32>(a1 >> 3))));
    v128.store(segTo + s, f64x2.convert_low_i32x4_s(i32x4.replace_lane(i32x4.splat(<i32>(b0 >> 3)), 1, <i32>(b1 >> 3))));
  }
  let through = 0;
  let crossings = 0;
  for (let k = 0; k < links; k++) {
    const s = <usize>k << 3;
    if (load<u64>(showing + s) == 0) continue;
    const a = load<i32>(from + (<usize>k << 2));
    const b = load<i32>(to + (<usize>k << 2));
    const x1 = load<f64>(segX1 + s);
    const y1 = load<f64>(segY1 + s);
    const x2 = load<f64>(segX2 + s);
    const y2 = load<f64>(segY2 + s);
    through += arrowThrough(n, a, b, x1, y1, x2, y2);
    crossings += arrowCrossings(k, links, a, b, x1, y1, x2, y2);
  }
  store<f64>(out, overlaps);
  store<f64>(out, crowded, 8);
  store<f64>(out, outside, 16);
  store<f64>(out, slivers, 24);
  store<f64>(out, <f64>through, 32);
  store<f64>(out, <f64>crossings, 40);
}
