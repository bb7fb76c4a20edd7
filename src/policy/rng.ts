// A small seeded generator: the scripted teacher must give the same completions for the same seed, prompt and sample.
import { mulberry32 } from '../random.ts';

/** FNV-1a over the parts' text: a 32-bit seed from a seed, a prompt and a sample index. */
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
