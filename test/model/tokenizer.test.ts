import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SPECIAL_TOKENS, Tokenizer, trainTokenizer } from '../../src/model/tokenizer.ts';
import { chatText, renderChat, renderGenerationPrompt } from '../../src/model/chat.ts';

const NAMES = ['Client', 'API Gateway', 'Auth Service', 'Database', 'Cache', 'Queue', 'Worker', 'Dashboard', 'Token', 'Logs'];

function completion(i: number): string {
  const n = 2 + (i % 4);
  const names = Array.from({ length: n }, (_, k) => NAMES[(i + k * 3) % NAMES.length]);
  const ids = names.map((s) => s.toLowerCase().replace(/ /g, '_'));
  const actions: object[] = names.map((text, k) => ({ type: 'create_shape', id: ids[k], shape: k % 3 ? 'rectangle' : 'ellipse', x: 100 + 220 * k, y: 100 + 40 * (i % 3), w: 160, h: 60, text }));
  for (let k = 1; k < n; k++) actions.push({ type: 'connect', from: ids[k - 1], to: ids[k] });
  return JSON.stringify({ actions });
}
const prompt = (i: number) => `Draw a flow with ${NAMES[i % NAMES.length]} and ${NAMES[(i + 3) % NAMES.length]}.`;
const corpus = Array.from({ length: 300 }, (_, i) => [prompt(i), completion(i)]).flat();

describe('tokenizer', () => {
  const tok = trainTokenizer(corpus, { vocabSize: 512 });

  it('round-trips any well-formed string exactly', () => {
    const samples = [
      '',
      completion(7),
      'héllo wörld — 日本語のテキスト 🦀🚀 family: 👨‍👩‍👧',
      'tabs\tand\nnew lines\r\n  indented   spaces  ',
      'e\u0301 combining, zero\u200bwidth, nul \u0000 and \u{10ffff}',
      "it's <|end|> inside text",
      '{"x": -12.5e3, "y": 0.001}',
    ];
    for (const s of samples) expect(tok.decode(tok.encode(s))).toBe(s);
    let rnd = 12345;
    for (let i = 0; i < 50; i++) {
      let s = '';
      for (let k = 0; k < 40; k++) {
        rnd = (rnd * 1103515245 + 12345) % 2 ** 31;
        const cp = rnd % 5 === 0 ? 0x1f300 + (rnd % 500) : 32 + (rnd % 0x3000);
        if (cp < 0xd800 || cp > 0xdfff) s += String.fromCodePoint(cp);
      }
      expect(tok.decode(tok.encode(s))).toBe(s);
    }
  });

  it('learns the action language as whole tokens', () => {
    for (const piece of ['[{"type":"', 'create_shape', '","id":"', '","shape":"', 'rectangle', 'connect', '","from":"', ',"y":', '"},{"type":"', '160']) {
      const ids = tok.encode(piece);
      expect(ids.map((id) => tok.tokenString(id)), piece).toHaveLength(1);
    }
    const c = completion(3);
    expect(tok.encode(c).length).toBeLessThan(new TextEncoder().encode(c).length / 4);
  });

  it('gives a name the same tokens in the request, in a label and in an id, so that the student can copy it', () => {
    const contains = (ids: number[], sub: number[]) => ids.some((_, i) => sub.every((t, k) => ids[i + k] === t));
    const name = tok.encode('API Gateway');
    expect(name.length).toBeGreaterThan(1);
    for (const context of ['Draw Client, API Gateway and Worker.', 'draw: API Gateway -> Worker', '{"text":"API Gateway"},{"text":"Worker"}', '","id":"API Gateway","shape":"', '","to":"API Gateway"}]}', '(API Gateway)']) {
      expect(contains(tok.encode(context), name), context).toBe(true);
    }
    // A leading space is a token of its own, never part of the word after it.
    expect(tok.encode(' Gateway')).toEqual([...tok.encode(' '), ...tok.encode('Gateway')]);
  });

  it('never encodes special-token text as a special token', () => {
    const ids = tok.encode('<|end|>');
    expect(ids).not.toContain(tok.endId);
    expect(tok.decode([tok.specialIds['<|user|>'], ...tok.encode('hi'), tok.endId])).toBe('<|user|>hi<|end|>');
    expect(tok.decode([tok.specialIds['<|user|>'], ...tok.encode('hi'), tok.endId], { skipSpecial: true })).toBe('hi');
    expect(() => tok.decode([tok.vocabSize])).toThrow(/outside the vocabulary/);
  });

  it('is deterministic and saves/loads as a tokenizers tokenizer.json', () => {
    const again = trainTokenizer(corpus, { vocabSize: 512 });
    expect(again.merges).toEqual(tok.merges);
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    const path = join(dir, 'tokenizer.json');
    const json = tok.toHuggingFace();
    writeFileSync(path, JSON.stringify(json));
    const loaded = Tokenizer.load(path);
    expect(tok.vocabSize).toBeLessThanOrEqual(512);
    expect(loaded.vocabSize).toBe(tok.vocabSize);
    for (const s of corpus.slice(0, 20)) expect(loaded.encode(s)).toEqual(tok.encode(s));
    const model = json.model as { vocab: Record<string, number>; merges: string[] };
    expect(Object.keys(model.vocab)).toHaveLength(tok.vocabSize - SPECIAL_TOKENS.length);
    expect(model.merges[0].split(' ')).toHaveLength(2);
    writeFileSync(path, JSON.stringify({ ...json, model: { ...model, merges: ['Ġ zz'] } }));
    expect(() => Tokenizer.load(path)).toThrow(/merge 0 .* not in the vocabulary/);
  });

  it('encodes a corpus-sized input quickly', () => {
    const big = Array.from({ length: 2000 }, (_, i) => completion(i)).join('\n');
    const t0 = performance.now();
    const ids = tok.encode(big);
    const ms = performance.now() - t0;
    expect(tok.decode(ids)).toBe(big);
    expect(ms).toBeLessThan(2000);
  });
});

describe('chat template', () => {
  const tok = trainTokenizer(corpus, { vocabSize: 400 });
  const messages = [
    { role: 'system' as const, content: 'You draw diagrams.' },
    { role: 'user' as const, content: prompt(1) },
    { role: 'assistant' as const, content: completion(1) },
  ];

  it('masks exactly the assistant content and its end token', () => {
    const { ids, mask } = renderChat(tok, messages);
    expect(ids).toHaveLength(mask.length);
    const trained = ids.filter((_, i) => mask[i] === 1);
    expect(trained.at(-1)).toBe(tok.endId);
    expect(tok.decode(trained.slice(0, -1))).toBe(completion(1));
    expect(tok.decode(ids)).toBe(chatText(messages));
  });

  it('leaves the system message out, in the tokens and in the text', () => {
    const ids = renderChat(tok, messages).ids;
    expect(ids).toEqual(renderChat(tok, messages.slice(1)).ids);
    expect(ids).not.toContain(tok.specialIds['<|system|>']);
    expect(chatText(messages)).toBe(`<|user|>${prompt(1)}<|end|><|assistant|>${completion(1)}<|end|>`);
  });

  it('the generation prompt is the prompt part of the rendered conversation', () => {
    const full = renderChat(tok, messages).ids;
    const gen = renderGenerationPrompt(tok, messages.slice(0, 2));
    expect(full.slice(0, gen.length)).toEqual(gen);
    expect(tok.decode(gen)).toBe(chatText(messages.slice(0, 2), true));
  });
});
