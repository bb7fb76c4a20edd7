// assembly/strong-check.ts tells a shape's kind by four tests made at once on 9 bytes of the string, which may run
// past it: every kind word and its near misses (prefixes, extensions, one byte changed, other case), at the end of
// the input and before bytes that would complete a longer word, must get the JavaScript checks' verdict and canvas.
import { describe, expect, it } from 'vitest';
import { SHAPE_KINDS } from '../src/env/actions.ts';
import { executeCountsFast, strongCanvasJson } from '../src/reward/strong-fast.ts';

function counts(text: string, checks: 'auto' | 'js') {
  const c = executeCountsFast(text, checks);
  if (c === null) throw new Error(`the reader left ${text} to the exact path`);
  return { actions: c.actions, schemaErrors: c.schemaErrors, applied: c.applied, checks: c.checks, canvas: c.canvas && strongCanvasJson(c.canvas) };
}

/** Each kind word, and words one edit away from one. */
function candidates(): string[] {
  const out = new Set<string>(['', 'e', 'rect', 'box', 'circle', 'Text', 'TEXT', 'Rectangle', 'ellipse ', ' text', 'text\u00e9', 'dia\u00admond']);
  for (const word of SHAPE_KINDS) {
    out.add(word);
    for (let i = 0; i <= word.length; i++) {
      out.add(word.slice(0, i));
      out.add(word.slice(i));
      out.add(word.slice(0, i) + 'x' + word.slice(i));
      if (i < word.length) {
        out.add(word.slice(0, i) + word.slice(i + 1));
        out.add(word.slice(0, i) + String.fromCharCode(word.charCodeAt(i) ^ 0x20) + word.slice(i + 1));
        out.add(word.slice(0, i) + String.fromCharCode(word.charCodeAt(i) + 1) + word.slice(i + 1));
      }
    }
    for (const tail of ['s', 'e', '1', 'angle', 'xyzw']) out.add(word + tail);
  }
  return [...out];
}

describe('strong checks: shape kinds told without branches', () => {
  it('agree with the JavaScript checks for every kind word and its near misses, in every position', () => {
    let wasm = 0;
    let drawn = 0;
    for (const word of candidates()) {
      const kind = JSON.stringify(word);
      const texts = [
        // The kind last in its action, then last in the document: the 9-byte read runs past the string and the input.
        `{"actions": [{"type": "create_shape", "id": "a", "x": 0, "y": 0, "w": 10, "h": 10, "shape": ${kind}}]}`,
        `{"actions":[{"type":"create_shape","id":"a","x":0,"y":0,"w":10,"h":10,"shape":${kind}}]}`,
        // Followed by bytes that would complete a longer word ("rectangle" + "s", "text" + "ure").
        `{"actions": [{"type": "create_shape", "id": "a", "shape": ${kind}, "x": 0, "y": 0, "w": 10, "h": 10, "text": "sure"}, {"type": "create_shape", "id": "b", "shape": ${kind}, "x": 50, "y": 0, "w": 10, "h": 10}]}`,
      ];
      for (const text of texts) {
        const auto = counts(text, 'auto');
        expect({ word, text, ...auto, checks: undefined }).toEqual({ word, text, ...counts(text, 'js'), checks: undefined });
        if (auto.checks === 'wasm') wasm++;
        if (auto.applied > 0) drawn++;
      }
    }
    expect(wasm).toBeGreaterThan(200);
    expect(drawn).toBe(3 * SHAPE_KINDS.length);
  });
});
