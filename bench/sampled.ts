// What a student's sampled answers do, for the benches that train one (bench/learning.ts, bench/decisions.ts): valid
// answers, entities and edges, and how many rollouts hold each kind of error.
import { evaluatePolicy, type Rollout } from '../src/eval/evaluate.ts';
import { StudentPolicy } from '../src/policy/student.ts';
import type { Task } from '../src/diagram/tasks/spec.ts';
import { diagramEnv } from '../src/diagram/diagram-env.ts';

export interface Figures {
  valid: number;
  parse: number;
  entities: number;
  edges: number;
  exact: number;
  strong: number;
  errors: Record<ErrorKind, number>;
}

export const ERROR_KINDS = ['self_arrow', 'duplicate_id', 'missing_end', 'cut_at_limit', 'no_json', 'other'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

function errorKinds(r: Rollout): Set<ErrorKind> {
  const kinds = new Set<ErrorKind>();
  if (r.finish_reason === 'length') kinds.add('cut_at_limit');
  if (!r.parsed) kinds.add('no_json');
  for (const e of r.errors) {
    if (/connect a shape to itself/.test(e)) kinds.add('self_arrow');
    else if (/duplicate shape id/.test(e)) kinds.add('duplicate_id');
    else if (/arrow (source|target) does not exist/.test(e)) kinds.add('missing_end');
    else if (r.parsed) kinds.add('other');
  }
  return kinds;
}

function figures(rollouts: Rollout[]): Figures {
  const mean = (f: (r: Rollout) => number) => rollouts.reduce((a, r) => a + f(r), 0) / rollouts.length;
  const errors = Object.fromEntries(ERROR_KINDS.map((k) => [k, 0])) as Record<ErrorKind, number>;
  for (const r of rollouts) for (const k of errorKinds(r)) errors[k]++;
  return {
    valid: mean((r) => (r.renderer_accepts ? 1 : 0)),
    parse: mean((r) => (r.parsed ? 1 : 0)),
    entities: mean((r) => r.components.entities_present ?? 0),
    edges: mean((r) => r.components.edges_correct ?? 0),
    exact: mean((r) => (r.renderer_accepts && r.components.entities_present === 1 && r.components.edges_correct === 1 ? 1 : 0)),
    strong: mean((r) => r.rewards.strong),
    errors,
  };
}

/** The figures of the student in `dir` sampling answers to `tasks` at `temperature` (0: greedy). */
export async function sampled(dir: string, tasks: Task[], temperature: number, maxTokens: number): Promise<Figures> {
  const policy = await StudentPolicy.load(dir);
  try {
    const { rollouts } = await evaluatePolicy(diagramEnv, policy, tasks, { rubrics: ['strong'], sampling: { temperature, maxTokens, seed: 7 } });
    return figures(rollouts);
  } finally {
    await policy.close?.();
  }
}
