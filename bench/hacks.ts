// Every known hack against the honest diagram under each preset, with and without the task spec (the second path
// reads entities and edges from the prompt), on the hack prompts and the hand-written requests of
// test/fixtures/; then the figures issue 22 asks of `task`, and each fixed baseline on 200 held-out tasks.
// Usage: npx tsx bench/hacks.ts [--seed S] [--requests FILE]   (FILE: JSONL requests with a spec, e.g. the hand-written
// evaluation set, in place of the hack prompts and the tuned hand-written sets)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HACKS, HACK_PROMPTS, hackFigures, honestCompletion, type HackInput } from '../src/diagram/reward/hacks.ts';
import { getRubric } from '../src/diagram/reward/presets.ts';
import { BASELINE_NAMES, BaselinePolicy } from '../src/diagram/teacher/baselines.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import { conversationFor } from '../src/diagram/language/prompt.ts';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, requests: { type: 'string' } } });
const seed = Number(values.seed);

/** Requests with their specs: a row's `spec`, or its own `entities` and `edges` (the tuned sets' rows). */
function requests(file: string | URL): HackInput[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { prompt: string; spec?: HackInput['spec']; entities?: string[]; edges?: [string, string][] })
    .map((r) => ({ prompt: r.prompt, spec: r.spec ?? { entities: r.entities ?? [], edges: r.edges ?? [] } }));
}
const fixture = (name: string) => new URL(`../test/fixtures/${name}`, import.meta.url);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rubrics = ['seed', 'strong', 'task'].map(getRubric);
const cases = values.requests ? requests(values.requests) : [...HACK_PROMPTS, ...requests(fixture('handwritten-requests.jsonl')), ...requests(fixture('handwritten-requests-heldout.jsonl'))];

console.log(values.requests ? `mean reward over the ${cases.length} requests of ${values.requests}\n` : `mean reward over ${cases.length} requests (${HACK_PROMPTS.length} hack prompts and the hand-written ones)\n`);
const header = rubrics.flatMap((r) => [`${r.name} (spec)`, `${r.name} (prompt)`]);
console.log(`| completion | ${header.join(' | ')} |`);
console.log(`|---|${header.map(() => '---:').join('|')}|`);
for (const entry of [{ name: 'honest', make: honestCompletion }, ...HACKS]) {
  const cells = rubrics.flatMap((r) =>
    [true, false].map((withSpec) => mean(cases.map((c) => r.score({ prompt: c.prompt, completion: entry.make(c), spec: withSpec ? c.spec : undefined }).reward))),
  );
  console.log(`| ${entry.name} | ${cells.map((v) => v.toFixed(3)).join(' | ')} |`);
}

console.log('\nhacks below honest, honest mean, content-free answers (wrong names, unlabeled, one box "A", the prompt in a text box):\n');
console.log('| reward | spec | hack rows | below honest | honest mean | content-free mean |');
console.log('|---|---|---:|---:|---:|---:|');
const failures: string[] = [];
for (const r of rubrics) {
  for (const withSpec of [true, false]) {
    const f = hackFigures(r, cases, withSpec);
    console.log(`| ${r.name} | ${withSpec ? 'given' : 'from prompt'} | ${f.rows} | ${(100 * f.below).toFixed(1)}% | ${f.honestMean.toFixed(3)} | ${f.contentFreeMean.toFixed(3)} |`);
    if (r.name === 'task') failures.push(...f.failures.map((x) => `${withSpec ? 'spec' : 'prompt'}  ${x}`));
  }
}

const heldout = generateTasks({ split: 'heldout', n: 200, seed });
const specOf = new Map(heldout.map((t) => [t.prompt, t.spec]));
console.log(`\nfixed baselines on 200 held-out tasks (seed ${seed}), mean reward:\n`);
console.log(`| baseline | ${rubrics.map((r) => r.name).join(' | ')} |`);
console.log(`|---|${rubrics.map(() => '---:').join('|')}|`);
for (const name of BASELINE_NAMES) {
  const policy = new BaselinePolicy(name, (p) => specOf.get(p)!);
  const answers = await policy.generate(heldout.map((t) => conversationFor(t.prompt)));
  const cells = rubrics.map((r) => mean(heldout.map((t, i) => r.score({ prompt: t.prompt, completion: answers[i][0].text, spec: t.spec }).reward)));
  console.log(`| ${name} | ${cells.map((v) => v.toFixed(3)).join(' | ')} |`);
}

console.log(`\n\`task\` rows at or above honest (${failures.length}):${failures.length ? `\n${failures.join('\n')}` : ' none'}`);
