// What one task or scored row may ask for (src/diagram/tasks/limits.ts): the task schema takes each limit exactly and refuses
// one more, naming the limit, and refuses far more at once instead of working through it (issue 19: S3, C4, C5).
import { describe, expect, it } from 'vitest';
import { EDGE_LABEL_KEY_CHARS, LIMITS, promptRefusal } from '../../../src/diagram/tasks/limits.ts';
import { DiagramSpec, Task } from '../../../src/diagram/tasks/spec.ts';

const names = (n: number, width = 8) => Array.from({ length: n }, (_, i) => `E${String(i).padStart(width - 1, '0')}`);
const edges = (n: number, of: string[]) => Array.from({ length: n }, (_, k) => [of[k % of.length], of[(k + 1) % of.length]] as [string, string]);
const refusal = (value: unknown) => {
  const r = DiagramSpec.safeParse(value);
  return r.success ? null : `${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`;
};

describe('row limits', () => {
  it('sit far above what the task suite asks for', () => {
    // The suite: at most 12 entities, 12 edges, 5 arrow labels, names of 36 characters, prompts of 830 (docs/tasks.md).
    expect(LIMITS.entities).toBeGreaterThanOrEqual(10 * 12);
    expect(LIMITS.edges).toBeGreaterThanOrEqual(10 * 12);
    expect(LIMITS.nameChars).toBeGreaterThanOrEqual(2 * 36);
    expect(LIMITS.promptChars).toBeGreaterThanOrEqual(20 * 830);
  });

  it('take a spec at every limit at once', () => {
    const entities = names(LIMITS.entities, LIMITS.nameChars);
    const spec = {
      entities,
      edges: edges(LIMITS.edges, entities),
      edgeLabels: Object.fromEntries(edges(LIMITS.edges, entities).map(([a, b], k) => [`${a} -> ${b}`.slice(0, EDGE_LABEL_KEY_CHARS - 4) + k, 'x'.repeat(LIMITS.nameChars)])),
      shapes: Object.fromEntries(entities.map((e) => [e, 'diamond'])),
    };
    expect(Object.keys(spec.edgeLabels)).toHaveLength(LIMITS.edges);
    expect(refusal(spec)).toBeNull();
    expect(Task.safeParse({ id: 't', prompt: 'p'.repeat(LIMITS.promptChars), spec }).success).toBe(true);
  });

  it('refuse one more of anything, naming the limit', () => {
    const one = names(1);
    expect(refusal({ entities: names(LIMITS.entities + 1), edges: [] })).toBe('entities: 201 entities; the limit is 200');
    expect(refusal({ entities: one, edges: edges(LIMITS.edges + 1, one) })).toBe('edges: 1,001 edges; the limit is 1,000');
    expect(refusal({ entities: ['x'.repeat(LIMITS.nameChars + 1)], edges: [] })).toBe('entities.0: 101 characters; the limit is 100');
    expect(refusal({ entities: one, edges: [[one[0], 'x'.repeat(LIMITS.nameChars + 1)]] })).toBe('edges.0.1: 101 characters; the limit is 100');
    const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, k) => [`a->${k}`, 'yes']));
    expect(refusal({ entities: one, edges: [], edgeLabels: labels(LIMITS.edges + 1) })).toBe('edgeLabels: 1,001 arrow labels; the limit is 1,000');
    expect(refusal({ entities: one, edges: [], edgeLabels: { 'a->b': 'x'.repeat(LIMITS.nameChars + 1) } })).toBe('edgeLabels.a->b: 101 characters; the limit is 100');
    expect(refusal({ entities: one, edges: [], edgeLabels: { ['k'.repeat(EDGE_LABEL_KEY_CHARS + 1)]: 'yes' } })).toBe('edgeLabels: a key of 205 characters; the limit is 204');
    const hints = Object.fromEntries(names(LIMITS.entities + 1).map((e) => [e, 'diamond']));
    expect(refusal({ entities: one, edges: [], shapes: hints })).toBe('shapes: 201 shape hints; the limit is 200');
    const task = Task.safeParse({ id: 't', prompt: 'p'.repeat(LIMITS.promptChars + 1), spec: { entities: one, edges: [] } });
    expect(task.success ? null : task.error.issues[0].message).toBe('20,001 characters; the limit is 20,000');
    expect(promptRefusal('p'.repeat(LIMITS.promptChars))).toBeNull();
  });

  it('refuse a 100,000-entity chain at once', () => {
    const entities = names(100_000);
    const started = performance.now();
    expect(refusal({ entities, edges: entities.slice(1).map((e, i) => [entities[i], e]) })).toBe('entities: 100,000 entities; the limit is 200');
    // About 10 ms: the schema counts before it reads every name. Scoring this spec took half a minute.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
