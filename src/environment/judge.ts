// A judge: something outside the environment (an LLM) that grades completions, and how its judgment weighs into a
// reward. The trainers and the evaluation ask one through this type only; the diagram's judge
// (src/diagram/reward/judge.ts) is one.

export interface Judgment {
  /** The judge's name (Judge.name). */
  judge: string;
  /** In [0, 1]; null when there is no judgment (`error` says why). */
  score: number | null;
  reasoning: string;
  cached: boolean;
  error?: string;
}

/** Grades completions of requests; never throws (a failure is a Judgment without a score). */
export interface Judge {
  /** e.g. `openai:MODEL`. */
  readonly name: string;
  /** Judgments for many (request, completion) pairs, in order. */
  judgeAll(items: readonly { prompt: string; completion: string }[]): Promise<Judgment[]>;
}

/**
 * A score with the judge's component: `judge` in the components with weight `weight`, the reward
 * (1 - weight) x the rubric's + weight x the judgment. Without a judgment the reward stays the rubric's and `judge` is
 * left out of the components, so that no judgment never reads as a 0.
 */
export function withJudgment<S extends { reward: number; components: Record<string, number>; weights?: Record<string, number> }>(
  score: S,
  judgment: Judgment,
  weight: number,
): S {
  const weights = score.weights ? { ...score.weights, judge: weight } : undefined;
  if (judgment.score === null) return { ...score, ...(weights ? { weights } : {}) };
  return {
    ...score,
    reward: (1 - weight) * score.reward + weight * judgment.score,
    components: { ...score.components, judge: judgment.score },
    ...(weights ? { weights } : {}),
  };
}
