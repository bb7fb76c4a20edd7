// Every kind's spec is drawable: an honest diagram built from the spec alone (a plain grid of labelled boxes, the
// decision as a diamond, every edge drawn with its requested label) scores >= 0.9 under the strong reward.
import { describe, expect, it } from 'vitest';
import { generateTasks } from '../../../src/diagram/tasks/generate.ts';
import { DIAGRAM_KINDS, type DiagramSpec } from '../../../src/diagram/tasks/spec.ts';
import { getRubric } from '../../../src/diagram/reward/presets.ts';
import { textWidth } from '../../../src/render/text.ts';
import { LABEL_FONT_SIZE } from '../../../src/diagram/reward/layout.ts';

function honestDiagram(spec: DiagramSpec): string {
  const cols = Math.ceil(Math.sqrt(spec.entities.length));
  const sizes = spec.entities.map((e) => {
    const diamond = spec.shapes?.[e] === 'diamond';
    const w = Math.max(140, textWidth(e, LABEL_FONT_SIZE) + 40) * (diamond ? 1.8 : 1);
    return { w, h: diamond ? 120 : 60, diamond };
  });
  const cellW = Math.max(...sizes.map((s) => s.w)) + 120;
  const ids = spec.entities.map((_, i) => `n${i}`);
  const actions: Record<string, unknown>[] = spec.entities.map((e, i) => ({
    type: 'create_shape',
    id: ids[i],
    shape: sizes[i].diamond ? 'diamond' : 'rectangle',
    x: (i % cols) * cellW,
    y: Math.floor(i / cols) * 220,
    w: sizes[i].w,
    h: sizes[i].h,
    text: e,
  }));
  for (const [a, b] of spec.edges) {
    const label = spec.edgeLabels?.[`${a}->${b}`];
    actions.push({ type: 'connect', from: ids[spec.entities.indexOf(a)], to: ids[spec.entities.indexOf(b)], ...(label ? { text: label } : {}) });
  }
  return JSON.stringify({ actions });
}

describe('honest diagrams of generated specs under the strong reward', () => {
  const strong = getRubric('strong');
  for (const split of ['train', 'ood'] as const) {
    it(`${split}: every kind at every level scores >= 0.9`, () => {
      const tasks = generateTasks({ split, n: 8 * DIAGRAM_KINDS.length * 3, seed: 11 });
      const low: string[] = [];
      for (const t of tasks) {
        const s = strong.score({ prompt: t.prompt, completion: honestDiagram(t.spec), spec: t.spec });
        const faithful = s.components.entities_present === 1 && s.components.edges_correct === 1;
        if (s.reward < 0.9 || !faithful) low.push(`${t.id} ${s.reward.toFixed(3)} ${JSON.stringify(s.components)}`);
      }
      expect(low).toEqual([]);
      expect(new Set(tasks.map((t) => t.spec.kind))).toEqual(new Set(DIAGRAM_KINDS));
    });
  }

  it('a diagram missing half the edges loses edge credit (the check can fail)', () => {
    const [t] = generateTasks({ split: 'train', n: 1, seed: 3, kinds: ['mixed'], difficulty: 4 });
    const half = { ...t.spec, edges: t.spec.edges.slice(0, Math.floor(t.spec.edges.length / 2)) };
    const partial = strong.score({ prompt: t.prompt, completion: honestDiagram(half), spec: t.spec });
    expect(partial.components.edges_correct).toBeLessThan(0.6);
  });
});
