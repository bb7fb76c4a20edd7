// Deterministic sample diagrams for the tldraw benchmarks and tests: 3-10 labelled shapes on a grid, a chain of
// arrows plus a few extra ones (some parallel or reversed). Valid by construction unless `faults` asks otherwise.
import { SHAPE_KINDS } from '../language/actions.ts';
import { mulberry32 } from '../../random.ts';

const WORDS = ['Client', 'API', 'Queue', 'Worker', 'Cache', 'Database', 'Auth', 'Billing', 'Search', 'Mailer', 'Is it valid?', 'Retry'];

/** Actions of one sample diagram; with `faults`, a few references to missing shapes, duplicates and self-arrows. */
export function sampleActions(seed: number, faults = false): Record<string, unknown>[] {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const n = 3 + Math.floor(r() * 8);
  const actions: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const shape = pick(SHAPE_KINDS);
    actions.push({ type: 'create_shape', id: `n${i}`, shape, x: (i % 4) * 240, y: Math.floor(i / 4) * 180, w: 150 + Math.floor(r() * 40), h: shape === 'text' ? 40 : 70 + Math.floor(r() * 30), text: `${pick(WORDS)} ${i}` });
  }
  for (let i = 1; i < n; i++) actions.push({ type: 'connect', from: `n${i - 1}`, to: `n${i}`, ...(r() < 0.3 ? { text: pick(['yes', 'no', 'calls', 'reads']) } : {}) });
  for (let k = 0; k < 2; k++) {
    const a = Math.floor(r() * n);
    const b = Math.floor(r() * n);
    if (a !== b) actions.push({ type: 'connect', from: `n${a}`, to: `n${b}` });
  }
  if (faults) {
    actions.push({ type: 'connect', from: 'n0', to: 'ghost' });
    actions.push({ type: 'create_shape', id: 'n1', shape: 'rectangle', x: 0, y: 400, w: 100, h: 50, text: 'again' });
    actions.push({ type: 'connect', from: 'n2', to: 'n2' });
    actions.push({ type: 'create_shape', id: 'bad', shape: 'rectangle', x: 0, y: 0, w: 0, h: 50 });
  }
  return actions;
}

export function sampleCompletion(seed: number, faults = false): string {
  return JSON.stringify({ actions: sampleActions(seed, faults) });
}
