// Evaluation: run a policy on an environment's tasks, score every completion with its rewards, and summarise with
// intervals. Pure apart from the policy call; files are written by ./write.ts.
import type { EnvTask, TextEnv } from '../environment/text-env.ts';
import type { Policy, SamplingOptions } from '../policy/policy.ts';
import { withJudgment, type Judge, type Judgment } from '../environment/judge.ts';
import { judgeAgreement, type JudgeAgreement } from './agreement.ts';
import { bootstrapMean, histogram, passAtK, type Interval } from './stats.ts';

export interface Rollout {
  task_id: string;
  sample: number;
  prompt: string;
  spec: unknown;
  completion: string;
  finish_reason?: string;
  completion_tokens?: number;
  parsed: boolean;
  /** The environment's wellFormed (the diagram: no action failed its schema). */
  schema_valid: boolean;
  /** The environment's valid (the diagram: every action applied, by the renderer when one is given). */
  renderer_accepts: boolean;
  errors: string[];
  /** The main reward (the environment's first evalReward when asked for, else the first asked for). */
  reward: number;
  /** The main reward's components. */
  components: Record<string, number>;
  /** Every reward asked for. */
  rewards: Record<string, number>;
  /** Every reward's components, by reward (the report leads with the reward a run trains on, beside the main one). */
  reward_components?: Record<string, Record<string, number>>;
  /** The environment's per-rollout rates (the diagram: the teacher quirks this completion shows, abbreviated labels,
   *  cramped spacing, overlaps, missing edges, prose), in [0, 1]. */
  quirks: Record<string, number>;
  /** Path of the rendered picture, relative to the eval directory, once written. */
  image?: string;
  /** What the judge said of this completion, when one was asked (src/environment/judge.ts). */
  judgment?: Judgment;
}

export interface GroupMetrics {
  n: number;
  reward: Interval;
  renderer_accept_rate: number;
}

export interface EvalMetrics {
  policy: string;
  tasks: number;
  samples_per_task: number;
  completions: number;
  parse_rate: Interval;
  schema_valid_rate: Interval;
  renderer_accept_rate: Interval;
  /** Mean reward per rubric, with a 95% bootstrap interval. */
  reward: Record<string, Interval>;
  /** Mean of each component of the main reward. */
  components: Record<string, Interval>;
  histogram: { edges: number[]; counts: number[] };
  /** Mean of each per-rollout rate over completions (the diagram's teacher quirks: what SFT copies and RL should make recede). */
  quirks: Record<string, number>;
  /** `by_<group>` for each of the environment's groups (the diagram: by_kind, by_difficulty). */
  [byGroup: `by_${string}`]: Record<string, GroupMetrics>;
  /** pass@k for k = 1..samples (a pass: valid and main reward >= pass_threshold). */
  pass_at_k?: Record<string, number>;
  pass_threshold: number;
  prompt_tokens: number;
  completion_tokens: number;
  generation_seconds: number;
  scoring_seconds: number;
  /** The judge's mean, failures and agreement with the programmatic components, when one was asked. */
  judge?: JudgeAgreement;
}

/** Another renderer than the environment's own (the diagram's real tldraw editor): its verdicts, geometry and pictures. */
export interface EvalRenderer<Readback = unknown> {
  name: string;
  /** One entry per completion; undefined where nothing reached the renderer (unparsable completions). */
  render(completions: string[]): Promise<({ readback: Readback; png?: Buffer } | undefined)[]>;
}

export interface EvalOptions<Readback = never> {
  samples?: number;
  sampling?: SamplingOptions;
  /** Reward names; the environment's evalRewards by default. */
  rubrics?: string[];
  passThreshold?: number;
  /** Conversations per policy call. */
  batchSize?: number;
  renderer?: EvalRenderer<Readback>;
  /** Asks the judge about every completion; with weight > 0 a reward `<first rubric>+judge` blends it in. */
  judge?: { judge: Judge; weight: number };
  onProgress?: (done: number, total: number) => void;
}

/** The reward name a judge weighted into `rubric` is reported under. */
export const judgedRewardName = (rubric: string) => `${rubric}+judge`;

export function scoreRollout<Spec, Readback>(
  env: TextEnv<Spec, Readback>,
  task: EnvTask<Spec>,
  sample: number,
  completion: string,
  rubrics: string[],
  extra: Partial<Rollout> = {},
  readback?: Readback,
): Rollout {
  const outcome = env.outcome(task, completion, readback);
  const main = env.evalRewards[0];
  const rewards: Record<string, number> = {};
  const byReward: Record<string, Record<string, number>> = {};
  let components: Record<string, number> = {};
  for (const name of rubrics) {
    const s = env.reward(name).score(task, completion, readback);
    rewards[name] = s.reward;
    byReward[name] = s.components;
    if (name === main) components = s.components;
  }
  return {
    task_id: task.id,
    sample,
    prompt: task.prompt,
    spec: task.spec,
    completion,
    parsed: outcome.parsed,
    schema_valid: outcome.wellFormed,
    renderer_accepts: outcome.valid,
    errors: outcome.errors,
    quirks: outcome.metrics ?? {},
    reward: rewards[main] ?? rewards[rubrics[0]],
    components,
    rewards,
    reward_components: byReward,
    ...extra,
  };
}

const rate = (xs: boolean[]) => bootstrapMean(xs.map((x) => (x ? 1 : 0)));

function groupBy(rollouts: Rollout[], key: (r: Rollout) => string): Record<string, GroupMetrics> {
  const groups = new Map<string, Rollout[]>();
  for (const r of rollouts) {
    const k = key(r);
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return Object.fromEntries(
    [...groups.entries()]
      .sort(([a], [b]) => a.localeCompare(b, undefined, { numeric: true }))
      .map(([k, rs]) => [k, { n: rs.length, reward: bootstrapMean(rs.map((r) => r.reward)), renderer_accept_rate: rs.filter((r) => r.renderer_accepts).length / rs.length }]),
  );
}

/** The environment's groups, asked of each rollout's task, as `by_<group>` breakdowns. */
function byGroups(env: TextEnv, rollouts: Rollout[]): Record<`by_${string}`, Record<string, GroupMetrics>> {
  const groups = env.groups;
  if (!groups) return {};
  const labels = rollouts.map((r) => groups({ id: r.task_id, prompt: r.prompt, spec: r.spec }));
  const names = [...new Set(labels.flatMap((l) => Object.keys(l)))];
  const index = new Map(rollouts.map((r, i) => [r, i]));
  return Object.fromEntries(names.map((g) => [`by_${g}`, groupBy(rollouts, (r) => labels[index.get(r)!][g] ?? 'unknown')]));
}

export function summarize(env: TextEnv, policy: string, tasks: EnvTask[], rollouts: Rollout[], o: { samples: number; rubrics: string[]; passThreshold: number; promptTokens: number; completionTokens: number; generationSeconds: number; scoringSeconds: number }): EvalMetrics {
  const componentNames = Object.keys(rollouts[0]?.components ?? {});
  const metrics: EvalMetrics = {
    policy,
    tasks: tasks.length,
    samples_per_task: o.samples,
    completions: rollouts.length,
    parse_rate: rate(rollouts.map((r) => r.parsed)),
    schema_valid_rate: rate(rollouts.map((r) => r.schema_valid)),
    renderer_accept_rate: rate(rollouts.map((r) => r.renderer_accepts)),
    reward: Object.fromEntries(o.rubrics.map((name) => [name, bootstrapMean(rollouts.map((r) => r.rewards[name]))])),
    components: Object.fromEntries(componentNames.map((c) => [c, bootstrapMean(rollouts.map((r) => r.components[c]))])),
    histogram: histogram(rollouts.map((r) => r.reward), 10),
    quirks: Object.fromEntries(env.metricNames.map((q) => [q, rollouts.length ? rollouts.reduce((a, r) => a + r.quirks[q], 0) / rollouts.length : 0])),
    ...byGroups(env, rollouts),
    pass_threshold: o.passThreshold,
    ...(rollouts.some((r) => r.judgment) ? { judge: judgeAgreement(rollouts, o.rubrics[0], env.evalRewards[0]) } : {}),
    prompt_tokens: o.promptTokens,
    completion_tokens: o.completionTokens,
    generation_seconds: o.generationSeconds,
    scoring_seconds: o.scoringSeconds,
  };
  if (o.samples > 1) {
    const byTask = new Map<string, Rollout[]>();
    for (const r of rollouts) byTask.set(r.task_id, [...(byTask.get(r.task_id) ?? []), r]);
    metrics.pass_at_k = {};
    for (let k = 1; k <= o.samples; k++) {
      let sum = 0;
      for (const rs of byTask.values()) {
        const c = rs.filter((r) => r.renderer_accepts && r.reward >= o.passThreshold).length;
        sum += passAtK(rs.length, c, k);
      }
      metrics.pass_at_k[`pass@${k}`] = sum / byTask.size;
    }
  }
  return metrics;
}

export interface EvalResult {
  rollouts: Rollout[];
  metrics: EvalMetrics;
  /** The renderer's own picture of each rollout, when the renderer draws one. */
  pictures?: (Buffer | undefined)[];
}

export async function evaluatePolicy<Spec, Readback>(env: TextEnv<Spec, Readback>, policy: Policy, tasks: EnvTask<Spec>[], opts: EvalOptions<Readback> = {}): Promise<EvalResult> {
  const samples = opts.samples ?? 1;
  const given = opts.rubrics ?? [...env.evalRewards];
  const judge = opts.judge;
  const rubrics = judge && judge.weight > 0 ? [...given, judgedRewardName(given[0])] : given;
  const passThreshold = opts.passThreshold ?? 0.9;
  const batchSize = opts.batchSize ?? 32;
  const rollouts: Rollout[] = [];
  const pictures: (Buffer | undefined)[] = [];
  let promptTokens = 0;
  let completionTokens = 0;
  let generationSeconds = 0;
  let scoringSeconds = 0;
  for (let start = 0; start < tasks.length; start += batchSize) {
    const batch = tasks.slice(start, start + batchSize);
    const t0 = performance.now();
    const answers = await policy.generate(batch.map((t) => env.conversation(t)), { ...opts.sampling, n: samples });
    const t1 = performance.now();
    generationSeconds += (t1 - t0) / 1000;
    const rendered = opts.renderer ? await opts.renderer.render(answers.flat().map((c) => c.text)) : [];
    let j = 0;
    batch.forEach((task, i) => {
      answers[i].forEach((c, k) => {
        promptTokens += k === 0 ? (c.promptTokens ?? 0) : 0;
        completionTokens += c.completionTokens ?? 0;
        const extra: Partial<Rollout> = { finish_reason: c.finishReason, completion_tokens: c.completionTokens };
        const view = rendered[j++];
        const r = scoreRollout(env, task, k, c.text, given, extra, view?.readback);
        if (c.error) r.errors.unshift(`policy error: ${c.error}`);
        rollouts.push(r);
        pictures.push(view?.png);
      });
    });
    if (judge) {
      const fresh = rollouts.slice(rollouts.length - j);
      const judgments = await judge.judge.judgeAll(fresh);
      fresh.forEach((r, i) => {
        r.judgment = judgments[i];
        if (judge.weight > 0) r.rewards[judgedRewardName(given[0])] = withJudgment({ reward: r.rewards[given[0]], components: {} }, judgments[i], judge.weight).reward;
      });
    }
    scoringSeconds += (performance.now() - t1) / 1000;
    opts.onProgress?.(Math.min(tasks.length, start + batch.length), tasks.length);
  }
  const metrics = summarize(env, policy.name, tasks, rollouts, { samples, rubrics, passThreshold, promptTokens, completionTokens, generationSeconds, scoringSeconds });
  return opts.renderer ? { rollouts, metrics, pictures } : { rollouts, metrics };
}
