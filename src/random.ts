// Seeded randomness for the whole project (task generation, corpora, teacher quirks, bootstrap intervals, model init):
// a 32-bit string hash and one small PRNG, so that every output depends only on its seed.

/** FNV-1a, 32 bits. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
}

/** mulberry32: tiny and fast; good enough to pick phrasings, samples and resamples, not for cryptography. Uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function rng(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)] };
}

/** `k` distinct integers from [0, n), in random order (a Fisher-Yates shuffle that only touches what it moves). */
export function sampleDistinct(r: Rng, n: number, k: number): number[] {
  if (k > n) throw new RangeError(`cannot draw ${k} distinct values from ${n}`);
  const moved = new Map<number, number>();
  const out: number[] = [];
  for (let i = 0; i < k; i++) {
    const j = i + r.int(n - i);
    const vj = moved.get(j) ?? j;
    moved.set(j, moved.get(i) ?? i);
    out.push(vj);
  }
  return out;
}

export function shuffle<T>(r: Rng, xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** FNV-1a over the parts' text, code point by code point: a 32-bit seed from a seed, a prompt and a sample index (the
 *  scripted teacher, the trainers and the student derive theirs so, and must give the same draws for the same parts). */
export function hashSeed(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Uniform floats in [0, 1) from a seed. */
export const seededRandom = mulberry32;
