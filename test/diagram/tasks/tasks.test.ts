import { describe, expect, it } from 'vitest';
import { generateTasks, maxDistinct, TaskRequestError } from '../../../src/diagram/tasks/generate.ts';
import { DIAGRAM_KINDS, Task } from '../../../src/diagram/tasks/spec.ts';
import { LEVELS, levelOf, MAX_ENTITIES, MIN_ENTITIES } from '../../../src/diagram/tasks/difficulty.ts';
import { entityNames } from '../../../src/diagram/tasks/stats.ts';
import { TEMPLATES } from '../../../src/diagram/tasks/phrasing-templates.ts';
import { WORDS } from '../../../src/diagram/tasks/phrasing-words.ts';
import { SEED_TASKS } from '../../../src/diagram/tasks/seed-tasks.ts';
import { normalizeName } from '../../../src/diagram/tasks/extraction-metrics.ts';
import { inHeldoutPool } from '../../../src/diagram/tasks/synthetic-names.ts';

const samples = new Map<string, Task[]>();
const sample = (split: 'train' | 'ood') => {
  if (!samples.has(split)) samples.set(split, generateTasks({ split, n: 1200, seed: 7 }));
  return samples.get(split)!;
};

describe('generateTasks', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = generateTasks({ split: 'train', n: 200, seed: 5 });
    const b = generateTasks({ split: 'train', n: 200, seed: 5 });
    const c = generateTasks({ split: 'train', n: 200, seed: 6 });
    expect(b).toEqual(a);
    expect(c.map((t) => t.id)).not.toEqual(a.map((t) => t.id));
  });

  it('gives a task the same id and text whatever seed drew it', () => {
    const byId = new Map(generateTasks({ split: 'ood', n: 3000, seed: 1 }).map((t) => [t.id, t]));
    const again = generateTasks({ split: 'ood', n: 3000, seed: 2 }).filter((t) => byId.has(t.id));
    expect(again.length).toBeGreaterThan(0);
    for (const t of again) expect(t).toEqual(byId.get(t.id));
  });

  for (const split of ['train', 'ood'] as const) {
    it(`${split}: every task is a valid, self-consistent spec with a unique id`, () => {
      const tasks = sample(split);
      expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
      for (const t of tasks) {
        expect(Task.parse(t)).toEqual(t);
        const { entities, edges, kind, difficulty } = t.spec;
        expect(t.id.startsWith(`${split}-${kind}-`)).toBe(true);
        expect(entities.length).toBeGreaterThanOrEqual(MIN_ENTITIES);
        expect(entities.length).toBeLessThanOrEqual(MAX_ENTITIES);
        expect(new Set(entities).size).toBe(entities.length);
        expect(difficulty).toBe(levelOf(kind!, entities.length));
        for (const [a, b] of edges) {
          expect(entities).toContain(a);
          expect(entities).toContain(b);
          expect(a).not.toBe(b);
        }
        for (const key of Object.keys(t.spec.edgeLabels ?? {})) expect(edges.map(([a, b]) => `${a}->${b}`)).toContain(key);
      }
    });

    it(`${split}: each kind has its structure`, () => {
      for (const t of sample(split)) {
        const { entities, edges, kind } = t.spec;
        const indeg = (e: string) => edges.filter(([, b]) => b === e).length;
        const outdeg = (e: string) => edges.filter(([a]) => a === e).length;
        const n = entities.length;
        if (kind === 'chain') expect(edges).toEqual(entities.slice(1).map((e, i) => [entities[i], e]));
        if (kind === 'cycle') expect(edges).toEqual([...entities.slice(1).map((e, i) => [entities[i], e]), [entities[n - 1], entities[0]]]);
        if (kind === 'fan_out') expect(entities.filter((e) => outdeg(e) === n - 1 && indeg(e) === 0)).toHaveLength(1);
        if (kind === 'fan_in') expect(entities.filter((e) => indeg(e) === n - 1 && outdeg(e) === 0)).toHaveLength(1);
        if (kind === 'tree') {
          expect(edges).toHaveLength(n - 1);
          expect(entities.filter((e) => indeg(e) === 0)).toEqual([entities[0]]);
          expect(entities.slice(1).every((e) => indeg(e) === 1)).toBe(true);
        }
        if (kind === 'decision') {
          const diamonds = Object.entries(t.spec.shapes ?? {}).filter(([, s]) => s === 'diamond').map(([e]) => e);
          expect(diamonds).toHaveLength(1);
          expect(outdeg(diamonds[0])).toBe(2);
          const labels = edges.filter(([a]) => a === diamonds[0]).map(([a, b]) => t.spec.edgeLabels?.[`${a}->${b}`]);
          expect(labels.sort()).toEqual(['no', 'yes']);
        }
        if (kind === 'layered' || kind === 'mixed') expect(edges.length).toBeGreaterThanOrEqual(n - 1);
      }
    });

    it(`${split}: a prompt names every entity (or its short form) and every requested arrow label`, () => {
      for (const t of sample(split)) {
        const p = t.prompt.toLowerCase();
        const missing = t.spec.entities.filter((e) => !p.includes(e.toLowerCase()));
        // A missing full name must be an abbreviation the prompt types instead: a word of it is absent, the rest present.
        for (const e of missing) expect(e.split(' ').some((w) => !p.includes(w.toLowerCase())), `${t.id}: ${e}`).toBe(true);
        for (const l of Object.values(t.spec.edgeLabels ?? {})) expect(p).toContain(l.toLowerCase());
      }
    });
  }

  it('covers every kind and every level in both splits', () => {
    for (const split of ['train', 'ood'] as const) {
      for (const kind of DIAGRAM_KINDS) expect(maxDistinct(split, { kinds: [kind] }), `${split} ${kind}`).toBeGreaterThan(0);
      for (const level of LEVELS) expect(maxDistinct(split, { difficulty: level }), `${split} ${level}`).toBeGreaterThan(0);
    }
  });

  it('balances kinds and honours the difficulty and kinds filters', () => {
    const tasks = generateTasks({ split: 'train', n: 800, seed: 1 });
    for (const kind of DIAGRAM_KINDS) expect(tasks.filter((t) => t.spec.kind === kind)).toHaveLength(100);
    const hard = generateTasks({ split: 'ood', n: 50, seed: 1, difficulty: 4 });
    expect(hard.every((t) => t.spec.difficulty === 4)).toBe(true);
    const two = generateTasks({ split: 'ood', n: 50, seed: 1, kinds: ['tree', 'cycle'] });
    expect(new Set(two.map((t) => t.spec.kind))).toEqual(new Set(['tree', 'cycle']));
  });

  it('serves exactly maxDistinct tasks and refuses one more, naming the maximum', () => {
    const filter = { kinds: ['decision' as const], difficulty: 4 };
    const max = maxDistinct('ood', filter);
    const all = generateTasks({ split: 'ood', n: max, seed: 3, ...filter });
    expect(new Set(all.map((t) => t.id)).size).toBe(max);
    expect(() => generateTasks({ split: 'ood', n: max + 1, seed: 3, ...filter })).toThrow(TaskRequestError);
    expect(() => generateTasks({ split: 'ood', n: max + 1, seed: 3, ...filter })).toThrow(String(max));
  });

  it('rejects unknown splits, kinds and levels with a clear message', () => {
    expect(() => maxDistinct('dev' as 'train')).toThrow(/unknown split "dev"/);
    expect(() => maxDistinct('train', { kinds: ['star' as 'chain'] })).toThrow(/unknown kind "star"/);
    expect(() => maxDistinct('train', { difficulty: 7 })).toThrow(/difficulty must be an integer from 0 to 4/);
  });

  it('includes the seed prompts in train with fuller names in their specs', () => {
    const rag = SEED_TASKS.find((t) => t.prompt.includes('vector DB'))!;
    expect(rag.spec.entities).toContain('Vector Database');
    const seedsAt = (d: number) => generateTasks({ split: 'train', n: maxDistinct('train', { kinds: ['chain'], difficulty: d }), seed: 0, kinds: ['chain'], difficulty: d });
    const drawn = new Set([...seedsAt(0), ...seedsAt(1)].map((t) => t.id));
    for (const t of SEED_TASKS) expect(drawn.has(t.id)).toBe(true);
  });
});

describe('train / held-out split', () => {
  it('shares no entity name (case and punctuation aside)', () => {
    const train = new Set([...entityNames('train')].map(normalizeName));
    const overlap = [...entityNames('ood')].filter((e) => train.has(normalizeName(e)));
    expect(overlap).toEqual([]);
    expect(train.size).toBeGreaterThan(300);
    expect(entityNames('ood').size).toBeGreaterThan(200);
  });

  it('generated held-out tasks use no train entity name', () => {
    const train = new Set([...entityNames('train')].map(normalizeName));
    const leaked = sample('ood').flatMap((t) => t.spec.entities).filter((e) => train.has(normalizeName(e)));
    expect(leaked).toEqual([]);
  });

  it('shares no phrasing template, opener, label request or noise phrase', () => {
    const ids = (split: string) => TEMPLATES.filter((t) => t.split === split).map((t) => t.id);
    expect(new Set(TEMPLATES.map((t) => t.id)).size).toBe(TEMPLATES.length);
    expect(ids('train').filter((id) => ids('ood').includes(id))).toEqual([]);
    for (const key of ['open', 'ask', 'labelOne', 'labelMany', 'prefix', 'suffix', 'aside'] as const) {
      expect(WORDS.train[key].filter((w) => WORDS.ood[key].includes(w)), key).toEqual([]);
    }
    for (const kind of DIAGRAM_KINDS) {
      expect(TEMPLATES.filter((t) => t.split === 'train' && t.kinds.includes(kind)).length, kind).toBeGreaterThanOrEqual(4);
      expect(TEMPLATES.filter((t) => t.split === 'ood' && t.kinds.includes(kind)).length, kind).toBeGreaterThanOrEqual(3);
    }
  });

  it('held-out prompts never contain a train template skeleton', () => {
    // A skeleton is a prompt with entity names, labels and topic replaced: the wording a template contributes.
    const skeleton = (t: { prompt: string; spec: { entities: string[] } }) => {
      let s = t.prompt.toLowerCase();
      for (const e of [...t.spec.entities].sort((a, b) => b.length - a.length)) s = s.split(e.toLowerCase()).join('#');
      return s.replace(/"[^"]*"|'[^']*'/g, '#');
    };
    const train = new Set(generateTasks({ split: 'train', n: 2000, seed: 9 }).map(skeleton));
    const heldout = generateTasks({ split: 'ood', n: 2000, seed: 9 }).map(skeleton);
    expect(heldout.filter((s) => train.has(s))).toEqual([]);
  });
});

describe('IID held-out split', () => {
  const heldout = generateTasks({ split: 'heldout', n: 600, seed: 0 });

  it('shares no entity name with training data, real or made up', () => {
    const trainNames = new Set([...entityNames('train')].map(normalizeName));
    for (const seed of [0]) for (const t of generateTasks({ split: 'train', n: 4000, seed, syntheticNames: 1 })) for (const e of t.spec.entities) trainNames.add(normalizeName(e));
    const leaked = heldout.flatMap((t) => t.spec.entities).filter((e) => trainNames.has(normalizeName(e)));
    expect(leaked).toEqual([]);
    expect(heldout.every((t) => t.spec.entities.every(inHeldoutPool))).toBe(true);
  });

  it('is written in train phrasings: no out-of-distribution template, opener or label request', () => {
    const oodOnly = (['open', 'ask', 'prefix', 'suffix', 'aside'] as const).flatMap((k) => WORDS.ood[k]);
    const escape = (w: string) => w.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const ood = new RegExp(`(?<![\\p{L}])(${oodOnly.map(escape).join('|')})(?![\\p{L}])`, 'u');
    const hits = heldout.filter((t) => ood.test(t.prompt));
    expect(hits.map((t) => t.prompt)).toEqual([]);
    const trainWords = (['open', 'ask'] as const).flatMap((k) => WORDS.train[k]);
    expect(heldout.filter((t) => trainWords.some((w) => t.prompt.includes(w))).length).toBeGreaterThan(heldout.length / 3);
  });

  it('is deterministic, distinct, balanced over kinds, and apart from the ood split', () => {
    expect(generateTasks({ split: 'heldout', n: 600, seed: 0 })).toEqual(heldout);
    expect(new Set(heldout.map((t) => t.id)).size).toBe(heldout.length);
    expect(heldout.every((t) => t.id.startsWith('heldout-') && Task.parse(t))).toBe(true);
    const perKind = DIAGRAM_KINDS.map((k) => heldout.filter((t) => t.spec.kind === k).length);
    expect(Math.min(...perKind)).toBeGreaterThan(600 / DIAGRAM_KINDS.length / 2);
    expect(generateTasks({ split: 'heldout', n: 50, seed: 1 }).map((t) => t.id)).not.toEqual(heldout.slice(0, 50).map((t) => t.id));
    expect(generateTasks({ split: 'heldout', n: 0, seed: 1 })).toEqual([]);
  });
});
