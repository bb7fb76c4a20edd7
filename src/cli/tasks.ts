// `canvasgym tasks`: writes tasks from the suite as JSONL, or prints what each split holds.
import type { Command } from 'commander';
import { DIAGRAM_KINDS, type DiagramKind } from '../tasks/spec.ts';
import { MAX_LEVEL } from '../tasks/difficulty.ts';
import { generateTasks, maxDistinct, TaskRequestError, type TaskFilter } from '../tasks/generate.ts';
import { SPLITS, VOCABS, type Split } from '../tasks/scenarios.ts';
import { formatStats, splitStats } from '../tasks/stats.ts';
import { JsonlWriter } from '../io/jsonl.ts';
import { UsageError } from './usage-error.ts';
import { numberFlag, outputFileFlag } from './flags.ts';

interface TasksFlags {
  split?: string;
  n?: string;
  seed: string;
  difficulty?: string;
  kinds?: string;
  out?: string;
  stats?: boolean;
  syntheticNames?: string;
}

const integer = (flag: string, v: string, min: number) => numberFlag(flag, v, { integer: true, min });

/** Turns the flags into a split and a filter, or a UsageError naming the bad flag. */
export function parseTaskFlags(flags: TasksFlags): { split: Split; n: number; seed: number; filter: TaskFilter } {
  if (flags.split === undefined) throw new UsageError(`--split is required: ${SPLITS.join(' or ')}`);
  if (!(SPLITS as readonly string[]).includes(flags.split)) throw new UsageError(`--split must be ${SPLITS.join(' or ')}, got ${JSON.stringify(flags.split)}`);
  if (flags.n === undefined) throw new UsageError('--n is required: how many tasks to write');
  const filter: TaskFilter = {};
  if (flags.difficulty !== undefined) {
    const d = integer('--difficulty', flags.difficulty, 0);
    if (d > MAX_LEVEL) throw new UsageError(`--difficulty must be from 0 to ${MAX_LEVEL}, got ${d}`);
    filter.difficulty = d;
  }
  if (flags.kinds !== undefined) {
    const kinds = flags.kinds.split(',').map((k) => k.trim()).filter((k) => k.length > 0);
    const bad = kinds.find((k) => !(DIAGRAM_KINDS as readonly string[]).includes(k));
    if (bad !== undefined || kinds.length === 0) throw new UsageError(`--kinds takes a comma-separated list of ${DIAGRAM_KINDS.join(', ')}; got ${JSON.stringify(bad ?? flags.kinds)}`);
    filter.kinds = kinds as DiagramKind[];
  }
  return { split: flags.split as Split, n: integer('--n', flags.n, 1), seed: integer('--seed', flags.seed, 0), filter };
}

export function registerTasks(cmd: Command): void {
  cmd
    .option('--split <split>', `${SPLITS.join(', ')}: heldout is IID (train's phrasings, made-up names never used in train); ood shares no entity name, phrasing template or connector word with train`)
    .option('--n <n>', 'how many distinct tasks')
    .option('--seed <seed>', 'the same seed gives the same tasks', '0')
    .option('--difficulty <level>', `only one difficulty level, 0 to ${MAX_LEVEL}`)
    .option('--kinds <k1,k2>', `only these kinds: ${DIAGRAM_KINDS.join(', ')}`)
    .option('--synthetic-names <share>', 'share of tasks, 0 to 1, whose entities get made-up names (training data that makes a student copy names)')
    .option('--out <file>', 'JSONL file to write (stdout by default)')
    .option('--stats', 'print counts per kind and difficulty, distinct entities and templates per split')
    .action(async (flags: TasksFlags) => {
      if (flags.stats) {
        process.stdout.write(formatStats(VOCABS.map(splitStats)) + '\n');
        return;
      }
      const { split, n, seed, filter } = parseTaskFlags(flags);
      if (flags.out !== undefined) outputFileFlag('--out', flags.out);
      const max = maxDistinct(split, filter);
      const which = `${split} tasks${filter.difficulty !== undefined ? ` at difficulty ${filter.difficulty}` : ''}${filter.kinds ? ` of kinds ${filter.kinds.join(',')}` : ''}`;
      if (max === 0) throw new UsageError(`no ${which} exist: try another --difficulty or --kinds`);
      if (n > max) throw new UsageError(`--n ${n} is too large: there are only ${max} distinct ${which}; the maximum --n is ${max}`);
      let tasks;
      try {
        const syntheticNames = flags.syntheticNames === undefined ? undefined : numberFlag('--synthetic-names', flags.syntheticNames, { min: 0, max: 1 });
        tasks = generateTasks({ split, n, seed, syntheticNames, ...filter });
      } catch (err) {
        if (err instanceof TaskRequestError) throw new UsageError(err.message);
        throw err;
      }
      const out = JsonlWriter.open(flags.out);
      try {
        for (const t of tasks) await out.write(t);
      } finally {
        out.close();
      }
      if (flags.out !== undefined) process.stderr.write(`wrote ${tasks.length} ${split} tasks to ${flags.out}\n`);
    });
}
