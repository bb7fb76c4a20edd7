// Rasterizes an SVG with resvg and the DejaVu Sans file shipped by npm, never the system's fonts, so that a
// PNG looks the same on every machine and its text matches the widths that text.ts measures.
import { createRequire } from 'node:module';
import type { Resvg as ResvgClass } from '@resvg/resvg-js';
import { FONT_FAMILY, FONT_FILE } from './text.ts';

// resvg's native binding is loaded on the first picture, not on import: the commands that import a renderer and draw
// nothing (score without a judge, every reward) spent 30 ms of start-up loading it.
let resvg: typeof ResvgClass | undefined;
const Resvg = (): typeof ResvgClass => (resvg ??= (createRequire(import.meta.url)('@resvg/resvg-js') as { Resvg: typeof ResvgClass }).Resvg);

export interface PngOptions {
  /** Output width in pixels (height follows); overrides `scale`. */
  width?: number;
  /** Pixels per SVG unit; 2 by default, for crisp text on high-density screens. */
  scale?: number;
  /** Longest side allowed, in pixels; a scattered diagram is scaled down to fit. 4096 by default. */
  maxSide?: number;
}

export interface Raster {
  width: number;
  height: number;
  /** Raw RGBA, row by row. */
  pixels: Buffer;
  png: Buffer;
}

export const DEFAULT_MAX_SIDE = 4096;

function positive(name: string, v: number | undefined): number | undefined {
  if (v !== undefined && !(Number.isFinite(v) && v > 0)) throw new RangeError(`${name} must be a positive number, got ${v}`);
  return v;
}

/**
 * The root element's width and height in user units, when both are plain numbers (as renderSvg writes them).
 * Laying out text is most of resvg's work, so this spares parsing the document twice just to learn its size.
 */
function declaredSize(svg: string): { width: number; height: number } | null {
  const root = /<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
  const width = Number(/\swidth="([0-9.]+)"/.exec(root)?.[1]);
  const height = Number(/\sheight="([0-9.]+)"/.exec(root)?.[1]);
  return width > 0 && height > 0 ? { width, height } : null;
}

/** Renders the SVG to pixels and PNG bytes. */
export function rasterize(svg: string, opts: PngOptions = {}): Raster {
  const maxSide = positive('maxSide', opts.maxSide) ?? DEFAULT_MAX_SIDE;
  const font = { loadSystemFonts: false, fontFiles: [FONT_FILE], defaultFontFamily: FONT_FAMILY, sansSerifFamily: FONT_FAMILY };
  const natural = declaredSize(svg) ?? new (Resvg())(svg, { font, logLevel: 'off' });
  const long = Math.max(natural.width, natural.height);
  const wanted = positive('width', opts.width) !== undefined ? opts.width! / natural.width : (positive('scale', opts.scale) ?? 2);
  const zoom = Math.min(wanted, maxSide / long);
  const image = new (Resvg())(svg, { font, logLevel: 'off', fitTo: { mode: 'zoom', value: zoom }, background: '#ffffff' }).render();
  return { width: image.width, height: image.height, pixels: image.pixels, png: image.asPng() };
}

/** PNG bytes of the SVG. */
export function renderPng(svg: string, opts: PngOptions = {}): Buffer {
  return rasterize(svg, opts).png;
}
