import { describe, expect, it } from 'vitest';
import { arithmeticEnv } from '../../src/arithmetic/arithmetic-env.ts';

describe('the arithmetic environment', () => {
  const [task] = arithmeticEnv.tasks('train', 1, 0);
  const sum = String(task.spec.a + task.spec.b);
  const reward = arithmeticEnv.reward('answer');

  it('rewards the right sum, and answering with the bare number', () => {
    expect(reward.score(task, sum)).toEqual({ reward: 1, components: { correct: 1, format: 1 }, errors: [] });
    expect(reward.score(task, `The sum is ${sum}.`).components).toEqual({ correct: 1, format: 0 });
    const wrong = reward.score(task, String(Number(sum) + 1));
    expect(wrong.reward).toBeCloseTo(0.2, 12);
    expect(wrong.errors[0]).toContain(`the sum is ${sum}`);
    expect(arithmeticEnv.outcome(task, 'no idea')).toMatchObject({ parsed: false, valid: false, metrics: null });
    expect(() => arithmeticEnv.reward('strong')).toThrow(/unknown reward "strong": use answer/);
  });

  it('draws distinct tasks per split, the same ones for the same seed, and no task in both splits', () => {
    const train = arithmeticEnv.tasks('train', 500, 3);
    expect(new Set(train.map((t) => t.id)).size).toBe(500);
    expect(arithmeticEnv.tasks('train', 500, 3)).toEqual(train);
    expect(arithmeticEnv.tasks('train', 500, 4)).not.toEqual(train);
    const heldout = new Set(arithmeticEnv.tasks('heldout', 10_000, 0).map((t) => t.id));
    expect(heldout.size).toBeGreaterThan(500);
    expect(arithmeticEnv.tasks('train', 10_000, 0).filter((t) => heldout.has(t.id))).toEqual([]);
    for (const t of train) expect(t.prompt).toBe(`What is ${t.spec.a} + ${t.spec.b}?`);
    expect(() => arithmeticEnv.tasks('ood', 1, 0)).toThrow(/unknown split "ood": use train or heldout/);
  });
});
