import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/env/corpus.ts';
import { executeCompletion } from '../src/env/execute.ts';
import { mulberry32 } from '../src/random.ts';
import { jsonReader, KIND, SCAN } from '../src/reward/fast-json.ts';
import { checkSeedFast } from '../src/reward/seed-fast.ts';
import { checkCompletion, pyJsonLoads } from '../src/reward/seed-python.ts';
import { executeCountsFast, strongCanvasJson } from '../src/reward/strong-fast.ts';

/** The exact port's canvas and verdict, in the fast path's terms. */
function exactSeed(text: string) {
  const o = checkCompletion(text);
  return { canvas: o.canvas && { shapes: [...o.canvas.shapes], arrows: o.canvas.arrows }, clean: o.canvas !== null && o.errors.length === 0 };
}

function exactCounts(text: string) {
  const e = executeCompletion(text);
  const schemaErrors = e.outcomes.filter((o) => !o.applied && o.error?.kind === 'schema').length;
  const applied = e.outcomes.filter((o) => o.applied).length;
  // The fast path words a refused parse itself, except in JSON.parse's own words (invalid JSON).
  const refusal = !e.parse.ok && e.parse.error.code !== 'invalid_json' ? e.errors[0] : null;
  return { source: e.parse.source, actions: e.outcomes.length, schemaErrors, applied, canvas: e.canvas?.toJSON() ?? null, clean: e.errors.length === 0, refusal };
}

/** Compares both fast paths with the exact ones on each text; returns how many each path left to the exact one. */
function agree(texts: string[]): { seedFallbacks: number; strongFallbacks: number } {
  let seedFallbacks = 0;
  let strongFallbacks = 0;
  for (const text of texts) {
    const seed = checkSeedFast(text);
    if (seed === null) seedFallbacks++;
    else expect({ text, ...seed, canvas: seed.canvas && { shapes: [...seed.canvas.shapes], arrows: seed.canvas.arrows } }).toEqual({ text, ...exactSeed(text) });
    const strong = executeCountsFast(text);
    if (strong === null) strongFallbacks++;
    else {
      // Who ran the checks is not part of the answer.
      const { checks: _, ...counts } = strong;
      expect({ text, ...counts, canvas: strong.canvas && strongCanvasJson(strong.canvas) }).toEqual({ text, ...exactCounts(text) });
    }
  }
  return { seedFallbacks, strongFallbacks };
}

const shape = (fields: string) => `{"type": "create_shape", "id": "a", "shape": "ellipse", "x": 0, "y": 0, "w": 10, "h": 10${fields}}`;
const doc = (...actions: string[]) => `{"actions": [${actions.join(', ')}]}`;
const arrow = `{"type": "connect", "from": "a", "to": "b"}`;
const second = `{"type": "create_shape", "id": "b", "shape": "text", "x": 20, "y": 0, "w": 10, "h": 10, "text": "B"}`;

describe('WebAssembly JSON reader', () => {
  it('is built (npm run build:wasm), so the fast paths below are exercised', () => {
    expect(jsonReader).not.toBeNull();
  });

  it('tells valid, invalid and Python-only JSON apart in both grammars', () => {
    const json = jsonReader!;
    const scan = (text: string, python: boolean) => json.scan(0, json.load(text), 0, python);
    expect(scan('{"a": [1, 2.5e3, -0, true, null, "x\\u00e9"]}', false)).toBe(SCAN.ok);
    expect(scan('{"a": NaN}', true)).toBe(SCAN.ok);
    expect(scan('{"a": NaN}', false)).toBe(SCAN.invalid);
    expect(scan('{"a": -Infinity}', true)).toBe(SCAN.ok);
    for (const bad of ['', '{', '{"a" 1}', '{"a": 1,}', '[1 2]', '01', '1.', '1e', '"\\x"', '"\\u12G4"', '"a\nb"', '\ufeff{}', '{} x', "{'a': 1}"]) {
      expect({ bad, status: scan(bad, false) }).toEqual({ bad, status: SCAN.invalid });
      expect({ bad, status: scan(bad, true) }).toEqual({ bad, status: SCAN.invalid });
    }
    expect(scan('['.repeat(991) + ']'.repeat(991), true)).toBe(SCAN.pyLimit);
    expect(scan('['.repeat(990) + ']'.repeat(990), true)).toBe(SCAN.ok);
    expect(scan('['.repeat(1200) + ']'.repeat(1200), false)).toBe(SCAN.ok);
    expect(scan(`[${'9'.repeat(4301)}]`, true)).toBe(SCAN.pyLimit);
    expect(scan(`[${'9'.repeat(4301)}.5]`, true)).toBe(SCAN.ok);
    expect(scan('{"act\\u0069ons": []}', false)).toBe(SCAN.unusual);
  });

  it('reads nested arrays and objects nobody records as both grammars do: random, broken and at the depth limits', () => {
    const json = jsonReader!;
    const scan = (text: string, python: boolean) => json.scan(0, json.load(text), 0, python);
    const strict = (text: string) => {
      try {
        JSON.parse(text);
        return SCAN.ok;
      } catch {
        return SCAN.invalid;
      }
    };
    const py = (text: string) => {
      const r = pyJsonLoads(text);
      return r.ok ? SCAN.ok : r.error.type === 'JSONDecodeError' ? SCAN.invalid : SCAN.pyLimit;
    };
    const rng = mulberry32(41);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
    const ws = () => pick(['', '', ' ', '\n  ', '\t']);
    const scalars = ['1', '-2.5e3', '"x"', '"a\\"b"', '"é🚀"', 'true', 'null', '[]', '{}', 'NaN', '-Infinity'];
    function value(depth: number): string {
      if (depth === 0 || rng() < 0.3) return pick(scalars);
      const n = Math.floor(rng() * 3);
      if (rng() < 0.5) return `[${ws()}${Array.from({ length: n }, () => value(depth - 1)).join(`${ws()},${ws()}`)}${ws()}]`;
      const key = () => pick(['"k"', '"\\u006b"', '"é"', '""']);
      return `{${ws()}${Array.from({ length: n }, () => `${key()}${ws()}:${ws()}${value(depth - 1)}`).join(`${ws()},${ws()}`)}${ws()}}`;
    }
    const breaks = [(t: string) => t.replace(/\]/, ',]'), (t: string) => t.replace(/:/, ''), (t: string) => t.replace(/,/, ''),
      (t: string) => t.slice(0, -1), (t: string) => t.replace(/\]/, '}'), (t: string) => t.replace(/"/, ''), (t: string) => `${t}]`];
    let broken = 0;
    for (let t = 0; t < 3000; t++) {
      let v = value(1 + Math.floor(rng() * 6));
      if (rng() < 0.4) {
        const b = pick(breaks)(v);
        if (b !== v) broken++;
        v = b;
      }
      const texts = [`[${v}]`, `{"actions": [{"type": "create_shape", "id": "a", "text": ${v}}]}`, `{"note": ${v}, "actions": []}`];
      for (const text of texts) {
        expect({ text, status: scan(text, true) }).toEqual({ text, status: py(text) });
        if (!/NaN|Infinity/.test(text)) expect({ text, status: scan(text, false) }).toEqual({ text, status: strict(text) });
      }
    }
    expect(broken).toBeGreaterThan(500);
    // Python's limit counts the containers around a value, the actions' included; the strict one is 10,000.
    const label = (open: string, close: string, depth: number) => `{"actions": [{"text": ${open.repeat(depth)}1${close.repeat(depth)}}]}`;
    for (const [open, close] of [['[', ']'], ['{"k": ', '}'], ['[{"k": ', '}]']]) {
      for (const depth of [985, 986, 987, 988, 989, 990]) {
        const text = label(open, close, depth);
        expect({ depth, open, status: scan(text, true) }).toEqual({ depth, open, status: py(text) });
      }
    }
    expect(scan(label('[', ']', 9996), false)).toBe(SCAN.ok);
    expect(scan(label('[', ']', 9998), false)).toBe(SCAN.unusual);
    expect(scan('['.repeat(10_000) + ']'.repeat(10_000), false)).toBe(SCAN.ok);
    expect(scan('['.repeat(10_001) + ']'.repeat(10_001), false)).toBe(SCAN.unusual);
    expect(scan('['.repeat(3000) + '1,]' + ']'.repeat(2999), false)).toBe(SCAN.invalid);
    // Runs of brackets are opened and closed in bulk: runs broken by whitespace, objects inside and around them,
    // closers that do not match, and depths at the limit reached through runs.
    const runs = ['[{[1]}]', '{[1]}', '{[1]]', '[{[1]]]', '[{"k": [1]]]', '[{"k": [[1]]]]', '[[[{"k": [[1]]}]]]', '[[[1]]}', '[[[1]]]]', '[[[1] ]]', '[[ [1]]]', '[[[]]]', '[[[]]}', '[{"k": [[]]}]',
      '[[[1],[2]]]', '[[{"a": 1}], [[]]]', `${'['.repeat(494)} ${'['.repeat(494)}1${']'.repeat(988)}`, `${'['.repeat(495)} ${'['.repeat(495)}1${']'.repeat(990)}`];
    for (const v of runs) {
      for (const text of [v, `{"actions": [{"type": "create_shape", "id": "a", "text": ${v}}]}`]) {
        expect({ text, status: scan(text, true) }).toEqual({ text, status: py(text) });
        expect({ text, status: scan(text, false) }).toEqual({ text, status: strict(text) });
      }
    }
    // Siblings close what they open: 1,000 lists, empty or not, side by side stay 2 deep.
    for (const sibling of ['[]', '[1]', '{}', '{"k": []}']) {
      const wide = `{"actions": [{"text": [${Array(1000).fill(sibling).join(', ')}]}]}`;
      expect({ sibling, python: scan(wide, true), strict: scan(wide, false) }).toEqual({ sibling, python: SCAN.ok, strict: SCAN.ok });
    }
    // A label nested 1,000 deep is recorded as one list, its token the whole of it.
    const deep = `{"actions": [{"type": "create_shape", "id": "a", "text": ${'['.repeat(1000)}${']'.repeat(1000)}, "x": 1}]}`;
    expect(scan(deep, false)).toBe(SCAN.ok);
    expect(json.fieldKind(0, 7)).toBe(KIND.array);
    expect(json.fieldString(deep, 0, 7)).toBe('['.repeat(1000) + ']'.repeat(1000));
    expect(json.fieldNumber(deep, 0, 3)).toBe(1);
  });

  it('records field kinds, UTF-16 positions and exact numbers after multi-byte characters', () => {
    const json = jsonReader!;
    const text = '{"note": "🚀 café", "actions": [{"text": "Données 🚀", "x": 0.1, "y": 123456789012345678, "w": 1e400, "h": -0, "id": "a\\"b"}]}';
    expect(json.scan(0, json.load(text), 0, false)).toBe(SCAN.ok);
    expect(json.actionCount()).toBe(1);
    expect(json.fieldKind(0, 7)).toBe(KIND.string);
    expect(json.fieldString(text, 0, 7)).toBe('Données 🚀');
    expect(json.fieldString(text, 0, 1)).toBe('a"b');
    expect([3, 4, 5, 6].map((f) => json.fieldNumber(text, 0, f))).toEqual([0.1, 123456789012345678, Infinity, -0]);
    expect(json.fieldKind(0, 4)).toBe(KIND.int);
  });
});

describe('fast paths agree with the exact ones', () => {
  it('on generated corpora, leaving almost nothing to the exact paths', () => {
    const texts = [...generateCorpus({ n: 3000, seed: 7 }), ...generateCorpus({ n: 3000, seed: 8 })].map((c) => c.completion);
    const { seedFallbacks, strongFallbacks } = agree(texts);
    expect(seedFallbacks).toBeLessThan(texts.length / 100);
    expect(strongFallbacks).toBeLessThan(texts.length / 100);
  });

  it('on hand-written edge cases', () => {
    const texts = [
      doc(shape(', "text": "Café 🚀"'), second, arrow),
      doc(shape(', "text": "\\ud83d\\ude80 \\u0041"'), second, arrow),
      doc(shape(', "text": "lone \ud800 surrogate"'), second, `{"type": "connect", "from": "a", "to": "b", "text": "🚀"}`),
      doc(shape(', "text": NaN'), second),
      doc(shape(', "text": [1.0, {"b": 2, "a": [NaN]}, "x"]'), second),
      doc(shape(', "text": 1e-05'), shape(', "text": 100000000000000000000')),
      doc(shape(', "x": -0'), second.replace('"x": 20', '"x": 20.0'), arrow),
      doc(shape(', "x": true'), second.replace('"w": 10', '"w": false')),
      doc(shape(', "x": 1e400'), second.replace('"y": 0', `"y": ${'1'.repeat(400)}`)),
      doc(shape(', "w": 1000.0000000000001'), second.replace('"h": 10', '"h": 5e-324')),
      doc(shape(', "x": 0.30000000000000004, "y": 123456789.125e-3'), second),
      doc(shape(', "id": "b"'), second, arrow),
      doc(shape(', "id": "x\\u0061"'), second.replace('"id": "b"', '"id": "xa"')),
      doc(shape(''), `{"type": "conn\\u0065ct", "from": "a", "to": "a"}`),
      doc(shape(', "t\\u0065xt": "sneaky"'), second),
      `{"actions": [${second}], "actions": [${shape('')}, ${second}, ${arrow}]}`,
      `{"actions": [${second}], "actions": "none"}`,
      doc(shape(', "deep": ' + '['.repeat(985) + '1' + ']'.repeat(985)), second),
      doc(shape(', "deep": ' + '['.repeat(1200) + '1' + ']'.repeat(1200)), second),
      doc(shape(`, "z": ${'9'.repeat(4301)}`), second),
      doc(...Array.from({ length: 41 }, (_, i) => shape('').replace('"a"', `"s${i}"`))),
      doc(shape(''), '7', second),
      doc(),
      `Here you go: {curly} ${doc(shape(''), second, arrow)} done }`,
      `Données d'abord:\n\`\`\`json\n${doc(shape(', "text": "é"'), second, arrow)}\n\`\`\`\nfin {`,
      `\`\`\`json\n{"actions": [}\n\`\`\`\n${doc(shape(''), second)}`,
      '\ufeff' + doc(shape(''), second),
      `\u00a0${doc(shape(''), second)}\u3000`,
      doc(shape(', "text": "tab\\there \\/ \\b\\f\\r\\n"'), second),
      doc(shape(', "shape": "Rectangle"'), `{"type": "update_shape", "id": "a"}`, `{"type": null}`, `{"type": ""}`),
      '[1, 2]',
      '42',
      'null',
      '{"actions": null}',
    ];
    agree(texts);
  });

  it('on random character edits of valid completions', () => {
    const rng = mulberry32(11);
    const pieces = ['{', '}', '[', ']', ',', ':', '"', '\\', 'NaN', '-', '0', '1e5', '.', ' ', '\n', 'é', '🚀', '\\u00', 'true', 'null'];
    const base = generateCorpus({ n: 400, seed: 9 }).filter((c) => c.category === 'valid').map((c) => c.completion);
    const texts: string[] = [];
    for (const text of base) {
      for (let k = 0; k < 6; k++) {
        let t = text;
        for (let e = 0; e < 1 + Math.floor(rng() * 3); e++) {
          const at = Math.floor(rng() * t.length);
          const cut = Math.floor(rng() * 3);
          t = t.slice(0, at) + pieces[Math.floor(rng() * pieces.length)] + t.slice(at + cut);
        }
        texts.push(t);
      }
    }
    agree(texts);
  });
});
