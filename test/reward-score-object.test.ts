import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/env/corpus.ts';
import { executeCompletion } from '../src/env/execute.ts';
import { getRubric } from '../src/reward/presets.ts';
import { defineRubric, type Score } from '../src/reward/rubric.ts';
import { executeCountsFast } from '../src/reward/strong-fast.ts';
import { validateCompletion } from '../src/reward/seed-python.ts';

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
    it(`${name}: errors worded on read equal the exact path's, and the score reads like a plain object`, () => {
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

  it('strong: a parse refused for what the reader tells is worded by the fast path as executeCompletion words it', () => {
    const shape = '{"type":"create_shape","id":"a","shape":"rectangle","x":0,"y":0,"w":10,"h":10}';
    const refusals = [
      'no braces here at all',
      'a } before a { is no span',
      '[1, 2]',
      '"actions"',
      '42',
      '{"action": []}',
      '{"actions": {"type": "create_shape"}}',
      '{"actions": null}',
      '{"actions": []}',
      'Here you go:\n```json\n{"actions": []}\n```',
      'text {"actions": "none"} text',
      `{"actions": [${Array(41).fill(shape).join(',')}]}`,
      `{"actions": [${Array(60).fill('1').join(',')}]}`,
      ...['null', '[]', '"x"', '3', '-2.5e3', 'true', 'false'].map((v) => `{"actions": [${shape}, ${v}, ${shape}]}`),
      `{"actions": [${shape}], "actions": [7]}`,
    ];
    const rubric = getRubric('strong');
    for (const completion of refusals) {
      const fast = executeCountsFast(completion);
      expect({ completion, refusal: fast?.refusal }).toEqual({ completion, refusal: executeCompletion(completion).errors[0] });
      expect({ completion, errors: asPlain(rubric.score({ prompt: 'p', completion })) }).toEqual({ completion, errors: executeCompletion(completion).errors });
    }
    // JSON.parse's own words, and refused actions, are left to the exact path.
    for (const completion of ['{"actions": [}', '{"actions": [1,]} trailing', `{"actions": [${shape.replace('"w":10', '"w":-1')}]}`]) {
      expect(executeCountsFast(completion)?.refusal).toBeNull();
      expect(asPlain(rubric.score({ prompt: 'p', completion }))).toEqual(executeCompletion(completion).errors);
    }
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
