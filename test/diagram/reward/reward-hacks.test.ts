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
