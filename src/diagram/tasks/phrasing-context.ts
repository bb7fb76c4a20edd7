// What a template sees while it writes one prompt: the instance, the split's words already picked, and helpers that
// keep lists, names and arrow labels consistent across templates.
import type { Instance, Structure } from './instances.ts';
import type { Entity, Vocab } from './scenarios.ts';

export interface Ctx {
  split: Vocab;
  inst: Instance;
  topic: string;
  /** Imperative opener for this prompt, capitalised ("Draw"). */
  open: string;
  /** Question opener ("Can you draw"). */
  ask: string;
  /** How the prompt types an entity: its name, or the short form when it has one and this prompt uses it. */
  say(e: Entity): string;
  /** "A", "A and B", "A, B, and C". */
  list(es: Entity[]): string;
  /** The arrow label the prompt must mention for a -> b, if any; marks it as mentioned so it is not asked twice. */
  label(a: Entity, b: Entity): string | undefined;
  pick<T>(xs: readonly T[]): T;
}

export function structureOf<S extends Structure['shape']>(c: Ctx, shape: S): Extract<Structure, { shape: S }> {
  const s = c.inst.structure;
  if (s.shape !== shape) throw new Error(`template for ${shape} given a ${s.shape} instance`);
  return s as Extract<Structure, { shape: S }>;
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const ORDINALS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

export const numberWord = (n: number) => NUMBER_WORDS[n] ?? String(n);
export const stepWord = (n: number) => ORDINALS[n] ?? String(n);

/** "a" or "an" before a word, by its first letter (good enough for topics). */
export function article(word: string): string {
  return /^[aeioAEIO]/.test(word) ? `an ${word}` : `a ${word}`;
}

/** Splits edges into maximal runs that continue where the previous edge ended: A -> B -> C, A -> D. */
export function paths(edges: [Entity, Entity][]): Entity[][] {
  const used = new Set<number>();
  const out: Entity[][] = [];
  edges.forEach((e, i) => {
    if (used.has(i)) return;
    used.add(i);
    const path = [e[0], e[1]];
    for (;;) {
      const last = path[path.length - 1];
      const j = edges.findIndex((f, k) => !used.has(k) && f[0] === last);
      if (j === -1) break;
      used.add(j);
      path.push(edges[j][1]);
    }
    out.push(path);
  });
  return out;
}

/** Edges grouped by source, in first-appearance order. */
export function bySource(edges: [Entity, Entity][]): { from: Entity; to: Entity[] }[] {
  const out: { from: Entity; to: Entity[] }[] = [];
  for (const [a, b] of edges) {
    const g = out.find((x) => x.from === a);
    if (g) g.to.push(b);
    else out.push({ from: a, to: [b] });
  }
  return out;
}
