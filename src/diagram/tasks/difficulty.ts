// Difficulty levels a curriculum steps through. A task's level is a function of its kind and entity count, so every
// instance has exactly one level; the level then decides how much the prompt asks for (arrow labels) and how it is
// written (phrasing noise).
import type { DiagramKind } from './spec.ts';

export const MAX_LEVEL = 4;
export const LEVELS = [0, 1, 2, 3, 4] as const;
export const MIN_ENTITIES = 2;
export const MAX_ENTITIES = 12;

/** How hard the structure is before counting entities. */
export const KIND_BASE: Record<DiagramKind, number> = {
  chain: 0,
  fan_out: 0,
  fan_in: 0,
  decision: 1,
  tree: 1,
  cycle: 1,
  layered: 2,
  mixed: 2,
};

/** 2-3 entities: 0, 4-5: 1, 6-7: 2, 8-9: 3, 10-12: 4. */
export function sizeBucket(entities: number): number {
  return Math.min(4, Math.floor((entities - 2) / 2));
}

export function levelOf(kind: DiagramKind, entities: number): number {
  return Math.min(MAX_LEVEL, KIND_BASE[kind] + sizeBucket(entities));
}

/** What a prompt at a level asks for: arrow labels on some edges, and casual noise around the request. */
export interface Variant {
  labels: number;
  noise: boolean;
}

/** Each level's prompt variants; a task is one (instance, template, variant) triple. */
export const LEVEL_VARIANTS: Record<number, Variant[]> = {
  0: [{ labels: 0, noise: false }],
  1: [{ labels: 0, noise: false }],
  2: [{ labels: 0, noise: false }, { labels: 1, noise: false }],
  3: [{ labels: 2, noise: false }, { labels: 2, noise: true }],
  4: [{ labels: 3, noise: true }],
};

export function describeLevel(level: number): string {
  const v = LEVEL_VARIANTS[level];
  const kinds = (Object.keys(KIND_BASE) as DiagramKind[]).filter((k) => KIND_BASE[k] <= level).join(', ');
  const labels = v.some((x) => x.labels > 0) ? `arrow labels on up to ${Math.max(...v.map((x) => x.labels))} edges` : 'no arrow labels (decision yes/no only)';
  const noise = v.every((x) => x.noise) ? 'always noisy' : v.some((x) => x.noise) ? 'sometimes noisy' : 'clean phrasing';
  return `kinds: ${kinds}; ${labels}; ${noise}`;
}
