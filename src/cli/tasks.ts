// `canvasgym tasks`: writes tasks from the suite as JSONL, or prints what each split holds.
import type { Command } from 'commander';
import type { z } from 'zod';
import { DIAGRAM_KINDS, type DiagramKind } from '../diagram/tasks/spec.ts';
import { generateTasks, maxDistinct, TaskRequestError, type TaskFilter } from '../diagram/tasks/generate.ts';
import { SPLITS, VOCABS, type Split } from '../diagram/tasks/scenarios.ts';
import { formatStats, splitStats } from '../diagram/tasks/stats.ts';
import { JsonlWriter } from '../io/jsonl.ts';
import { UsageError } from './usage-error.ts';
import { outputFileFlag } from './flags.ts';
import { TasksSettings } from './tasks-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';

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

export function registerTasks(cmd: Command): void {
  addSettingFlags(cmd, TasksSettings)
    .action(async (flags: Record<string, unknown>) => {
      const s = readSettings(TasksSettings, flags);
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
