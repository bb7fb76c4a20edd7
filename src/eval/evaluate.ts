// Evaluation: run a policy on tasks, score every completion with the rubrics, and summarise with intervals.
// Pure apart from the policy call; files are written by ./write.ts.
import { executeCompletion } from '../env/execute.ts';
import type { Policy, SamplingOptions } from '../policy/policy.ts';
import { conversationFor } from '../policy/prompt.ts';
import { detectQuirks, QUIRK_NAMES, type QuirkReport } from '../policy/quirks.ts';
import { getRubric } from '../reward/presets.ts';
import type { RendererReadback } from '../reward/rubric.ts';
import { withJudgment, type Judge, type Judgment } from '../reward/judge.ts';
import type { Task } from '../tasks/spec.ts';
import { judgeAgreement, type JudgeAgreement } from './agreement.ts';
import { bootstrapMean, histogram, passAtK, type Interval } from './stats.ts';

export interface Rollout {
  task_id: string;
  sample: number;
  prompt: string;
  spec: Task['spec'];
  completion: string;
  finish_reason?: string;
  completion_tokens?: number;
  parsed: boolean;
  schema_valid: boolean;
  renderer_accepts: boolean;
  errors: string[];
  /** `strong` reward, the main one. */
  reward: number;
  components: Record<string, number>;
  /** Every rubric's reward, `strong` included. */
  rewards: Record<string, number>;
  /** The teacher quirks this completion shows (abbreviated labels, cramped spacing, overlaps, missing edges, prose): rates in [0, 1]. */
  quirks: QuirkReport;
  /** Path of the rendered picture, relative to the eval directory, once written. */
  image?: string;
  /** What the judge said of this completion, when one was asked (src/reward/judge.ts). */
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
  /** Mean of each `strong` component. */
  components: Record<string, Interval>;
  histogram: { edges: number[]; counts: number[] };
  /** Mean rate of each teacher quirk over completions: what SFT copies and RL should make recede. */
  quirks: Record<string, number>;
  by_kind: Record<string, GroupMetrics>;
  by_difficulty: Record<string, GroupMetrics>;
  /** pass@k for k = 1..samples (a pass: every action applied and strong reward >= pass_threshold). */
  pass_at_k?: Record<string, number>;
  pass_threshold: number;
  prompt_tokens: number;
  completion_tokens: number;
  generation_seconds: number;
  scoring_seconds: number;
  /** The judge's mean, failures and agreement with the programmatic components, when one was asked. */
  judge?: JudgeAgreement;
}

/** Another renderer than the built-in canvas (the real tldraw editor): its verdicts, geometry and pictures. */
export interface EvalRenderer {
  name: string;
  /** One entry per completion; undefined where nothing reached the renderer (unparsable completions). */
  render(completions: string[]): Promise<({ readback: RendererReadback; png?: Buffer } | undefined)[]>;
}

export interface EvalOptions {
  samples?: number;
  sampling?: SamplingOptions;
  rubrics?: string[];
  passThreshold?: number;
  /** Conversations per policy call. */
  batchSize?: number;
  renderer?: EvalRenderer;
  /** Asks the judge about every completion; with weight > 0 a reward `<first rubric>+judge` blends it in. */
  judge?: { judge: Judge; weight: number };
  onProgress?: (done: number, total: number) => void;
}

/** The reward name a judge weighted into `rubric` is reported under. */
export const judgedRewardName = (rubric: string) => `${rubric}+judge`;

export function scoreRollout(task: Task, sample: number, completion: string, rubrics: string[], extra: Partial<Rollout> = {}, readback?: RendererReadback): Rollout {
  const exec = executeCompletion(completion);
  const schemaErrors = exec.outcomes.filter((o) => o.error?.kind === 'schema').length;
  const rewards: Record<string, number> = {};
  let components: Record<string, number> = {};
  for (const name of rubrics) {
    const s = getRubric(name).score({ prompt: task.prompt, completion, spec: task.spec, readback });
    rewards[name] = s.reward;
    if (name === 'strong') components = s.components;
  }
  return {
    task_id: task.id,
    sample,
    prompt: task.prompt,
    spec: task.spec,
    completion,
    parsed: exec.parse.ok,
    schema_valid: exec.parse.ok && schemaErrors === 0,
    renderer_accepts: exec.parse.ok && (readback ? readback.outcomes.every((o) => o.applied) && readback.errors.length === 0 : exec.errors.length === 0),
    errors: readback ? [...new Set([...exec.errors, ...readback.errors])] : exec.errors,
    quirks: detectQuirks(completion, exec.canvas, task.spec),
    reward: rewards.strong ?? rewards[rubrics[0]],
    components,
    rewards,
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

export function summarize(policy: string, tasks: Task[], rollouts: Rollout[], o: { samples: number; rubrics: string[]; passThreshold: number; promptTokens: number; completionTokens: number; generationSeconds: number; scoringSeconds: number }): EvalMetrics {
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
    quirks: Object.fromEntries(QUIRK_NAMES.map((q) => [q, rollouts.length ? rollouts.reduce((a, r) => a + r.quirks[q], 0) / rollouts.length : 0])),
    by_kind: groupBy(rollouts, (r) => r.spec.kind ?? 'unknown'),
    by_difficulty: groupBy(rollouts, (r) => String(r.spec.difficulty ?? 'unknown')),
    pass_threshold: o.passThreshold,
    ...(rollouts.some((r) => r.judgment) ? { judge: judgeAgreement(rollouts, o.rubrics[0]) } : {}),
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

export async function evaluatePolicy(policy: Policy, tasks: Task[], opts: EvalOptions = {}): Promise<EvalResult> {
  const samples = opts.samples ?? 1;
  const given = opts.rubrics ?? ['strong', 'seed'];
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
    const answers = await policy.generate(batch.map((t) => conversationFor(t.prompt)), { ...opts.sampling, n: samples });
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
        const r = scoreRollout(task, k, c.text, given, extra, view?.readback);
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
  const metrics = summarize(policy.name, tasks, rollouts, { samples, rubrics, passThreshold, promptTokens, completionTokens, generationSeconds, scoringSeconds });
  return opts.renderer ? { rollouts, metrics, pictures } : { rollouts, metrics };
}
