// What the inspector finds on disk: the runs under a folder (src/pipeline/run.ts writes them) and, in each, the files
// that hold rollouts. Read-only, and tolerant of what a run still being written has not made yet.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { badRunName } from '../pipeline/run.ts';
import { readLinesSync } from '../io/jsonl.ts';
import type { DiagramSpec } from '../diagram/tasks/spec.ts';

/** How a file's rows are laid out: each stage writes its own fields (rollout.ts reads them all). */
export type SourceKind = 'teacher' | 'rejected' | 'sft' | 'grpo' | 'eval';

export interface Source {
  /** The stage's name in URLs: teacher, teacher-rejected, sft, grpo, eval-LABEL. */
  id: string;
  /** What the page calls it. */
  label: string;
  kind: SourceKind;
  path: string;
}

export interface RunInfo {
  name: string;
  dir: string;
  /** The run's settings and stage timings (run.json), or null while it has none or it does not read. */
  state: { config?: { preset?: string }; stages?: Record<string, { seconds?: number; summary?: string }> } | null;
  modified: Date;
}

const readJson = (path: string): unknown => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
};

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
const record = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** What the pages show of a run.json, each field checked: the file is the run's, and may be anything. */
function stateOf(v: unknown): RunInfo['state'] {
  const o = record(v);
  if (!o) return null;
  const stages: Record<string, { seconds?: number; summary?: string }> = {};
  for (const [name, s] of Object.entries(record(o.stages) ?? {})) {
    const seconds = record(s)?.seconds;
    stages[name] = { seconds: typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : undefined, summary: text(record(s)?.summary) };
  }
  return { config: { preset: text(record(o.config)?.preset) }, stages };
}

/** The runs under `runsDir`: every folder with a run.json, newest first. */
export function listRuns(runsDir: string): RunInfo[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(runsDir, d.name, 'run.json')))
    .flatMap((d) => runInfo(runsDir, d.name) ?? [])
    .sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** One run by name, or undefined for a name that is not a run there (nothing outside `runsDir` is reachable). */
export function runInfo(runsDir: string, name: string): RunInfo | undefined {
  if (badRunName(name)) return undefined;
  const dir = join(runsDir, name);
  const file = join(dir, 'run.json');
  if (!existsSync(file)) return undefined;
  return { name, dir, state: stateOf(readJson(file)), modified: statSync(file).mtime };
}

/** The files of a run that hold rollouts, in the order of the loop: teacher, SFT, GRPO, then each evaluation. */
export function sourcesOf(run: RunInfo): Source[] {
  const found: Source[] = [];
  const add = (id: string, label: string, kind: SourceKind, path: string) => {
    if (existsSync(path)) found.push({ id, label, kind, path });
  };
  add('teacher', 'teacher: accepted rows (SFT data)', 'teacher', join(run.dir, 'teacher', 'train.jsonl'));
  add('teacher-rejected', 'teacher: rejected attempts', 'rejected', join(run.dir, 'teacher', 'rejected.jsonl'));
  add('sft', "SFT: sampled evaluations during training", 'sft', join(run.dir, 'sft', 'eval_samples.jsonl'));
  add('grpo', 'GRPO: training rollouts', 'grpo', join(run.dir, 'grpo', 'rollouts.jsonl'));
  const evalDir = join(run.dir, 'eval');
  if (existsSync(evalDir)) {
    for (const label of readdirSync(evalDir).sort()) add(`eval-${label}`, `evaluation: ${label}`, 'eval', join(evalDir, label, 'rollouts.jsonl'));
  }
  return found;
}

/** A spec as far as the pages read it: its kind a string, its level a number, or neither. */
export function specOf(v: unknown): DiagramSpec | undefined {
  const o = record(v);
  if (!o) return undefined;
  return { ...(o as unknown as DiagramSpec), kind: text(o.kind) as DiagramSpec['kind'], difficulty: typeof o.difficulty === 'number' ? o.difficulty : undefined };
}

export interface RunTask {
  id: string;
  prompt: string;
  spec?: DiagramSpec;
  split: string;
}

/** The run's tasks by id and by prompt, so that a row that names only one of them finds its spec, kind and level. */
export function tasksOf(run: RunInfo): { byId: Map<string, RunTask>; byPrompt: Map<string, RunTask> } {
  const byId = new Map<string, RunTask>();
  const byPrompt = new Map<string, RunTask>();
  for (const split of ['train', 'heldout', 'ood']) {
    const path = join(run.dir, 'tasks', `${split}.jsonl`);
    if (!existsSync(path)) continue;
    for (const line of readLinesSync(path, { badText: 'mark' })) {
      let t: RunTask;
      try {
        t = JSON.parse(line.text) as RunTask;
      } catch {
        continue; // a line cut short by a run still writing the file, or not a task: the others serve
      }
      if (typeof t?.id !== 'string' || typeof t.prompt !== 'string') continue;
      const task = { ...t, spec: specOf(t.spec), split };
      byId.set(t.id, task);
      byPrompt.set(t.prompt, task);
    }
  }
  return { byId, byPrompt };
}
