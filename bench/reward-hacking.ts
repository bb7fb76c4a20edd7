// The reward-hacking experiment: GRPO from one SFT student with the seed, strong and task rewards, then each trained
// student and the start on the same held-out tasks under all three rewards, with the hack detectors. Prints one table
// and writes it with the rows to OUT/table.md and OUT/rows.json; trained runs already in OUT are reused.
//   npx tsx bench/reward-hacking.ts [--init runs/default/sft/final] [--out runs/reward-hacking] [--steps 60]
//     [--heldout 200] [--train-tasks 2000] [--temperature 0.7] [--max-tokens 512] [--seed 0]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hackingTable, rewardHackingExperiment } from '../src/diagram/reward-hacking.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';

const { values: args } = parseArgs({
  options: {
    init: { type: 'string', default: 'runs/default/sft/final' },
    out: { type: 'string', default: 'runs/reward-hacking' },
    steps: { type: 'string', default: '60' },
    heldout: { type: 'string', default: '200' },
    'train-tasks': { type: 'string', default: '2000' },
    temperature: { type: 'string', default: '0.7' },
    'max-tokens': { type: 'string', default: '512' },
    seed: { type: 'string', default: '0' },
  },
});

const count = (flag: string, v: string) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`--${flag} must be a positive integer, got ${JSON.stringify(v)}\n`);
    process.exit(2);
  }
  return n;
};
if (!existsSync(join(args.init!, 'config.json'))) {
  process.stderr.write(`--init: ${args.init} is not a student checkpoint (no config.json); train one with \`canvasgym run\` or \`canvasgym sft\`\n`);
  process.exit(2);
}
const seed = Number(args.seed);
const t0 = performance.now();
mkdirSync(args.out!, { recursive: true });
const rows = await rewardHackingExperiment({
  init: args.init!,
  outDir: args.out!,
  tasks: generateTasks({ split: 'train', n: count('train-tasks', args['train-tasks']!), seed }),
  heldout: generateTasks({ split: 'heldout', n: count('heldout', args.heldout!), seed: seed + 1 }),
  grpo: { max_steps: count('steps', args.steps!), seed },
  sampling: { temperature: Number(args.temperature), maxTokens: count('max-tokens', args['max-tokens']!), seed: 7 },
  onMessage: (line) => process.stderr.write(`${line}\n`),
});
const table = hackingTable(rows);
writeFileSync(join(args.out!, 'table.md'), table + '\n');
writeFileSync(join(args.out!, 'rows.json'), JSON.stringify(rows, null, 2) + '\n');
console.log(table);
console.log(`\n${((performance.now() - t0) / 60000).toFixed(1)} min; wrote ${join(args.out!, 'table.md')} and rows.json`);
