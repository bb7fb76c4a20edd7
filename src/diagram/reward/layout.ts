// Layout quality from geometry alone: boxes and the arrows between them. Pure functions, so the same score can be
// computed from the toy canvas or from the real editor's shape bounds. Each problem adds a penalty; the score is
// exp(-total), so a clean layout scores exactly 1 and every extra problem keeps costing (no floor at which a worse
// layout stops being worse).
import type { Canvas } from '../language/canvas.ts';
import { LINE_HEIGHT, textWidth } from '../../render/text.ts';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
  text: string;
  /** rectangle, ellipse, diamond or text; other kinds are measured as rectangles. */
  shape: string;
}

/** An arrow between two boxes, by index into the box list. */
export interface Link {
  from: number;
  to: number;
}

export interface LayoutCounts {
  shapes: number;
  /** Pairs of shapes whose interiors intersect. */
  overlaps: number;
  /** Sum over overlapping pairs of intersection area / smaller area, so a full stack counts 1 per pair. */
  overlapDepth: number;
  /** Pairs closer than MIN_GAP without overlapping. */
  crowded: number;
  /** Shapes whose label does not fit inside them at LABEL_FONT_SIZE. */
  textOverflow: number;
  /** Shapes outside SANE_CANVAS. */
  outside: number;
  /** Shapes thinner than MIN_SIDE or more elongated than MAX_ASPECT. */
  slivers: number;
  /** (arrow, shape) pairs where the arrow passes through a shape it does not connect. */
  arrowThroughShape: number;
  /** Pairs of arrows that cross each other. */
  arrowCrossings: number;
}

export interface LayoutReport {
  score: number;
  counts: LayoutCounts;
  /** The penalty each kind of problem contributed; score = exp(-sum). */
  penalties: Record<keyof Omit<LayoutCounts, 'shapes' | 'overlapDepth'>, number>;
}

/** Font size the reward assumes for labels; the renderer should draw labels at this size for the two to agree. */
export const LABEL_FONT_SIZE = 16;
/** Space kept between a label and its shape's border. */
export const LABEL_PADDING = 6;
/** Gap between shapes below which they count as crowded. Clean diagrams use 40-80. */
export const MIN_GAP = 30;
export const MIN_SIDE = 8;
export const MAX_ASPECT = 30;
/** Where a diagram's shapes should lie; anything outside is off any sensible viewport. */
export const SANE_CANVAS = { minX: -1000, minY: -1000, maxX: 5000, maxY: 5000 } as const;

// Penalty weights. An overlap costs at least OVERLAP_BASE however small, so that occasional overlaps show.
const OVERLAP_BASE = 0.3;
const OVERLAP_DEPTH = 1.0;
const CROWD = 0.25;
const OVERFLOW_BASE = 0.1;
const OVERFLOW_DEPTH = 0.3;
const OUTSIDE = 0.5;
const SLIVER = 0.4;
const ARROW_THROUGH_SHAPE = 0.15;
const ARROW_CROSSING = 0.1;
/** Overflow ratio under which a label still counts as fitting (measurement is an estimate). */
const OVERFLOW_TOLERANCE = 0.05;
/** How far inside a box an arrow must pass to count as through it, so that grazing a corner does not. */
const THROUGH_INSET = 2;

// Share of a shape's box usable for text: an ellipse or a diamond has less room than its bounding box.
const USABLE: Record<string, number> = { rectangle: 1, text: 1, ellipse: 0.75, diamond: 0.6 };

/**
 * A label measured once, for wrapping at any width: per paragraph, per word, the advance of each character in em.
 * The reward wraps exactly as the renderer's wrapText does, but sums these advances instead of measuring each
 * candidate line again; the sums run left to right over the same characters, so every width is the same float.
 */
export interface MeasuredLabel {
  /** [paragraph][word][character] advance in em. */
  paragraphs: Float64Array[][];
  /**
   * The widest paragraph set on one line, in em, summed as measuredOverflow sums a line. Each line it tries is a
   * prefix of its paragraph, no wider (the sums only grow), so where this fits nothing wraps.
   */
  widest: number;
}

/** The width of a space in em, measured on first use (the font loads then). */
let spaceEm: number | undefined;
const spaceWidth = () => (spaceEm ??= textWidth(' ', 1));

// Labels recur across a GRPO group and across steps, in many sizes.
const measured = new Map<string, MeasuredLabel>();
const MEASURED_LIMIT = 20_000;

function measureLabel(text: string): MeasuredLabel {
  const hit = measured.get(text);
  if (hit) return hit;
  // wrapText's own splits: paragraphs at line breaks, words at runs of whitespace.
  const paragraphs = text
    .trim()
    .split(/\r?\n/)
    .map((p) => p.split(/\s+/).filter(Boolean).map((word) => Float64Array.from(word, (ch) => textWidth(ch, 1))));
  const label = { paragraphs, widest: widestLine(paragraphs) };
  if (measured.size >= MEASURED_LIMIT) measured.clear();
  measured.set(text, label);
  return label;
}

/** MeasuredLabel.widest: each paragraph's words summed into one line, as measuredOverflow's loop sums them. */
function widestLine(paragraphs: Float64Array[][]): number {
  let widest = 0;
  const space = spaceWidth();
  for (const words of paragraphs) {
    let em = 0;
    for (let k = 0; k < words.length; k++) {
      if (k > 0) em += space;
      const chars = words[k];
      for (let c = 0; c < chars.length; c++) em += chars[c];
    }
    widest = Math.max(widest, em);
  }
  return widest;
}

/** How far a label overflows its shape: 0 when it fits, else the summed relative excess of width and height (<= 2). */
export function textOverflow(box: Box): number {
  return labelOverflow(box.text, box.shape, box.w, box.h);
}

/** textOverflow of a label `text` in a shape of kind `shape`, `w` by `h`. */
function labelOverflow(text: string, shape: string, w: number, h: number): number {
  return text === '' ? 0 : measuredOverflow(measureLabel(text), shape, w, h);
}

/** labelOverflow of a label measured already. */
function measuredOverflow(label: MeasuredLabel, shape: string, w: number, h: number): number {
  if (label.paragraphs.length === 1 && label.paragraphs[0].length === 0) return 0;
  const f = USABLE[shape] ?? 1;
  const pad = shape === 'text' ? 0 : LABEL_PADDING;
  const availW = Math.max(1, w * f - 2 * pad);
  const availH = Math.max(1, h * f - 2 * pad);
  // Greedy wrap (wrapText): a word joins the line while the line stays within availW; a long word stays whole.
  let lines = 0;
  let needW = 0;
  if (label.widest * LABEL_FONT_SIZE <= availW) {
    // Nothing wraps: a line per paragraph, the widest the width needed (the loop's answer, without its sums).
    lines = label.paragraphs.length;
    needW = label.widest * LABEL_FONT_SIZE;
  } else {
    const space = spaceWidth();
    for (const words of label.paragraphs) {
      let lineEm = 0;
      for (let k = 0; k < words.length; k++) {
        const chars = words[k];
        let em = k === 0 ? 0 : lineEm + space;
        for (let c = 0; c < chars.length; c++) em += chars[c];
        if (k > 0 && em * LABEL_FONT_SIZE > availW) {
          lines++;
          needW = Math.max(needW, lineEm * LABEL_FONT_SIZE);
          em = 0;
          for (let c = 0; c < chars.length; c++) em += chars[c];
        }
        lineEm = em;
      }
      lines++;
      needW = Math.max(needW, lineEm * LABEL_FONT_SIZE);
    }
  }
  const needH = lines * LABEL_FONT_SIZE * LINE_HEIGHT;
  return Math.min(2, Math.max(0, needW / availW - 1) + Math.max(0, needH / availH - 1));
}

/**
 * A layout as parallel arrays: `count` boxes (x, y, w, h, label, shape kind) and `links` arrows as box indexes.
 * scoreLayoutGeometry copies its boxes into one kept from call to call, so that it allocates nothing per box or pair.
 */
interface LayoutArrays {
  count: number;
  x: Float64Array;
  y: Float64Array;
  w: Float64Array;
  h: Float64Array;
  text: string[];
  shape: string[];
  links: number;
  from: Int32Array;
  to: Int32Array;
}

/** Empty arrays for up to `boxes` boxes and `links` arrows. */
function layoutArrays(boxes: number, links: number): LayoutArrays {
  const f = () => new Float64Array(boxes);
  return { count: 0, x: f(), y: f(), w: f(), h: f(), text: [], shape: [], links: 0, from: new Int32Array(links), to: new Int32Array(links) };
}

/** Penalty slots, in the order the score sums them; then the counts. */
const P_OVERLAPS = 0;
const P_CROWDED = 1;
const P_OVERFLOW = 2;
const P_OUTSIDE = 3;
const P_SLIVERS = 4;
const P_THROUGH = 5;
const P_CROSSINGS = 6;
const PENALTIES = 7;
const C_OVERLAPS = 7;
const C_DEPTH = 8;
const C_CROWDED = 9;
const C_OVERFLOW = 10;
const C_OUTSIDE = 11;
const C_SLIVERS = 12;
const C_THROUGH = 13;
const C_CROSSINGS = 14;
const TALLY = new Float64Array(15);
/** Each link's visible segment (x1, y1, x2, y2) and whether it shows. */
let segments = new Float64Array(4 * 64);
let showing = new Uint8Array(64);

/**
 * Does the segment pass through the box's interior (shrunk by `inset` so that grazing a corner does not count)?
 * Liang-Barsky: clip the parameter range [0, 1] against each slab (p: direction, q: distance to the slab edge).
 */
function segmentHitsBox(x1: number, y1: number, x2: number, y2: number, bx: number, by: number, bw: number, bh: number, inset: number): boolean {
  const minX = bx + inset;
  const maxX = bx + bw - inset;
  const minY = by + inset;
  const maxY = by + bh - inset;
  if (minX >= maxX || minY >= maxY) return false;
  const dx = x2 - x1;
  const dy = y2 - y1;
  clipT0 = 0;
  clipT1 = 1;
  return clip(-dx, x1 - minX) && clip(dx, maxX - x1) && clip(-dy, y1 - minY) && clip(dy, maxY - y1) && clipT0 < clipT1;
}

let clipT0 = 0;
let clipT1 = 1;

/** One slab of segmentHitsBox: narrows [clipT0, clipT1]; false when the segment misses the slab. */
function clip(p: number, q: number): boolean {
  if (p === 0) return !(q < 0);
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

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
}

/** Proper crossing of segments p and q (offsets into `segments`) only: touching or collinear segments do not count. */
function segmentsCross(s: Float64Array, p: number, q: number): boolean {
  const o1 = orient(s[p], s[p + 1], s[p + 2], s[p + 3], s[q], s[q + 1]);
  const o2 = orient(s[p], s[p + 1], s[p + 2], s[p + 3], s[q + 2], s[q + 3]);
  const o3 = orient(s[q], s[q + 1], s[q + 2], s[q + 3], s[p], s[p + 1]);
  const o4 = orient(s[q], s[q + 1], s[q + 2], s[q + 3], s[p + 2], s[p + 3]);
  return o1 * o2 < 0 && o3 * o4 < 0;
}

/** Where a ray from the box's centre along (dx, dy) leaves the box, as a multiple of (dx, dy). */
function exitAt(w: number, h: number, dx: number, dy: number): number {
  return Math.min(dx === 0 ? Infinity : w / 2 / Math.abs(dx), dy === 0 ? Infinity : h / 2 / Math.abs(dy));
}

/**
 * The visible part of the arrow from box a to box b (the centre-to-centre segment clipped at both borders) into
 * out[at..at+4); false if none shows.
 */
function segmentInto(g: LayoutArrays, a: number, b: number, out: Float64Array, at: number): boolean {
  const ax = g.x[a] + g.w[a] / 2;
  const ay = g.y[a] + g.h[a] / 2;
  const dx = g.x[b] + g.w[b] / 2 - ax;
  const dy = g.y[b] + g.h[b] / 2 - ay;
  if (dx === 0 && dy === 0) return false;
  const t1 = exitAt(g.w[a], g.h[a], dx, dy);
  const t2 = 1 - exitAt(g.w[b], g.h[b], dx, dy);
  if (t1 >= t2) return false;
  out[at] = ax + dx * t1;
  out[at + 1] = ay + dy * t1;
  out[at + 2] = ax + dx * t2;
  out[at + 3] = ay + dy * t2;
  return true;
}

const PAIR = layoutArrays(2, 1);
const PAIR_SEGMENT = new Float64Array(4);

/** The visible part of an arrow: the centre-to-centre segment clipped at both shapes' borders; null if none shows. */
export function arrowSegment(a: Box, b: Box): Segment | null {
  const g = PAIR;
  g.x[0] = a.x;
  g.y[0] = a.y;
  g.w[0] = a.w;
  g.h[0] = a.h;
  g.x[1] = b.x;
  g.y[1] = b.y;
  g.w[1] = b.w;
  g.h[1] = b.h;
  const s = PAIR_SEGMENT;
  return segmentInto(g, 0, 1, s, 0) ? { x1: s[0], y1: s[1], x2: s[2], y2: s[3] } : null;
}

interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Fills TALLY with the layout's penalties and counts; returns the score, exp(-sum of penalties). */
function tallyLayout(g: LayoutArrays): number {
  const t = TALLY;
  t.fill(0);
  const n = g.count;
  if (n === 0) return 0;
  const { x, y, w, h } = g;
  for (let i = 0; i < n; i++) {
    const ax = x[i];
    const ay = y[i];
    const aw = w[i];
    const ah = h[i];
    if (ax < SANE_CANVAS.minX || ay < SANE_CANVAS.minY || ax + aw > SANE_CANVAS.maxX || ay + ah > SANE_CANVAS.maxY) t[C_OUTSIDE]++;
    const short = Math.min(aw, ah);
    if (short < MIN_SIDE || Math.max(aw, ah) / short > MAX_ASPECT) t[C_SLIVERS]++;
    const over = labelOverflow(g.text[i], g.shape[i], aw, ah);
    if (over > OVERFLOW_TOLERANCE) {
      t[C_OVERFLOW]++;
      t[P_OVERFLOW] += OVERFLOW_BASE + OVERFLOW_DEPTH * over;
    }
    for (let j = i + 1; j < n; j++) {
      const bx = x[j];
      const by = y[j];
      const bw = w[j];
      const bh = h[j];
      const iw = Math.min(ax + aw, bx + bw) - Math.max(ax, bx);
      const ih = Math.min(ay + ah, by + bh) - Math.max(ay, by);
      const area = iw > 0 && ih > 0 ? iw * ih : 0;
      if (area > 0) {
        const depth = area / Math.min(aw * ah, bw * bh);
        t[C_OVERLAPS]++;
        t[C_DEPTH] += depth;
        t[P_OVERLAPS] += OVERLAP_BASE + OVERLAP_DEPTH * depth;
        continue;
      }
      // Euclidean gap between the two boxes (0 when they touch).
      const dx = Math.max(0, ax - (bx + bw), bx - (ax + aw));
      const dy = Math.max(0, ay - (by + bh), by - (ay + ah));
      const gap = Math.sqrt(dx * dx + dy * dy);
      if (gap < MIN_GAP) {
        t[C_CROWDED]++;
        t[P_CROWDED] += (CROWD * (MIN_GAP - gap)) / MIN_GAP;
      }
    }
  }
  t[P_OUTSIDE] = OUTSIDE * t[C_OUTSIDE];
  t[P_SLIVERS] = SLIVER * t[C_SLIVERS];

  const links = g.links;
  if (segments.length < 4 * links) {
    segments = new Float64Array(4 * links);
    showing = new Uint8Array(links);
  }
  const s = segments;
  const { from, to } = g;
  for (let k = 0; k < links; k++) showing[k] = segmentInto(g, from[k], to[k], s, 4 * k) ? 1 : 0;
  for (let k = 0; k < links; k++) {
    if (!showing[k]) continue;
    const a = from[k];
    const b = to[k];
    const p = 4 * k;
    for (let i = 0; i < n; i++) {
      if (i !== a && i !== b && segmentHitsBox(s[p], s[p + 1], s[p + 2], s[p + 3], x[i], y[i], w[i], h[i], THROUGH_INSET)) t[C_THROUGH]++;
    }
    for (let m = k + 1; m < links; m++) {
      const c = from[m];
      const d = to[m];
      // Arrows that share a shape meet at its border by design.
      if (!showing[m] || c === a || c === b || d === a || d === b) continue;
      if (segmentsCross(s, p, 4 * m)) t[C_CROSSINGS]++;
    }
  }
  t[P_THROUGH] = ARROW_THROUGH_SHAPE * t[C_THROUGH];
  t[P_CROSSINGS] = ARROW_CROSSING * t[C_CROSSINGS];

  let total = 0;
  for (let k = 0; k < PENALTIES; k++) total += t[k];
  return Math.exp(-total);
}

let scratch = layoutArrays(64, 64);

/** Scores a layout given as geometry. An empty layout scores 0: there is nothing to look at. */
export function scoreLayoutGeometry(boxes: readonly Box[], links: readonly Link[]): LayoutReport {
  if (scratch.x.length < boxes.length || scratch.from.length < links.length) scratch = layoutArrays(2 * boxes.length, 2 * links.length);
  const g = scratch;
  g.count = boxes.length;
  for (let i = 0; i < boxes.length; i++) {
    const b = boxes[i];
    g.x[i] = b.x;
    g.y[i] = b.y;
    g.w[i] = b.w;
    g.h[i] = b.h;
    g.text[i] = b.text;
    g.shape[i] = b.shape;
  }
  g.links = links.length;
  for (let k = 0; k < links.length; k++) {
    g.from[k] = links[k].from;
    g.to[k] = links[k].to;
  }
  const score = tallyLayout(g);
  const t = TALLY;
  const counts: LayoutCounts = {
    shapes: boxes.length,
    overlaps: t[C_OVERLAPS],
    overlapDepth: t[C_DEPTH],
    crowded: t[C_CROWDED],
    textOverflow: t[C_OVERFLOW],
    outside: t[C_OUTSIDE],
    slivers: t[C_SLIVERS],
    arrowThroughShape: t[C_THROUGH],
    arrowCrossings: t[C_CROSSINGS],
  };
  const penalties = {
    overlaps: t[P_OVERLAPS],
    crowded: t[P_CROWDED],
    textOverflow: t[P_OVERFLOW],
    outside: t[P_OUTSIDE],
    slivers: t[P_SLIVERS],
    arrowThroughShape: t[P_THROUGH],
    arrowCrossings: t[P_CROSSINGS],
  };
  return { score, counts, penalties };
}

/** Layout of a toy canvas: its shapes as boxes, its arrows as links. */
export function scoreCanvasLayout(canvas: Canvas): LayoutReport {
  const index = new Map<string, number>();
  const boxes: Box[] = [];
  for (const s of canvas.shapes.values()) {
    index.set(s.id, boxes.length);
    boxes.push(s);
  }
  const links: Link[] = [];
  for (const a of canvas.arrows) {
    const from = index.get(a.from);
    const to = index.get(a.to);
    if (from !== undefined && to !== undefined) links.push({ from, to });
  }
  return scoreLayoutGeometry(boxes, links);
}
