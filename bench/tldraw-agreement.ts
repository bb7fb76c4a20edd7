// Do the built-in canvas and the real tldraw editor agree? On a generated corpus of completions, compares per action
// whether it applied, and per diagram which arrows bind to which shapes (in order). Prints the agreement rates and
// every kind of disagreement with a count and an example. Usage: npx tsx bench/tldraw-agreement.ts [--n 1000] [--seed 1]
import { parseArgs } from 'node:util';
import { SEED_ACTION_TYPES } from '../src/diagram/language/actions.ts';
import { generateCorpus } from '../src/diagram/tasks/corpus.ts';
import { executeCompletion } from '../src/diagram/language/execute.ts';
import { TldrawDriver } from '../src/diagram/tldraw/driver.ts';
import { prepareDiagram, toReadback, type PreparedDiagram } from '../src/diagram/tldraw/prepare.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000' }, seed: { type: 'string', default: '1' } } });
const n = Number(values.n);
const seed = Number(values.seed);
if (!Number.isInteger(n) || n <= 0 || !Number.isInteger(seed)) throw new Error('--n must be a positive integer and --seed an integer');

const corpus = generateCorpus({ n, seed });
const work: { id: string; variant: string; prepared: PreparedDiagram; raw: Record<string, unknown>[] }[] = [];
for (const item of corpus) {
  const exec = executeCompletion(item.completion);
  if (!exec.parse.ok) continue;
  work.push({ id: item.id, variant: item.variant, prepared: prepareDiagram(exec.parse.actions, { allowedTypes: SEED_ACTION_TYPES }), raw: exec.parse.actions });
}

const driver = await TldrawDriver.start({ batchSize: 64 });
const t0 = performance.now();
let results;
try {
  results = await driver.run(work.map((w) => w.prepared.page));
} finally {
  await driver.close();
}
const seconds = (performance.now() - t0) / 1000;

const kinds = new Map<string, { count: number; example: string }>();
const note = (kind: string, example: string) => {
  const k = kinds.get(kind) ?? { count: 0, example };
  k.count++;
  kinds.set(kind, k);
};
let actions = 0;
let actionsAgree = 0;
let arrows = 0;
let arrowsAgree = 0;
let diagramsAgree = 0;
let capped = 0;
let judged = 0;
for (const [i, w] of work.entries()) {
  const rb = toReadback(w.prepared, results[i]);
  if (rb.capped.length > 0) capped++;
  judged += w.prepared.page.actions.length;
  let same = true;
  if (rb.crashed) {
    note('tldraw crashed on the diagram', `${w.id}: ${rb.crashed}`);
    same = false;
  }
  for (const [k, c] of w.prepared.canvas.outcomes.entries()) {
    const t = rb.outcomes[k];
    actions++;
    if (c.applied === t.applied && c.error?.reason === t.error?.reason) {
      actionsAgree++;
      continue;
    }
    same = false;
    const what = `${c.type || 'action'}: canvas ${c.applied ? 'applied' : `refused (${c.error?.reason.replace(/: .*/, '')})`}, tldraw ${t.applied ? 'applied' : `refused (${t.error?.reason.replace(/: .*/, '')})`}`;
    note(what, `${w.id} action ${k}: ${JSON.stringify(w.raw[k]).slice(0, 160)}`);
  }
  // Geometry is not part of the verdict, but a shape tldraw placed elsewhere or made smaller would be a silent fix-up.
  const tshapes = new Map(rb.shapes.map((s) => [s.id, s]));
  for (const c of w.prepared.canvas.canvas.shapes.values()) {
    const t = tshapes.get(c.id);
    if (!t) {
      note('shape missing in tldraw', `${w.id}: ${c.id}`);
      same = false;
    } else if (rb.capped.length === 0 && (Math.abs(t.x - c.x) > 1e-6 || Math.abs(t.y - c.y) > 1e-6)) {
      note('shape placed elsewhere', `${w.id}: ${c.id} canvas (${c.x}, ${c.y}), tldraw (${t.x}, ${t.y})`);
    } else if (t.w < c.w - 0.5 || (c.shape !== 'text' && t.h < c.h - 0.5)) {
      note('shape smaller than asked', `${w.id}: ${c.id} ${c.shape} canvas ${c.w}x${c.h}, tldraw ${t.w}x${t.h}`);
    }
  }
  const canvasArrows = w.prepared.canvas.canvas.arrows.map((a) => `${a.from}->${a.to}`);
  const tldrawArrows = rb.arrows.map((a) => `${a.from ?? '(free)'}->${a.to ?? '(free)'}`);
  arrows += Math.max(canvasArrows.length, tldrawArrows.length);
  for (let k = 0; k < Math.max(canvasArrows.length, tldrawArrows.length); k++) {
    if (canvasArrows[k] === tldrawArrows[k]) arrowsAgree++;
    else {
      same = false;
      note('arrow bound differently', `${w.id}: canvas ${canvasArrows[k] ?? '(none)'}, tldraw ${tldrawArrows[k] ?? '(none)'}`);
    }
  }
  if (same) diagramsAgree++;
}

const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(2)}% (${a}/${b})`;
console.log(`corpus: ${n} completions (seed ${seed}), ${work.length} parse and went through tldraw in ${seconds.toFixed(1)} s`);
console.log(`diagrams in full agreement: ${pct(diagramsAgree, work.length)}`);
console.log(`actions with the same verdict: ${pct(actionsAgree, actions)}; tldraw judged ${judged} of them itself (the rest failed the action schema in Node and never reached it)`);
console.log(`arrows bound to the same shapes: ${pct(arrowsAgree, arrows)}`);
console.log(`diagrams with values capped before tldraw (not a disagreement): ${capped}`);
console.log('verdict disagreements fail a diagram; geometry notes below (placed elsewhere, smaller) do not');
if (kinds.size === 0) console.log('no disagreement');
for (const [kind, { count, example }] of [...kinds].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`- ${kind}: ${count}\n    e.g. ${example}`);
}
