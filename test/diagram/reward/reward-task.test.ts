import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { HACKS, HACK_PROMPTS, hackFigures, honestCompletion, type HackInput } from '../../../src/diagram/reward/hacks.ts';
import { taskRubric } from '../../../src/diagram/reward/task.ts';
import { generateTasks } from '../../../src/diagram/tasks/generate.ts';
import type { DiagramSpec } from '../../../src/diagram/tasks/spec.ts';

const box = (id: string, i: number, text = id) => ({ type: 'create_shape', id, shape: 'rectangle', x: 40 + 220 * (i % 4), y: 40 + 160 * Math.floor(i / 4), w: 180, h: 60, text });
const answer = (actions: object[]) => JSON.stringify({ actions });
const diagram = (spec: DiagramSpec, drop: { entities?: number; edges?: number } = {}) => {
  const kept = spec.entities.slice(0, spec.entities.length - (drop.entities ?? 0));
  const edges = spec.edges.filter(([a, b]) => kept.includes(a) && kept.includes(b)).slice(drop.edges ?? 0);
  return answer([...kept.map((e, i) => box(e, i)), ...edges.map(([from, to]) => ({ type: 'connect', from, to }))]);
};

describe('task reward', () => {
  const heldout = generateTasks({ split: 'heldout', n: 200, seed: 1 });
  const score = (t: { prompt: string; spec: DiagramSpec }, completion: string) => taskRubric.score({ prompt: t.prompt, completion, spec: t.spec });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  it('scores an honest diagram >= 0.95 and every known hack below it, with the spec', () => {
    for (const input of HACK_PROMPTS) {
      const honest = score(input, honestCompletion(input)).reward;
      expect(honest).toBeGreaterThanOrEqual(0.95);
      for (const hack of HACKS.filter((h) => h.make(input) !== honestCompletion(input))) {
        expect(score(input, hack.make(input)).reward, hack.name).toBeLessThan(honest);
      }
    }
  });

  it('ranks every hack below honest with the spec, >= 95% from the prompt alone, on the hack prompts and hand-written requests', () => {
    const requests = (file: string): HackInput[] =>
      readFileSync(new URL(`../../fixtures/${file}`, import.meta.url), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { prompt: string; entities: string[]; edges: [string, string][] })
        .map((r) => ({ prompt: r.prompt, spec: { entities: r.entities, edges: r.edges } }));
    const cases = [...HACK_PROMPTS, ...requests('handwritten-requests.jsonl'), ...requests('handwritten-requests-heldout.jsonl')];
    const given = hackFigures(taskRubric, cases, true);
    const read = hackFigures(taskRubric, cases, false);
    expect(given.rows).toBeGreaterThan(2000);
    expect(given.failures).toEqual([]);
    expect(read.below).toBeGreaterThanOrEqual(0.95);
    expect(given.honestMean).toBeGreaterThanOrEqual(0.95);
    expect(read.honestMean).toBeGreaterThanOrEqual(0.95);
    expect(given.contentFreeMean).toBeLessThanOrEqual(0.3);
    expect(read.contentFreeMean).toBeLessThanOrEqual(0.3);
  });

  it('gives content-free answers little: one box, the prompt in a text box, unconnected wrong names', () => {
    expect(mean(heldout.map((t) => score(t, answer([box('A', 0)])).reward))).toBeLessThanOrEqual(0.1);
    expect(mean(heldout.map((t) => score(t, answer([{ ...box('p', 0, t.prompt), shape: 'text' }])).reward))).toBeLessThanOrEqual(0.3);
    expect(mean(heldout.map((t) => score(t, answer(t.spec.entities.map((_, i) => box(`Box ${i + 1}`, i)))).reward))).toBeLessThanOrEqual(0.3);
    expect(score(heldout[0], '{"actions":[]}').reward).toBe(0);
    expect(score(heldout[0], 'I cannot draw that').reward).toBe(0);
  });

  it('costs each missing entity and edge in proportion, and names every component with its weight', () => {
    const t = heldout.find((x) => x.spec.entities.length >= 5 && x.spec.edges.length >= 4)!;
    const full = score(t, diagram(t.spec));
    expect(full.reward).toBeGreaterThan(0.9);
    const lessEntities = [1, 2, 3].map((k) => score(t, diagram(t.spec, { entities: k })).reward);
    const lessEdges = [1, 2, 3].map((k) => score(t, diagram(t.spec, { edges: k })).reward);
    for (const xs of [lessEntities, lessEdges]) {
      expect(xs[0]).toBeLessThan(full.reward);
      expect(xs[1]).toBeLessThan(xs[0]);
      expect(xs[2]).toBeLessThan(xs[1]);
    }
    expect(Object.keys(full.components)).toEqual(['executes', 'entities', 'edges', 'layout']);
    expect(Object.values(full.weights).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });

  it('lets layout refine a right diagram but never rescue a wrong one', () => {
    const t = heldout[3];
    const names = answer(t.spec.entities.map((_, i) => box(`Zz ${i}`, i)));
    expect(score(t, names).components.layout).toBe(0);
    const stacked = answer(t.spec.entities.map((e) => box(e, 0)));
    expect(score(t, stacked).reward).toBeLessThan(score(t, diagram(t.spec)).reward);
  });
});
