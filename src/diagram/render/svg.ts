// Draws a canvas as a standalone SVG: soft-filled shapes with centred, wrapped labels, straight arrows clipped to
// shape borders, an optional title (the prompt) and an optional footer listing refused actions.
// Geometry is computed in float64 and written relative to the drawing's own origin, so huge canvas coordinates
// survive renderers that work in float32.
import type { Canvas, Shape } from '../language/canvas.ts';
import type { ShapeKind } from '../language/actions.ts';
import { arrowLanes, arrowPath, center, distance, radius, type ArrowPath, type Point } from './geometry.ts';
import { FONT_FAMILY, LINE_HEIGHT, textWidth, wrapText } from '../../render/text.ts';
import { escapeXml } from '../../io/xml.ts';

export interface SvgOptions {
  /** Shown above the diagram, e.g. the prompt the diagram answers. */
  title?: string;
  /** Shown below the diagram, one per line, e.g. refused actions. */
  errors?: string[];
  /** Margin around everything, in canvas units. */
  padding?: number;
}

interface Style {
  fill: string;
  stroke: string;
}

const STYLE: Record<ShapeKind, Style> = {
  rectangle: { fill: '#dbe8fb', stroke: '#1e3a5f' },
  ellipse: { fill: '#d9f2e1', stroke: '#1d4d32' },
  diamond: { fill: '#fdf0c8', stroke: '#6b4310' },
  text: { fill: 'none', stroke: 'none' },
};
const INK = '#1f2933';
const ARROW = '#3d4652';
const ERROR_INK = '#b42318';
const MUTED = '#52606d';
const STROKE_WIDTH = 2;

const LABEL_SIZE = 16;
/** Labels shrink on one line down to this size before they wrap. */
const ONE_LINE_MIN = 13;
const LABEL_MIN = 10;
const PAD_X = 8;
const PAD_Y = 5;
const ARROW_LABEL_SIZE = 13;
const ARROW_LABEL_WIDTH = 160;
const ARROW_LABEL_MIN_WIDTH = 70;
const ARROW_LABEL_LINES = 3;
/** Arrow visible on each side of a label sitting on it, arrowhead included. */
const LABEL_CLEARANCE = 24;
/** Tip of the arrowhead to the end of the drawn line: the line stops inside the head so its butt end never shows. */
const HEAD_INSET = 8;
const LANE_WIDTH = 22;
const TITLE_SIZE = 15;
const TITLE_LINES = 4;
const FOOTER_SIZE = 12;
const FOOTER_LINES = 8;
/**
 * Characters of a label that are drawn. Nobody reads more in a diagram, and resvg lays text out at about 0.2 ms a
 * character, so 40 shapes with 5000-character labels would otherwise take half a minute to rasterize.
 */
const MAX_LABEL_CHARS = 300;
/** Title and footer wrap to the drawing's width, within these bounds. */
const COLUMN_MIN = 480;
const MAX_TITLE_CHARS = 1000;
const COLUMN_MAX = 1000;
const ELLIPSIS = '\u2026';
/** Farthest apart (in canvas units) that shapes are drawn; beyond it positions are scaled down. */
const MAX_SPREAD = 6_000;

const formatFactor = (f: number): string => (f < 1e6 ? String(Math.round(f)) : f.toExponential(1));


const num = (n: number): string => String(Math.round(n * 100) / 100);

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface FittedLabel {
  size: number;
  lines: string[];
}

/** Cuts a line to `maxWidth` with an ellipsis. */
function ellipsize(line: string, maxWidth: number, size: number): string {
  if (textWidth(line, size) <= maxWidth) return line;
  // No DejaVu glyph is narrower than a quarter em, so characters past this count cannot fit anyway.
  const chars = [...line].slice(0, Math.ceil(maxWidth / (0.25 * size)) + 1);
  while (chars.length > 0 && textWidth(chars.join('') + ELLIPSIS, size) > maxWidth) chars.pop();
  return chars.join('').trimEnd() + ELLIPSIS;
}

/** Keeps at most `max` lines, marking the cut on the last one. */
function capLines(lines: string[], max: number, maxWidth: number, size: number): string[] {
  const kept = lines.map((l) => ellipsize(l, maxWidth, size));
  if (kept.length <= max) return kept;
  const head = kept.slice(0, max);
  head[max - 1] = ellipsize(head[max - 1] + ELLIPSIS, maxWidth, size);
  return head;
}

/** Width available to a block of text of half-height `halfH` centred in the shape (0 when it does not fit at all). */
function widthAt(kind: ShapeKind, w: number, h: number, halfH: number): number {
  const r = halfH / (h / 2);
  if (kind === 'ellipse') return r >= 1 ? 0 : w * Math.sqrt(1 - r * r) - 2 * PAD_X;
  if (kind === 'diamond') return r >= 1 ? 0 : w * (1 - r) - 2 * PAD_X;
  return halfH * 2 <= h - 2 * PAD_Y ? w - 2 * PAD_X : 0;
}

const fits = (lines: string[], width: number, size: number) => lines.every((l) => textWidth(l, size) <= width);

/**
 * Fits a label inside a shape: one line, shrinking down to a comfortable size; then wrapped, shrinking down to the
 * minimum; and if even that fails, the minimum size cut to the box with an ellipsis.
 */
export function fitLabel(kind: ShapeKind, w: number, h: number, text: string): FittedLabel {
  const label = [...text].length > MAX_LABEL_CHARS ? [...text].slice(0, MAX_LABEL_CHARS).join('') + ELLIPSIS : text;
  if (!/\n/.test(label)) {
    for (let size = LABEL_SIZE; size >= ONE_LINE_MIN; size -= 0.5) {
      const width = widthAt(kind, w, h, (size * LINE_HEIGHT) / 2);
      if (width > 0 && textWidth(label.trim(), size) <= width) return { size, lines: [label.trim()] };
    }
  }
  for (let size = LABEL_SIZE; size >= LABEL_MIN; size -= 0.5) {
    for (let k = 1; ; k++) {
      const width = widthAt(kind, w, h, (k * size * LINE_HEIGHT) / 2);
      if (width <= 0) break;
      const lines = wrapText(label, width, size);
      if (lines.length <= k && fits(lines, width, size)) return { size, lines };
    }
  }
  const width = Math.max(widthAt(kind, w, h, (LABEL_MIN * LINE_HEIGHT) / 2), w - 2 * PAD_X, LABEL_MIN * 2);
  const room = Math.max(1, Math.floor((h - 2 * PAD_Y) / (LABEL_MIN * LINE_HEIGHT)));
  return { size: LABEL_MIN, lines: capLines(wrapText(label, width, LABEL_MIN), room, width, LABEL_MIN) };
}

/** Lines of text centred on (cx, cy); the baseline sits 0.36 em below each line's middle, which centres DejaVu's capitals. */
function textBlock(lines: string[], cx: number, cy: number, size: number, fill: string, cls: string): string {
  const lh = size * LINE_HEIGHT;
  const top = cy - (lines.length * lh) / 2;
  const spans = lines
    .map((l, i) => `<tspan x="${num(cx)}" y="${num(top + lh * (i + 0.5) + size * 0.36)}">${escapeXml(l)}</tspan>`)
    .join('');
  return `<text class="${cls}" text-anchor="middle" font-size="${num(size)}" fill="${fill}">${spans}</text>`;
}

function blockBox(lines: string[], cx: number, cy: number, size: number): Box {
  const w = Math.max(0, ...lines.map((l) => textWidth(l, size)));
  const h = lines.length * size * LINE_HEIGHT;
  return { x: cx - w / 2, y: cy - h / 2, w, h };
}

interface ArrowLayout {
  from: string;
  to: string;
  path: ArrowPath;
  label?: { lines: string[]; box: Box; at: Point };
}

function layoutArrows(canvas: Canvas): ArrowLayout[] {
  const lanes = arrowLanes(canvas.arrows);
  return canvas.arrows.map((a, i) => {
    const from = canvas.shapes.get(a.from)!;
    const to = canvas.shapes.get(a.to)!;
    const { lane, of } = lanes[i];
    let offset = 0;
    if (of > 1) {
      const c0 = center(from);
      const c1 = center(to);
      const normal = { x: c1.y - c0.y, y: -(c1.x - c0.x) };
      const room = Math.hypot(normal.x, normal.y) > 0 ? Math.min(radius(from, normal), radius(to, normal)) : 0;
      // Spread the lanes over at most 70% of the narrower shape, so every lane still starts and ends inside it.
      offset = lane * Math.min(LANE_WIDTH, (1.4 * room) / of);
    }
    const path = arrowPath(from, to, offset);
    const text = a.text.trim();
    if (!text) return { from: a.from, to: a.to, path };
    const len = distance(path.start, path.end);
    // A label may be as wide as the arrow it names, within limits.
    const wrap = Math.min(ARROW_LABEL_WIDTH, Math.max(ARROW_LABEL_MIN_WIDTH, len - 2 * HEAD_INSET));
    const lines = capLines(wrapText(text.slice(0, MAX_LABEL_CHARS), wrap, ARROW_LABEL_SIZE), ARROW_LABEL_LINES, wrap, ARROW_LABEL_SIZE);
    const mid = { x: (path.start.x + path.end.x) / 2, y: (path.start.y + path.end.y) / 2 };
    const { w: bw, h: bh } = blockBox(lines, 0, 0, ARROW_LABEL_SIZE);
    const u = len > 0 ? { x: (path.end.x - path.start.x) / len, y: (path.end.y - path.start.y) / len } : { x: 1, y: 0 };
    const alongExtent = Math.abs(u.x) * bw + Math.abs(u.y) * bh;
    let at = mid;
    // The middle one of an odd number of arrows sharing a pair keeps its label on the line: both sides are taken.
    const crowded = of > 1 && lane === 0;
    if (lane !== 0 || (!crowded && alongExtent + 2 * LABEL_CLEARANCE > len)) {
      // Beside the arrow rather than on it: when arrows share a pair, on the side away from the others;
      // when the label would hide most of a short arrow, above it (or to its right when it is steep).
      let n = { x: u.y, y: -u.x };
      if (lane !== 0) n = { x: n.x * Math.sign(lane), y: n.y * Math.sign(lane) };
      else if (n.y > 0.2 || (Math.abs(n.y) <= 0.2 && n.x < 0)) n = { x: -n.x, y: -n.y };
      const push = Math.abs(n.x) * (bw / 2 + 6) + Math.abs(n.y) * (bh / 2 + 3);
      at = { x: mid.x + n.x * push, y: mid.y + n.y * push };
    }
    return { from: a.from, to: a.to, path, label: { lines, at, box: blockBox(lines, at.x, at.y, ARROW_LABEL_SIZE) } };
  });
}

interface ShapeLayout {
  shape: Shape;
  label: FittedLabel;
  labelBox: Box;
}

function union(boxes: Box[]): Box {
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.w));
  const y1 = Math.max(...boxes.map((b) => b.y + b.h));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

function outline(s: Shape, dx: number, dy: number): string {
  const { fill, stroke } = STYLE[s.shape];
  const x = s.x + dx;
  const y = s.y + dy;
  // Fills let a little through, so that a shape hidden under another still shows.
  const paint = `fill="${fill}" fill-opacity="0.9" stroke="${stroke}" stroke-width="${STROKE_WIDTH}"`;
  switch (s.shape) {
    case 'rectangle': {
      const r = Math.min(10, s.w * 0.15, s.h * 0.15);
      return `<rect x="${num(x)}" y="${num(y)}" width="${num(s.w)}" height="${num(s.h)}" rx="${num(r)}" ${paint}/>`;
    }
    case 'ellipse':
      return `<ellipse cx="${num(x + s.w / 2)}" cy="${num(y + s.h / 2)}" rx="${num(s.w / 2)}" ry="${num(s.h / 2)}" ${paint}/>`;
    case 'diamond': {
      const pts = [
        [x + s.w / 2, y],
        [x + s.w, y + s.h / 2],
        [x + s.w / 2, y + s.h],
        [x, y + s.h / 2],
      ];
      return `<polygon points="${pts.map(([px, py]) => `${num(px)},${num(py)}`).join(' ')}" stroke-linejoin="round" ${paint}/>`;
    }
    case 'text':
      return '';
  }
}

/**
 * The canvas moved to start at the origin and, when its shapes lie more than MAX_SPREAD units apart, drawn closer
 * together (sizes kept), so that a scattered diagram still shows its shapes and stays within float32 range.
 */
function gather(canvas: Canvas): { canvas: Canvas; factor: number; spread: number } {
  const list = canvas.shapeList();
  if (list.length === 0) return { canvas, factor: 1, spread: 0 };
  const x0 = Math.min(...list.map((s) => s.x));
  const y0 = Math.min(...list.map((s) => s.y));
  // Halved differences cannot overflow, even between coordinates of opposite sign near the float64 limit.
  const half = Math.max(...list.map((s) => Math.max(s.x / 2 - x0 / 2, s.y / 2 - y0 / 2)));
  const factor = half * 2 > MAX_SPREAD ? MAX_SPREAD / 2 / half : 1;
  const moved = canvas.clone();
  for (const s of moved.shapes.values()) {
    s.x = (s.x / 2 - x0 / 2) * (2 * factor);
    s.y = (s.y / 2 - y0 / 2) * (2 * factor);
  }
  const spread = half * 2;
  return { canvas: moved, factor, spread };
}

/** The canvas as an SVG document. An empty canvas draws an empty frame with a note. */
export function renderSvg(original: Canvas, opts: SvgOptions = {}): string {
  const pad = opts.padding ?? 32;
  const { canvas, factor, spread } = gather(original);
  const shapes: ShapeLayout[] = canvas.shapeList().map((shape) => {
    const label = shape.text.trim() ? fitLabel(shape.shape, shape.w, shape.h, shape.text) : { size: LABEL_SIZE, lines: [] };
    const c = center(shape);
    return { shape, label, labelBox: blockBox(label.lines, c.x, c.y, label.size) };
  });
  const arrows = layoutArrows(canvas);
  const empty = shapes.length === 0;
  const content: Box = empty
    ? { x: 0, y: 0, w: 240, h: 80 }
    : union([
        ...shapes.flatMap((s) => [s.shape, s.labelBox]),
        ...arrows.flatMap((a) => (a.label ? [a.label.box] : [])),
      ]);

  const column = Math.min(COLUMN_MAX, Math.max(content.w, COLUMN_MIN));
  const title = opts.title?.trim() ? capLines(wrapText(opts.title.trim().slice(0, MAX_TITLE_CHARS), column, TITLE_SIZE), TITLE_LINES, column, TITLE_SIZE) : [];
  const errors = opts.errors ?? [];
  const notes = factor < 1 ? [`Shapes drawn ${formatFactor(1 / factor)}× closer together: the canvas spans ${Number.isFinite(spread) ? spread.toPrecision(3) : 'over 1e308'} units.`] : [];
  const refusals = errors.length
    ? [`${errors.length} refused action${errors.length === 1 ? '' : 's'}:`, ...errors.slice(0, FOOTER_LINES - 1).map((e) => `\u2022 ${e}`)].concat(
        errors.length > FOOTER_LINES - 1 ? [`\u2026 and ${errors.length - (FOOTER_LINES - 1)} more`] : [],
      )
    : [];
  const footer = [
    ...capLines(notes, notes.length, column, FOOTER_SIZE).map((text) => ({ text, fill: MUTED })),
    ...capLines(refusals, refusals.length, column, FOOTER_SIZE).map((text) => ({ text, fill: ERROR_INK })),
  ];
  const textW = (lines: string[], size: number) => Math.max(0, ...lines.map((l) => textWidth(l, size)));
  const width = Math.max(content.w, textW(title, TITLE_SIZE), textW(footer.map((l) => l.text), FOOTER_SIZE)) + 2 * pad;
  const titleH = title.length ? title.length * TITLE_SIZE * LINE_HEIGHT + 20 : 0;
  const footerH = footer.length ? footer.length * FOOTER_SIZE * LINE_HEIGHT + 20 : 0;
  const height = content.h + titleH + footerH + 2 * pad;
  const dx = (width - content.w) / 2 - content.x;
  const dy = pad + titleH - content.y;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}" font-family="${FONT_FAMILY}, sans-serif">`,
    `<defs><marker id="cg-head" viewBox="0 0 12 12" refX="${12 - HEAD_INSET}" refY="6" markerWidth="12" markerHeight="12" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,1 L12,6 L0,11 Z" fill="${ARROW}"/></marker></defs>`,
    `<rect class="background" width="100%" height="100%" fill="#ffffff"/>`,
  );
  if (title.length) {
    const lh = TITLE_SIZE * LINE_HEIGHT;
    out.push(textBlock(title, width / 2, pad + (title.length * lh) / 2, TITLE_SIZE, MUTED, 'title'));
  }
  if (empty) out.push(textBlock(['(empty canvas)'], width / 2, dy + content.h / 2, LABEL_SIZE, MUTED, 'empty'));

  out.push('<g class="shapes">');
  for (const { shape: s, label } of shapes) {
    const c = center(s);
    const inner = s.shape === 'text' && label.lines.length ? textBlock(label.lines, c.x + dx, c.y + dy, label.size, INK, 'label') : outline(s, dx, dy);
    out.push(`<g class="shape" data-id="${escapeXml(s.id)}" data-kind="${s.shape}">${inner}</g>`);
  }
  out.push('</g>', '<g class="arrows">');
  for (const a of arrows) {
    const { start, end } = a.path;
    const len = distance(start, end);
    const inset = Math.min(HEAD_INSET, len / 2);
    const stop = len > 0 ? { x: end.x - ((end.x - start.x) / len) * inset, y: end.y - ((end.y - start.y) / len) * inset } : end;
    out.push(
      `<g class="arrow" data-from="${escapeXml(a.from)}" data-to="${escapeXml(a.to)}" data-start="${num(start.x + dx)},${num(start.y + dy)}" data-end="${num(end.x + dx)},${num(end.y + dy)}">` +
        `<path d="M${num(start.x + dx)},${num(start.y + dy)} L${num(stop.x + dx)},${num(stop.y + dy)}" fill="none" stroke="${ARROW}" stroke-width="${STROKE_WIDTH}" stroke-linecap="round" marker-end="url(#cg-head)"/></g>`,
    );
  }
  out.push('</g>', '<g class="labels">');
  for (const { shape: s, label } of shapes) {
    if (s.shape === 'text' || !label.lines.length) continue;
    const c = center(s);
    out.push(textBlock(label.lines, c.x + dx, c.y + dy, label.size, INK, 'label'));
  }
  out.push('</g>', '<g class="arrow-labels">');
  for (const a of arrows) {
    if (!a.label) continue;
    const b = a.label.box;
    out.push(
      `<rect x="${num(b.x + dx - 4)}" y="${num(b.y + dy - 1)}" width="${num(b.w + 8)}" height="${num(b.h + 2)}" rx="4" fill="#ffffff" fill-opacity="0.92"/>`,
      textBlock(a.label.lines, a.label.at.x + dx, a.label.at.y + dy, ARROW_LABEL_SIZE, ARROW, 'arrow-label'),
    );
  }
  out.push('</g>');
  if (footer.length) {
    const lh = FOOTER_SIZE * LINE_HEIGHT;
    const top = height - pad - footer.length * lh;
    const spans = footer
      .map((l, i) => `<tspan x="${num(pad)}" y="${num(top + lh * (i + 0.5) + FOOTER_SIZE * 0.36)}" fill="${l.fill}">${escapeXml(l.text)}</tspan>`)
      .join('');
    out.push(`<text class="footer" font-size="${FOOTER_SIZE}">${spans}</text>`);
  }
  out.push('</svg>');
  return out.join('\n');
}
