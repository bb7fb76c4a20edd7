// The text-to-diagram environment as a TextEnv: the task suite, the action language's system prompt, the rubric
// presets, the canvas that runs a completion's actions, the teacher-quirk detectors and the action guide. Built from
// those modules, not a second copy of them.
import type { EnvOutcome, EnvReward, EnvTask, TextEnv } from '../environment/text-env.ts';
import { executeCompletion } from './language/execute.ts';
import { conversationFor } from './language/prompt.ts';
import { detectQuirks, QUIRK_NAMES } from './teacher/quirks.ts';
import { actionGuides } from './language/structured.ts';
import { getRubric, RUBRIC_NAMES } from './reward/presets.ts';
import type { RendererReadback, Rubric } from './reward/rubric.ts';
import { renderSvg } from './render/svg.ts';
import { generateTasks, maxDistinct } from './tasks/generate.ts';
import { SPLITS } from './tasks/scenarios.ts';
import { DiagramSpec } from './tasks/spec.ts';

/** A prompt without a spec is scored against what the rubrics extract from the prompt itself. */
export type DiagramTaskSpec = DiagramSpec | undefined;

/** A rubric as the environment's reward. */
export function rubricReward(rubric: Rubric): EnvReward<DiagramTaskSpec, RendererReadback> {
  return {
    name: rubric.name,
    score: (task, completion, readback) => rubric.score({ prompt: task.prompt, completion, spec: task.spec, ...(readback && { readback }) }),
  };
}

/** With a readback, acceptance and errors are the outside renderer's as well as the built-in canvas's. */
function outcome(task: EnvTask<DiagramTaskSpec>, completion: string, readback?: RendererReadback): EnvOutcome {
  const run = executeCompletion(completion);
  const schemaErrors = run.outcomes.filter((o) => o.error?.kind === 'schema').length;
  return {
    parsed: run.parse.ok,
    wellFormed: run.parse.ok && schemaErrors === 0,
    valid: run.parse.ok && (readback ? readback.outcomes.every((o) => o.applied) && readback.errors.length === 0 : run.errors.length === 0),
    errors: readback ? [...new Set([...run.errors, ...readback.errors])] : run.errors,
    metrics: task.spec ? { ...detectQuirks(completion, run.canvas, task.spec) } : null,
  };
}

function draw(completion: string, o: { title?: string; errors?: boolean } = {}): { svg: string; empty: boolean } | { error: string } {
  const run = executeCompletion(completion);
  if (!run.canvas) return { error: run.errors[0] ?? 'unparsable' };
  return { svg: renderSvg(run.canvas, { title: o.title, errors: o.errors ? run.errors : undefined }), empty: run.canvas.shapes.size === 0 };
}

export const diagramEnv: TextEnv<DiagramTaskSpec, RendererReadback> = {
  name: 'diagram',
  description: 'text to diagram: a request in words, answered with tldraw-style create_shape/connect actions',
  spec: DiagramSpec.optional(),
  splits: SPLITS,
  rewards: RUBRIC_NAMES,
  defaultReward: 'task',
  evalRewards: ['strong', 'seed'],
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
  groups: (task) => ({ kind: task.spec?.kind ?? 'unknown', difficulty: String(task.spec?.difficulty ?? 'unknown') }),
  draw,
  guide: actionGuides,
};
