// Layout quality from geometry alone: boxes and the arrows between them. Pure functions, so the same score can be
// computed from the toy canvas or from the real editor's shape bounds. Each problem adds a penalty; the score is
// exp(-total), so a clean layout scores exactly 1 and every extra problem keeps costing (no floor at which a worse
// layout stops being worse).
import type { Canvas } from '../env/canvas.ts';
import { LINE_HEIGHT, textWidth } from '../render/text.ts';

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

// Share of a shape's box usable for text: an ellipse or a diamond has less room than its bounding box.
const USABLE: Record<string, number> = { rectangle: 1, text: 1, ellipse: 0.75, diamond: 0.6 };

/**
 * A label measured once, for wrapping at any width: per paragraph, per word, the advance of each character in em.
 * The reward wraps exactly as the renderer's wrapText does, but sums these advances instead of measuring each
 * candidate line again; the sums run left to right over the same characters, so every width is the same float.
 */
interface MeasuredLabel {
  /** [paragraph][word][character] advance in em. */
  paragraphs: Float64Array[][];
}

const SPACE_EM = textWidth(' ', 1);
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
  const label = { paragraphs };
  if (measured.size >= MEASURED_LIMIT) measured.clear();
  measured.set(text, label);
  return label;
}

/** How far a label overflows its shape: 0 when it fits, else the summed relative excess of width and height (<= 2). */
export function textOverflow(box: Box): number {
  if (box.text === '') return 0;
  const label = measureLabel(box.text);
  if (label.paragraphs.length === 1 && label.paragraphs[0].length === 0) return 0;
  const f = USABLE[box.shape] ?? 1;
  const pad = box.shape === 'text' ? 0 : LABEL_PADDING;
  const availW = Math.max(1, box.w * f - 2 * pad);
  const availH = Math.max(1, box.h * f - 2 * pad);
  // Greedy wrap (wrapText): a word joins the line while the line stays within availW; a long word stays whole.
  let lines = 0;
  let needW = 0;
  for (const words of label.paragraphs) {
    let lineEm = 0;
    for (let k = 0; k < words.length; k++) {
      const chars = words[k];
      let em = k === 0 ? 0 : lineEm + SPACE_EM;
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
  const needH = lines * LABEL_FONT_SIZE * LINE_HEIGHT;
  return Math.min(2, Math.max(0, needW / availW - 1) + Math.max(0, needH / availH - 1));
}

/** Euclidean gap between two boxes (0 when they touch or overlap). */
function gap(a: Box, b: Box): number {
  const dx = Math.max(0, a.x - (b.x + b.w), b.x - (a.x + a.w));
  const dy = Math.max(0, a.y - (b.y + b.h), b.y - (a.y + a.h));
  return Math.sqrt(dx * dx + dy * dy);
}

function intersectionArea(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Where a ray from the box's centre along (dx, dy) leaves the box, as a multiple of (dx, dy). */
function exitAt(box: Box, dx: number, dy: number): number {
  return Math.min(dx === 0 ? Infinity : box.w / 2 / Math.abs(dx), dy === 0 ? Infinity : box.h / 2 / Math.abs(dy));
}

/** The visible part of an arrow: the centre-to-centre segment clipped at both shapes' borders; null if none shows. */
export function arrowSegment(a: Box, b: Box): Segment | null {
  const ax = a.x + a.w / 2;
  const ay = a.y + a.h / 2;
  const dx = b.x + b.w / 2 - ax;
  const dy = b.y + b.h / 2 - ay;
  if (dx === 0 && dy === 0) return null;
  const t1 = exitAt(a, dx, dy);
  const t2 = 1 - exitAt(b, dx, dy);
  if (t1 >= t2) return null;
  return { x1: ax + dx * t1, y1: ay + dy * t1, x2: ax + dx * t2, y2: ay + dy * t2 };
}

/** Does the segment pass through the box's interior (shrunk by `inset` so that grazing a corner does not count)? */
function segmentHitsBox(s: Segment, box: Box, inset: number): boolean {
  const minX = box.x + inset;
  const maxX = box.x + box.w - inset;
  const minY = box.y + inset;
  const maxY = box.y + box.h - inset;
  if (minX >= maxX || minY >= maxY) return false;
  // Liang-Barsky: clip the parameter range [0, 1] against each slab (p: direction, q: distance to the slab edge).
  const dx = s.x2 - s.x1;
  const dy = s.y2 - s.y1;
  const ps = [-dx, dx, -dy, dy];
  const qs = [s.x1 - minX, maxX - s.x1, s.y1 - minY, maxY - s.y1];
  let t0 = 0;
  let t1 = 1;
  for (let k = 0; k < 4; k++) {
    const p = ps[k];
    const q = qs[k];
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
  }
  return t0 < t1;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
}

/** Proper crossing only: touching or collinear segments do not count. */
function segmentsCross(p: Segment, q: Segment): boolean {
  const o1 = orient(p.x1, p.y1, p.x2, p.y2, q.x1, q.y1);
  const o2 = orient(p.x1, p.y1, p.x2, p.y2, q.x2, q.y2);
  const o3 = orient(q.x1, q.y1, q.x2, q.y2, p.x1, p.y1);
  const o4 = orient(q.x1, q.y1, q.x2, q.y2, p.x2, p.y2);
  return o1 * o2 < 0 && o3 * o4 < 0;
}

function isOutside(b: Box): boolean {
  return b.x < SANE_CANVAS.minX || b.y < SANE_CANVAS.minY || b.x + b.w > SANE_CANVAS.maxX || b.y + b.h > SANE_CANVAS.maxY;
}

function isSliver(b: Box): boolean {
  const short = Math.min(b.w, b.h);
  return short < MIN_SIDE || Math.max(b.w, b.h) / short > MAX_ASPECT;
}

/** Scores a layout given as geometry. An empty layout scores 0: there is nothing to look at. */
export function scoreLayoutGeometry(boxes: readonly Box[], links: readonly Link[]): LayoutReport {
  const counts: LayoutCounts = {
    shapes: boxes.length,
    overlaps: 0,
    overlapDepth: 0,
    crowded: 0,
    textOverflow: 0,
    outside: 0,
    slivers: 0,
    arrowThroughShape: 0,
    arrowCrossings: 0,
  };
  const penalties = { overlaps: 0, crowded: 0, textOverflow: 0, outside: 0, slivers: 0, arrowThroughShape: 0, arrowCrossings: 0 };
  if (boxes.length === 0) return { score: 0, counts, penalties };

  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i];
    if (isOutside(a)) counts.outside++;
    if (isSliver(a)) counts.slivers++;
    const over = textOverflow(a);
    if (over > OVERFLOW_TOLERANCE) {
      counts.textOverflow++;
      penalties.textOverflow += OVERFLOW_BASE + OVERFLOW_DEPTH * over;
    }
    for (let j = i + 1; j < boxes.length; j++) {
      const b = boxes[j];
      const area = intersectionArea(a, b);
      if (area > 0) {
        const depth = area / Math.min(a.w * a.h, b.w * b.h);
        counts.overlaps++;
        counts.overlapDepth += depth;
        penalties.overlaps += OVERLAP_BASE + OVERLAP_DEPTH * depth;
        continue;
      }
      const g = gap(a, b);
      if (g < MIN_GAP) {
        counts.crowded++;
        penalties.crowded += (CROWD * (MIN_GAP - g)) / MIN_GAP;
      }
    }
  }
  penalties.outside = OUTSIDE * counts.outside;
  penalties.slivers = SLIVER * counts.slivers;

  const segments: (Segment | null)[] = links.map((l) => arrowSegment(boxes[l.from], boxes[l.to]));
  for (let k = 0; k < links.length; k++) {
    const s = segments[k];
    if (!s) continue;
    const { from, to } = links[k];
    for (let i = 0; i < boxes.length; i++) {
      if (i !== from && i !== to && segmentHitsBox(s, boxes[i], 2)) counts.arrowThroughShape++;
    }
    for (let m = k + 1; m < links.length; m++) {
      const t = segments[m];
      const o = links[m];
      // Arrows that share a shape meet at its border by design.
      if (!t || o.from === from || o.from === to || o.to === from || o.to === to) continue;
      if (segmentsCross(s, t)) counts.arrowCrossings++;
    }
  }
  penalties.arrowThroughShape = ARROW_THROUGH_SHAPE * counts.arrowThroughShape;
  penalties.arrowCrossings = ARROW_CROSSING * counts.arrowCrossings;

  let total = 0;
  for (const v of Object.values(penalties)) total += v;
  return { score: Math.exp(-total), counts, penalties };
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
