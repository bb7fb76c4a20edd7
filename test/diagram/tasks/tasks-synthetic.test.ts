import { describe, expect, it } from 'vitest';
import { generateTasks, TaskRequestError } from '../../../src/diagram/tasks/generate.ts';
import { Task } from '../../../src/diagram/tasks/spec.ts';
import { entityNames } from '../../../src/diagram/tasks/stats.ts';
import { ScriptedPolicy } from '../../../src/diagram/teacher/scripted.ts';
import { conversationFor } from '../../../src/diagram/language/prompt.ts';
import { getRubric } from '../../../src/diagram/reward/presets.ts';
import { mentionRegExp } from '../../../src/diagram/tasks/mentions.ts';

const names = (tasks: Task[]) => new Set(tasks.flatMap((t) => t.spec.entities));
const mentions = (prompt: string, name: string) => mentionRegExp([name]).test(prompt);

describe('mentionRegExp', () => {
  it('finds a name only as whole words, in any case, longer names first', () => {
    expect(mentionRegExp(['IP']).test('whip up an IP stack')).toBe(true);
    expect(mentionRegExp(['IP']).test('whip up a stack')).toBe(false);
    expect(mentionRegExp(['Data Lake']).exec('draw the data lake, then S3')?.[0]).toBe('data lake');
    expect('API Gateway (API)'.match(mentionRegExp(['API Gateway', 'API'], 'giu'))).toEqual(['API Gateway', 'API']);
    expect(mentionRegExp(['C++ (core)']).test('uses C++ (core) daily')).toBe(true);
  });
});

describe('tasks with synthetic names', () => {
  const plain = generateTasks({ split: 'train', n: 300, seed: 3 });
  const renamed = generateTasks({ split: 'train', n: 300, seed: 3, syntheticNames: 1 });

  it('renames the entities a prompt names, in the prompt and in a self-consistent spec', () => {
    const real = entityNames('train');
    const heldOut = new Set([...entityNames('ood')].map((n) => n.toLowerCase()));
    let changed = 0;
    renamed.forEach((t, i) => {
      expect(Task.parse(t)).toEqual(t);
      const before = plain[i];
      expect(t.spec.entities).toHaveLength(before.spec.entities.length);
      expect(t.spec.kind).toBe(before.spec.kind);
      expect(new Set(t.spec.entities).size).toBe(t.spec.entities.length);
      for (const [a, b] of t.spec.edges) expect(t.spec.entities).toEqual(expect.arrayContaining([a, b]));
      for (const key of Object.keys(t.spec.edgeLabels ?? {})) expect(t.spec.edges.map(([a, b]) => `${a}->${b}`)).toContain(key);
      for (const key of Object.keys(t.spec.shapes ?? {})) expect(t.spec.entities).toContain(key);
      t.spec.entities.forEach((e, k) => {
        if (e === before.spec.entities[k]) return;
        changed++;
        expect(real.has(e)).toBe(false);
        expect(heldOut.has(e.toLowerCase())).toBe(false);
        expect(mentions(t.prompt, e)).toBe(true);
        expect(mentions(t.prompt, before.spec.entities[k])).toBe(false);
      });
    });
    expect(changed).toBeGreaterThan(0.8 * plain.reduce((n, t) => n + t.spec.entities.length, 0));
    expect(new Set(renamed.map((t) => t.id)).size).toBe(renamed.length);
    expect(names(renamed).size).toBeGreaterThan(2 * names(plain).size);
  });

  it('renames about the share asked for, leaves the draw otherwise alone, and is deterministic', () => {
    const half = generateTasks({ split: 'train', n: 300, seed: 3, syntheticNames: 0.5 });
    const same = half.filter((t, i) => t.id === plain[i].id).length;
    expect(same).toBeGreaterThan(120);
    expect(same).toBeLessThan(180);
    expect(generateTasks({ split: 'train', n: 300, seed: 3, syntheticNames: 0 })).toEqual(plain);
    expect(generateTasks({ split: 'train', n: 300, seed: 3, syntheticNames: 0.5 })).toEqual(half);
    expect(() => generateTasks({ split: 'train', n: 3, syntheticNames: 1.5 })).toThrow(TaskRequestError);
  });

  it('stays answerable: the scripted teacher scores as well on renamed tasks', async () => {
    const tasks = renamed.slice(0, 40);
    const policy = new ScriptedPolicy({ specFor: (p) => tasks.find((t) => t.prompt === p)?.spec });
    const out = await policy.generate(tasks.map((t) => conversationFor(t.prompt)), { n: 1, seed: 1 });
    const strong = getRubric('strong');
    const rewards = tasks.map((t, i) => strong.score({ prompt: t.prompt, completion: out[i][0].text, spec: t.spec }).reward);
    expect(Math.min(...rewards)).toBeGreaterThan(0.9);
  });
});
