// `canvasgym tasks`: writes tasks from the suite as JSONL, or prints what each split holds.
import type { Command } from 'commander';
import type { z } from 'zod';
import { DIAGRAM_KINDS, type DiagramKind } from '../diagram/tasks/spec.ts';
import { generateTasks, maxDistinct, TaskRequestError, type TaskFilter } from '../diagram/tasks/generate.ts';
import { SPLITS, VOCABS, type Split } from '../diagram/tasks/scenarios.ts';
import { formatStats, splitStats } from '../diagram/tasks/stats.ts';
import { JsonlWriter } from '../io/jsonl.ts';
import { UsageError } from './usage-error.ts';
import { outputDirFlag, outputFileFlag } from './flags.ts';
import { resolve } from 'node:path';
import { TasksSettings } from './tasks-settings.ts';
import { addSettingFlags, givenSettings, readSettings } from './settings-flags.ts';
import { readTeacherTasks } from './task-file.ts';
import { parseJudgeSpec } from '../diagram/reward/judge.ts';
import { SpecModel } from '../diagram/specs/spec-model.ts';
import { taskFromPrompt } from '../diagram/specs/from-prompt.ts';
import { RemoteError } from '../policy/remote.ts';
import { flagOf } from '../settings.ts';
import cliProgress from 'cli-progress';

/** The settings as a split and a filter, or a UsageError naming the bad flag. */
function taskRequest(s: z.infer<typeof TasksSettings>): { split: Split; n: number; filter: TaskFilter } {
  if (s.split === undefined) throw new UsageError(`--split is required: ${SPLITS.join(' or ')}`);
  if (s.n === undefined) throw new UsageError('--n is required: how many tasks to write');
  const filter: TaskFilter = {};
  if (s.difficulty !== undefined) filter.difficulty = s.difficulty;
  if (s.kinds !== undefined) {
    const kinds = s.kinds.split(',').map((k) => k.trim()).filter((k) => k.length > 0);
    const bad = kinds.find((k) => !(DIAGRAM_KINDS as readonly string[]).includes(k));
    if (bad !== undefined || kinds.length === 0) throw new UsageError(`--kinds takes a comma-separated list of ${DIAGRAM_KINDS.join(', ')}; got ${JSON.stringify(bad ?? s.kinds)}`);
    filter.kinds = kinds as DiagramKind[];
  }
  return { split: s.split, n: s.n, filter };
}

/** Flags that only mean something with another one. */
const NEEDS: [keyof z.infer<typeof TasksSettings>, keyof z.infer<typeof TasksSettings>][] = [
  ['spec_model', 'from_prompts'],
  ['spec_base_url', 'spec_model'],
  ['spec_api_key', 'spec_model'],
  ['spec_timeout', 'spec_model'],
  ['spec_cache', 'spec_model'],
  ['review', 'spec_model'],
];
/** Prompts taken at once (the model's client limits how many are in flight), written in order as each group ends. */
const GROUP = 32;

/** `tasks --from-prompts`: a task row per request, its spec extracted or a model's, and the review of where they disagree. */
async function fromPrompts(s: z.infer<typeof TasksSettings>, given: Record<string, unknown>): Promise<void> {
  for (const flag of ['split', 'n', 'seed', 'difficulty', 'kinds', 'synthetic_names', 'stats'] as const) {
    if (given[flag] !== undefined) throw new UsageError(`${flagOf(flag, TasksSettings.shape[flag])} makes generated tasks; --from-prompts makes tasks of your own prompts: give one or the other`);
  }
  if (s.out !== undefined) outputFileFlag('--out', s.out);
  if (s.review !== undefined) outputFileFlag('--review', s.review);
  if (s.review !== undefined && s.out !== undefined && resolve(s.review) === resolve(s.out)) throw new UsageError('--review and --out name the same file');
  let model: SpecModel | undefined;
  if (s.spec_model !== undefined) {
    const spec = parseJudgeSpec(s.spec_model);
    if ('error' in spec) throw new UsageError(`--spec-model ${spec.error}`);
    const cacheDir = outputDirFlag('--spec-cache', s.spec_cache);
    model = new SpecModel({ model: spec.model, baseURL: s.spec_base_url, apiKey: s.spec_api_key, cacheDir, timeoutMs: s.spec_timeout, maxRetries: 2 });
  }
  const prompts = await readTeacherTasks(s.from_prompts!, '--from-prompts');
  const writer = JsonlWriter.open(s.out);
  const reviews = s.review !== undefined ? JsonlWriter.open(s.review) : undefined;
  const bar = new cliProgress.SingleBar({ format: 'specs |{bar}| {value}/{total} | ETA {eta_formatted}', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
  const counts = { written: 0, left: 0, disagree: 0, fellBack: 0 };
  if (model) bar.start(prompts.length, 0);
  try {
    for (let i = 0; i < prompts.length; i += GROUP) {
      const group = prompts.slice(i, i + GROUP);
      // A row that brings its own spec keeps it. Every row settled before a fatal error is written.
      const made = await Promise.allSettled(group.map((p) => (p.spec ? { task: { ...p, spec: p.spec, spec_source: 'input' }, review: null, fellBack: false } : taskFromPrompt(p.id, p.prompt, model))));
      for (const [k, settled] of made.entries()) {
        if (settled.status === 'rejected') throw settled.reason;
        const m = settled.value;
        if ('error' in m) {
          counts.left++;
          process.stderr.write(`canvasgym tasks: ${group[k].id}: ${m.error}; left out\n`);
          continue;
        }
        await writer.write(m.task);
        counts.written++;
        if (m.fellBack) counts.fellBack++;
        if (m.review) {
          counts.disagree++;
          await reviews?.write(m.review);
        }
      }
      if (model) bar.update(Math.min(prompts.length, i + GROUP));
    }
  } catch (err) {
    if (err instanceof RemoteError && err.fatal) throw new UsageError(`--spec-model: ${err.message} (the rows before it are written)`);
    throw err;
  } finally {
    if (model) bar.stop();
    writer.close();
    reviews?.close();
  }
  const where = s.out === undefined ? '' : ` to ${s.out}`;
  const asked = model ? `; ${model.name}: ${model.stats.asked} asked, ${model.stats.cached} from the cache, ${counts.fellBack} fell back to the extraction${model.stats.uncached ? `, ${model.stats.uncached} not written to the cache` : ''}` : '';
  const review = reviews ? `; ${counts.disagree} where the extraction disagrees, in ${s.review}` : '';
  process.stderr.write(`wrote ${counts.written} tasks${where}${counts.left ? ` (${counts.left} prompt${counts.left === 1 ? '' : 's'} left out: no entity found)` : ''}${asked}${review}\n`);
  if (counts.written === 0) process.exitCode = 1;
}

export function registerTasks(cmd: Command): void {
  addSettingFlags(cmd, TasksSettings)
    .action(async (flags: Record<string, unknown>) => {
      const s = readSettings(TasksSettings, flags);
      const given = givenSettings(TasksSettings, flags);
      for (const [flag, needs] of NEEDS) {
        if (given[flag] !== undefined && given[needs] === undefined) throw new UsageError(`${flagOf(flag, TasksSettings.shape[flag])} needs ${flagOf(needs, TasksSettings.shape[needs])}`);
      }
      if (s.from_prompts !== undefined) return fromPrompts(s, given);
      if (s.stats) {
        process.stdout.write(formatStats(VOCABS.map(splitStats)) + '\n');
        return;
      }
      const { split, n, filter } = taskRequest(s);
      const out = s.out;
      if (out !== undefined) outputFileFlag('--out', out);
      const max = maxDistinct(split, filter);
      const which = `${split} tasks${filter.difficulty !== undefined ? ` at difficulty ${filter.difficulty}` : ''}${filter.kinds ? ` of kinds ${filter.kinds.join(',')}` : ''}`;
      if (max === 0) throw new UsageError(`no ${which} exist: try another --difficulty or --kinds`);
      if (n > max) throw new UsageError(`--n ${n} is too large: there are only ${max} distinct ${which}; the maximum --n is ${max}`);
      let tasks;
      try {
        tasks = generateTasks({ split, n, seed: s.seed, syntheticNames: s.synthetic_names, ...filter });
      } catch (err) {
        if (err instanceof TaskRequestError) throw new UsageError(err.message);
        throw err;
      }
      const writer = JsonlWriter.open(out);
      try {
        for (const t of tasks) await writer.write(t);
      } finally {
        writer.close();
      }
      if (out !== undefined) process.stderr.write(`wrote ${tasks.length} ${split} tasks to ${out}\n`);
    });
}
