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
