// The experiment GRPO must win, end to end: train-split tasks -> quirky scripted teacher -> default SFT -> GRPO with the
// default config -> the teacher, SFT and GRPO on the same held-out tasks. Prints the table with 95% bootstrap intervals
// (paired for GRPO - SFT), the quirk rates and the GRPO curve. Stages already on disk are reused, so GRPO settings can be
// tried against one SFT student: a different --tag trains GRPO again.
//   npx tsx bench/grpo-experiment.ts [--out runs/grpo-experiment] [--tag default] [--grpo key=value,...] [--train-tasks 600]
//     [--attempts 2] [--quirks abbrev=0.3,...] [--heldout 200] [--sft-steps N]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { executeCompletion } from '../src/diagram/language/execute.ts';
import { evaluatePolicy, type Rollout } from '../src/eval/evaluate.ts';
import { bootstrapDiff, bootstrapMean, type Interval } from '../src/eval/stats.ts';
import { abbreviationCount, overlapCount, parseQuirks, rateOf, type RateCount } from '../src/diagram/teacher/quirks.ts';
import type { Policy } from '../src/policy/policy.ts';
import { ScriptedPolicy } from '../src/diagram/teacher/scripted.ts';
import { StudentPolicy } from '../src/policy/student.ts';
import { runTeacher } from '../src/diagram/teacher/teacher.ts';
import { getRubric } from '../src/diagram/reward/presets.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import type { Task } from '../src/diagram/tasks/spec.ts';
import { grpoConfig, trainGrpo, type GRPOConfig, type GrpoLogRow } from '../src/train/grpo.ts';
import { runSft, sftConfig } from '../src/train/sft.ts';
import { diagramEnv } from '../src/diagram/diagram-env.ts';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string', default: 'runs/grpo-experiment' },
    tag: { type: 'string', default: 'default' },
    grpo: { type: 'string', default: '' },
    'train-tasks': { type: 'string', default: '600' },
    attempts: { type: 'string', default: '2' },
    quirks: { type: 'string', default: 'abbrev=0.35,cramped=0.2,overlap=0.2,missing_edge=0.1,prose=0.1' },
    heldout: { type: 'string', default: '200' },
    'sft-steps': { type: 'string' },
    seed: { type: 'string', default: '0' },
  },
});

const out = args.out!;
const seed = Number(args.seed);
mkdirSync(out, { recursive: true });
const secondsSince = (t0: number) => (performance.now() - t0) / 1000;
const log = (line: string) => process.stderr.write(line + '\n');

/** `key=value,...` over GRPOConfig: numbers, booleans and names. */
function grpoOverrides(text: string): Partial<GRPOConfig> {
  const o: Record<string, unknown> = {};
  for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [k, v] = entry.split('=');
    if (v === undefined) throw new Error(`--grpo: "${entry}" is not key=value`);
    o[k] = v === 'true' ? true : v === 'false' ? false : Number.isFinite(Number(v)) ? Number(v) : v;
  }
  return o as Partial<GRPOConfig>;
}

const times: Record<string, number> = {};

// Tasks and teacher data.
const trainTasks = generateTasks({ split: 'train', n: Number(args['train-tasks']), seed });
const heldout = generateTasks({ split: 'heldout', n: Number(args.heldout), seed: seed + 1 });
const quirks = parseQuirks(args.quirks!);
const teacherDir = join(out, 'teacher');
if (!existsSync(join(teacherDir, 'summary.json'))) {
  const t0 = performance.now();
  const specs = new Map(trainTasks.map((t) => [t.prompt, t.spec]));
  const summary = await runTeacher({
    policy: new ScriptedPolicy({ specFor: (p) => specs.get(p), quirks }),
    rubric: getRubric('strong'),
    tasks: trainTasks,
    outDir: teacherDir,
    config: { policy: 'scripted', attempts: Number(args.attempts), minReward: 0.6, seed, temperature: 1, reward: 'strong', quirks, walk: false },
  });
  times.teacher = secondsSince(t0);
  log(`teacher: ${summary.accepted} accepted of ${summary.total}, mean reward ${summary.reward.mean.toFixed(3)} (${times.teacher.toFixed(0)} s)`);
}

// SFT with the default preset.
const sftDir = join(out, 'sft');
if (!existsSync(join(sftDir, 'final', 'config.json'))) {
  const t0 = performance.now();
  const steps = args['sft-steps'] ? Number(args['sft-steps']) : undefined;
  const result = await runSft({ env: diagramEnv,
    config: sftConfig('default', sftDir, { max_steps: steps, eval_steps: 100000 }),
    dataPath: join(teacherDir, 'train.jsonl'),
    onMessage: log,
    onProgress: (p) => {
      if (p.log && p.step % 20 === 0) log(`sft step ${p.step}/${p.maxSteps} loss ${p.log.loss.toFixed(3)}`);
    },
  });
  times.sft = secondsSince(t0);
  log(`sft: ${result.steps} steps (${times.sft.toFixed(0)} s)`);
}

// GRPO with the default config (plus --grpo overrides).
const grpoDir = join(out, `grpo-${args.tag}`);
if (!existsSync(join(grpoDir, 'final', 'config.json'))) {
  const t0 = performance.now();
  const cfg = grpoConfig({ output_dir: grpoDir, init: join(sftDir, 'final'), ...grpoOverrides(args.grpo!) });
  log(`grpo config: ${JSON.stringify(cfg)}`);
  const pool = generateTasks({ split: 'train', n: 2000, seed });
  await trainGrpo(cfg, {
    env: diagramEnv,
    tasks: pool,
    onMessage: log,
    onStep: (r, max) =>
      log(`grpo ${r.step}/${max} reward ${r.reward_mean.toFixed(3)} valid ${r.valid_action_rate.toFixed(2)} kl ${r.kl.toFixed(4)} ent ${r.entropy === null ? "-" : r.entropy.toFixed(3)} len ${r.completion_length.toFixed(0)} trunc ${r.truncated_fraction.toFixed(2)} skipped ${r.skipped_groups}/${r.groups} abbrev ${r.quirks.abbrev.toFixed(3)} overlap ${r.quirks.overlap.toFixed(3)} (${r.sample_seconds.toFixed(1)}+${r.score_seconds.toFixed(1)}+${r.update_seconds.toFixed(1)} s)`),
  });
  times.grpo = secondsSince(t0);
}

// Evaluation on the same held-out tasks, same sampling for both students.
interface EvalSummary {
  rewards: number[];
  valid: boolean[];
  abbrev: RateCount;
  overlap: RateCount;
  seconds: number;
}

function summarizeRollouts(rollouts: Rollout[], tasks: Task[], seconds: number): EvalSummary {
  const abbrev = { hits: 0, eligible: 0 };
  const overlap = { hits: 0, eligible: 0 };
  rollouts.forEach((r, i) => {
    const canvas = executeCompletion(r.completion).canvas;
    if (!canvas) return;
    const a = abbreviationCount(canvas, tasks[i].spec);
    const o = overlapCount(canvas);
    abbrev.hits += a.hits;
    abbrev.eligible += a.eligible;
    overlap.hits += o.hits;
    overlap.eligible += o.eligible;
  });
  return { rewards: rollouts.map((r) => r.reward), valid: rollouts.map((r) => r.renderer_accepts), abbrev, overlap, seconds };
}

async function evaluateCached(name: string, make: () => Promise<Policy>, temperature: number): Promise<EvalSummary> {
  const path = join(out, `eval-${name}.json`);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8'));
  const policy = await make();
  const t0 = performance.now();
  const { rollouts } = await evaluatePolicy(diagramEnv, policy, heldout, { samples: 1, rubrics: ['strong'], sampling: { temperature, seed: 7 } });
  await policy.close?.();
  const s = summarizeRollouts(rollouts, heldout, secondsSince(t0));
  writeFileSync(path, JSON.stringify(s));
  return s;
}

const specs = new Map(heldout.map((t) => [t.prompt, t.spec]));
const teacher = await evaluateCached('teacher', async () => new ScriptedPolicy({ specFor: (p) => specs.get(p), quirks }), 1);
const sft = await evaluateCached('sft', () => StudentPolicy.load(join(sftDir, 'final')), 0.7);
const grpo = await evaluateCached(`grpo-${args.tag}`, () => StudentPolicy.load(join(grpoDir, 'final')), 0.7);

const fmt = (i: Interval) => `${i.mean.toFixed(3)} [${i.lo.toFixed(3)}, ${i.hi.toFixed(3)}]`;
const asNum = (xs: boolean[]) => xs.map((x) => (x ? 1 : 0));
const pct = (c: RateCount) => `${(100 * rateOf(c)).toFixed(1)}% (${c.hits}/${c.eligible})`;
const rows = [
  ['policy', 'mean strong reward [95% CI]', 'valid-action rate [95% CI]', 'abbreviated labels', 'overlapping shapes'],
  ...([['teacher (quirky)', teacher], ['SFT', sft], [`GRPO (${args.tag})`, grpo]] as const).map(([n, e]) => [
    n,
    fmt(bootstrapMean(e.rewards)),
    fmt(bootstrapMean(asNum(e.valid))),
    pct(e.abbrev),
    pct(e.overlap),
  ]),
  ['GRPO - SFT (paired)', fmt(bootstrapDiff(sft.rewards, grpo.rewards)), fmt(bootstrapDiff(asNum(sft.valid), asNum(grpo.valid))), '', ''],
  ['GRPO - teacher (paired)', fmt(bootstrapDiff(teacher.rewards, grpo.rewards)), '', '', ''],
];
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
console.log(`held-out tasks: ${heldout.length}, one sample each (students at temperature 0.7)`);
for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c])).join('  '));

const curve: GrpoLogRow[] = readFileSync(join(grpoDir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const every = Math.max(1, Math.floor(curve.length / 10));
console.log('\nGRPO curve (step: reward mean, valid-action rate, KL, abbrev, overlap, completion length)');
for (const r of curve.filter((_, i) => i % every === 0 || i === curve.length - 1)) {
  console.log(`  ${String(r.step).padStart(3)}: ${r.reward_mean.toFixed(3)}  ${r.valid_action_rate.toFixed(2)}  ${r.kl.toFixed(4)}  ${r.quirks.abbrev.toFixed(3)}  ${r.quirks.overlap.toFixed(3)}  ${r.completion_length.toFixed(0)}`);
}
const grpoWall = curve[curve.length - 1].elapsed;
console.log(`\nGRPO wall time ${grpoWall.toFixed(0)} s for ${curve.length} steps${Object.keys(times).length ? `; this run: ${Object.entries(times).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(', ')}` : ''}`);
console.log(`eval seconds: SFT ${sft.seconds.toFixed(0)}, GRPO ${grpo.seconds.toFixed(0)} (2 cores shared with other work: timings are noisy)`);
