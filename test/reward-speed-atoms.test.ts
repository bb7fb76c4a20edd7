// strong-values.ts numbers every distinct stem, name and canonical form it hands to WebAssembly (atoms) and starts the
// numbering over past 65,536 of them, between completions: every interned label and the kept spec must then be
// handed over anew, or their old numbers would meet new ones. Scores stay the full analysis's across the restart.
import { describe, expect, it } from 'vitest';
import type { ScoreInput } from '../src/reward/rubric.ts';
import { executeCountsFast } from '../src/reward/strong-fast.ts';
import { analyzeStrong, strongRubric } from '../src/reward/strong.ts';
import type { DiagramSpec } from '../src/tasks/spec.ts';

function values(input: ScoreInput): Record<string, number> {
  const analysis = analyzeStrong(input).values;
  const out: Record<string, number> = {};
  for (const c of strongRubric.components) out[c.name] = Math.min(1, Math.max(0, analysis[c.name as keyof typeof analysis]));
  return out;
}

/** A word no other call gives: letters only, so that each is its own stem. */
function word(k: number): string {
  let s = '';
  for (let v = k; s.length < 5 || v > 0; v = Math.floor(v / 26)) s += String.fromCharCode(97 + (v % 26));
  return `q${s}`;
}

describe('strong atoms: the numbering starts over and everything is handed over anew', () => {
  it('keeps the full analysis\'s values across the restart, for a spec kept from before it and labels met before', { timeout: 60_000 }, () => {
    // One spec object throughout, as a GRPO group shares its task's: handed over before the restart, kept after it.
    const spec: DiagramSpec = { entities: ['Database', 'Cache Layer', 'Web Server'], edges: [['Database', 'Cache Layer'], ['cachelayer', 'Web Server']] };
    const known = ['Database', 'Cache Layer', 'web server', 'Cache', 'Title'];
    let next = 0;
    // 2,000 completions of 36 new two-word labels each: 144,000 new words, two restarts or more.
    for (let t = 0; t < 2000; t++) {
      const labels = [...known.slice(0, 1 + (t % known.length))];
      while (labels.length < 36) labels.push(`${word(next++)} ${word(next++)}`);
      const actions: object[] = labels.map((text, i) => ({ type: 'create_shape', id: `s${i}`, shape: 'rectangle', x: i * 150, y: 0, w: 120, h: 60, text }));
      actions.push({ type: 'connect', from: 's0', to: 's1' }, { type: 'connect', from: 's1', to: 's2' });
      const input: ScoreInput = { prompt: 'Draw a database, a cache layer and a web server', completion: JSON.stringify({ actions }), spec };
      expect(executeCountsFast(input.completion)?.checks).toBe('wasm');
      expect({ t, ...strongRubric.score(input).components }).toEqual({ t, ...values(input) });
    }
    // Some four atoms a label (two stems, the text, the canonical form): the numbering starts over every ~470 completions.
    expect(next).toBeGreaterThan(2 * 65_536);
  });
});
