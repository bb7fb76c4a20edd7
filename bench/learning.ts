// The learning benchmark: recipe variants for the student, trained at equal wall-clock on the same kind of tasks, then
// evaluated on the same IID held-out tasks, greedy and at temperature 0.7. Each (variant, seed) cell is cached in
// OUT/results.jsonl, so a rerun adds only what is missing and prints the whole table.
//   npx tsx bench/learning.ts [--variants base,clean,...] [--seeds 2] [--budget-s 200] [--eval 200] [--out runs/learning] [--table-only]
// Equal wall-clock: a variant's SFT steps are the budget times the tokens/s its model shape trains at on a quiet machine
// (--tokens-per-s, the default shape's rate), divided by its tokens per step; so variants of one shape see the same
// tokens, and the figures do not depend on what else shares the cores. The wall time each cell took is printed beside
// it, with the load. Teacher time is reported, not budgeted: the default run pays it once.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import { ERROR_KINDS, sampled, type Figures } from './sampled.ts';
import { trainVariant, VARIANTS, variantNamed } from './variants.ts';

const { values: args } = parseArgs({
  options: {
    variants: { type: 'string', default: 'base,clean,nostutter,lr6,gpt2init,shapesfirst,fresh,vocab1024' },
    seeds: { type: 'string', default: '2' },
    'budget-s': { type: 'string', default: '200' },
    eval: { type: 'string', default: '200' },
    'max-tokens': { type: 'string', default: '512' },
    'tokens-per-s': { type: 'string', default: '9300' },
    out: { type: 'string', default: 'runs/learning' },
    /** Print the table of the cells already measured, running none. */
    'table-only': { type: 'boolean', default: false },
  },
});

const out = args.out!;
const budgetS = Number(args['budget-s']);
const nEval = Number(args.eval);
const maxTokens = Number(args['max-tokens']);
const seeds = Array.from({ length: Number(args.seeds) }, (_, i) => i);
const names = args.variants!.split(',').map((s) => s.trim()).filter(Boolean);
for (const n of names) variantNamed(n);
mkdirSync(out, { recursive: true });
const log = (line: string) => process.stderr.write(`${line}\n`);
const load = () => loadavg()[0].toFixed(1);

/** The same IID held-out tasks for every cell. */
const heldout = generateTasks({ split: 'heldout', n: nEval, seed: 4242 });

interface Cell {
  variant: string;
  seed: number;
  steps: number;
  teacher_s: number;
  sft_s: number;
  load: string;
  greedy: Figures;
  t07: Figures;
}

const resultsPath = join(out, 'results.jsonl');
const cells: Cell[] = existsSync(resultsPath)
  ? readFileSync(resultsPath, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Cell)
  : [];

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f2 = (x: number) => x.toFixed(2);

function printTable(): void {
  const head = ['variant', 'seed', 'steps', 'valid greedy', 'valid T=0.7', 'entities', 'edges', 'exact', 'strong', ...ERROR_KINDS.map((k) => `${k}`), 'teacher s', 'SFT s', 'load'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const row = (c: Cell) => [c.variant, String(c.seed), String(c.steps), pct(c.greedy.valid), pct(c.t07.valid), `${f2(c.greedy.entities)} / ${f2(c.t07.entities)}`, `${f2(c.greedy.edges)} / ${f2(c.t07.edges)}`, `${pct(c.greedy.exact)} / ${pct(c.t07.exact)}`, `${f2(c.greedy.strong)} / ${f2(c.t07.strong)}`, ...ERROR_KINDS.map((k) => `${c.greedy.errors[k]} / ${c.t07.errors[k]}`), c.teacher_s.toFixed(0), c.sft_s.toFixed(0), c.load];
  for (const name of names) {
    const mine = cells.filter((c) => c.variant === name).sort((a, b) => a.seed - b.seed);
    for (const c of mine) lines.push(`| ${row(c).join(' | ')} |`);
    if (mine.length > 1) {
      const avg = (f: (c: Cell) => number) => mine.reduce((a, c) => a + f(c), 0) / mine.length;
      lines.push(`| **${name} mean** | | | **${pct(avg((c) => c.greedy.valid))}** | **${pct(avg((c) => c.t07.valid))}** | ${f2(avg((c) => c.greedy.entities))} / ${f2(avg((c) => c.t07.entities))} | ${f2(avg((c) => c.greedy.edges))} / ${f2(avg((c) => c.t07.edges))} | ${pct(avg((c) => c.greedy.exact))} / ${pct(avg((c) => c.t07.exact))} | ${f2(avg((c) => c.greedy.strong))} / ${f2(avg((c) => c.t07.strong))} |${ERROR_KINDS.map(() => ' |').join('')} | | |`);
    }
  }
  console.log(`\nIID held-out tasks: ${heldout.length}; budget ${budgetS} s at ${args['tokens-per-s']} tokens/s; cells "greedy / T=0.7"; error columns count rollouts with that error\n`);
  console.log(lines.join('\n'));
  console.log(`\nvariants:\n${names.map((n) => `- ${n}: ${VARIANTS[n].about}`).join('\n')}`);
}

for (const seed of args['table-only'] ? [] : seeds) {
  for (const name of names) {
    if (cells.some((c) => c.variant === name && c.seed === seed)) continue;
    log(`${name} seed ${seed}: teacher (load ${load()})`);
    const trained = await trainVariant({ out, name, seed, budgetS, tokensPerS: Number(args['tokens-per-s']), log });
    const { steps, sftS } = trained;
    const loadAtEnd = load();
    log(`${name} seed ${seed}: evaluating (${sftS.toFixed(0)} s of SFT)`);
    const greedy = await sampled(trained.dir, heldout, 0, maxTokens);
    const t07 = await sampled(trained.dir, heldout, 0.7, maxTokens);
    const cell: Cell = { variant: name, seed, steps, teacher_s: trained.teacherS, sft_s: sftS, load: loadAtEnd, greedy, t07 };
    cells.push(cell);
    appendFileSync(resultsPath, JSON.stringify(cell) + '\n');
    log(`${name} seed ${seed}: valid ${pct(greedy.valid)} / ${pct(t07.valid)}, entities ${f2(greedy.entities)}, edges ${f2(greedy.edges)}`);
  }
}
printTable();
