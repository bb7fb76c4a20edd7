// How far the judge agrees with the programmatic components: Spearman's rank correlation of its scores with each
// rubric's reward and each component over the judged rollouts, and the rollouts where the judge and the first rubric
// are furthest apart. A judge is a noisy component (the seed): this is how a reader sees how noisy.
import type { Rollout } from './evaluate.ts';
import { bootstrapMean, spearman, type Interval } from './stats.ts';

/** A judge and a reward this far apart (in [0, 1]) is a disagreement worth listing. */
export const DISAGREEMENT_GAP = 0.5;

export interface Disagreement {
  task_id: string;
  sample: number;
  prompt: string;
  judge: number;
  /** The first rubric's reward. */
  reward: number;
  reasoning: string;
}

export interface JudgeAgreement {
  judge: string;
  judged: number;
  /** Rollouts without a judgment (the judge failed): counted warnings. */
  failed: number;
  cached: number;
  mean: Interval;
  /** Against which reward the disagreements are listed. */
  versus: string;
  spearman: Record<string, number | null>;
  disagreements: Disagreement[];
}

/** `rubric`: the reward disagreements are measured against; `main`: the reward whose components the rollouts carry
 *  (the environment's first evaluation reward). */
export function judgeAgreement(rollouts: readonly Rollout[], rubric: string, main: string, o: { listed?: number } = {}): JudgeAgreement | undefined {
  const asked = rollouts.filter((r) => r.judgment);
  if (asked.length === 0) return undefined;
  const judged = asked.filter((r) => r.judgment!.score !== null);
  const scores = judged.map((r) => r.judgment!.score!);
  const measures: Record<string, (r: Rollout) => number | undefined> = {};
  for (const name of Object.keys(judged[0]?.rewards ?? {})) if (!name.includes('+')) measures[`${name} reward`] = (r) => r.rewards[name];
  for (const name of Object.keys(judged[0]?.components ?? {})) measures[`${main}: ${name}`] = (r) => r.components[name];
  const correlations = Object.fromEntries(
    Object.entries(measures).map(([name, f]) => [name, spearman(scores, judged.map((r) => f(r) ?? NaN))]),
  );
  const disagreements = judged
    .map((r) => ({ task_id: r.task_id, sample: r.sample, prompt: r.prompt, judge: r.judgment!.score!, reward: r.rewards[rubric], reasoning: r.judgment!.reasoning }))
    .filter((d) => Math.abs(d.judge - d.reward) >= DISAGREEMENT_GAP)
    .sort((a, b) => Math.abs(b.judge - b.reward) - Math.abs(a.judge - a.reward))
    .slice(0, o.listed ?? 10);
  return {
    judge: asked[0].judgment!.judge,
    judged: judged.length,
    failed: asked.length - judged.length,
    cached: asked.filter((r) => r.judgment!.cached).length,
    mean: bootstrapMean(scores),
    versus: rubric,
    spearman: correlations,
    disagreements,
  };
}
