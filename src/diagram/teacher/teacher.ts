// Teacher data, as in the seed's teacher_generate.py: sample several completions per task from a stronger policy,
// score each with a reward, keep those that pass in train.jsonl (chat rows SFT reads) and the rest in rejected.jsonl.
// Rows are appended and flushed one at a time; a rerun skips every (task, attempt) already on disk, so a killed run
// resumes without duplicates or gaps.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonlWriter, readRowsForResume } from '../../io/jsonl.ts';
import type { Rubric } from '../reward/rubric.ts';
import type { Task } from '../tasks/spec.ts';
import type { ChatMessage, Completion, Policy } from '../../policy/policy.ts';
import { conversationFor, SYSTEM_PROMPT } from '../language/prompt.ts';

export interface TeacherConfig {
  policy: string;
  attempts: number;
  minReward: number;
  seed: number;
  temperature: number;
  reward: string;
  quirks: Record<string, number>;
  /** The scripted teacher's request walk (walk.ts). */
  walk: boolean;
}

/** What the teacher needs of a task. The spec is optional: a remote teacher needs none, and the scripted teacher and
 *  the reward read one from the prompt (reward/extract.ts). */
export type TeacherTask = Omit<Task, 'spec'> & Partial<Pick<Task, 'spec'>>;

export interface TeacherOptions {
  policy: Policy;
  rubric: Rubric;
  tasks: TeacherTask[];
  outDir: string;
  config: TeacherConfig;
  /** Tasks sent to the policy per generate() call. */
  batchSize?: number;
  maxTokens?: number;
  systemPrompt?: string;
  onProgress?: (p: TeacherProgress) => void;
}

export interface TeacherProgress {
  /** (task, attempt) pairs on disk, this run's and earlier runs'. */
  done: number;
  total: number;
  accepted: number;
  rejected: number;
  /** Completions the policy could not produce this run (left for a rerun). */
  failed: number;
  /** Pairs written by this run. */
  written: number;
}

export interface TrainRow {
  messages: ChatMessage[];
  reward: number;
  task_id: string;
  attempt: number;
  quirks: string[];
}

export interface RejectedRow {
  task_id: string;
  attempt: number;
  prompt: string;
  completion: string;
  reward: number;
  components: Record<string, number>;
  errors: string[];
  quirks: string[];
  finish_reason?: string;
}

export interface TeacherSummary {
  config: TeacherConfig;
  tasks: number;
  total: number;
  accepted: number;
  rejected: number;
  /** accepted / (accepted + rejected). */
  accept_rate: number;
  /** Completions the policy failed to produce in the last run; a rerun tries them again. */
  failed: number;
  resumed_from: number;
  reward: {
    mean: number;
    min: number;
    p10: number;
    p50: number;
    p90: number;
    max: number;
    /** Counts in [0, 0.1), [0.1, 0.2), ... [0.9, 1.0]. */
    histogram: number[];
    accepted_min: number | null;
  };
  top_errors: { message: string; count: number }[];
  /** How often each teacher quirk fired, over accepted and over rejected rows. */
  quirks: { accepted: Record<string, number>; rejected: Record<string, number> };
  elapsed_s: number;
}

const key = (taskId: string, attempt: number) => `${taskId}\u0000${attempt}`;


/** Error lines grouped: action indices and quoted values vary, the kind of mistake does not. */
export function errorKind(message: string): string {
  return message
    .replace(/^action \d+: /, 'action N: ')
    .replace(/"[^"]*"/g, '"..."')
    .replace(/: [\w.-]+$/, ': ...')
    .replace(/\d+/g, 'N');
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

const round = (v: number) => Math.round(v * 1e4) / 1e4;

export function summarize(
  train: TrainRow[],
  rejected: RejectedRow[],
  extra: { config: TeacherConfig; tasks: number; total: number; failed: number; failures: string[]; resumedFrom: number; elapsedS: number },
): TeacherSummary {
  const rewards = [...train.map((r) => r.reward), ...rejected.map((r) => r.reward)].sort((a, b) => a - b);
  const histogram = new Array<number>(10).fill(0);
  for (const r of rewards) histogram[Math.min(9, Math.max(0, Math.floor(r * 10)))]++;
  const errors = new Map<string, number>();
  for (const m of [...rejected.flatMap((r) => r.errors), ...extra.failures]) errors.set(errorKind(m), (errors.get(errorKind(m)) ?? 0) + 1);
  const countQuirks = (rows: { quirks: string[] }[]) => {
    const c: Record<string, number> = {};
    for (const r of rows) for (const q of r.quirks ?? []) c[q] = (c[q] ?? 0) + 1;
    return c;
  };
  const scored = train.length + rejected.length;
  return {
    config: extra.config,
    tasks: extra.tasks,
    total: extra.total,
    accepted: train.length,
    rejected: rejected.length,
    accept_rate: scored ? round(train.length / scored) : 0,
    failed: extra.failed,
    resumed_from: extra.resumedFrom,
    reward: {
      mean: rewards.length ? round(rewards.reduce((a, b) => a + b, 0) / rewards.length) : 0,
      min: round(rewards[0] ?? 0),
      p10: round(quantile(rewards, 0.1)),
      p50: round(quantile(rewards, 0.5)),
      p90: round(quantile(rewards, 0.9)),
      max: round(rewards[rewards.length - 1] ?? 0),
      histogram,
      accepted_min: train.length ? round(Math.min(...train.map((r) => r.reward))) : null,
    },
    top_errors: [...errors.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([message, count]) => ({ message, count })),
    quirks: { accepted: countQuirks(train), rejected: countQuirks(rejected) },
    elapsed_s: round(extra.elapsedS),
  };
}

/** Refuses to mix two different runs in one directory: the rows would not be one dataset. */
function checkConfig(outDir: string, config: TeacherConfig): void {
  const path = join(outDir, 'run.json');
  if (existsSync(path)) {
    // A run.json written before the walk existed has no walk: that run did not walk.
    const before = { walk: false, ...(JSON.parse(readFileSync(path, 'utf8')) as Partial<TeacherConfig>) };
    const diff = (Object.keys(config) as (keyof TeacherConfig)[]).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(config[k]));
    if (diff.length > 0) {
      const what = diff.map((k) => `${k} ${JSON.stringify(before[k])} -> ${JSON.stringify(config[k])}`).join(', ');
      throw new TeacherRunMismatch(`${outDir} holds a run with other settings (${what}); resume with the same flags or use a new --out`);
    }
    return;
  }
  writeFileSync(path, JSON.stringify(config, null, 2) + '\n');
}

export class TeacherRunMismatch extends Error {}

export function isAccepted(score: { reward: number; errors: string[] }, minReward: number): boolean {
  return score.errors.length === 0 && score.reward >= minReward;
}

export async function runTeacher(o: TeacherOptions): Promise<TeacherSummary> {
  const started = performance.now();
  const { config } = o;
  mkdirSync(o.outDir, { recursive: true });
  checkConfig(o.outDir, config);
  const trainPath = join(o.outDir, 'train.jsonl');
  const rejectedPath = join(o.outDir, 'rejected.jsonl');
  const train = readRowsForResume<TrainRow>(trainPath);
  const rejected = readRowsForResume<RejectedRow>(rejectedPath);
  const finished = new Set([...train, ...rejected].map((r) => key(r.task_id, r.attempt)));
  const resumedFrom = finished.size;
  const total = o.tasks.length * config.attempts;
  const system = o.systemPrompt ?? SYSTEM_PROMPT;
  const failures: string[] = [];
  const progress = (): TeacherProgress => ({
    done: finished.size,
    total,
    accepted: train.length,
    rejected: rejected.length,
    failed: failures.length,
    written: finished.size - resumedFrom,
  });

  const todo = o.tasks.filter((t) => Array.from({ length: config.attempts }, (_, a) => finished.has(key(t.id, a))).includes(false));
  const trainOut = JsonlWriter.open(trainPath, { append: true });
  const rejectedOut = JsonlWriter.open(rejectedPath, { append: true });
  o.onProgress?.(progress());
  try {
    const batchSize = o.batchSize ?? 8;
    for (let start = 0; start < todo.length; start += batchSize) {
      const batch = todo.slice(start, start + batchSize);
      const conversations = batch.map((t) => conversationFor(t.prompt, system));
      // Every attempt is generated, done or not, so that a resumed task gets the same samples as an uninterrupted run.
      const outputs: Completion[][] = await o.policy.generate(conversations, {
        n: config.attempts,
        temperature: config.temperature,
        seed: config.seed,
        ...(o.maxTokens ? { maxTokens: o.maxTokens } : {}),
      });
      for (const [i, task] of batch.entries()) {
        for (let attempt = 0; attempt < config.attempts; attempt++) {
          if (finished.has(key(task.id, attempt))) continue;
          const c = outputs[i]?.[attempt];
          if (!c || c.finishReason === 'error') {
            failures.push(c?.error ?? `${o.policy.name} returned no completion ${attempt} for task ${task.id}`);
            continue;
          }
          const score = o.rubric.score({ prompt: task.prompt, completion: c.text, spec: task.spec });
          const quirks = c.quirks ?? [];
          if (isAccepted(score, config.minReward)) {
            const row: TrainRow = {
              messages: [...conversations[i], { role: 'assistant', content: c.text }],
              reward: score.reward,
              task_id: task.id,
              attempt,
              quirks,
            };
            await trainOut.write(row);
            train.push(row);
          } else {
            const row: RejectedRow = {
              task_id: task.id,
              attempt,
              prompt: task.prompt,
              completion: c.text,
              reward: score.reward,
              components: score.components,
              errors: score.errors,
              quirks,
              ...(c.finishReason ? { finish_reason: c.finishReason } : {}),
            };
            await rejectedOut.write(row);
            rejected.push(row);
          }
          finished.add(key(task.id, attempt));
          o.onProgress?.(progress());
        }
      }
    }
  } finally {
    trainOut.close();
    rejectedOut.close();
  }
  const summary = summarize(train, rejected, {
    config,
    tasks: o.tasks.length,
    total,
    failed: failures.length,
    failures,
    resumedFrom,
    elapsedS: (performance.now() - started) / 1000,
  });
  const tmp = join(o.outDir, 'summary.json.tmp');
  writeFileSync(tmp, JSON.stringify(summary, null, 2) + '\n');
  renameSync(tmp, join(o.outDir, 'summary.json'));
  return summary;
}
