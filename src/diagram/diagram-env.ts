// The text-to-diagram environment as a TextEnv: the task suite, the action language's system prompt, the rubric
// presets, the canvas that runs a completion's actions, the teacher-quirk detectors and the action guide. Built from
// those modules, not a second copy of them.
import type { EnvOutcome, EnvReward, EnvTask, TextEnv } from '../environment/text-env.ts';
import { executeCompletion } from '../env/execute.ts';
import { conversationFor } from '../policy/prompt.ts';
import { detectQuirks, QUIRK_NAMES } from '../policy/quirks.ts';
import { ActionGuide, GuideVocabulary } from '../policy/structured.ts';
import { getRubric, RUBRIC_NAMES } from '../reward/presets.ts';
import type { Rubric } from '../reward/rubric.ts';
import { generateTasks, maxDistinct } from '../tasks/generate.ts';
import { SPLITS } from '../tasks/scenarios.ts';
import { DiagramSpec } from '../tasks/spec.ts';

/** A prompt without a spec is scored against what the rubrics extract from the prompt itself. */
export type DiagramTaskSpec = DiagramSpec | undefined;

/** A rubric as the environment's reward. */
export function rubricReward(rubric: Rubric): EnvReward<DiagramTaskSpec> {
  return { name: rubric.name, score: (task, completion) => rubric.score({ prompt: task.prompt, completion, spec: task.spec }) };
}

function outcome(task: EnvTask<DiagramTaskSpec>, completion: string): EnvOutcome {
  const run = executeCompletion(completion);
  return {
    parsed: run.parse.ok,
    valid: run.parse.ok && run.errors.length === 0,
    errors: run.errors,
    metrics: run.canvas && task.spec ? { ...detectQuirks(completion, run.canvas, task.spec) } : null,
  };
}

export const diagramEnv: TextEnv<DiagramTaskSpec> = {
  name: 'diagram',
  description: 'text to diagram: a request in words, answered with tldraw-style create_shape/connect actions',
  spec: DiagramSpec.optional(),
  splits: SPLITS,
  rewards: RUBRIC_NAMES,
  defaultReward: 'task',
  evalReward: 'strong',
  reward: (name) => rubricReward(getRubric(name)),
  tasks: (split, n, seed) => {
    // maxDistinct names the splits when this one is unknown.
    const s = split as (typeof SPLITS)[number];
    return generateTasks({ split: s, n: Math.min(n, maxDistinct(s)), seed });
  },
  conversation: (task) => conversationFor(task.prompt),
  outcome,
  metricNames: QUIRK_NAMES,
  level: (task) => task.spec?.difficulty ?? 0,
  guide: (tok) => {
    const vocab = new GuideVocabulary(tok);
    return () => new ActionGuide(vocab);
  },
};
