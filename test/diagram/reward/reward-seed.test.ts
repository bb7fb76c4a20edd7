import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CORPUS_CATEGORIES, generateCorpus } from '../../../src/diagram/tasks/corpus.ts';
import { seedRubric } from '../../../src/diagram/reward/seed.ts';
import { pyFloatRepr, pyHasNonSpace, pyJsonLoads, pyStr, PY_INT_MAX_STR_DIGITS, validateCompletion } from '../../../src/diagram/reward/seed-python.ts';
import { getRubric, RUBRIC_NAMES } from '../../../src/diagram/reward/presets.ts';

const SCORER = fileURLToPath(new URL('../../../python/seed_reference_score.py', import.meta.url));
/** Why the reference cannot be run here, in the scorer's own words (it knows where the reference lives), or undefined.
 *  A fresh clone has no ../shared/seed/reference beside it; CI does, and runs the conformance tests. */
const noReference: string | undefined = (() => {
  const probe = spawnSync('python3', [SCORER], { input: '', encoding: 'utf8' });
  return probe.status === 0 ? undefined : (probe.stderr?.trim() || probe.error?.message || `python3 exited ${probe.status}`);
})();

/** Scores rows with the reference reward.py in one python3 process: [reward, env.py errors] per row. */
function pythonScores(rows: { prompt: string; completion: string }[]): { reward: number; errors: string[] }[] {
  const input = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const py = spawnSync('python3', [SCORER, '--errors'], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (py.status !== 0) throw new Error(`python3 ${SCORER} failed (${py.status}): ${py.stderr}`);
  return py.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
}

type Action = Record<string, unknown>;
const box = (id: string, x: number, y: number, w: number, h: number, text?: string): Action => ({
  type: 'create_shape', id, shape: 'rectangle', x, y, w, h, ...(text === undefined ? {} : { text }),
});
const arrow = (from: string, to: string): Action => ({ type: 'connect', from, to });
const completion = (actions: unknown[]) => JSON.stringify({ actions });
const score = (prompt: string, text: string) => seedRubric.score({ prompt, completion: text });

describe.skipIf(noReference !== undefined)(`seed preset conformance with the Python reference${noReference ? ` (skipped: ${noReference})` : ''}`, () => {
  it('gives exactly the reference reward on 12,000 generated completions', () => {
    const corpus = generateCorpus({ n: 12_000, seed: 2026 });
    expect(new Set(corpus.map((c) => c.category))).toEqual(new Set(CORPUS_CATEGORIES));
    const py = pythonScores(corpus);
    expect(py).toHaveLength(corpus.length);
    let sameReward = 0;
    let sameErrors = 0;
    const mismatches: string[] = [];
    corpus.forEach((item, i) => {
      const ts = seedRubric.score(item);
      if (Object.is(ts.reward, py[i].reward)) sameReward++;
      else mismatches.push(`${item.id} ${item.variant}: ts ${ts.reward} py ${py[i].reward}`);
      if (JSON.stringify(ts.errors) === JSON.stringify(py[i].errors)) sameErrors++;
    });
    console.log(`seed conformance: ${sameReward}/${corpus.length} rewards equal, ${sameErrors}/${corpus.length} error lists equal`);
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(sameReward).toBe(corpus.length);
    expect(sameErrors).toBe(corpus.length);
    // The corpus is only a test if it spreads rewards: many distinct non-zero values, and zeros.
    const rewards = py.map((p) => p.reward);
    expect(new Set(rewards).size).toBeGreaterThan(200);
    expect(rewards.filter((r) => r === 0).length).toBeGreaterThan(2000);
  });

  it('agrees on the Python-only inputs one by one', () => {
    const c = (actions: string) => `{"actions": [${actions}]}`;
    const shape = (fields: string) => `{"type": "create_shape", "id": "a", "shape": "ellipse", "x": 0, "y": 0, "w": 10, "h": 10, ${fields}}`;
    const prompt = 'Draw true false none threshold 1e-05 client database';
    const cases = [
      c(shape('"text": NaN')), c(shape('"text": -Infinity')), c(shape('"text": true')), c(shape('"text": null')),
      c(shape('"text": 1e-05')), c(shape('"text": 1.0')), c(shape('"text": 100000000000000000000')),
      c(shape('"text": ["Client", {"b": "it\'s", "a": [1.5, NaN, false]}]')), c(shape('"text": "\\u0085"')),
      c(shape('"text": "\\ufeff"')), c(shape('"z": NaN')), c(shape(`"z": ${'9'.repeat(PY_INT_MAX_STR_DIGITS + 1)}`)),
      c(shape(`"z": ${'['.repeat(1200)}${']'.repeat(1200)}`)), '\ufeff' + c(shape('"text": "Client"')),
      `${'1'.repeat(400)}`, 'NaN', c(shape('"text": "x"').replace('"x": 0', `"x": ${'1'.repeat(400)}`)),
    ];
    const py = pythonScores(cases.map((completion) => ({ prompt, completion })));
    cases.forEach((text, i) => {
      const ts = score(prompt, text);
      expect({ i, reward: ts.reward, errors: ts.errors }).toEqual({ i, reward: py[i].reward, errors: py[i].errors });
    });
  });
});

describe('seed preset rules', () => {
  it('is registered and reports every component with its weight', () => {
    expect(RUBRIC_NAMES).toContain('seed');
    expect(getRubric('seed')).toBe(seedRubric);
    expect(() => getRubric('nope')).toThrow(/valid names are .*seed/);
    const s = score('Draw client and database', completion([box('c', 0, 0, 50, 50, 'Client'), box('d', 100, 0, 50, 50, 'Database'), arrow('c', 'd')]));
    expect(s.weights).toEqual({ valid: 0.4, layout: 0.3, semantics: 0.3 });
    expect(Object.keys(s.components)).toEqual(['valid', 'layout', 'semantics']);
    for (const v of Object.values(s.components)) expect(v).toBeGreaterThanOrEqual(0);
    expect(s.reward).toBe(0.4 * 1 + 0.3 * s.components.layout + 0.3 * s.components.semantics);
  });

  it('gates: one refused action or a parse failure makes the reward 0', () => {
    const good = [box('c', 0, 0, 50, 50, 'Client'), box('d', 100, 0, 50, 50, 'Database'), arrow('c', 'd')];
    expect(score('client database', completion(good)).reward).toBeGreaterThan(0.9);
    const bad = score('client database', completion([...good, arrow('c', 'ghost')]));
    expect(bad.reward).toBe(0);
    expect(bad.components.valid).toBe(0);
    expect(bad.errors).toEqual(['action 3: arrow target does not exist: ghost']);
    const unparsable = score('client database', 'no json here');
    expect(unparsable.reward).toBe(0);
    expect(unparsable.errors).toEqual(['model output does not contain JSON']);
    expect(score('x', completion([])).errors).toEqual(['actions array is empty']);
    expect(score('x', JSON.stringify({ actions: Array.from({ length: 41 }, (_, i) => box(`s${i}`, i * 20, 0, 10, 10)) })).errors).toEqual(['too many actions']);
  });

  it('takes 0.15 per overlapping or touching pair, not for a pair with any gap', () => {
    const layout = (actions: Action[]) => score('A to B.', completion(actions)).components.layout;
    expect(layout([box('a', 0, 0, 10, 10), box('b', 5, 5, 10, 10)])).toBe(1 - 0.15);
    expect(layout([box('a', 0, 0, 10, 10), box('b', 10, 0, 10, 10)])).toBe(1 - 0.15);
    expect(layout([box('a', 0, 0, 10, 10), box('b', 10.000001, 0, 10, 10)])).toBe(1);
    const stacked = Array.from({ length: 4 }, (_, i) => box(`s${i}`, 0, 0, 10, 10));
    expect(layout(stacked)).toBe(1 - 0.15 - 0.15 - 0.15 - 0.15 - 0.15 - 0.15);
    expect(layout(Array.from({ length: 8 }, (_, i) => box(`s${i}`, 0, 0, 10, 10)))).toBe(0);
  });

  it('adds 0.1 per labeled shape and per arrow, five of each at most', () => {
    // One big shape over five small separate ones: five overlapping pairs, so the bonuses are not clamped away.
    const scene = (labels: number, arrows: number, extraSmall = 0) => {
      const small = Array.from({ length: 5 + extraSmall }, (_, i) => box(`s${i}`, i * 30, 0, 10, 10, i < labels ? `L${i}` : undefined));
      const links = Array.from({ length: arrows }, (_, i) => arrow('big', `s${i % small.length}`));
      return score('A to B.', completion([box('big', -5, -5, 1000, 20), ...small, ...links])).components.layout;
    };
    const base = scene(0, 0);
    expect(scene(4, 0)).toBeCloseTo(base + 0.4, 12);
    expect(scene(5, 0)).toBeCloseTo(base + 0.5, 12);
    expect(scene(6, 0, 1)).toBe(scene(5, 0, 1));
    expect(scene(0, 3)).toBeCloseTo(base + 0.3, 12);
    expect(scene(0, 7)).toBe(scene(0, 5));
    // Python's str.strip(): U+0085 is whitespace (no label), U+FEFF is not (a label).
    expect(pyHasNonSpace('\u0085 \u3000')).toBe(false);
    expect(pyHasNonSpace('\ufeff')).toBe(true);
  });

  it('scores semantics as the share of 4+ letter prompt words among label words, 0.5 without such words', () => {
    const shapes = completion([box('c', 0, 0, 50, 50, 'Client'), box('d', 100, 0, 50, 50, 'the DATABASE!')]);
    // Important words: draw, client, database, cache.
    expect(score('Draw client, database and cache.', shapes).components.semantics).toBe(2 / 4);
    expect(score('A to B.', shapes).components.semantics).toBe(0.5);
    expect(score('', shapes).components.semantics).toBe(0.5);
    expect(score('CLIENT database', shapes).components.semantics).toBe(1);
  });

  it('reads what Python json reads: NaN and Infinity literals, booleans as numbers, str() of non-strings', () => {
    const prompt = 'none true threshold e-05 alpha';
    const one = (fields: string) =>
      validateCompletion(`{"actions": [{"type": "create_shape", "id": "a", "shape": "text", "x": 0, "y": 0, "w": 10, "h": 10, ${fields}}]}`);
    expect(one('"text": NaN').canvas?.shapes.get('a')?.text).toBe('nan');
    expect(one('"z": Infinity').errors).toEqual([]);
    expect(one('"x": NaN').errors).toEqual(['action 0: x must be a finite number']);
    expect(one('"text": true, "w": true').canvas?.shapes.get('a')).toMatchObject({ w: 1, text: 'True' });
    expect(one('"w": false').errors).toEqual(['action 0: shape width and height must be positive']);
    expect(one('"text": null').canvas?.shapes.get('a')?.text).toBe('None');
    expect(one('"text": 1e-05').canvas?.shapes.get('a')?.text).toBe('1e-05');
    expect(one('"text": 10').canvas?.shapes.get('a')?.text).toBe('10');
    expect(one('"text": 10.0').canvas?.shapes.get('a')?.text).toBe('10.0');
    expect(one('"text": {"b": ["alpha", "it\'s"], "2": -0}').canvas?.shapes.get('a')?.text).toBe(`{'b': ['alpha', "it's"], '2': 0}`);
    const s = score(prompt, `{"actions": [{"type": "create_shape", "id": "a", "shape": "text", "x": 0, "y": 0, "w": 10, "h": 10, "text": [true, null, 1e-05]}]}`);
    expect(s.components.semantics).toBe(3 / 5);
  });

  it('writes floats and ints as Python does', () => {
    const cases: [number, string][] = [
      [1, '1.0'], [0.1, '0.1'], [1e-5, '1e-05'], [0.0001, '0.0001'], [1e16, '1e+16'], [1e15, '1000000000000000.0'],
      [-0, '-0.0'], [1.5e300, '1.5e+300'], [123456789012345680, '1.2345678901234568e+17'], [5e-324, '5e-324'], [NaN, 'nan'], [-Infinity, '-inf'],
    ];
    for (const [x, repr] of cases) expect(pyFloatRepr(x)).toBe(repr);
    const loaded = pyJsonLoads('[1, 1.0, -0, "a\'b", "\\u0000\\n\\u00e9\\u200b"]');
    expect(loaded.ok && pyStr(loaded.value)).toBe(`[1, 1.0, 0, "a'b", '\\x00\\né\\u200b']`);
  });

  it('fails where Python fails: BOM, overlong ints, deep nesting', () => {
    expect(pyJsonLoads('\ufeff{}')).toMatchObject({ ok: false, error: { type: 'JSONDecodeError' } });
    expect(pyJsonLoads('9'.repeat(PY_INT_MAX_STR_DIGITS + 1))).toMatchObject({ ok: false, error: { type: 'ValueError' } });
    expect(pyJsonLoads('['.repeat(2000) + ']'.repeat(2000))).toMatchObject({ ok: false, error: { type: 'RecursionError' } });
    expect(pyJsonLoads('[1,]')).toEqual({ ok: false, error: { type: 'JSONDecodeError', message: 'Expecting value: line 1 column 4 (char 3)' } });
  });
});
