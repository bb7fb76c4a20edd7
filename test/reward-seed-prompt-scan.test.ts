// The seed scorer's prompt reader (assembly/seed-score.ts setPrompt) reads 16 bytes at a time and its label reader
// hashes a word at its end: prompts whose words, non-ASCII characters and ends fall on every side of a block
// boundary, against the exact port's re.findall.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/random.ts';
import { jsonReader, SEED } from '../src/reward/fast-json.ts';
import { scanSeed, seedScoreRecords } from '../src/reward/seed-fast.ts';
import { checkCompletion } from '../src/reward/seed-python.ts';
import { seedLayout, seedRubric, seedSemantics } from '../src/reward/seed.ts';

const PIECES = [
  'data', 'Database', 'CACHE', 'front-end', 'cache_layer', 'x9', 'a', 'ab', 'abc', 'abcd', 'node42', '42node', '_under',
  '-dash', 'Café', 'Données', 'é', '\u0130stanbul', 'stanbul', '\u212aelvin', 'elvin', 'Kelvin', '🚀', ' ', ' ', '  ', ', ', '.',
  '\n', '\t', '(', ')', '"', '\\', '0', '2024', 'Z', 'zz-top', 'ÿ', 'Ā', 'ć', 'Ģ',
];

const shape = (id: string, text: string, x: number) =>
  `{"type": "create_shape", "id": ${JSON.stringify(id)}, "shape": "ellipse", "x": ${x}, "y": 0, "w": 10, "h": 10, "text": ${JSON.stringify(text)}}`;

/** The rubric's values against the exact port's; true when the WebAssembly scorer settled the pair itself. */
function agrees(prompt: string, completion: string): boolean {
  const o = checkCompletion(completion);
  const valid = o.canvas !== null && o.errors.length === 0 ? 1 : 0;
  const layout = o.canvas ? seedLayout(o.canvas) : 0;
  const semantics = o.canvas ? seedSemantics(prompt, o.canvas) : 0;
  const s = seedRubric.score({ prompt, completion });
  expect({ prompt, completion, semantics: s.components.semantics, layout: s.components.layout, valid: s.components.valid }).toEqual({
    prompt,
    completion,
    semantics,
    layout,
    valid,
  });
  return scanSeed(completion) === true && jsonReader!.seedPrompt(prompt) && seedScoreRecords(completion) === SEED.done;
}

describe('seed prompt reader in 16-byte blocks', () => {
  it('finds the exact port\'s prompt words across block boundaries, with labels sharing some of them', () => {
    const rand = mulberry32(77);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    let settled = 0;
    let total = 0;
    const semantics = new Set<number>();
    for (let k = 0; k < 2500; k++) {
      // Pad so that a word starts or ends on each side of a 16-byte boundary.
      let prompt = 'x'.repeat(Math.floor(rand() * 18)) + ' ';
      const target = Math.floor(rand() * 90);
      while (prompt.length < target) prompt += pick(PIECES);
      if (rand() < 0.3) prompt = prompt.trimEnd();
      const words = prompt.split(/[^a-zA-Z0-9_-]+/).filter(Boolean);
      const labels = [0, 1, 2].map(() => Array.from({ length: Math.floor(rand() * 4) }, () => (rand() < 0.7 && words.length ? pick(words) : pick(PIECES))).join(pick([' ', '-', '', ', '])));
      const completion = `{"actions": [${labels.map((l, i) => shape(`s${i}`, rand() < 0.5 ? l.toUpperCase() : l, i * 20)).join(', ')}]}`;
      total++;
      if (agrees(prompt, completion)) settled++;
      semantics.add(seedRubric.score({ prompt, completion }).components.semantics);
    }
    expect(settled).toBeGreaterThan(0.5 * total);
    expect(semantics.size).toBeGreaterThan(15);
  });

  it('on prompts of exactly 15 to 49 bytes ending in a word, and a word running over many blocks', () => {
    const label = shape('a', 'wordy database abcdefghijklmnopqrstuvwxyz0123456789', 0);
    const completion = `{"actions": [${label}, ${shape('b', 'tail', 20)}]}`;
    let settled = 0;
    for (let n = 15; n <= 49; n++) {
      for (const end of ['tail', 'database', 'wordy']) {
        const prompt = `${'-'.repeat(Math.max(0, n - end.length - 1))} ${end}`.slice(-n);
        if (agrees(prompt, completion)) settled++;
      }
    }
    for (const prompt of ['abcdefghijklmnopqrstuvwxyz0123456789', 'xabcdefghijklmnopqrstuvwxyz0123456789', `${'q'.repeat(47)} database`]) {
      if (agrees(prompt, completion)) settled++;
    }
    expect(settled).toBe(35 * 3 + 3);
  });

  it('leaves U+0130 and U+212A to JavaScript wherever they fall in a block', () => {
    const completion = `{"actions": [${shape('a', 'istanbul kelvin', 0)}]}`;
    for (let pad = 0; pad < 40; pad++) {
      for (const ch of ['\u0130', '\u212a']) {
        const prompt = `${'y'.repeat(pad)} ${ch}stanbul ${ch}elvin`;
        expect(agrees(prompt, completion)).toBe(false);
        expect(jsonReader!.seedPrompt(prompt)).toBe(false);
      }
      // Lead bytes C4 and E2 of other characters: Ā (C4 80), ℩ (E2 84 A9), ‰ (E2 80 B0).
      expect(jsonReader!.seedPrompt(`${'y'.repeat(pad)} Āstanbul ℩elvin ‰`)).toBe(true);
    }
  });
});
