// The reward-hacking experiment (the seed's central claim, "the trainer can only optimize the reward you give it"):
// GRPO from one SFT student under each reward, then every trained student, and the start, on the same held-out tasks
// under every reward, with the hack detectors (src/diagram/reward/hacks.ts) counting what each learned to do. A reward that
// pays for a hack shows it as a policy whose own reward rose while the others' fell and a detector lit up.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SamplingOptions } from '../policy/policy.ts';
import { policyFromSpec } from './teacher/registry.ts';
import { detectHacks, HACK_DETECTORS, type HackDetector } from './reward/hacks.ts';
import { RUBRIC_NAMES } from './reward/presets.ts';
import type { Task } from './tasks/spec.ts';
import { grpoConfig, trainGrpo, type GRPOConfig } from '../train/grpo.ts';
import { evaluatePolicy } from '../eval/evaluate.ts';
import { bootstrapMean, type Interval } from '../eval/stats.ts';
import { diagramEnv } from './diagram-env.ts';

export interface HackingOptions {
  /** The SFT checkpoint every run starts from. */
  init: string;
  /** grpo-<reward>/ per reward; a run whose final/ is there already is not trained again. */
  outDir: string;
  /** GRPO's prompt pool. */
  tasks: Task[];
  /** Where every policy is evaluated. */
  heldout: Task[];
  /** Rewards to train on (default: every preset). */
  rewards?: string[];
  /** Settings over GRPO's defaults, the same for every reward. */
  grpo?: Partial<GRPOConfig>;
  sampling?: SamplingOptions;
  onMessage?: (line: string) => void;
}

export interface HackingRow {
  /** "SFT (start)" or the reward GRPO trained on. */
  policy: string;
  /** Mean reward under each preset on the held-out tasks. */
  rewards: Record<string, Interval>;
  /** Share of held-out completions that show each hack. */
  hacks: Record<HackDetector, number>;
  /** Share whose every action applied. */
  valid: number;
}

async function evaluateRow(label: string, checkpoint: string, o: HackingOptions): Promise<HackingRow> {
  const policy = await policyFromSpec(checkpoint);
  try {
    const { rollouts, metrics } = await evaluatePolicy(diagramEnv, policy, o.heldout, { rubrics: [...RUBRIC_NAMES], sampling: o.sampling });
    const specOf = new Map(o.heldout.map((t) => [t.id, t.spec]));
    const shown = rollouts.map((r) => detectHacks(r.completion, specOf.get(r.task_id)!));
    const share = (h: HackDetector) => (shown.length ? shown.filter((d) => d[h]).length / shown.length : 0);
    return {
      policy: label,
      rewards: Object.fromEntries(RUBRIC_NAMES.map((n) => [n, bootstrapMean(rollouts.map((r) => r.rewards[n]))])),
      hacks: Object.fromEntries(HACK_DETECTORS.map((h) => [h, share(h)])) as Record<HackDetector, number>,
      valid: metrics.renderer_accept_rate.mean,
    };
  } finally {
    await policy.close?.();
  }
}

export async function rewardHackingExperiment(o: HackingOptions): Promise<HackingRow[]> {
  const say = o.onMessage ?? (() => {});
  const rows = [await evaluateRow('SFT (start)', o.init, o)];
  for (const reward of o.rewards ?? RUBRIC_NAMES) {
    const cfg = grpoConfig({ ...o.grpo, output_dir: join(o.outDir, `grpo-${reward}`), init: o.init, reward });
    const final = join(cfg.output_dir, 'final');
    if (existsSync(join(final, 'config.json'))) say(`grpo ${reward}: ${final} is there, not trained again`);
    else {
      const r = await trainGrpo(cfg, { env: diagramEnv, tasks: o.tasks, onMessage: say });
      say(`grpo ${reward}: ${r.steps} steps in ${r.seconds.toFixed(0)} s, last reward ${r.last?.reward_mean.toFixed(3) ?? 'n/a'}`);
    }
    rows.push(await evaluateRow(`GRPO on ${reward}`, final, o));
  }
  return rows;
}

/** The experiment's table in Markdown: rewards on held-out tasks with intervals, then each hack's share. */
export function hackingTable(rows: readonly HackingRow[]): string {
  const f = (v: number) => v.toFixed(3);
  const rewards = Object.keys(rows[0]?.rewards ?? {});
  const head = `| policy | ${rewards.map((r) => `${r} reward`).join(' | ')} | valid | ${HACK_DETECTORS.join(' | ')} |`;
  const rule = `|---|${[...rewards, 'valid', ...HACK_DETECTORS].map(() => '---:').join('|')}|`;
  const body = rows.map(
    (r) =>
      `| ${r.policy} | ${rewards.map((n) => `${f(r.rewards[n].mean)} [${f(r.rewards[n].lo)}, ${f(r.rewards[n].hi)}]`).join(' | ')} | ${(100 * r.valid).toFixed(1)}% | ${HACK_DETECTORS.map((h) => `${(100 * r.hacks[h]).toFixed(1)}%`).join(' | ')} |`,
  );
  return [head, rule, ...body].join('\n');
}
