// How the strong reward's cost grows with what a row asks for: spec size (a chain answered by 20 of its entities, the
// issue's case; and a contested one, every entity sharing one of five names with the answer's 40 shapes) and prompt
// length (the spec read from the prompt). Past the row limits (src/diagram/tasks/limits.ts) the entry points refuse a row;
// the rubric itself is timed beyond them, so that the growth shows: it should stay linear. Times are CPU milliseconds
// per score (process.cpuUsage), the best of --rounds, each score on a fresh copy of the spec (nothing kept from the
// last one), after one untimed score.
//   npx tsx bench/reward-scaling.ts [--rounds 5] [--max 100000]
import { parseArgs } from 'node:util';
import { analyzeStrong, strongRubric } from '../src/diagram/reward/strong.ts';
import { LIMITS } from '../src/diagram/tasks/limits.ts';
import { DiagramSpec } from '../src/diagram/tasks/spec.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, max: { type: 'string', default: '100000' } } });
const rounds = Number(values.rounds);
const max = Number(values.max);
if (!(rounds > 0) || !(max > 0)) {
  console.error('usage: npx tsx bench/reward-scaling.ts [--rounds R>0] [--max ENTITIES>0]');
  process.exit(2);
}

const box = (i: number, text: string) => ({ type: 'create_shape', id: `s${i}`, shape: 'rectangle', x: (i % 8) * 200, y: Math.floor(i / 8) * 150, w: 180, h: 80, text });
const link = (a: number, b: number) => ({ type: 'connect', from: `s${a}`, to: `s${b}` });

/** Best CPU milliseconds of `rounds` calls. */
function cpuMs(fn: () => unknown): number {
  fn();
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

interface Case {
  spec: (n: number) => DiagramSpec;
  completion: string;
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `Service Node ${i}`);
const chainOf = (entities: string[]): [string, string][] => entities.slice(1).map((e, i) => [entities[i], e]);
const TIED = ['Cache', 'Web Cache', 'Cache Layer', 'Web', 'Queue'];
const CASES: Record<string, Case> = {
  'chain, 20 entities drawn': {
    spec: (n) => ({ entities: names(n), edges: chainOf(names(n)) }),
    completion: JSON.stringify({ actions: [...names(20).map((e, i) => box(i, e)), ...names(19).map((_, i) => link(i, i + 1))] }),
  },
  'contested, 40 tied shapes': {
    spec: (n) => {
      const entities = Array.from({ length: n }, (_, i) => TIED[i % TIED.length]);
      return { entities, edges: chainOf(entities) };
    },
    completion: JSON.stringify({ actions: Array.from({ length: 40 }, (_, i) => box(i, TIED[i % TIED.length])) }),
  },
};

const sizes = [10, 50, 100, LIMITS.entities, 1_000, 10_000, 100_000].filter((n) => n <= max);
console.log(`strong reward, CPU ms per score by spec entities (edges: one fewer); the row limit is ${LIMITS.entities} entities, ${LIMITS.edges} edges`);
console.log('| case | path | ' + sizes.map((n) => n.toLocaleString('en')).join(' | ') + ' |');
console.log('|---|---|' + sizes.map(() => '---:').join('|') + '|');
for (const [name, c] of Object.entries(CASES)) {
  const specs = new Map(sizes.map((n) => [n, c.spec(n)]));
  const copy = (n: number): DiagramSpec => ({ ...specs.get(n)! });
  for (const [path, score] of [
    ['rubric', (n: number) => strongRubric.score({ prompt: 'Draw it', completion: c.completion, spec: copy(n) })],
    ['analyzeStrong', (n: number) => analyzeStrong({ prompt: 'Draw it', completion: c.completion, spec: copy(n) })],
  ] as const) {
    console.log(`| ${name} | ${path} | ${sizes.map((n) => cpuMs(() => score(n)).toFixed(2)).join(' | ')} |`);
  }
}

const biggest = CASES['chain, 20 entities drawn'].spec(Math.max(...sizes));
console.log(`\nrefusing the ${biggest.entities.length.toLocaleString('en')}-entity chain (DiagramSpec.safeParse): ${cpuMs(() => DiagramSpec.safeParse(biggest)).toFixed(2)} ms`);

// The spec read from the prompt: each prompt new to extractSpec's cache, so that it is read every time.
const promptSizes = [1_000, 5_000, LIMITS.promptChars, 80_000].filter((n) => n <= 4 * max);
console.log(`\nstrong reward without a spec, CPU ms per score by prompt characters (a chain "A -> B -> ..."); the limit is ${LIMITS.promptChars.toLocaleString('en')}`);
console.log('| ' + promptSizes.map((n) => n.toLocaleString('en')).join(' | ') + ' |');
console.log('|' + promptSizes.map(() => '---:').join('|') + '|');
let salt = 0;
const chainPrompt = (chars: number) => {
  salt++;
  const steps = Array.from({ length: Math.ceil(chars / 12) }, (_, i) => `Step${salt}x${i}`);
  return `Draw a pipeline: ${steps.join(' -> ')}`.slice(0, chars);
};
const completion = CASES['chain, 20 entities drawn'].completion;
console.log('| ' + promptSizes.map((n) => cpuMs(() => strongRubric.score({ prompt: chainPrompt(n), completion })).toFixed(2)).join(' | ') + ' |');
