// Reward presets by name: what `--reward <name>` selects everywhere.
import type { Rubric } from './rubric.ts';
import { seedRubric } from './seed.ts';
import { strongRubric } from './strong.ts';
import { taskRubric } from './task.ts';

const RUBRICS: Record<string, Rubric> = {
  seed: seedRubric,
  strong: strongRubric,
  task: taskRubric,
};

export const RUBRIC_NAMES: readonly string[] = Object.keys(RUBRICS);

/** The rubric registered under `name`; an unknown name throws an error that lists the valid ones. */
export function getRubric(name: string): Rubric {
  if (!Object.hasOwn(RUBRICS, name)) {
    throw new Error(`unknown reward preset ${JSON.stringify(name)}: valid names are ${RUBRIC_NAMES.join(', ')}`);
  }
  return RUBRICS[name];
}
