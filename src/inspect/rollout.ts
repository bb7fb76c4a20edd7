// One rollout as the inspector shows it, whichever stage wrote the row: the teacher's chat rows and rejected attempts,
// SFT's sampled evaluations, GRPO's training rollouts and evaluation rollouts each carry their own fields. Where a
// row stores no reward components (teacher, SFT), the environment's default reward computes them, so every row can be
// filtered by a component.
import { diagramEnv } from '../diagram/diagram-env.ts';
import { errorKindsOf, type ErrorKind } from '../diagram/language/error-kinds.ts';
import type { DiagramSpec } from '../diagram/tasks/spec.ts';
import { specOf, type RunTask, type SourceKind } from './runs.ts';

export interface Rollout {
  /** Its line in the file (1-based): the rollout's id in URLs. */
  n: number;
  step?: number;
  taskId?: string;
  sample?: number;
  prompt: string;
  completion: string;
  spec?: DiagramSpec;
  /** The reward the row was scored with when it was written (the run's training reward for GRPO, `task` for an
   *  evaluation, `strong` for the teacher and SFT). */
  reward: number | null;
  /** Components of each rubric the row stores, by rubric; a row that stores none gets the default reward's. */
  components: Record<string, Record<string, number>>;
  /** Whether `components` came from the row (false: computed when the file was read). */
  componentsStored: boolean;
  errors: string[];
  errorKinds: ErrorKind[];
  finishReason?: string;
  quirks: string[];
  /** GRPO's group-relative advantage, where the row has one. */
  advantage?: number;
  /** What an LLM judge said of it, when the run asked one (src/environment/judge.ts). */
  judgment?: { judge: string; score: number | null; reasoning: string; error?: string };
}

type Row = Record<string, unknown>;
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const numbers = (v: unknown): Record<string, number> | undefined => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'number') out[k] = x;
  return out;
};

/** The quirks a row names: a list (teacher) or rates per quirk (evaluation), the ones above zero. */
function quirksOf(v: unknown): string[] {
  if (Array.isArray(v)) return strings(v);
  return Object.entries(numbers(v) ?? {}).filter(([, x]) => x > 0).map(([k]) => k);
}

function judgmentOf(v: unknown): Rollout['judgment'] {
  if (!v || typeof v !== 'object') return undefined;
  const j = v as Record<string, unknown>;
  return { judge: str(j.judge) ?? 'judge', score: num(j.score) ?? null, reasoning: str(j.reasoning) ?? '', ...(str(j.error) ? { error: str(j.error) } : {}) };
}

/** The rollout a row holds, or undefined for a row that is none (no prompt or completion to show). */
export function rolloutOf(kind: SourceKind, row: Row, n: number, tasks: { byId: Map<string, RunTask>; byPrompt: Map<string, RunTask> }): Rollout | undefined {
  let prompt = str(row.prompt);
  let completion = str(row.completion);
  if (kind === 'teacher') {
    const messages = Array.isArray(row.messages) ? (row.messages.filter((m) => m && typeof m === 'object') as { role?: unknown; content?: unknown }[]) : [];
    prompt = str(messages.find((m) => m.role === 'user')?.content);
    completion = str(messages.at(-1)?.role === 'assistant' ? messages.at(-1)?.content : undefined);
  }
  if (prompt === undefined || completion === undefined) return undefined;
  const taskId = str(row.task_id);
  const task = (taskId !== undefined ? tasks.byId.get(taskId) : undefined) ?? tasks.byPrompt.get(prompt);
  const spec = specOf(row.spec) ?? task?.spec;
  const finishReason = str(row.finish_reason);
  let errors = strings(row.errors);
  let components: Record<string, Record<string, number>> = {};
  const byRubric = row.reward_components as Record<string, unknown> | undefined;
  if (byRubric && typeof byRubric === 'object') {
    for (const [name, c] of Object.entries(byRubric)) {
      const values = numbers(c);
      if (values) components[name] = values;
    }
  } else if (numbers(row.components)) {
    components = { [kind === 'grpo' ? 'trained' : 'strong']: numbers(row.components)! };
  }
  const componentsStored = Object.keys(components).length > 0;
  if (!componentsStored) {
    const scored = diagramEnv.reward(diagramEnv.defaultReward).score({ id: taskId ?? '', prompt, spec }, completion);
    components = { [diagramEnv.defaultReward]: scored.components };
    if (!Array.isArray(row.errors)) errors = scored.errors;
  }
  return {
    n,
    step: num(row.step),
    taskId: taskId ?? task?.id,
    sample: num(row.sample) ?? num(row.attempt),
    prompt,
    completion,
    spec,
    reward: num(row.reward) ?? null,
    components,
    componentsStored,
    errors,
    errorKinds: errorKindsOf(errors, finishReason),
    finishReason,
    quirks: quirksOf(row.quirks),
    advantage: num(row.advantage),
    judgment: judgmentOf(row.judgment),
  };
}
