// assembly/strong-overflow.ts adds the label overflow and sums the layout's penalties as layout.ts's
// layoutScoreFromGeometry does, on labels measured once per intern epoch and handed over by strong-fast.ts: the
// score must be layoutScore's to the bit, for every shape kind, size and label (paragraphs, blank lines, long words,
// wide and non-ASCII characters), across intern epochs, and (from JavaScript) for a label too long to intern.
import { describe, expect, it } from 'vitest';
import { mulberry32 as rng } from '../src/random.ts';
import { textWidth } from '../src/render/text.ts';
import { jsonReader } from '../src/reward/fast-json.ts';
import { LABEL_FONT_SIZE, LABEL_PADDING, layoutScore, measureLabel } from '../src/reward/layout.ts';
import type { ScoreInput } from '../src/reward/rubric.ts';
import { executeCountsFast } from '../src/reward/strong-fast.ts';
import { analyzeStrong, strongRubric } from '../src/reward/strong.ts';

const KINDS = ['rectangle', 'ellipse', 'diamond', 'text'];
const CHARS = ['a', 'e', 'i', 'l', 'm', 'W', 'M', '1', '.', '-', 'é', 'ß', '中', '😀', 'Ω'];
/** A space's advance in em, as the wrap adds it between words (layout.ts SPACE_EM). */
const textSpace = textWidth(' ', 1);
const SEPARATORS = [' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\n\n', ' \n '];

/** A label of 0 to 8 words of 1 to 14 characters, between spaces, tabs and line breaks (blank lines too). */
function label(r: () => number): string {
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  if (r() < 0.05) return pick(['', ' ', '\n', ' \n ']);
  const words = Math.floor(r() * 9);
  let s = r() < 0.1 ? pick(SEPARATORS) : '';
  for (let k = 0; k < words; k++) {
    if (k > 0) s += pick(SEPARATORS);
    const n = 1 + Math.floor(r() * (r() < 0.1 ? 30 : 10));
    for (let c = 0; c < n; c++) s += pick(CHARS);
  }
  return s + (r() < 0.1 ? pick(SEPARATORS) : '');
}

function shape(r: () => number, i: number, text: string | undefined): object {
  const side = () => (r() < 0.5 ? 8 + Math.floor(r() * 200) : 1 + r() * 999);
  const s: Record<string, unknown> = { type: 'create_shape', id: `s${i}`, shape: KINDS[Math.floor(r() * 4)], x: Math.floor(r() * 2000), y: Math.floor(r() * 2000), w: side(), h: side() };
  if (text !== undefined) s.text = text;
  return s;
}

/** The layout's score from strong-overflow.ts's penalty, or null when it left the canvas to JavaScript. */
function wasmScore(completion: string): { score: number | null; expected: number } {
  const c = executeCountsFast(completion);
  if (!c?.canvas?.tallied) throw new Error('not a WebAssembly canvas');
  c.canvas.complete();
  const penalty = jsonReader!.layoutPenalty();
  return { score: penalty >= 0 ? Math.exp(-penalty) : null, expected: layoutScore(c.canvas) };
}

function values(input: ScoreInput): Record<string, number> {
  const analysis = analyzeStrong(input).values;
  const out: Record<string, number> = {};
  for (const c of strongRubric.components) out[c.name] = Math.min(1, Math.max(0, analysis[c.name as keyof typeof analysis]));
  return out;
}

describe('strong layout overflow in WebAssembly', () => {
  it('equals layoutScore to the bit on 4,000 random canvases of every kind, size and label', () => {
    const r = rng(7);
    let overflowing = 0;
    for (let t = 0; t < 4000; t++) {
      const n = 1 + Math.floor(r() * 12);
      const actions = Array.from({ length: n }, (_, i) => shape(r, i, r() < 0.1 ? undefined : label(r)));
      const { score, expected } = wasmScore(JSON.stringify({ actions }));
      expect(score).not.toBeNull();
      expect(Object.is(score, expected)).toBe(true);
      if (expected < 1) overflowing++;
    }
    expect(overflowing).toBeGreaterThan(2000);
  });

  it('equals it where a line just fits its shape and where it just does not (the wrap test\'s boundary)', () => {
    const r = rng(17);
    let boundaries = 0;
    for (let t = 0; t < 600; t++) {
      const text = Array.from({ length: 2 + Math.floor(r() * 3) }, () => label(r).replace(/\s+/g, '') || 'x').join(' ');
      // The whole line's width in em, summed as the wrap does: each word's advances onto the line and a space.
      const words = measureLabel(text).paragraphs[0];
      let em = 0;
      for (let k = 0; k < words.length; k++) {
        if (k > 0) em += textSpace;
        for (const a of words[k]) em += a;
      }
      const kind = t % 2 ? 'text' : 'rectangle';
      const pad = kind === 'text' ? 0 : 2 * LABEL_PADDING;
      const w = em * LABEL_FONT_SIZE + pad;
      if (w - pad !== em * LABEL_FONT_SIZE || w > 1000) continue;
      boundaries++;
      for (const width of [w, w - 1e-9, w + 1e-9]) {
        // One line fits the height, two do not: a wrap at the boundary changes the score.
        const actions = [{ type: 'create_shape', id: 'a', shape: kind, x: 0, y: 0, w: width, h: 25 + pad, text }];
        const { score, expected } = wasmScore(JSON.stringify({ actions }));
        expect({ t, width, score }).toEqual({ t, width, score: expected });
      }
    }
    expect(boundaries).toBeGreaterThan(300);
  });

  it('equals it across intern epochs (the tables start over with them), and leaves a label too long to intern to JavaScript', { timeout: 60_000 }, () => {
    const r = rng(11);
    let left = 0;
    // 300 completions of 30 new labels of about 200 characters (non-ASCII ones take 2 to 4 bytes): the intern arena
    // starts a new epoch every few completions, and with it the measures' tables, which hold an epoch's labels.
    for (let t = 0; t < 300; t++) {
      const actions = Array.from({ length: 30 }, (_, i) => {
        let text = `${t} ${i} `;
        while (text.length < 200) text += label(r) + ' ';
        return shape(r, i, text);
      });
      const long = t % 50 === 0;
      if (long) actions.push(shape(r, 30, 'x '.repeat(35_000)));
      const { score, expected } = wasmScore(JSON.stringify({ actions }));
      if (score === null) left++;
      else expect(Object.is(score, expected)).toBe(true);
      expect({ t, left: score === null }).toEqual({ t, left: long });
    }
    expect(left).toBe(6);
  });

  it('gives the full analysis\'s layout_quality through the rubric, labels met again in later completions', () => {
    const r = rng(13);
    const labels = Array.from({ length: 60 }, () => label(r));
    const spec = { entities: ['Alpha', 'Beta'], edges: [['Alpha', 'Beta']] as [string, string][] };
    for (let t = 0; t < 1500; t++) {
      const n = 1 + Math.floor(r() * 10);
      const actions: object[] = Array.from({ length: n }, (_, i) => shape(r, i, labels[Math.floor(r() * labels.length)]));
      if (n > 1) actions.push({ type: 'connect', from: 's0', to: 's1' });
      const input: ScoreInput = { prompt: 'Draw alpha and beta', completion: JSON.stringify({ actions }), spec };
      expect({ t, ...strongRubric.score(input).components }).toEqual({ t, ...values(input) });
    }
  });
});
