// Side-by-side comparison of evaluation directories, with the difference of means against the first one.
import type { EvalMetrics, Rollout } from './evaluate.ts';
import { bootstrapDiff, type Interval } from './stats.ts';

export interface NamedEval {
  name: string;
  metrics: EvalMetrics;
  rollouts: Rollout[];
}

export interface Difference {
  name: string;
  metric: string;
  diff: Interval;
  paired: boolean;
}

const key = (r: Rollout) => `${r.task_id}\u0000${r.sample}`;

/**
 * Differences of each rubric's mean reward against `base`, paired over the (task, sample) pairs both evaluated
 * when they share all of them, unpaired otherwise.
 */
export function differences(base: NamedEval, other: NamedEval): Difference[] {
  const rubrics = Object.keys(base.metrics.reward).filter((r) => r in other.metrics.reward);
  const otherByKey = new Map(other.rollouts.map((r) => [key(r), r]));
  const common = base.rollouts.filter((r) => otherByKey.has(key(r)));
  const paired = common.length === base.rollouts.length && common.length === other.rollouts.length;
  return rubrics.map((metric) => {
    const a = paired ? common.map((r) => r.rewards[metric]) : base.rollouts.map((r) => r.rewards[metric]);
    const b = paired ? common.map((r) => otherByKey.get(key(r))!.rewards[metric]) : other.rollouts.map((r) => r.rewards[metric]);
    return { name: other.name, metric, diff: bootstrapDiff(a, b, { paired }), paired };
  });
}

const f = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
const iv = (i: Interval) => `${f(i.mean)} [${f(i.lo)}, ${f(i.hi)}]`;

/** A plain-text table for the terminal. */
export function compareTable(evals: NamedEval[]): string {
  if (evals.length === 0) return '';
  const rubrics = [...new Set(evals.flatMap((e) => Object.keys(e.metrics.reward)))];
  const components = [...new Set(evals.flatMap((e) => Object.keys(e.metrics.components)))];
  const rows: string[][] = [['', ...evals.map((e) => e.name)]];
  rows.push(['completions', ...evals.map((e) => String(e.metrics.completions))]);
  for (const r of rubrics) rows.push([`${r} reward`, ...evals.map((e) => (e.metrics.reward[r] ? iv(e.metrics.reward[r]) : ''))]);
  rows.push(['parse rate', ...evals.map((e) => iv(e.metrics.parse_rate))]);
  rows.push(['schema-valid rate', ...evals.map((e) => iv(e.metrics.schema_valid_rate))]);
  rows.push(['renderer-accept rate', ...evals.map((e) => iv(e.metrics.renderer_accept_rate))]);
  for (const c of components) rows.push([`  ${c}`, ...evals.map((e) => (e.metrics.components[c] ? f(e.metrics.components[c].mean) : ''))]);
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => (r[j] ?? '').length)));
  const table = rows.map((r) => r.map((c, j) => (c ?? '').padEnd(widths[j])).join('  ').trimEnd()).join('\n');
  const diffs = evals
    .slice(1)
    .flatMap((e) => differences(evals[0], e))
    .map((d) => `${d.name} - ${evals[0].name}, ${d.metric} reward: ${iv(d.diff)}${d.paired ? ' (paired)' : ' (unpaired)'}${d.diff.lo > 0 ? '  better' : d.diff.hi < 0 ? '  worse' : '  no clear difference'}`);
  return diffs.length ? `${table}\n\nDifference of means (95% bootstrap interval):\n${diffs.join('\n')}` : table;
}
