import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../../../src/diagram/tasks/corpus.ts';
import { executeCompletion } from '../../../src/diagram/language/execute.ts';
import { getRubric } from '../../../src/diagram/reward/presets.ts';
import { defineRubric, type Score } from '../../../src/diagram/reward/rubric.ts';
import { validateCompletion } from '../../../src/diagram/reward/seed-python.ts';

const KEYS = ['reward', 'components', 'weights', 'errors'];

/** A score read the ways logs and trainers read one: keys, spread, JSON, two reads of `errors`. */
function asPlain(score: Score) {
  const first = score.errors;
  expect(score.errors).toBe(first);
  expect(Object.keys(score)).toEqual(KEYS);
  const spread = { ...score };
  expect(Object.keys(spread)).toEqual(KEYS);
  expect(spread.errors).toBe(first);
  expect(JSON.parse(JSON.stringify(score))).toEqual({ ...spread, components: { ...score.components }, weights: { ...score.weights } });
  return first;
}

describe('score objects', () => {
  const items = generateCorpus({ n: 400, seed: 17 });
  const exactErrors: Record<string, (text: string) => string[]> = {
    seed: (text) => validateCompletion(text).errors,
    strong: (text) => executeCompletion(text).errors,
  };

  for (const name of ['seed', 'strong']) {
    it(`${name}: errors equal the environment's own, worded once, and the score reads like a plain object`, () => {
      const rubric = getRubric(name);
      let withErrors = 0;
      for (const item of items) {
        const errors = asPlain(rubric.score(item));
        expect({ id: item.id, errors }).toEqual({ id: item.id, errors: exactErrors[name](item.completion) });
        if (errors.length > 0) withErrors++;
      }
      expect(withErrors).toBeGreaterThan(50);
    });
  }

  const shape = (fields: string) => `{"type": "create_shape", "id": "a", "shape": "ellipse", "x": 0, "y": 0, "w": 10, "h": 10${fields}}`;
  const doc = (...actions: string[]) => `{"actions": [${actions.join(', ')}]}`;
  const arrow = `{"type": "connect", "from": "a", "to": "b"}`;
  const second = `{"type": "create_shape", "id": "b", "shape": "text", "x": 20, "y": 0, "w": 10, "h": 10, "text": "B"}`;
  /** Completions no generator writes: odd JSON, odd numbers, escapes, duplicate keys, the action cap, prose around. */
  const odd = [
    doc(shape(', "text": "\\ud83d\\ude80 \\u0041"'), second, arrow),
    doc(shape(', "text": "lone \ud800 surrogate"'), second, `{"type": "connect", "from": "a", "to": "b", "text": "🚀"}`),
    doc(shape(', "text": NaN'), second),
    doc(shape(', "text": [1.0, {"b": 2, "a": [NaN]}, "x"]'), second),
    doc(shape(', "x": true'), second.replace('"w": 10', '"w": false')),
    doc(shape(', "x": 1e400'), second.replace('"y": 0', `"y": ${'1'.repeat(400)}`)),
    doc(shape(', "id": "b"'), second, arrow),
    doc(shape(''), `{"type": "conn\\u0065ct", "from": "a", "to": "a"}`),
    `{"actions": [${second}], "actions": [${shape('')}, ${second}, ${arrow}]}`,
    `{"actions": [${second}], "actions": "none"}`,
    doc(shape(', "deep": ' + '['.repeat(1200) + '1' + ']'.repeat(1200)), second),
    doc(...Array.from({ length: 41 }, (_, i) => shape('').replace('"a"', `"s${i}"`))),
    doc(shape(''), '7', second),
    `Here you go: {curly} ${doc(shape(''), second, arrow)} done }`,
    `\`\`\`json\n{"actions": [}\n\`\`\`\n${doc(shape(''), second)}`,
    '\ufeff' + doc(shape(''), second),
    doc(shape(', "shape": "Rectangle"'), `{"type": "update_shape", "id": "a"}`, `{"type": null}`, `{"type": ""}`),
    doc(),
    '[1, 2]',
    '42',
    'null',
    '{"actions": null}',
  ];

  it('strong and seed: on odd completions, errors are the environment\'s own, and the syntax shares its outcome counts', () => {
    const strong = getRubric('strong');
    const seed = getRubric('seed');
    for (const completion of odd) {
      const row = { prompt: 'Draw A and B', completion };
      const exec = executeCompletion(completion);
      const score = strong.score(row);
      expect({ completion, errors: asPlain(score) }).toEqual({ completion, errors: exec.errors });
      expect({ completion, errors: asPlain(seed.score(row)) }).toEqual({ completion, errors: validateCompletion(completion).errors });
      const n = exec.outcomes.length;
      const schemaFailed = exec.outcomes.filter((o) => !o.applied && o.error?.kind === 'schema').length;
      const applied = exec.outcomes.filter((o) => o.applied).length;
      const drawn = (exec.canvas?.shapes.size ?? 0) > 0;
      expect({ completion, schema: score.components.schema_valid, accepted: score.components.renderer_accepts }).toEqual({
        completion,
        schema: n === 0 ? 0 : (n - schemaFailed) / n,
        accepted: n === 0 || !drawn ? 0 : applied / n,
      });
      expect({ completion, jsonFound: score.components.parses_json > 0 }).toEqual({ completion, jsonFound: exec.parse.source !== undefined });
    }
    // These are refused outright: nothing drawn, the refusal named.
    for (const completion of ['[1, 2]', '42', 'null', '{"actions": null}', `{"actions": [${second}], "actions": "none"}`, odd[11]]) {
      const score = strong.score({ prompt: 'Draw A and B', completion });
      expect({ completion, refused: score.errors.length > 0, accepted: score.components.renderer_accepts }).toEqual({ completion, refused: true, accepted: 0 });
    }
    expect(strong.score({ prompt: 'p', completion: odd[11] }).errors.join(' ')).toMatch(/41/);
  });

  it('a lazily worded score takes an assigned errors array, and words nothing once assigned', () => {
    let worded = 0;
    const rubric = defineRubric<{ v: number }>({
      name: 'lazy',
      description: 'test',
      prepare: () => ({ v: 0.5 }),
      components: [{ name: 'v', weight: 1, description: 'v', fn: (c) => c.v }],
      errors: () => () => {
        worded++;
        return ['worded'];
      },
    });
    const a = rubric.score({ prompt: 'p', completion: 'c' });
    const b = rubric.score({ prompt: 'p', completion: 'c' });
    expect(worded).toBe(0);
    expect(asPlain(a)).toEqual(['worded']);
    expect(worded).toBe(1);
    b.errors = ['set'];
    expect(asPlain(b)).toEqual(['set']);
    expect(worded).toBe(1);
    expect(Object.keys(a)).toEqual(KEYS);
    expect(a).toEqual({ reward: 0.5, components: { v: 0.5 }, weights: { v: 1 }, errors: ['worded'] });
  });
});
