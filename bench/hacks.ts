// Prints, for several prompts, the reward of an honest diagram and of each known hack under each preset,
// with and without the task spec (the second path extracts entities and edges from the prompt).
// Usage: npx tsx bench/hacks.ts
import { HACKS, HACK_PROMPTS, honestCompletion } from '../src/reward/hacks.ts';
import { strongRubric } from '../src/reward/strong.ts';
import type { Rubric } from '../src/reward/rubric.ts';
import type { DiagramSpec } from '../src/tasks/spec.ts';

async function rubrics(): Promise<Rubric[]> {
  try {
    // Built by another part of the project; until it exists the table shows strong alone.
    const presetsModule = '../src/reward/presets.ts';
    const presets = (await import(presetsModule)) as { getRubric: (name: string) => Rubric };
    return ['seed', 'strong', 'task'].map((n) => presets.getRubric(n));
  } catch (err) {
    process.stderr.write(`presets unavailable (${(err as Error).message.split('\n')[0]}); showing strong only\n`);
    return [strongRubric];
  }
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

const list = await rubrics();
const rows: { name: string; cells: number[] }[] = [];
const cases: { prompt: string; spec: DiagramSpec; withSpec: boolean }[] = HACK_PROMPTS.flatMap((p) => [
  { ...p, withSpec: true },
  { ...p, withSpec: false },
]);
const score = (r: Rubric, make: (c: (typeof cases)[number]) => string, withSpec: boolean) =>
  mean(cases.filter((c) => c.withSpec === withSpec).map((c) => r.score({ prompt: c.prompt, completion: make(c), spec: withSpec ? c.spec : undefined }).reward));
for (const entry of [{ name: 'honest', make: honestCompletion }, ...HACKS]) {
  const cells: number[] = [];
  for (const r of list) for (const withSpec of [true, false]) cells.push(score(r, (c) => entry.make(c), withSpec));
  rows.push({ name: entry.name, cells });
}
const header = list.flatMap((r) => [`${r.name} (spec)`, `${r.name} (prompt)`]);
console.log(`mean reward over ${HACK_PROMPTS.length} prompts\n`);
console.log(`| completion | ${header.join(' | ')} |`);
console.log(`|---|${header.map(() => '---:').join('|')}|`);
for (const row of rows) console.log(`| ${row.name} | ${row.cells.map((v) => v.toFixed(3)).join(' | ')} |`);

// Speed: microseconds per completion over the same mix, best of several passes (the machine is shared).
const mix = cases.flatMap((c) => [honestCompletion(c), ...HACKS.map((h) => h.make(c))].map((completion) => ({ prompt: c.prompt, completion })));
console.log(`\nspeed over ${mix.length} completions (honest and hacks, prompt path), best of 5 passes:`);
for (const r of list) {
  let best = Infinity;
  for (let pass = 0; pass < 5; pass++) {
    const t = performance.now();
    for (let k = 0; k < 20; k++) for (const row of mix) r.score(row);
    best = Math.min(best, ((performance.now() - t) * 1000) / (20 * mix.length));
  }
  console.log(`  ${r.name}: ${best.toFixed(1)} µs/completion`);
}
