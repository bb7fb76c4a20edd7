import { describe, expect, it } from 'vitest';
import { HACKS, HACK_PROMPTS, honestCompletion } from '../../../src/diagram/reward/hacks.ts';
import { strongRubric } from '../../../src/diagram/reward/strong.ts';

// Hacks that only wrap or space the honest answer lose a little; real cheats lose a lot.
const SMALL_MARGIN = new Set(['prose_wrapped', 'cramped']);

describe.each([
  ['with the task spec', true],
  ['with the spec extracted from the prompt', false],
])('strong reward against known hacks, %s', (_, withSpec) => {
  for (const input of HACK_PROMPTS) {
    const spec = withSpec ? input.spec : undefined;
    const honest = strongRubric.score({ prompt: input.prompt, completion: honestCompletion(input), spec });
    it(`"${input.prompt.slice(0, 48)}...": honest scores near 1`, () => {
      expect(honest.errors).toEqual([]);
      expect(honest.reward).toBeGreaterThan(0.95);
    });
    // A hack that happens to be the honest answer for this prompt (a star for a fan-out) is no hack here.
    const hacks = HACKS.filter((h) => h.make(input) !== honestCompletion(input));
    it.each(hacks.map((h) => [h.name, h] as const))(`"${input.prompt.slice(0, 24)}...": honest beats %s`, (name, hack) => {
      const cheat = strongRubric.score({ prompt: input.prompt, completion: hack.make(input), spec });
      expect(honest.reward - cheat.reward).toBeGreaterThan(SMALL_MARGIN.has(name) ? 0.015 : 0.03);
    });
  }
});

describe('the honest answer', () => {
  it('lays out a graph whose cycle leaves a level empty, every coordinate a number', () => {
    // "In progress" and "Blocked" point at each other: the level pass leaves a column between them empty
    const spec = { entities: ['Open', 'In progress', 'Done', 'Blocked'], edges: [['Open', 'In progress'], ['In progress', 'Done'], ['In progress', 'Blocked'], ['Blocked', 'In progress']] as [string, string][] };
    const completion = honestCompletion({ prompt: 'Open -> In progress -> Done; In progress <-> Blocked', spec });
    const actions = (JSON.parse(completion) as { actions: { type: string; x?: number; y?: number }[] }).actions;
    for (const a of actions.filter((x) => x.type === 'create_shape')) {
      expect(Number.isFinite(a.x)).toBe(true);
      expect(Number.isFinite(a.y)).toBe(true);
    }
    const scored = strongRubric.score({ prompt: 'Open -> In progress -> Done; In progress <-> Blocked', completion, spec });
    expect(scored.errors).toEqual([]);
    expect(scored.reward).toBeGreaterThan(0.95);
  });
});
