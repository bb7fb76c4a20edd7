// The main job: tasks -> scripted teacher (with quirks) -> SFT -> GRPO -> evaluation of teacher, SFT and GRPO on the
// same held-out tasks -> report. Everything lives under one run directory; a finished stage is not redone on a rerun,
// and an interrupted training stage resumes from its last checkpoint.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { evaluatePolicy, type EvalMetrics, type Rollout } from '../eval/evaluate.ts';
import { differences } from '../eval/compare.ts';
import { bootstrapDiff, type Interval } from '../eval/stats.ts';
import { renderReport, type Curve } from '../eval/report.ts';
import { readEvalDir, writeEvalDir } from '../eval/write.ts';
import { readLinesSync } from '../io/jsonl.ts';
import type { StageProgress } from '../io/progress.ts';
import type { BaselineName } from '../diagram/teacher/baselines.ts';
import { policyFromSpec } from '../diagram/teacher/registry.ts';
import { runTeacher, type TeacherSummary } from '../diagram/teacher/teacher.ts';
import type { QuirkRates } from '../diagram/teacher/quirks.ts';
import type { Judge } from '../environment/judge.ts';
import { getRubric } from '../diagram/reward/presets.ts';
import { generateTasks } from '../diagram/tasks/generate.ts';
import type { Task } from '../diagram/tasks/spec.ts';
import { latestCheckpoint, runSft, sftConfig, type Preset as SftPreset, type SFTConfig } from '../train/sft.ts';
import { grpoConfig, trainGrpo, type GRPOConfig } from '../train/grpo.ts';
import { diagramEnv } from '../diagram/diagram-env.ts';

export const RUN_PRESETS = ['quick', 'default', 'full'] as const;
export type RunPreset = (typeof RUN_PRESETS)[number];

export interface RunConfig {
  preset: RunPreset;
  seed: number;
  trainTasks: number;
  /** Share of the train tasks whose entities get made-up names (see tasks/synthetic-names.ts); held-out tasks keep real ones. */
  syntheticNames: number;
  heldoutTasks: number;
  /** walk: the scripted teacher's request walk (src/diagram/teacher/walk.ts). */
  teacher: { attempts: number; minReward: number; quirks: QuirkRates; walk: boolean };
  sft: { preset: SftPreset } & Partial<SFTConfig>;
  grpo: Partial<GRPOConfig>;
  eval: { temperature: number; maxTokens: number };
}

/** The quirks the default teacher shows: what SFT copies and GRPO should make recede. */
export const TEACHER_QUIRKS: QuirkRates = { abbrev: 0.35, cramped: 0.2, overlap: 0.15, missing_edge: 0.1, prose: 0.1 };

export const RUN_CONFIGS: Record<RunPreset, RunConfig> = {
  quick: {
    preset: 'quick',
    seed: 0,
    trainTasks: 120,
    syntheticNames: 1,
    heldoutTasks: 16,
    teacher: { attempts: 1, minReward: 0.6, quirks: TEACHER_QUIRKS, walk: true },
    sft: { preset: 'tiny', max_steps: 30, eval_steps: 15, save_steps: 15 },
    grpo: { max_steps: 2, num_generations: 4, generation_batch_size: 8, per_device_train_batch_size: 8, max_completion_length: 96, save_steps: 1, log_completions_steps: 1 },
    eval: { temperature: 0.7, maxTokens: 96 },
  },
  default: {
    preset: 'default',
    seed: 0,
    trainTasks: 4000,
    syntheticNames: 1,
    heldoutTasks: 200,
    teacher: { attempts: 1, minReward: 0.6, quirks: TEACHER_QUIRKS, walk: true },
    // The run evaluates the SFT student on its own held-out tasks below: SFT's own evaluation samples only a few.
    sft: { preset: 'default', eval_samples: 16, final_eval_samples: 32, final_eval_structured_output: false },
    // A tenth of the teacher's answers to held-out tasks are longer than GRPO's default 384 new tokens. 150 steps:
    // with the student in the valid region, RL moves entities + edges by +0.16 (60 steps: +0.04, not significant).
    grpo: { max_steps: 150, max_completion_length: 512 },
    eval: { temperature: 0.7, maxTokens: 640 },
  },
  full: {
    preset: 'full',
    seed: 0,
    trainTasks: 4000,
    syntheticNames: 1,
    heldoutTasks: 400,
    teacher: { attempts: 1, minReward: 0.6, quirks: TEACHER_QUIRKS, walk: true },
    // Longer SFT fits the training phrasings and does worse on unseen ones (docs/sft.md): the extra time goes to GRPO.
    // The run evaluates the SFT student on its own held-out tasks below: SFT's own evaluation samples only a few.
    sft: { preset: 'default', eval_samples: 16, final_eval_samples: 32, final_eval_structured_output: false },
    grpo: { max_steps: 150, max_completion_length: 512 },
    eval: { temperature: 0.7, maxTokens: 640 },
  },
};

/** What one evaluation stage samples: whose policy, on which split, at which temperature, guided or not. */
interface EvalPlan {
  label: string;
  policy: 'teacher' | 'sft' | 'grpo';
  split: 'heldout' | 'ood';
  /** The run's eval temperature when absent; 0 is greedy. */
  temperature?: number;
  structured?: boolean;
}

/** The IID held-out split comes first: it asks whether the agent learned the task. The students are also sampled
 *  greedily, with structured output (diagram/language/structured.ts) as a user would serve them, and on the ood probe (phrasings
 *  and names never seen in train, which a student trained from scratch cannot be expected to read). */
const EVAL_PLANS = {
  'eval-teacher': { label: 'teacher', policy: 'teacher', split: 'heldout' },
  'eval-sft': { label: 'SFT', policy: 'sft', split: 'heldout' },
  'eval-sft-greedy': { label: 'SFT greedy', policy: 'sft', split: 'heldout', temperature: 0 },
  'eval-grpo': { label: 'GRPO', policy: 'grpo', split: 'heldout' },
  'eval-grpo-greedy': { label: 'GRPO greedy', policy: 'grpo', split: 'heldout', temperature: 0 },
  'eval-sft-structured': { label: 'SFT-structured', policy: 'sft', split: 'heldout', structured: true },
  'eval-grpo-structured': { label: 'GRPO-structured', policy: 'grpo', split: 'heldout', structured: true },
  'eval-teacher-ood': { label: 'teacher OOD', policy: 'teacher', split: 'ood' },
  'eval-sft-ood': { label: 'SFT OOD', policy: 'sft', split: 'ood' },
  'eval-grpo-ood': { label: 'GRPO OOD', policy: 'grpo', split: 'ood' },
} as const satisfies Record<string, EvalPlan>;
type EvalStage = keyof typeof EVAL_PLANS;
const EVAL_STAGES = Object.keys(EVAL_PLANS) as EvalStage[];

export const STAGES = ['tasks', 'teacher', 'sft', 'grpo', 'eval-baselines', ...EVAL_STAGES, 'report'] as const;
export type Stage = (typeof STAGES)[number];

/** Fixed policies scored on the IID held-out tasks beside the real ones: what a score is worth. */
const BASELINES: { label: string; name: BaselineName }[] = [
  { label: 'baseline: empty', name: 'empty' },
  { label: 'baseline: one box', name: 'one-box' },
  { label: 'baseline: prompt in a box', name: 'prompt-box' },
  { label: 'baseline: names, no arrows', name: 'names' },
];

/** Every rubric is scored; `task` is the one to read first (docs/reward.md). */
const RUBRICS = ['task', 'strong', 'seed'];

interface RunState {
  config: RunConfig;
  stages: Partial<Record<Stage, { seconds: number; summary: string }>>;
}

/** The run directory cannot serve this run as asked (a bad name, other settings, --fresh on what is not a run): the
 *  user's to fix (the CLI reports it as a usage error). */
export class RunDirError extends Error {}

/** Why `name` cannot name a run, or undefined. A run is one plain folder inside the runs directory: never `.`, `..` or
 *  a path, so that neither the run nor what --fresh deletes reaches outside it. */
export function badRunName(name: string): string | undefined {
  if (/^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..') return undefined;
  return `must be one folder name inside the runs directory (letters, digits, dots, dashes and underscores; not . or ..), got ${JSON.stringify(name)}`;
}

/** The file that makes a directory a run: its settings and finished stages. */
const RUN_STATE = 'run.json';

export interface RunOptions {
  /** Where runs live; this one is runsDir/name. */
  runsDir: string;
  name: string;
  config: RunConfig;
  fresh?: boolean;
  progress: StageProgress;
  /** Asks a judge about GRPO's and the evaluated policies' completions (src/environment/judge.ts); off by default. */
  judge?: { judge: Judge; weight: number };
}

export interface RunResult {
  dir: string;
  report: string;
  seconds: number;
  /** Every evaluated policy's metrics, baselines first. */
  table: { label: string; metrics: EvalMetrics }[];
  /** GRPO - SFT in entities_present + edges_correct on the IID tasks (paired 95% bootstrap). */
  rlGain: Interval;
}


/** The run's own files, written by the stages above: every line is a row. */
function readJsonl<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return [...readLinesSync(path)].filter((l) => l.text.trim()).map((l) => JSON.parse(l.text) as T);
}

const writeJsonl = (path: string, rows: unknown[]) => writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');

/** What --fresh deletes: a directory directly inside the runs directory that holds a run's state, and nothing else. */
function removeRun(runsDir: string, dir: string): void {
  const inside = relative(resolve(runsDir), resolve(dir));
  if (inside === '' || inside === '..' || isAbsolute(inside) || inside.includes(sep)) {
    throw new RunDirError(`--fresh: ${dir} is not a folder inside ${runsDir}; nothing was deleted`);
  }
  if (!existsSync(join(dir, RUN_STATE))) {
    throw new RunDirError(`--fresh: ${dir} holds no run (no ${RUN_STATE}); nothing was deleted: remove it yourself or pick another --name`);
  }
  rmSync(dir, { recursive: true, force: true });
}

function loadState(runsDir: string, dir: string, config: RunConfig, fresh: boolean): RunState {
  const file = join(dir, RUN_STATE);
  if (fresh && existsSync(dir)) removeRun(runsDir, dir);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(file)) return { config, stages: {} };
  const state = JSON.parse(readFileSync(file, 'utf8')) as RunState;
  if (JSON.stringify(state.config) !== JSON.stringify(config)) {
    throw new RunDirError(`${dir} holds a run with other settings (preset ${state.config.preset}); rerun with --fresh to start over, or pick another --name`);
  }
  return state;
}

const f3 = (v: number) => v.toFixed(3);

export async function runPipeline(o: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const { config, progress } = o;
  const bad = badRunName(o.name);
  if (bad) throw new RunDirError(`the run's name ${bad}`);
  const dir = join(o.runsDir, o.name);
  const state = loadState(o.runsDir, dir, config, o.fresh ?? false);
  const save = () => writeFileSync(join(dir, RUN_STATE), JSON.stringify(state, null, 2) + '\n');
  save();
  const paths = {
    train: join(dir, 'tasks', 'train.jsonl'),
    heldout: join(dir, 'tasks', 'heldout.jsonl'),
    ood: join(dir, 'tasks', 'ood.jsonl'),
    teacher: join(dir, 'teacher'),
    sft: join(dir, 'sft'),
    grpo: join(dir, 'grpo'),
    eval: (label: string) => join(dir, 'eval', label),
    report: join(dir, 'report.html'),
  };

  // A stage added since a run finished (or redone after its outputs were removed) makes the report out of date.
  let ranAny = false;
  const stage = async (name: Stage, total: number, work: () => Promise<string>) => {
    if (name === 'report' && ranAny) delete state.stages.report;
    const done = state.stages[name];
    progress.start(name, total);
    if (done) {
      progress.finish(done.summary, { skipped: true });
      return;
    }
    ranAny = true;
    const t0 = performance.now();
    const summary = await work();
    state.stages[name] = { seconds: (performance.now() - t0) / 1000, summary };
    save();
    progress.finish(summary);
  };

  await stage('tasks', 3, async () => {
    mkdirSync(join(dir, 'tasks'), { recursive: true });
    writeJsonl(paths.train, generateTasks({ split: 'train', n: config.trainTasks, seed: config.seed, syntheticNames: config.syntheticNames }));
    progress.update(1);
    writeJsonl(paths.heldout, generateTasks({ split: 'heldout', n: config.heldoutTasks, seed: config.seed }));
    progress.update(2);
    writeJsonl(paths.ood, generateTasks({ split: 'ood', n: config.heldoutTasks, seed: config.seed }));
    return `${config.trainTasks} train, ${config.heldoutTasks} IID held-out and ${config.heldoutTasks} out-of-distribution tasks`;
  });
  const train = readJsonl<Task>(paths.train);
  const heldout = readJsonl<Task>(paths.heldout);
  const ood = readJsonl<Task>(paths.ood);
  const specs = new Map([...train, ...heldout, ...ood].map((t) => [t.prompt, t.spec]));
  const specFor = (prompt: string) => specs.get(prompt);

  await stage('teacher', train.length * config.teacher.attempts, async () => {
    const policy = await policyFromSpec('scripted', { specFor, quirks: config.teacher.quirks, walk: config.teacher.walk });
    const summary: TeacherSummary = await runTeacher({
      policy,
      rubric: getRubric('strong'),
      tasks: train,
      outDir: paths.teacher,
      config: { policy: 'scripted', attempts: config.teacher.attempts, minReward: config.teacher.minReward, seed: config.seed, temperature: 0, reward: 'strong', quirks: config.teacher.quirks as Record<string, number>, walk: config.teacher.walk },
      onProgress: (p) => progress.update(p.done, `accepted ${p.accepted}`),
    });
    return `${summary.accepted} accepted, ${summary.rejected} rejected (mean strong reward ${f3(summary.reward.mean)})`;
  });

  let sftFinal = '';
  await stage('sft', 1, async () => {
    const cfg = sftConfig(config.sft.preset, paths.sft, { ...config.sft, seed: config.seed + 42 });
    const r = await runSft({
      config: cfg,
      env: diagramEnv,
      dataPath: join(paths.teacher, 'train.jsonl'),
      resume: latestCheckpoint(paths.sft) !== undefined,
      onProgress: (p) => {
        progress.setTotal(p.maxSteps);
        progress.update(p.step, p.log ? `loss ${p.log.loss.toFixed(3)}` : '');
      },
      onMessage: (line) => progress.log(`    ${line}`),
    });
    if (!r.finalDir) throw new Error('SFT stopped before it finished; rerun to resume it');
    const e = r.lastEval;
    const guided = e?.eval_structured_reward !== undefined ? ` (structured output: valid ${f3(e.eval_structured_valid_rate!)}, strong ${f3(e.eval_structured_reward)})` : '';
    const ev = e ? `, held-out valid ${f3(e.eval_valid_rate)}, strong ${f3(e.eval_reward)}${guided}` : '';
    return `${r.steps} steps${ev}`;
  });
  sftFinal = join(paths.sft, 'final');

  await stage('grpo', 1, async () => {
    const cfg = grpoConfig({ output_dir: paths.grpo, init: sftFinal, seed: config.seed + 7, ...config.grpo });
    const r = await trainGrpo(cfg, {
      env: diagramEnv,
      tasks: train,
      judge: o.judge,
      resume: latestCheckpoint(paths.grpo) !== undefined,
      onStep: (row, maxSteps) => {
        progress.setTotal(maxSteps);
        progress.update(row.step, `reward ${f3(row.reward_mean)} kl ${row.kl.toFixed(4)}`);
      },
      onMessage: (line) => progress.log(`    ${line}`),
    });
    if (!r.finalDir) throw new Error('GRPO stopped before it finished; rerun to resume it');
    return `${r.steps} steps, last reward mean ${r.last ? f3(r.last.reward_mean) : 'n/a'}`;
  });

  const policyFor = (plan: EvalPlan) => {
    if (plan.policy === 'teacher') return policyFromSpec('scripted', { specFor, quirks: config.teacher.quirks, walk: config.teacher.walk });
    return policyFromSpec(plan.policy === 'sft' ? sftFinal : join(paths.grpo, 'final'), { structuredOutput: plan.structured });
  };
  const summaryLine = (m: EvalMetrics) => `task ${f3(m.reward.task.mean)} [${f3(m.reward.task.lo)}, ${f3(m.reward.task.hi)}], strong ${f3(m.reward.strong.mean)}, valid ${f3(m.renderer_accept_rate.mean)}`;
  await stage('eval-baselines', BASELINES.length, async () => {
    const lines: string[] = [];
    for (const [i, b] of BASELINES.entries()) {
      const result = await evaluatePolicy(diagramEnv, await policyFromSpec(`baseline:${b.name}`, { specFor }), heldout, { rubrics: RUBRICS });
      // The same few boxes on every task: their pictures would say nothing a row of the table does not.
      writeEvalDir(diagramEnv, paths.eval(b.label), result, { images: false });
      lines.push(`${b.name} ${f3(result.metrics.reward.task.mean)}`);
      progress.update(i + 1);
    }
    return `task reward: ${lines.join(', ')}`;
  });
  for (const name of EVAL_STAGES) {
    const plan: EvalPlan = EVAL_PLANS[name];
    const tasks = plan.split === 'ood' ? ood : heldout;
    await stage(name, tasks.length, async () => {
      const policy = await policyFor(plan);
      try {
        const result = await evaluatePolicy(diagramEnv, policy, tasks, {
          rubrics: RUBRICS,
          judge: o.judge,
          sampling: { temperature: plan.temperature ?? config.eval.temperature, maxTokens: config.eval.maxTokens, seed: config.seed },
          onProgress: (done) => progress.update(done),
        });
        writeEvalDir(diagramEnv, paths.eval(plan.label), result);
        return summaryLine(result.metrics);
      } finally {
        await policy.close?.();
      }
    });
  }

  const labels = [...BASELINES.map((b) => b.label), ...EVAL_STAGES.map((n) => EVAL_PLANS[n].label)];
  const evals = labels.map((label) => ({ label, ...readEvalDir(paths.eval(label)) }));
  await stage('report', 1, async () => {
    writeFileSync(paths.report, buildReport(config, evals, paths));
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(summaryOf(evals), null, 2) + '\n');
    return paths.report;
  });
  const byLabel = Object.fromEntries(evals.map((e) => [e.label, e]));
  return {
    dir,
    report: paths.report,
    seconds: (performance.now() - started) / 1000,
    table: evals.map((e) => ({ label: e.label, metrics: e.metrics })),
    rlGain: contentDifference(byLabel.SFT, byLabel.GRPO),
  };
}

type LabeledEval = { label: string; metrics: EvalMetrics; rollouts: Rollout[] };

/** What the task asked for, without syntax or layout: the share of requested entities drawn plus the share of requested
 *  edges drawn right (0 to 2). "RL buys optimization" is GRPO raising it over SFT on the same tasks. */
const content = (r: Rollout) => (r.components.entities_present ?? 0) + (r.components.edges_correct ?? 0);
const rolloutKey = (r: Rollout) => `${r.task_id}\u0000${r.sample}`;

/** `other` - `base` in entities_present + edges_correct, paired over the rollouts both evaluated (95% bootstrap). */
function contentDifference(base: LabeledEval, other: LabeledEval): Interval {
  const mine = new Map(other.rollouts.map((r) => [rolloutKey(r), r]));
  const common = base.rollouts.filter((r) => mine.has(rolloutKey(r)));
  return bootstrapDiff(common.map(content), common.map((r) => content(mine.get(rolloutKey(r))!)), { paired: true });
}

function summaryOf(evals: LabeledEval[]) {
  const by = Object.fromEntries(evals.map((e) => [e.label, e]));
  const named = (e: LabeledEval) => ({ name: e.label, metrics: e.metrics, rollouts: e.rollouts });
  return {
    policies: Object.fromEntries(
      evals.map((e) => [e.label, { task: e.metrics.reward.task, strong: e.metrics.reward.strong, seed: e.metrics.reward.seed, renderer_accept_rate: e.metrics.renderer_accept_rate, components: e.metrics.components, quirks: e.metrics.quirks }]),
    ),
    differences: (
      [
        ['SFT', 'GRPO'],
        ['teacher', 'GRPO'],
        ['teacher', 'SFT'],
        ['SFT', 'SFT-structured'],
        ['GRPO', 'GRPO-structured'],
        ['SFT OOD', 'GRPO OOD'],
      ] as const
    ).flatMap(([base, other]) => differences(named(by[base]), named(by[other])).map((d) => ({ base, ...d }))),
    content_differences: (
      [
        ['SFT', 'GRPO'],
        ['SFT greedy', 'GRPO greedy'],
        ['SFT OOD', 'GRPO OOD'],
      ] as const
    ).map(([base, name]) => ({ base, name, metric: 'entities_present + edges_correct', diff: contentDifference(by[base], by[name]) })),
  };
}

/** The run's training curves, read from the stages' logs (what the report draws and the inspector shows live). */
export function curvesOf(paths: { sft: string; grpo: string }): Curve[] {
  type SftRow = { step: number; loss?: number; eval_loss?: number; eval_reward?: number; eval_valid_rate?: number };
  type GrpoRow = { step: number; reward_mean: number; kl: number; valid_action_rate?: number };
  const sft = readJsonl<SftRow>(join(paths.sft, 'log.jsonl'));
  const grpo = readJsonl<GrpoRow>(join(paths.grpo, 'log.jsonl'));
  const pts = <T>(rows: T[], x: (r: T) => number, y: (r: T) => number | undefined) =>
    rows.filter((r) => Number.isFinite(y(r))).map((r) => ({ x: x(r), y: y(r)! }));
  return [
    { title: 'SFT loss per step', xLabel: 'step', series: [{ name: 'train loss', points: pts(sft, (r) => r.step, (r) => r.loss) }, { name: 'held-out loss', points: pts(sft, (r) => r.step, (r) => r.eval_loss) }] },
    { title: 'SFT sampled evaluation', xLabel: 'step', series: [{ name: 'valid-action rate', points: pts(sft, (r) => r.step, (r) => r.eval_valid_rate) }, { name: 'strong reward', points: pts(sft, (r) => r.step, (r) => r.eval_reward) }] },
    { title: 'GRPO reward per step', xLabel: 'step', series: [{ name: 'reward mean', points: pts(grpo, (r) => r.step, (r) => r.reward_mean) }, { name: 'valid-action rate', points: pts(grpo, (r) => r.step, (r) => r.valid_action_rate) }] },
    { title: 'GRPO KL to the SFT reference', xLabel: 'step', series: [{ name: 'KL (k3)', points: pts(grpo, (r) => r.step, (r) => r.kl) }] },
  ];
}

function buildReport(config: RunConfig, evals: LabeledEval[], paths: { sft: string; grpo: string }): string {
  const by = Object.fromEntries(evals.map((e) => [e.label, e]));
  const named = (e: LabeledEval) => ({ name: e.label, metrics: e.metrics, rollouts: e.rollouts });
  const diff = (a: string, b: string) => {
    const d = differences(named(by[a]), named(by[b])).find((x) => x.metric === 'task')!;
    return iv(d.diff);
  };
  const iv = (i: Interval) => `${f3(i.mean)} [${f3(i.lo)}, ${f3(i.hi)}]`;
  const quirkNames = Object.keys(evals[0].metrics.quirks);
  return renderReport({
    env: diagramEnv,
    title: `canvasgym run (${config.preset} preset)`,
    subtitle: `${config.heldoutTasks} IID held-out tasks (training phrasings, names never seen in training) and ${config.heldoutTasks} out-of-distribution ones (OOD: phrasings and names never seen), sampled at temperature ${config.eval.temperature} unless marked greedy; baselines are fixed answers that read only the request. Task reward GRPO - SFT: ${diff('SFT', 'GRPO')}; entities_present + edges_correct GRPO - SFT: ${iv(contentDifference(by.SFT, by.GRPO))}; GRPO - teacher: ${diff('teacher', 'GRPO')}; structured output - sampling on its own: SFT ${diff('SFT', 'SFT-structured')}, GRPO ${diff('GRPO', 'GRPO-structured')} (paired 95% bootstrap intervals).`,
    evals,
    gallery: ['teacher', 'SFT', 'GRPO', 'GRPO-structured', 'baseline: names, no arrows'],
    lead: config.grpo.reward ?? diagramEnv.defaultReward,
    curves: curvesOf(paths),
    extraRows: quirkNames.map((q) => ({ name: `quirk rate: ${q}`, values: evals.map((e) => e.metrics.quirks[q]) })),
  });
}
