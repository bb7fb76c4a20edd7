// Which prompts a GRPO step trains on: a pure function of (seed, step), so that a resumed run draws the same batches.
// With a curriculum, the highest difficulty level allowed rises step by step through the levels the pool holds.
import { hashSeed, seededRandom } from '../random.ts';

export interface CurriculumOptions {
  /** Off: every level from the first step. */
  curriculum: boolean;
  /** Share of max_steps over which the allowed level climbs to the top one. */
  curriculumRatio: number;
  maxSteps: number;
}

/** A task's difficulty level: the environment's `level`. */
export type LevelOf<T> = (task: T) => number;

/** Difficulty levels present in the pool, ascending. */
export function poolLevels<T>(tasks: T[], levelOf: LevelOf<T>): number[] {
  return [...new Set(tasks.map(levelOf))].sort((a, b) => a - b);
}

/** The highest level step `step` (0-based) may draw. */
export function levelCap(step: number, levels: number[], o: CurriculumOptions): number {
  const top = levels[levels.length - 1];
  if (!o.curriculum || levels.length === 1) return top;
  const rampSteps = Math.max(1, Math.round(o.curriculumRatio * o.maxSteps));
  if (step >= rampSteps) return top;
  return levels[Math.min(levels.length - 1, Math.floor((step * levels.length) / rampSteps))];
}

/** `count` distinct tasks (with repeats only when fewer are eligible) at or under the step's level cap. */
export function promptsForStep<T>(tasks: T[], step: number, count: number, seed: number, o: CurriculumOptions, levelOf: LevelOf<T>): { tasks: T[]; levelCap: number } {
  const cap = levelCap(step, poolLevels(tasks, levelOf), o);
  const eligible = tasks.filter((t) => levelOf(t) <= cap);
  const random = seededRandom(hashSeed(seed, 'grpo-prompts', step));
  const order = eligible.map((_, i) => i);
  const picked: T[] = [];
  while (picked.length < count) {
    // A partial Fisher-Yates shuffle per round: distinct within a round, a new round only if the pool runs out.
    for (let i = 0; i < order.length && picked.length < count; i++) {
      const j = i + Math.floor(random() * (order.length - i));
      [order[i], order[j]] = [order[j], order[i]];
      picked.push(eligible[order[i]]);
    }
  }
  return { tasks: picked, levelCap: cap };
}
