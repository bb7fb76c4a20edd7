// Reward speed, per core: scores one generated corpus with every registered preset and with the seed's Python
// reward.py in the same run, one thread on each side, and prints rewards/s and the ratio to Python.
// Also checks that the seed preset and Python agree on every reward of the corpus.
//   npx tsx bench/reward.ts [--n 20000] [--seed 1] [--rounds 3]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateCorpus, type CorpusItem } from '../src/env/corpus.ts';
import { getRubric, RUBRIC_NAMES } from '../src/reward/presets.ts';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '20000' }, seed: { type: 'string', default: '1' }, rounds: { type: 'string', default: '3' } },
});
const n = Number(values.n);
const seed = Number(values.seed);
const rounds = Number(values.rounds);
if (!(n > 0) || !Number.isInteger(seed) || !(rounds > 0)) {
  console.error('usage: npx tsx bench/reward.ts [--n N>0] [--seed INT] [--rounds R>0]');
  process.exit(2);
}

const SCORER = fileURLToPath(new URL('../python/seed_reference_score.py', import.meta.url));

function pythonRun(items: CorpusItem[]): { seconds: number; rewards: number[] } {
  const input = items.map((it) => JSON.stringify({ prompt: it.prompt, completion: it.completion })).join('\n') + '\n';
  const py = spawnSync('python3', [SCORER, '--bench'], { input, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (py.status !== 0) throw new Error(`python3 ${SCORER} failed: ${py.stderr}`);
  const { seconds } = JSON.parse(py.stderr.trim().split('\n').pop()!) as { seconds: number };
  return { seconds, rewards: py.stdout.trimEnd().split('\n').map(Number) };
}

/** Best of `rounds` timed passes after a warm-up pass: the steady state a long GRPO run sees. */
function timeRubric(name: string, items: CorpusItem[]): { seconds: number; rewards: number[] } {
  const rubric = getRubric(name);
  let rewards = items.map((it) => rubric.score(it).reward);
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    rewards = items.map((it) => rubric.score(it).reward);
    best = Math.min(best, (performance.now() - start) / 1000);
  }
  return { seconds: best, rewards };
}

const t0 = performance.now();
const items = generateCorpus({ n, seed });
console.log(`corpus: ${n} completions (seed ${seed}) generated in ${((performance.now() - t0) / 1000).toFixed(1)}s`);

let python = pythonRun(items);
for (let r = 1; r < rounds; r++) {
  const again = pythonRun(items);
  if (again.seconds < python.seconds) python = again;
}
const pyRate = n / python.seconds;

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
console.log(`\nsingle thread each side, best of ${rounds}\n`);
console.log(row(['scorer', 'rewards/s', 'µs/reward', 'x Python']));
console.log(row(['---', '---:', '---:', '---:']));
console.log(row(['python reward.py', Math.round(pyRate), (1e6 / pyRate).toFixed(1), '1.0']));
for (const name of RUBRIC_NAMES) {
  const { seconds, rewards } = timeRubric(name, items);
  const rate = n / seconds;
  console.log(row([name, Math.round(rate), (1e6 / rate).toFixed(1), (rate / pyRate).toFixed(1)]));
  if (name === 'seed') {
    const equal = rewards.filter((r, i) => Object.is(r, python.rewards[i])).length;
    console.log(`|   seed = python on ${equal}/${n} rewards | | | |`);
  }
}
