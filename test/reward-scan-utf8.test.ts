// The reader's copy of a text (fast-json.ts load: the UTF-16 units copied in, assembly/json-scan.ts utf16ToUtf8
// writing the UTF-8) against TextEncoder, on texts whose characters of every width and lone surrogates fall on
// every side of its 16-unit blocks.
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/env/corpus.ts';
import { mulberry32 } from '../src/random.ts';
import { jsonReader, SCAN } from '../src/reward/fast-json.ts';

const json = jsonReader!;
const encoder = new TextEncoder();

function loadsAsTextEncoder(text: string): void {
  const bytes = json.load(text);
  const want = encoder.encode(text);
  expect(bytes).toBe(want.length);
  expect(Buffer.from(json.loadedUtf8()).equals(Buffer.from(want))).toBe(true);
}

describe('reader copy of a text as UTF-8', () => {
  it('writes what TextEncoder writes, character widths and lone surrogates anywhere in a block', () => {
    const rand = mulberry32(13);
    const pieces = ['a', '{', '"', '\\', ' ', '\u007f', '\u0080', 'é', '\u07ff', '\u0800', '€', '\uffff', '\ud7ff', '\ue000',
      '🚀', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude80', '\u0000'];
    let long = 0;
    for (let k = 0; k < 3000; k++) {
      let text = '';
      const target = Math.floor(rand() * 120);
      while (text.length < target) {
        // ASCII runs of every length between the odd characters, so that they start and end anywhere in a block.
        text += rand() < 0.5 ? 'x'.repeat(Math.floor(rand() * 40)) : pieces[Math.floor(rand() * pieces.length)];
      }
      if (text.length > 64) long++;
      loadsAsTextEncoder(text);
    }
    expect(long).toBeGreaterThan(500);
    for (const text of ['', 'a', '\ud800', '\udc00\ud800', `${'y'.repeat(31)}\ud83d\ude80`, `${'y'.repeat(31)}\ud83d`, `${'y'.repeat(15)}é${'z'.repeat(17)}`]) {
      loadsAsTextEncoder(text);
    }
  });

  it('does not pair a high surrogate at the end with a low one left past it by a longer text', () => {
    for (let n = 1; n < 60; n++) {
      const text = `${'y'.repeat(n - 1)}\ud83d`;
      // load() stages the units at (3n + 31) & ~15: put a low surrogate of a longer text where the unit after this one lies.
      const after = ((3 * n + 31) & ~15) + 2 * n;
      for (let m = n + 1; m < n + 60; m++) {
        const j = (after - ((3 * m + 31) & ~15)) / 2;
        if (!Number.isInteger(j) || j < 0 || j >= m) continue;
        json.load(`${'x'.repeat(j)}\udc00${'x'.repeat(m - j - 1)}`);
        loadsAsTextEncoder(text);
      }
    }
  });

  it('finds the byte offset of every UTF-16 index (byteOffset), whole blocks counted at once', () => {
    const rand = mulberry32(19);
    const pieces = ['a', 'é', '€', '🚀', '\ud800', '\udc00', 'x'.repeat(15), 'y'.repeat(33)];
    let checked = 0;
    for (let k = 0; k < 600; k++) {
      let text = '';
      const target = Math.floor(rand() * 150);
      while (text.length < target) text += pieces[Math.floor(rand() * pieces.length)];
      const bytes = json.load(text);
      for (let unit = 0; unit <= text.length + 2; unit++) {
        // An index inside a surrogate pair names the byte after its 4-byte character.
        const inPair = unit > 0 && unit < text.length && /[\ud800-\udbff]/.test(text[unit - 1]) && /[\udc00-\udfff]/.test(text[unit]);
        const want = Math.min(bytes, encoder.encode(text.slice(0, inPair ? unit + 1 : unit)).length);
        expect({ text, unit, at: json.byteOffset(unit, bytes) }).toEqual({ text, unit, at: want });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30000);
  });

  it('on corpus texts, one after another (a shorter text after a longer one), with their scans unchanged', () => {
    const texts = generateCorpus({ n: 800, seed: 3 }).map((c) => c.completion);
    for (const text of texts) {
      loadsAsTextEncoder(text);
      const strict = json.scan(0, json.load(text), 0, false);
      let parsed = true;
      try {
        JSON.parse(text);
      } catch {
        parsed = false;
      }
      if (strict !== SCAN.unusual) expect({ text, ok: strict === SCAN.ok }).toEqual({ text, ok: parsed });
    }
  });
});
