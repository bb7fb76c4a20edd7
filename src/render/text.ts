// Text measurement with the font the PNG renderer ships (DejaVu Sans), so that "does this label fit its shape"
// in the reward and the wrapped lines in the picture agree.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const FONT_FAMILY = 'DejaVu Sans';
export const FONT_FILE = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
export const LINE_HEIGHT = 1.25;

let advances: Map<number, number> | null = null;
let fallbackAdvance = 0.6;

function advanceOf(codePoint: number): number {
  if (!advances) {
    // Loaded on first use: opentype.js takes about half a second to load, and most commands measure no text.
    const opentype = require('opentype.js') as typeof import('opentype.js');
    const buf = readFileSync(FONT_FILE);
    const font = opentype.parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    advances = new Map();
    for (let cp = 32; cp < 0x250; cp++) {
      const glyph = font.charToGlyph(String.fromCodePoint(cp));
      if (glyph.index !== 0 && glyph.advanceWidth !== undefined) advances.set(cp, glyph.advanceWidth / font.unitsPerEm);
    }
    fallbackAdvance = advances.get(0x4d) ?? fallbackAdvance;
  }
  // Characters outside the table (CJK, emoji) are wide: measure them as an em-wide "M" so that they never fit for free.
  return advances.get(codePoint) ?? fallbackAdvance;
}

/** Width of one line of text in canvas units at `fontSize`. */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const ch of text) em += advanceOf(ch.codePointAt(0)!);
  return em * fontSize;
}

/** Greedy word wrap to `maxWidth`; a word longer than a line stays whole (and overflows, which the reward sees). */
export function wrapText(text: string, maxWidth: number, fontSize: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (line && textWidth(candidate, fontSize) > maxWidth) {
        lines.push(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    lines.push(line);
  }
  return lines;
}
