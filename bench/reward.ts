// Reward speed, per core: scores one generated corpus with every registered preset and with the seed's Python
// reward.py in the same run, one thread on each side, and prints rewards/s and the ratio to Python.
// Rates are per CPU-second of the scoring process (process.cpuUsage, time.process_time), which stays meaningful on a
// shared machine; wall-clock rates are printed beside them. Also checks that seed and Python agree on every reward,
// and strong's fast path and its exact one (analyzeStrong: executeCompletion and the Canvas).
// A breakdown per preset says where the time goes: reading the JSON (WebAssembly reader: UTF-8 copy and one scan of
// the whole text), the canvas from its records (fast paths, fence and span retries included; for seed the whole
// WebAssembly scorer, layout and semantics included), for strong its entity, edge and layout values over the canvas
// arrays, and the components (what is left of a score: the rubric's objects); beside it, the
// exact path the fast one replaces. A last row scores both presets on each completion.
// Each timed function first runs over the corpus for --warmup CPU-seconds (at least one pass): V8 tiers the rare paths
// (fence retries, the exact port's fallbacks) up only after thousands of calls, and a GRPO run is long past that.
// A second table scores a corpus grouped like GRPO: --per-prompt completions (num_generations, default 8) per prompt,
// where what a rubric reads once per prompt (seed's prompt words, strong's spec plan) is shared by the group.
//   npx tsx bench/reward.ts [--n 20000] [--seed 1] [--rounds 3] [--warmup 1.5] [--per-prompt 8]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateCorpus, type CorpusItem } from '../src/env/corpus.ts';
import { executeCompletion } from '../src/env/execute.ts';
import { parseJson } from '../src/env/parse.ts';
import { jsonReader, SEED } from '../src/reward/fast-json.ts';
import { getRubric, RUBRIC_NAMES } from '../src/reward/presets.ts';
import { scanSeed, seedCanvasOfRecords, seedScoreRecords } from '../src/reward/seed-fast.ts';
import { checkCompletion } from '../src/reward/seed-python.ts';
import { executeCountsFast } from '../src/reward/strong-fast.ts';
import { strongValues } from '../src/reward/strong-values.ts';
import { analyzeStrong } from '../src/reward/strong.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1.5' },
    'per-prompt': { type: 'string', default: '8' },
  },
});
const n = Number(values.n);
const seed = Number(values.seed);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const perPrompt = Number(values['per-prompt']);
if (!(n > 0) || !Number.isInteger(seed) || !(rounds > 0) || !(warmup >= 0) || !Number.isInteger(perPrompt) || perPrompt < 1) {
  console.error('usage: npx tsx bench/reward.ts [--n N>0] [--seed INT] [--rounds R>0] [--warmup SECONDS>=0] [--per-prompt G>=1]');
  process.exit(2);
}

const SCORER = fileURLToPath(new URL('../python/seed_reference_score.py', import.meta.url));

interface Timing {
  /** Wall-clock seconds. */
  seconds: number;
  cpuSeconds: number;
  rewards: number[];
}

function pythonRun(items: CorpusItem[]): Timing {
  const input = items.map((it) => JSON.stringify({ prompt: it.prompt, completion: it.completion })).join('\n') + '\n';
  const py = spawnSync('python3', [SCORER, '--bench'], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (py.status !== 0) throw new Error(`python3 ${SCORER} failed: ${py.stderr}`);
  const t = JSON.parse(py.stderr.trim().split('\n').pop()!) as { seconds: number; cpu_seconds: number };
  return { seconds: t.seconds, cpuSeconds: t.cpu_seconds, rewards: py.stdout.trimEnd().split('\n').map(Number) };
}

/**
 * Best of `rounds` timed passes of `fn` over every item, after warm-up passes (`--warmup` CPU-seconds, at least one):
 * the steady state a long GRPO run sees.
 */
function timePasses(items: CorpusItem[], fn: (item: CorpusItem) => number): Timing {
  let rewards = items.map(fn);
  for (const warm = process.cpuUsage(); process.cpuUsage(warm).user / 1e6 < warmup; ) rewards = items.map(fn);
  let seconds = Infinity;
  let cpuSeconds = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    rewards = items.map(fn);
    const used = process.cpuUsage(cpu);
    seconds = Math.min(seconds, (performance.now() - start) / 1000);
    cpuSeconds = Math.min(cpuSeconds, (used.user + used.system) / 1e6);
  }
  return { seconds, cpuSeconds, rewards };
}

function timeRubric(name: string, items: CorpusItem[]): Timing {
  const rubric = getRubric(name);
  return timePasses(items, (it) => rubric.score(it).reward);
}

if (!jsonReader) {
  console.error('assembly/build/reward.wasm is missing: run `npm run build:wasm` (the rewards would take their exact paths)');
  process.exit(2);
}
const reader = jsonReader;

/**
 * How each preset gets from text to what its components read: the reader's scan alone, its fast path (for seed, the
 * WebAssembly scorer, with seed-fast.ts's canvas where it leaves a completion to JavaScript), and the exact path.
 */
function seedFast(it: CorpusItem): unknown {
  const scanned = scanSeed(it.completion);
  if (scanned !== true) return scanned;
  if (reader.seedPrompt(it.prompt) && seedScoreRecords(it.completion) !== SEED.fallback) return true;
  return seedCanvasOfRecords(it.completion);
}
const strongOut = new Float64Array(3);
/** strong's fast path and its entity, edge and layout values (strong-values.ts) on the row's spec. */
function strongMeasured(it: CorpusItem): unknown {
  const counts = executeCountsFast(it.completion);
  if (counts && it.spec) strongValues(it.spec, 'input', counts.canvas, strongOut);
  return counts;
}
const STAGES: Record<
  string,
  { python: boolean; fast: (item: CorpusItem) => unknown; exact: (text: string) => unknown; measured?: (item: CorpusItem) => unknown }
> = {
  seed: { python: true, fast: seedFast, exact: checkCompletion },
  strong: { python: false, fast: (it) => executeCountsFast(it.completion), exact: executeCompletion, measured: strongMeasured },
};

/** CPU µs per completion in read, canvas and components, from timing the scan, the fast path and the score. */
function breakdown(name: string, items: CorpusItem[], total: Timing): string {
  const stages = STAGES[name];
  if (!stages) return `${name}: no breakdown`;
  const us = (t: Timing) => (1e6 * t.cpuSeconds) / items.length;
  const read = us(timePasses(items, (it) => reader.scan(0, reader.load(it.completion), 0, stages.python)));
  const fast = us(timePasses(items, (it) => (stages.fast(it) ? 1 : 0)));
  const exact = us(timePasses(items, (it) => (stages.exact(it.completion) ? 1 : 0)));
  const measured = stages.measured ? us(timePasses(items, (it) => (stages.measured!(it) ? 1 : 0))) : fast;
  const all = us(total);
  const f = (v: number) => Math.max(0, v).toFixed(1);
  const values = stages.measured ? ` / entities, edges, layout ${f(measured - fast)}` : '';
  return (
    `${name} µs/completion (CPU): read ${f(read)} / canvas ${f(fast - read)}${values} / components ${f(all - measured)} = ${all.toFixed(1)}` +
    ` (the exact path to a canvas: ${f(exact)}, the fast one: ${f(fast)}${name === 'seed' ? ', WebAssembly scorer included' : ''})`
  );
}

/** strong's reward on its exact path: the rubric's weighted sum over analyzeStrong's values, clamped as the rubric does. */
function exactStrongReward(it: CorpusItem): number {
  const values: Record<string, number> = analyzeStrong(it).values;
  let reward = 0;
  for (const c of getRubric('strong').components) {
    const v = values[c.name];
    reward += c.weight * (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
  }
  return reward;
}

/** "strong = exact path on k/n rewards" for a timed run's rewards. */
function strongAgreement(items: CorpusItem[], rewards: number[], what: string): string {
  const equal = items.filter((it, i) => Object.is(rewards[i], exactStrongReward(it))).length;
  return `strong = exact path on ${equal}/${items.length} ${what}`;
}

const t0 = performance.now();
const items = generateCorpus({ n, seed });
console.log(`corpus: ${n} completions (seed ${seed}) generated in ${((performance.now() - t0) / 1000).toFixed(1)}s`);

/** Python's best of `rounds` runs over the items. */
function pythonBest(items: CorpusItem[]): Timing {
  let best = pythonRun(items);
  for (let r = 1; r < rounds; r++) {
    const again = pythonRun(items);
    best = { ...best, seconds: Math.min(best.seconds, again.seconds), cpuSeconds: Math.min(best.cpuSeconds, again.cpuSeconds) };
  }
  return best;
}
const python = pythonBest(items);
const pyRate = n / python.cpuSeconds;

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
console.log(`\nsingle thread each side, best of ${rounds}; rates per CPU-second, wall-clock in the last column\n`);
console.log(row(['scorer', 'rewards/s (CPU)', 'µs/reward (CPU)', 'x Python', 'rewards/s (wall)']));
console.log(row(['---', '---:', '---:', '---:', '---:']));
console.log(row(['python reward.py', Math.round(pyRate), (1e6 / pyRate).toFixed(1), '1.0', Math.round(n / python.seconds)]));
const breakdowns: string[] = [];
let seedAgreement = '';
let strongAgreed = '';
for (const name of RUBRIC_NAMES) {
  const t = timeRubric(name, items);
  const rate = n / t.cpuSeconds;
  console.log(row([name, Math.round(rate), (1e6 / rate).toFixed(1), (rate / pyRate).toFixed(1), Math.round(n / t.seconds)]));
  breakdowns.push(breakdown(name, items, t));
  if (name === 'seed') {
    const equal = t.rewards.filter((r, i) => Object.is(r, python.rewards[i])).length;
    seedAgreement = `seed = python on ${equal}/${n} rewards`;
  }
  if (name === 'strong') strongAgreed = strongAgreement(items, t.rewards, 'rewards');
}
// Both presets on each completion, as a run that logs both does: the second reads the text the first parsed.
const rubrics = RUBRIC_NAMES.map(getRubric);
const both = timePasses(items, (it) => rubrics.reduce((sum, r) => sum + r.score(it).reward, 0));
const bothRate = n / both.cpuSeconds;
const bothName = `${RUBRIC_NAMES.join(' + ')} (same text)`;
console.log(row([bothName, Math.round(bothRate), (1e6 / bothRate).toFixed(1), (bothRate / pyRate).toFixed(1), Math.round(n / both.seconds)]));
// The floor under both: V8's JSON.parse of each completion once (failures without stack traces, as parse.ts does).
const floor = timePasses(items, (it) => (parseJson(it.completion).ok ? 1 : 0));
breakdowns.push(`JSON.parse of each completion once: ${((1e6 * floor.cpuSeconds) / n).toFixed(1)} µs/completion (CPU)`);
console.log(`\n${breakdowns.join('\n')}\n\n${seedAgreement}\n${strongAgreed}`);

// The same, grouped like GRPO: each prompt (and its spec object) answered by perPrompt completions in a row.
const grouped = generateCorpus({ n, seed, perPrompt });
const pyGrouped = pythonBest(grouped);
const pyGroupedRate = n / pyGrouped.cpuSeconds;
console.log(`\ngrouped like GRPO (${perPrompt} per prompt): ${n} completions, ${Math.ceil(n / perPrompt)} prompts\n`);
console.log(row(['scorer', 'rewards/s (CPU)', 'µs/reward (CPU)', 'x Python', 'rewards/s (wall)']));
console.log(row(['---', '---:', '---:', '---:', '---:']));
console.log(row(['python reward.py', Math.round(pyGroupedRate), (1e6 / pyGroupedRate).toFixed(1), '1.0', Math.round(n / pyGrouped.seconds)]));
for (const name of RUBRIC_NAMES) {
  const t = timeRubric(name, grouped);
  const rate = n / t.cpuSeconds;
  console.log(row([name, Math.round(rate), (1e6 / rate).toFixed(1), (rate / pyGroupedRate).toFixed(1), Math.round(n / t.seconds)]));
  if (name === 'seed') {
    const equal = t.rewards.filter((r, i) => Object.is(r, pyGrouped.rewards[i])).length;
    console.log(`(seed = python on ${equal}/${n} grouped rewards)`);
  }
  if (name === 'strong') console.log(`(${strongAgreement(grouped, t.rewards, 'grouped rewards')})`);
}
