// The measurement behind bench/extraction.ts, on hand-made cases: not the extractor's quality, the arithmetic.
import { describe, expect, it } from 'vitest';
import { addCounts, normalizeName, precision, recall, scoreExtraction, ZERO_COUNTS } from '../../../src/diagram/tasks/extraction-metrics.ts';

const truth = { entities: ['Client', 'API Gateway', 'Vector Database'], edges: [['Client', 'API Gateway'], ['API Gateway', 'Vector Database']] as [string, string][] };

describe('scoreExtraction', () => {
  it('counts a perfect guess as all true positives, whatever the case and punctuation', () => {
    const c = scoreExtraction(truth, { entities: ['client', 'api-gateway', 'Vector  Database.'], edges: [['client', 'api-gateway'], ['api-gateway', 'Vector  Database.']] });
    expect(c).toEqual({ entities: { tp: 3, fp: 0, fn: 0 }, edges: { tp: 2, fp: 0, fn: 0 } });
  });

  it('counts a shorter name as a miss and an extra name as a false positive', () => {
    const c = scoreExtraction(truth, { entities: ['Client', 'API Gateway', 'vector DB', 'Draw'], edges: [['Client', 'API Gateway'], ['API Gateway', 'vector DB']] });
    expect(c.entities).toEqual({ tp: 2, fp: 2, fn: 1 });
    expect(c.edges).toEqual({ tp: 1, fp: 1, fn: 1 });
  });

  it('counts a reversed edge as wrong, and duplicates once', () => {
    const c = scoreExtraction(truth, { entities: truth.entities, edges: [['API Gateway', 'Client'], ['API Gateway', 'Vector Database'], ['API Gateway', 'Vector Database']] });
    expect(c.edges).toEqual({ tp: 1, fp: 1, fn: 1 });
  });

  it('matches one guessed name to at most one true name', () => {
    const c = scoreExtraction(truth, { entities: ['Client', 'client', 'CLIENT'], edges: [] });
    expect(c.entities).toEqual({ tp: 1, fp: 2, fn: 2 });
  });

  it('computes micro precision and recall, and treats empty denominators as perfect', () => {
    const a = scoreExtraction(truth, { entities: ['Client'], edges: [] });
    const b = scoreExtraction(truth, { entities: ['Client', 'API Gateway', 'Vector Database', 'X'], edges: truth.edges });
    const sum = addCounts(addCounts(ZERO_COUNTS, a), b);
    expect(sum.entities).toEqual({ tp: 4, fp: 1, fn: 2 });
    expect(precision(sum.entities)).toBeCloseTo(4 / 5);
    expect(recall(sum.entities)).toBeCloseTo(4 / 6);
    expect(precision({ tp: 0, fp: 0, fn: 3 })).toBe(1);
    expect(recall({ tp: 0, fp: 0, fn: 3 })).toBe(0);
  });

  it('normalises names to lower-case words', () => {
    expect(normalizeName('  Go/No-Go Meeting? ')).toBe('go no go meeting');
    expect(normalizeName('Ｆｕｌｌ Moon')).toBe('full moon');
  });
});
