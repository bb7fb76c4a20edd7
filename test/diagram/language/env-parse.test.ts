import { describe, expect, it } from 'vitest';
import { fencedRange, parseCompletion, parseJson, parseJsonCached } from '../../../src/diagram/language/parse.ts';
import { mulberry32 } from '../../../src/random.ts';

const one = { type: 'create_shape', id: 'a', shape: 'rectangle', x: 0, y: 0, w: 100, h: 50, text: 'A' };
const json = JSON.stringify({ actions: [one] });

describe('parseCompletion', () => {
  it('accepts the whole text as JSON', () => {
    const r = parseCompletion(json);
    expect(r.ok && r.source).toBe('whole');
    expect(r.ok && r.actions).toEqual([one]);
  });

  it('falls back to a fenced json block, then to the brace span', () => {
    const fenced = parseCompletion(`Here you go:\n\`\`\`json\n${json}\n\`\`\`\nHope that helps {not json}`);
    expect(fenced.ok && fenced.source).toBe('fenced');
    const span = parseCompletion(`Sure! ${json} Done.`);
    expect(span.ok && span.source).toBe('span');
  });

  it('reports each failure as a value with a code', () => {
    const code = (t: string, o = {}) => {
      const r = parseCompletion(t, o);
      return r.ok ? 'ok' : r.error.code;
    };
    expect(code('I cannot draw that.')).toBe('no_json');
    expect(code('{"actions": [')).toBe('no_json');
    expect(code('{"actions": [}')).toBe('invalid_json');
    expect(code('{"shapes": []}')).toBe('missing_actions');
    expect(code('[1, 2]')).toBe('missing_actions');
    expect(code('{"actions": {}}')).toBe('missing_actions');
    expect(code('{"actions": []}')).toBe('empty_actions');
    expect(code(JSON.stringify({ actions: Array(41).fill(one) }))).toBe('too_many_actions');
    expect(code(JSON.stringify({ actions: Array(41).fill(one) }), { maxActions: 50 })).toBe('ok');
    expect(code('{"actions": [1]}')).toBe('action_not_object');
    expect(code('{"actions": [null]}')).toBe('action_not_object');
    expect(code(' '.repeat(300_001) + json)).toBe('input_too_large');
  });

  it('names the cap and the limit in its messages', () => {
    const big = parseCompletion('x'.repeat(50), { maxInputChars: 10 });
    expect(!big.ok && big.error.message).toBe('input is 50 characters; the cap is 10');
    const many = parseCompletion(JSON.stringify({ actions: Array(3).fill(one) }), { maxActions: 2 });
    expect(!many.ok && many.error.message).toBe('too many actions: 3, the limit is 2');
    const notObj = parseCompletion('{"actions": [{}, "x"]}');
    expect(!notObj.ok && notObj.error.message).toContain('action 1 is a string');
  });

  it('words an invalid JSON failure with the parser message, and leaves the stack trace limit as it found it', () => {
    const before = Error.stackTraceLimit;
    const r = parseCompletion('Sure: {"actions": [} thanks');
    expect(!r.ok && r.error.code).toBe('invalid_json');
    expect(!r.ok && r.error.message).toMatch(/^invalid JSON: .*JSON/);
    expect(Error.stackTraceLimit).toBe(before);
    const attempt = parseJson('{"a": ');
    expect(attempt.ok).toBe(false);
    expect(!attempt.ok && attempt.message.length).toBeGreaterThan(0);
    expect(Error.stackTraceLimit).toBe(before);
  });
});

describe('fencedRange', () => {
  it('finds the block the rule /```(?:json|JSON)?[ \\t]*\\r?\\n([\\s\\S]*?)```/ finds, on random texts of fence pieces', () => {
    const rule = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)```/;
    const byRule = (text: string) => {
      const m = rule.exec(text);
      if (!m) return null;
      const end = m.index + m[0].length - 3;
      return { start: end - m[1].length, end };
    };
    const pieces = ['`', '``', '```', '```json', '```JSON', 'json', 'Json', ' ', '\t', '\r', '\n', '{"a": 1}', 'x'];
    const rng = mulberry32(5);
    let found = 0;
    for (let t = 0; t < 40_000; t++) {
      let text = '';
      for (let k = 1 + Math.floor(rng() * 10); k > 0; k--) text += pieces[Math.floor(rng() * pieces.length)];
      const expected = byRule(text);
      if (expected) found++;
      expect({ text, range: fencedRange(text) }).toEqual({ text, range: expected });
    }
    expect(found).toBeGreaterThan(1000);
  });
});

describe('parseJsonCached', () => {
  it('gives the same answer as parseJson, and the same value for a text read again', () => {
    const texts = [json, '{"actions": [', 'plain prose', JSON.stringify({ actions: [one, one] })];
    for (const t of texts) expect(parseJsonCached(t)).toEqual(parseJson(t));
    const first = parseJsonCached(json);
    expect(parseJsonCached(String(json).slice(0))).toBe(first);
    // Many other texts later, it is parsed afresh: still an equal value.
    for (let i = 0; i < 10; i++) parseJsonCached(`{"n": ${i}}`);
    const again = parseJsonCached(json);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
