import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/env/corpus.ts';
import { mulberry32 } from '../src/random.ts';
import { jsonReader, SEED } from '../src/reward/fast-json.ts';
import { plainListStr, scanSeed, seedScoreRecords } from '../src/reward/seed-fast.ts';
import { checkCompletion, pyJsonLoads, pyStr } from '../src/reward/seed-python.ts';
import { seedLayout, seedRubric, seedSemantics } from '../src/reward/seed.ts';

/** The seed rubric's values through the exact port alone. */
function exactValues(prompt: string, completion: string) {
  const o = checkCompletion(completion);
  const valid = o.canvas !== null && o.errors.length === 0 ? 1 : 0;
  const layout = o.canvas ? seedLayout(o.canvas) : 0;
  const semantics = o.canvas ? seedSemantics(prompt, o.canvas) : 0;
  return { valid, layout, semantics, reward: valid ? 0 + 0.4 * valid + 0.3 * layout + 0.3 * semantics : 0 };
}

/** What the WebAssembly seed scorer answers for a pair, or 'unscanned' when the reader did not settle the text. */
function kernelVerdict(prompt: string, completion: string): number | 'unscanned' {
  if (scanSeed(completion) !== true) return 'unscanned';
  if (!jsonReader!.seedPrompt(prompt)) return SEED.fallback;
  return seedScoreRecords(completion);
}

/** Scores every pair with the rubric and the exact port; returns how many the WebAssembly scorer settled. */
function agree(pairs: { prompt: string; completion: string }[]): number {
  let done = 0;
  for (const { prompt, completion } of pairs) {
    if (kernelVerdict(prompt, completion) === SEED.done) done++;
    const s = seedRubric.score({ prompt, completion });
    const exact = exactValues(prompt, completion);
    expect({ prompt, completion, reward: s.reward, ...s.components }).toEqual({ prompt, completion, ...exact });
  }
  return done;
}

const shape = (id: string, text: string, geometry = '"x": 0, "y": 0, "w": 10, "h": 10') =>
  `{"type": "create_shape", "id": ${JSON.stringify(id)}, "shape": "ellipse", ${geometry}, "text": ${text}}`;
const connect = (from: string, to: string) => `{"type": "connect", "from": ${JSON.stringify(from)}, "to": ${JSON.stringify(to)}}`;
const doc = (...actions: string[]) => `{"actions": [${actions.join(', ')}]}`;
/** Overlapping the first shape: the layout score stays below 1, so that every labeled shape shows in it. */
const far = '"x": 5, "y": 5, "w": 10, "h": 10';

describe('seed scorer in WebAssembly (assembly/seed-score.ts)', () => {
  it('knows every character whose lowercase form holds an ASCII word character', () => {
    const found: number[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (/[a-zA-Z0-9_-]/.test(String.fromCodePoint(cp).toLowerCase())) found.push(cp);
    }
    expect(found).toEqual([0x130, 0x212a]);
  });

  it('gives the exact port values on corpora grouped like GRPO, the prompt\'s words read once per group', () => {
    const pairs = generateCorpus({ n: 2400, seed: 23, perPrompt: 8 });
    expect(new Set(pairs.map((p) => p.prompt)).size).toBeLessThanOrEqual(300);
    for (let i = 1; i < pairs.length; i++) if (i % 8 !== 0) expect(pairs[i].spec).toBe(pairs[i - 1].spec);
    const scanned = pairs.filter((p) => scanSeed(p.completion) === true).length;
    expect(agree(pairs)).toBeGreaterThan(0.7 * scanned);
  });

  it('gives the exact port values on generated corpora, and settles most of them itself', () => {
    const pairs = [...generateCorpus({ n: 3000, seed: 21 }), ...generateCorpus({ n: 3000, seed: 22 })];
    const done = agree(pairs);
    const scanned = pairs.filter((p) => scanSeed(p.completion) === true).length;
    expect(done).toBeGreaterThan(0.7 * scanned);
  });

  it('on hand-written labels, ids, numbers and prompts', () => {
    const prompt = 'Draw the Database, cache_layer and front-end in a diagram (KELVIN STATION office)';
    const cases = [
      doc(shape('a', '"Database"'), shape('b', '"CACHE_LAYER front-end"', far), connect('a', 'b')),
      doc(shape('a', '"D\\u0061tabase \\u0130stanbul"'), shape('b', '"x"', far)),
      doc(shape('a', '"\u212aelvin station"'), shape('b', '"office"', far)),
      doc(shape('a', '"\\u212Aelvin"'), shape('b', '"diagram\\nfront-end\\tcache_layer"', far)),
      doc(shape('a', '"\\u00a0\\u3000 "'), shape('b', '"\u2003"', far), shape('c', '"\\u0085\\u001c"', '"x": 8, "y": 0, "w": 1, "h": 1')),
      doc(shape('a', '"\\ud83d\\ude80"'), shape('b', '"🚀 draw"', far)),
      doc(shape('a', 'null'), shape('b', 'true', far), shape('c', 'false', '"x": 8, "y": 0, "w": 1, "h": 1')),
      doc(shape('a', '12'), shape('b', 'NaN', far), shape('c', '-Infinity', '"x": 8, "y": 0, "w": 1, "h": 1')),
      doc(shape('a', '1e-05'), shape('b', '[1, "database"]', far)),
      doc(shape('a', '{"x": "database"}'), shape('b', '2.5', far)),
      doc(shape('x\\u0061', '"a"'), shape('xa', '"b"', far)),
      doc(shape('a\ud800', '"lone"'), shape('a\udc00', '"lone"', far), connect('a\ud800', 'a\udc00')),
      doc(shape('\ufffd', '"replacement"'), shape('b', '"b"', far), connect('\ufffd', 'b')),
      doc(shape('é', '"accent"'), shape('e', '"plain"', far), connect('é', 'e'), connect('e', 'é'), connect('e', 'e')),
      doc(shape('a', '"a"', '"x": 0.1, "y": 0.30000000000000004, "w": 1000.0000000000001, "h": 12345678901234567890'), shape('b', '"b"', far)),
      doc(shape('a', '"a"', '"x": 1e400, "y": 0, "w": 10, "h": 10'), shape('b', '"b"', `"x": ${'9'.repeat(400)}, "y": 0, "w": 10, "h": 10`)),
      doc(shape('a', '"a"', '"x": true, "y": false, "w": true, "h": 1e2'), shape('b', '"b"', '"x": 0.5, "y": 0.5, "w": 5e-324, "h": 1')),
      doc(shape('a', '"a"', '"x": -0, "y": 0, "w": 10, "h": 10'), shape('b', '"b"', '"x": 10, "y": 10, "w": 10, "h": 10')),
      doc(`{"type": "create_shape", "id": "a", "shape": "ellipse", "x": 1, "x": 12345678901234567.5, "y": 0, "w": 10, "h": 10}`),
      doc(`{"type": "create_sh\\u0061pe", "id": "a", "shape": "ellipse", "x": 1, "y": 0, "w": 10, "h": 10}`),
      doc(`{"type": "create_shape", "id": "a", "shape": "ellips\\u0065", "x": 1, "y": 0, "w": 10, "h": 10}`),
      doc(shape('a', '"a"'), `{"type": "connect", "from": "a"}`, `{"type": "update"}`, `{"type": ""}`, `{"type": 3}`),
      doc(...Array.from({ length: 40 }, (_, i) => shape(`s${i}`, `"database ${i}"`, `"x": ${i * 5}, "y": 0, "w": 10, "h": 10`))),
      doc(),
      '{"actions": [1]}',
      `Sure! ${doc(shape('a', '"Database"'), shape('b', '"office"', far))} Hope that helps}`,
    ];
    const prompts = [
      prompt,
      'a b c',
      'the İstanbul office database',
      // U+0130 lowers to "i" and a combining dot: "stanbul" is a word of its label, "istanbul" is not.
      'stanbul and kelvin beside the database',
      'istanbul and kelvin beside the database',
      '',
      'Ünïcödé prompt with database and office, 🚀 rocket',
      Array.from({ length: 700 }, (_, i) => `word${i}`).join(' '),
      `${'long'.repeat(5000)} database`,
    ];
    const pairs = prompts.flatMap((p) => cases.map((completion) => ({ prompt: p, completion })));
    expect(agree(pairs)).toBeGreaterThan(pairs.length / 3);
  });

  it('settles float, list and dict labels with their str() spelled in JavaScript', () => {
    const prompt = 'alpha beta gamma database e-05 none true';
    const cases = [
      doc(shape('a', '1e-05'), shape('b', '[1, "database"]', far)),
      doc(shape('a', '{"x": "database", "y": [null, true]}'), shape('b', '2.5', far), shape('c', '"gamma"', '"x": 8, "y": 0, "w": 1, "h": 1')),
      doc(shape('a', '["alpha", ["Beta"]]'), shape('b', '"x"', far), shape('c', '[]', '"x": 8, "y": 0, "w": 1, "h": 1')),
      doc(shape('a', '"gamma"'), shape('b', '{"k": "alpha"}', far), shape('c', '1.5', '"x": 8, "y": 0, "w": 1, "h": 1'), shape('d', '["beta"]', '"x": 80, "y": 0, "w": 1, "h": 1')),
      doc(shape('a', `${'['.repeat(60)}"database"${']'.repeat(60)}`), shape('b', '1E-7', far)),
    ];
    for (const completion of cases) expect({ completion, verdict: kernelVerdict(prompt, completion) }).toEqual({ completion, verdict: SEED.done });
    expect(agree(cases.map((completion) => ({ prompt, completion })))).toBe(cases.length);
  });

  it('on random character edits of valid completions', () => {
    const rng = mulberry32(5);
    const pieces = ['"', '\\', '\\u0130', 'K', '\u212a', ' ', 'é', '1', '.5', 'e9', '-', '_', 'NaN', ',', '}', 'data'];
    const base = generateCorpus({ n: 300, seed: 23 }).filter((c) => c.category === 'valid');
    const pairs: { prompt: string; completion: string }[] = [];
    for (const { prompt, completion } of base) {
      for (let k = 0; k < 6; k++) {
        let t = completion;
        for (let e = 0; e < 1 + Math.floor(rng() * 3); e++) {
          const at = Math.floor(rng() * t.length);
          t = t.slice(0, at) + pieces[Math.floor(rng() * pieces.length)] + t.slice(at + Math.floor(rng() * 2));
        }
        pairs.push({ prompt, completion: t });
      }
    }
    expect(agree(pairs)).toBeGreaterThan(0);
  });

  it("respells plain list labels as Python's str() does, and leaves every other list to the exact port", () => {
    const rand = mulberry32(31);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const ws = () => pick(['', '', ' ', '\n  ', '\t', '\r\n']);
    const strings = ['deep', 'two words', '', 'a-b_c', "it's", 'say "hi"', 'back\\slash', 'Données', 'tab\there', '~!#&(['];
    const atoms = ['0', '-0', '7', '-12', '123456789012345678901234567890', '1.5', '-0.0', '1E-7', 'true', 'null'];
    function value(depth: number): string {
      const r = rand();
      if (depth > 0 && r < 0.45) {
        const n = Math.floor(rand() * 4);
        return `[${ws()}${Array.from({ length: n }, () => value(depth - 1)).join(`${ws()},${ws()}`)}${ws()}]`;
      }
      if (r < 0.75) return JSON.stringify(pick(strings));
      return pick(atoms);
    }
    let plain = 0;
    let others = 0;
    for (let k = 0; k < 4000; k++) {
      const src = `[${ws()}${value(4)}${ws()}]`;
      const parsed = pyJsonLoads(src);
      expect(parsed.ok).toBe(true);
      const got = plainListStr(src);
      if (got === null) others++;
      else {
        plain++;
        expect({ src, got }).toEqual({ src, got: pyStr((parsed as { ok: true; value: Parameters<typeof pyStr>[0] }).value) });
      }
    }
    const deep = `${'['.repeat(900)}"deep", -0, 3${']'.repeat(900)}`;
    expect(plainListStr(deep)).toBe(`${'['.repeat(900)}'deep', 0, 3${']'.repeat(900)}`);
    expect(plain).toBeGreaterThan(1000);
    expect(others).toBeGreaterThan(1000);
    // End to end: list labels whose words count, against the exact port.
    const prompt = 'Draw the deep pipeline with two words of context';
    const pairs = [deep, '[["pipeline"], ["context", 1]]', '[ "Deep" ,\n"words" ]', '["it\'s deep"]', '[1.5, "deep"]', '[]'].map((label) => ({
      prompt,
      completion: doc(shape('a', label), shape('b', label, far), connect('a', 'b')),
    }));
    agree(pairs);
  });

  it('retries the brace span only where it can parse: the text\'s document closes at its end', () => {
    const a = shape('a', '"Alpha é"');
    const b = shape('b', '"Beta"', far);
    const full = doc(a, b, connect('a', 'b'));
    const texts = [
      `${full}\nThanks!`,
      `  ${full} and a } more`,
      `  ${full}  trailing words`,
      `${full} }`,
      `${full}}`,
      full.slice(0, -3),
      `${full.slice(0, full.indexOf('Beta'))}Be}ta`,
      `${full.slice(0, -1)}, "note": "}"`,
      `Here: ${full} done`,
      `{"note": "é}"} ${full}`,
      `${full}\n\`\`\`\n{"x": 1}`,
    ];
    const scanned = texts.map((completion) => scanSeed(completion));
    expect(scanned).toEqual([true, false, true, false, false, false, false, false, true, false, false]);
    agree(texts.map((completion) => ({ prompt: 'alpha beta diagram', completion })));
  });
});
