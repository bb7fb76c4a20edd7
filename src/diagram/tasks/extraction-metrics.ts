// Scores a prompt-to-spec extraction against the generator's spec: precision and recall of entities and of edges.
// Names match after normalisation (case, punctuation, spacing), one predicted name to at most one true name; an
// edge counts when both its ends matched and the direction agrees.
import type { DiagramKind } from './spec.ts';

export interface GraphGuess {
  entities: readonly string[];
  edges: readonly (readonly [string, string])[];
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export interface ExtractionCounts {
  entities: Counts;
  edges: Counts;
}

export function normalizeName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function scoreExtraction(truth: GraphGuess, guess: GraphGuess): ExtractionCounts {
  const trueByNorm = new Map<string, string>();
  for (const e of truth.entities) trueByNorm.set(normalizeName(e), e);
  const matched = new Map<string, string>();
  const taken = new Set<string>();
  let fpEntities = 0;
  for (const g of new Set(guess.entities)) {
    const t = trueByNorm.get(normalizeName(g));
    if (t !== undefined && !taken.has(t)) {
      matched.set(g, t);
      taken.add(t);
    } else fpEntities++;
  }
  const key = (a: string, b: string) => `${a}\u0000${b}`;
  const trueEdges = new Set(truth.edges.map(([a, b]) => key(a, b)));
  const guessEdges = new Set(guess.edges.map(([a, b]) => key(matched.get(a) ?? `\u0001${a}`, matched.get(b) ?? `\u0001${b}`)));
  const tpEdges = [...guessEdges].filter((e) => trueEdges.has(e)).length;
  return {
    entities: { tp: taken.size, fp: fpEntities, fn: new Set(truth.entities).size - taken.size },
    edges: { tp: tpEdges, fp: guessEdges.size - tpEdges, fn: trueEdges.size - tpEdges },
  };
}

export function addCounts(a: ExtractionCounts, b: ExtractionCounts): ExtractionCounts {
  const add = (x: Counts, y: Counts): Counts => ({ tp: x.tp + y.tp, fp: x.fp + y.fp, fn: x.fn + y.fn });
  return { entities: add(a.entities, b.entities), edges: add(a.edges, b.edges) };
}

export const ZERO_COUNTS: ExtractionCounts = { entities: { tp: 0, fp: 0, fn: 0 }, edges: { tp: 0, fp: 0, fn: 0 } };

/** Micro-averaged; an empty denominator counts as perfect (nothing to find, nothing wrongly found). */
export function precision(c: Counts): number {
  return c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp);
}

export function recall(c: Counts): number {
  return c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn);
}

/** The harmonic mean of precision and recall; 0 where both are. */
export function f1(c: Counts): number {
  const [p, r] = [precision(c), recall(c)];
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

export type CountsByKind = Partial<Record<DiagramKind | 'all', ExtractionCounts>>;
