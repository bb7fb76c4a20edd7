// How well the strong reward's prompt-to-spec extraction (src/diagram/reward/extract.ts) recovers the generator's specs:
// precision and recall of entities and edges, per kind and split, and the prompts it does worst on.
// Also the time per prompt (first call, so the per-prompt cache never answers). --split train keeps held-out prompts
// off the screen while tuning the rules.
//   npx tsx bench/extraction.ts [--n 1000] [--seed 0] [--worst 2] [--split train|heldout]
//   npx tsx bench/extraction.ts --requests test/fixtures/handwritten-requests-eval.jsonl
//     the same figures per style on hand-written requests (rows {id, style, prompt, spec}), with edge F1: the set the
//     rules are not tuned on, and the figures a user's own prompts get from the prompt alone.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { extractSpec } from '../src/diagram/reward/extract.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import { DIAGRAM_KINDS, type DiagramKind, type Task } from '../src/diagram/tasks/spec.ts';
import { SPLITS } from '../src/diagram/tasks/scenarios.ts';
import { addCounts, f1, precision, recall, scoreExtraction, ZERO_COUNTS, type ExtractionCounts } from '../src/diagram/tasks/extraction-metrics.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000' }, seed: { type: 'string', default: '0' }, worst: { type: 'string', default: '2' }, split: { type: 'string' }, requests: { type: 'string' } } });
const n = Number(values.n);
const seed = Number(values.seed);
const worst = Number(values.worst);
if (values.split !== undefined && !(SPLITS as readonly string[]).includes(values.split)) {
  throw new Error(`--split must be one of ${SPLITS.join(', ')}, got ${JSON.stringify(values.split)}`);
}
const splits = SPLITS.filter((s) => values.split === undefined || s === values.split);

const pct = (v: number) => (100 * v).toFixed(1);
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

if (values.requests !== undefined) {
  const requests = readFileSync(values.requests, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; style: string; prompt: string; spec: Task['spec'] });
  const byStyle = new Map<string, { counts: ExtractionCounts; n: number; exact: number }>();
  for (const q of requests) {
    const c = scoreExtraction(q.spec, extractSpec(q.prompt));
    const exact = c.entities.fp + c.entities.fn + c.edges.fp + c.edges.fn === 0 ? 1 : 0;
    for (const k of [q.style, 'all']) {
      const cur = byStyle.get(k) ?? { counts: ZERO_COUNTS, n: 0, exact: 0 };
      byStyle.set(k, { counts: addCounts(cur.counts, c), n: cur.n + 1, exact: cur.exact + exact });
    }
  }
  console.log(`extraction vs hand-written specs, ${values.requests}\n`);
  console.log(row(['style', 'requests', 'entity P', 'entity R', 'edge P', 'edge R', 'edge F1', 'exact']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
  for (const [k, v] of [...byStyle].sort(([a], [b]) => (a === 'all' ? 1 : b === 'all' ? -1 : a.localeCompare(b)))) {
    const { entities, edges } = v.counts;
    console.log(row([k, v.n, pct(precision(entities)), pct(recall(entities)), pct(precision(edges)), pct(recall(edges)), pct(f1(edges)), pct(v.exact / v.n)]));
  }
  process.exit(0);
}

console.log(`extraction vs generator specs, ${n} tasks per split, seed ${seed}\n`);
console.log(row(['split', 'kind', 'tasks', 'entity P', 'entity R', 'edge P', 'edge R', 'exact']));
console.log(row(['---', '---', '---:', '---:', '---:', '---:', '---:', '---:']));
const failures: { split: string; task: Task; f1: number }[] = [];
const timing: string[] = [];
for (const split of splits) {
  const tasks = generateTasks({ split, n, seed });
  const byKind = new Map<DiagramKind | 'all', { counts: ExtractionCounts; tasks: number; exact: number }>();
  let ms = 0;
  for (const t of tasks) {
    const start = performance.now();
    const guess = extractSpec(t.prompt);
    ms += performance.now() - start;
    const c = scoreExtraction(t.spec, guess);
    const exact = c.entities.fp + c.entities.fn + c.edges.fp + c.edges.fn === 0 ? 1 : 0;
    for (const k of [t.spec.kind!, 'all'] as const) {
      const cur = byKind.get(k) ?? { counts: ZERO_COUNTS, tasks: 0, exact: 0 };
      byKind.set(k, { counts: addCounts(cur.counts, c), tasks: cur.tasks + 1, exact: cur.exact + exact });
    }
    failures.push({ split, task: t, f1: f1(c.edges) });
  }
  timing.push(`${split}: ${((1000 * ms) / tasks.length).toFixed(0)} µs per prompt (${tasks.length} prompts, mean ${Math.round(tasks.reduce((a, t) => a + t.prompt.length, 0) / tasks.length)} characters)`);
  for (const k of [...DIAGRAM_KINDS, 'all'] as const) {
    const s = byKind.get(k);
    if (!s) continue;
    const { entities, edges } = s.counts;
    console.log(row([split, k, s.tasks, pct(precision(entities)), pct(recall(entities)), pct(precision(edges)), pct(recall(edges)), pct(s.exact / s.tasks)]));
  }
}
console.log(`\nextraction time, uncached:\n${timing.join('\n')}`);
console.log(`\nworst prompts per split and kind (edge F1), ${worst} each:`);
for (const split of splits) {
  for (const kind of DIAGRAM_KINDS) {
    const bad = failures.filter((f) => f.split === split && f.task.spec.kind === kind && f.f1 < 1).sort((a, b) => a.f1 - b.f1).slice(0, worst);
    for (const f of bad) console.log(`- ${split} ${kind} F1 ${f.f1.toFixed(2)}: ${JSON.stringify(f.task.prompt)}`);
  }
}
