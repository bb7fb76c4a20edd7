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
/** Each arrow's visible segment (x1, y1, x2, y2) and whether it shows. */
const segments = memory.data(MAX_LINKS * 32, 16);
const showing = memory.data(MAX_LINKS);

let clipT0: f64 = 0;
let clipT1: f64 = 1;

/** One slab of segmentHitsBox (layout.ts clip). */
@inline function clip(p: f64, q: f64): bool {
  if (p == 0) return !(q < 0);
  const r = q / p;
  if (p < 0) {
    if (r > clipT1) return false;
    if (r > clipT0) clipT0 = r;
  } else {
    if (r < clipT0) return false;
    if (r < clipT1) clipT1 = r;
  }
  return true;
}

/** layout.ts segmentHitsBox. */
function segmentHitsBox(x1: f64, y1: f64, x2: f64, y2: f64, bx: f64, by: f64, bw: f64, bh: f64, inset: f64): bool {
  const lowX = bx + inset;
  const highX = bx + bw - inset;
  const lowY = by + inset;
  const highY = by + bh - inset;
  if (lowX >= highX || lowY >= highY) return false;
  const dx = x2 - x1;
  const dy = y2 - y1;
  clipT0 = 0;
  clipT1 = 1;
  return clip(-dx, x1 - lowX) && clip(dx, highX - x1) && clip(-dy, y1 - lowY) && clip(dy, highY - y1) && clipT0 < clipT1;
}

/** Math.sign. */
@inline function sign(v: f64): f64 {
  return v > 0 ? 1 : v < 0 ? -1 : v;
}

@inline function orient(ax: f64, ay: f64, bx: f64, by: f64, cx: f64, cy: f64): f64 {
  return sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
}

/** layout.ts segmentsCross on segments p and q (addresses). */
function segmentsCross(p: usize, q: usize): bool {
  const px1 = load<f64>(p);
  const py1 = load<f64>(p, 8);
  const px2 = load<f64>(p, 16);
  const py2 = load<f64>(p, 24);
  const qx1 = load<f64>(q);
  const qy1 = load<f64>(q, 8);
  const qx2 = load<f64>(q, 16);
  const qy2 = load<f64>(q, 24);
  const o1 = orient(px1, py1, px2, py2, qx1, qy1);
  const o2 = orient(px1, py1, px2, py2, qx2, qy2);
  const o3 = orient(qx1, qy1, qx2, qy2, px1, py1);
  const o4 = orient(qx1, qy1, qx2, qy2, px2, py2);
  return o1 * o2 < 0 && o3 * o4 < 0;
}

/** layout.ts exitAt. */
@inline function exitAt(w: f64, h: f64, dx: f64, dy: f64): f64 {
  return min(dx == 0 ? Infinity : w / 2 / abs(dx), dy == 0 ? Infinity : h / 2 / abs(dy));
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
    for (let j = i + 1; j < n; j++) {
      const p = <usize>j << 3;
      const bx = load<f64>(x + p);
      const by = load<f64>(y + p);
      const bw = load<f64>(w + p);
      const bh = load<f64>(h + p);
      // Boxes at least minGap apart along one axis neither overlap nor crowd (the gap is at least that axis's
      // distance, and rounding is monotone): skipped before the overlap test and the square root.
      if (bx - (ax + aw) >= minGap || ax - (bx + bw) >= minGap || by - (ay + ah) >= minGap || ay - (by + bh) >= minGap) continue;
      const iw = min(ax + aw, bx + bw) - max(ax, bx);
      const ih = min(ay + ah, by + bh) - max(ay, by);
      const area = iw > 0 && ih > 0 ? iw * ih : 0;
      if (area > 0) {
        const depth = area / min(aw * ah, bw * bh);
        overlaps += overlapBase + overlapDepth * depth;
        continue;
      }
      // Euclidean gap between the two boxes (0 when they touch).
      const dx = max(0, max(ax - (bx + bw), bx - (ax + aw)));
      const dy = max(0, max(ay - (by + bh), by - (ay + ah)));
      const gap = sqrt(dx * dx + dy * dy);
      if (gap < minGap) crowded += (crowd * (minGap - gap)) / minGap;
    }
  }
  // layout.ts segmentInto for each arrow.
  for (let k = 0; k < links; k++) {
    const a = <usize>load<i32>(from + (<usize>k << 2)) << 3;
    const b = <usize>load<i32>(to + (<usize>k << 2)) << 3;
    const aw = load<f64>(w + a);
    const ah = load<f64>(h + a);
    const cx = load<f64>(x + a) + aw / 2;
    const cy = load<f64>(y + a) + ah / 2;
    const dx = load<f64>(x + b) + load<f64>(w + b) / 2 - cx;
    const dy = load<f64>(y + b) + load<f64>(h + b) / 2 - cy;
    let shows = false;
    if (!(dx == 0 && dy == 0)) {
      const t1 = exitAt(aw, ah, dx, dy);
      const t2 = 1 - exitAt(load<f64>(w + b), load<f64>(h + b), dx, dy);
      if (!(t1 >= t2)) {
        const s = segments + (<usize>k << 5);
        store<f64>(s, cx + dx * t1);
        store<f64>(s, cy + dy * t1, 8);
        store<f64>(s, cx + dx * t2, 16);
        store<f64>(s, cy + dy * t2, 24);
        shows = true;
      }
    }
    store<u8>(showing + <usize>k, shows ? 1 : 0);
  }
  let through: f64 = 0;
  let crossings: f64 = 0;
  for (let k = 0; k < links; k++) {
    if (!load<u8>(showing + <usize>k)) continue;
    const a = load<i32>(from + (<usize>k << 2));
    const b = load<i32>(to + (<usize>k << 2));
    const s = segments + (<usize>k << 5);
    const x1 = load<f64>(s);
    const y1 = load<f64>(s, 8);
    const x2 = load<f64>(s, 16);
    const y2 = load<f64>(s, 24);
    const leftX = min(x1, x2);
    const rightX = max(x1, x2);
    const topY = min(y1, y2);
    const bottomY = max(y1, y2);
    // The boxes the segment may cross, as bits: those it lies wholly beyond one side of (segmentHitsBox's clipping
    // answers false there: a slab gives a ratio >= 1 past the other's <= 1, or one below 0) are dropped two at a
    // time, without a branch per box; which boxes those are changes from arrow to arrow.
    const right = f64x2.splat(rightX);
    const left = f64x2.splat(leftX);
    const bottom = f64x2.splat(bottomY);
    const top = f64x2.splat(topY);
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
    while (candidates != 0) {
      const i = <i32>ctz(candidates);
      candidates &= candidates - 1;
      const o = <usize>i << 3;
      if (segmentHitsBox(x1, y1, x2, y2, load<f64>(x + o), load<f64>(y + o), load<f64>(w + o), load<f64>(h + o), throughInset)) through++;
    }
    for (let m = k + 1; m < links; m++) {
      const c = load<i32>(from + (<usize>m << 2));
      const d = load<i32>(to + (<usize>m << 2));
      // Arrows that share a shape meet at its border by design.
      if (!load<u8>(showing + <usize>m) || c == a || c == b || d == a || d == b) continue;
      if (segmentsCross(s, segments + (<usize>m << 5))) crossings++;
    }
  }
  store<f64>(out, overlaps);
  store<f64>(out, crowded, 8);
  store<f64>(out, outside, 16);
  store<f64>(out, slivers, 24);
  store<f64>(out, through, 32);
  store<f64>(out, crossings, 40);
}
