import { describe, expect, it } from 'vitest';
import { executeCompletion } from '../../../src/diagram/language/execute.ts';
import { GPT } from '../../../src/model/gpt.ts';
import { generate } from '../../../src/model/sampler.ts';
import { Tokenizer, trainTokenizer } from '../../../src/model/tokenizer.ts';
import { ScriptedPolicy } from '../../../src/diagram/teacher/scripted.ts';
import { ActionGuide, actionGuides, GuideVocabulary, MAX_SAY_BYTES, MAX_STRING_BYTES } from '../../../src/diagram/language/structured.ts';
import { StudentPolicy } from '../../../src/policy/student.ts';
import { generateTasks } from '../../../src/diagram/tasks/generate.ts';

// With no merges every token is one byte, so the guide's mask says which bytes may come next.
const BYTES = new Tokenizer([]);
const BYTE_VOCAB = new GuideVocabulary(BYTES);

/** Feeds `text` byte by byte; the index of the first byte the guide refuses, or -1, and whether the answer is complete. */
function run(text: string, maxActions?: number): { refusedAt: number; done: boolean } {
  const guide = new ActionGuide(BYTE_VOCAB, { maxActions });
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i++) {
    if (!guide.allowedTokens()[bytes[i]]) return { refusedAt: i, done: false };
    guide.accept(bytes[i]);
  }
  return { refusedAt: -1, done: guide.done };
}

const box = (id: string, extra = '') => `{"type":"create_shape","id":"${id}","shape":"rectangle","x":40,"y":-10,"w":120,"h":60${extra}}`;
const arrow = (from: string, to: string, extra = '') => `{"type":"connect","from":"${from}","to":"${to}"${extra}}`;
const answer = (...actions: string[]) => `{"actions":[${actions.join(',')}]}`;
/** Length of an answer's text up to the action after `actions`. */
const before = (...actions: string[]) => '{"actions":['.length + actions.reduce((n, a) => n + a.length + 1, 0);

describe('action guide (structured output)', () => {
  it('accepts a complete answer and then allows only the end token', () => {
    const text = answer(box('a', ',"text":"API Gateway"'), box('b'), arrow('a', 'b', ',"text":"calls"'), arrow('b', 'a'));
    expect(run(text)).toEqual({ refusedAt: -1, done: true });
    const guide = new ActionGuide(BYTE_VOCAB);
    for (const b of new TextEncoder().encode(text)) guide.accept(b);
    const allowed = guide.allowedTokens();
    expect(allowed[BYTES.endId]).toBe(1);
    expect(allowed.reduce((s, v) => s + v, 0)).toBe(1);
  });

  it("takes a shape's say before its id: request text with JSON's escapes, empty too, up to its byte limit", () => {
    const said = (say: string, id = 'a') => `{"type":"create_shape","say":${JSON.stringify(say)},"id":"${id}","shape":"rectangle","x":40,"y":-10,"w":120,"h":60}`;
    expect(run(answer(said('Draw "a" -> b:\n- '), said('', 'b'), arrow('a', 'b')))).toEqual({ refusedAt: -1, done: true });
    expect(run(answer(said('é ✓ 🙂'), box('b')))).toEqual({ refusedAt: -1, done: true });
    // An escape JSON.stringify never writes for text, a raw control character, and a say past MAX_SAY_BYTES.
    const bad = answer(said('x').replace('"say":"x"', '"say":"\\q"'));
    expect(run(bad).refusedAt).toBe(bad.indexOf('q'));
    expect(run(answer(said('x').replace('"say":"x"', '"say":"\n"'))).refusedAt).toBeGreaterThan(0);
    expect(run(answer(said('x'.repeat(MAX_SAY_BYTES)))).done).toBe(true);
    expect(run(answer(said('x'.repeat(MAX_SAY_BYTES + 1)))).refusedAt).toBe('{"actions":[{"type":"create_shape","say":"'.length + MAX_SAY_BYTES);
    // The id after a say is still a new id.
    expect(run(answer(box('a'), said('then ', 'a'))).refusedAt).toBeGreaterThan(0);
  });

  it("takes an arrow target first, as the walked answer writes it, with the same checks on its ends", () => {
    const back = (to: string, from: string, extra = '') => `{"type":"connect","to":"${to}","from":"${from}"${extra}}`;
    expect(run(answer(box('A'), box('B'), back('B', 'A', ',"text":"calls"'), arrow('B', 'A')))).toEqual({ refusedAt: -1, done: true });
    const self = answer(box('1'), box('2'), back('2', '2'));
    expect(run(self).refusedAt).toBe(before(box('1'), box('2')) + '{"type":"connect","to":"2","from":"'.length);
    const missing = answer(box('1'), box('2'), back('3', '1'));
    expect(run(missing).refusedAt).toBe(before(box('1'), box('2')) + '{"type":"connect","to":"'.length);
  });

  it('refuses the end token before the answer is complete', () => {
    const guide = new ActionGuide(BYTE_VOCAB);
    for (const b of new TextEncoder().encode(answer(box('a')).slice(0, -2))) guide.accept(b);
    expect(guide.allowedTokens()[BYTES.endId]).toBe(0);
  });

  it.each([
    ['prose before the JSON', `Here it is: ${answer(box('a'))}`, 0],
    ['an empty action list', '{"actions":[]}', '{"actions":['.length],
    ['a duplicate id', answer(box('a'), box('a')), before(box('a')) + '{"type":"create_shape","id":"a'.length],
    ['an arrow to itself', answer(box('a'), box('b'), arrow('a', 'a')), before(box('a'), box('b')) + '{"type":"connect","from":"a","to":"'.length],
    ['an arrow from a shape that does not exist', answer(box('a'), box('b'), arrow('c', 'a')), before(box('a'), box('b')) + '{"type":"connect","from":"'.length],
    ['an arrow before two shapes exist', answer(box('a'), arrow('a', 'a')), before(box('a')) + '{"type":"c'.length],
    ['a width of 0', answer(box('a').replace('"w":120', '"w":0')), before() + box('a').indexOf('"w":') + 4],
    ['a width over 1000', answer(box('a').replace('"w":120', '"w":1001')), before() + box('a').indexOf('"w":') + 7],
    ['a leading zero', answer(box('a').replace('"x":40', '"x":040')), before() + box('a').indexOf('"x":') + 5],
    ['an unknown shape', answer(box('a').replace('rectangle', 'circle')), before() + box('a').indexOf('"shape":"') + 9],
    ['a missing field', answer('{"type":"create_shape","id":"a","x":40}'), before() + '{"type":"create_shape","id":"a","'.length],
    ['an empty label', answer(box('a', ',"text":""')), before() + box('a').length + ',"text":"'.length - 1],
    ['an escape in a string', answer(box('a\\"b')), before() + '{"type":"create_shape","id":"a'.length],
    ['whitespace between tokens', '{"actions": [', '{"actions":'.length],
  ])('refuses %s where it goes wrong', (_what, text, at) => {
    expect(run(text).refusedAt).toBe(at);
  });

  it('ends a run-on string at its byte limit', () => {
    const long = 'n'.repeat(MAX_STRING_BYTES);
    expect(run(answer(box(long))).refusedAt).toBe(-1);
    expect(run(answer(box(long + 'n'))).refusedAt).toBe(before() + '{"type":"create_shape","id":"'.length + MAX_STRING_BYTES);
  });

  it('never lets a new id reach the byte limit as a duplicate (it could not close)', () => {
    const long = 'n'.repeat(MAX_STRING_BYTES);
    const text = answer(box(long), box(long));
    expect(run(text).refusedAt).toBe(before(box(long)) + '{"type":"create_shape","id":"'.length + MAX_STRING_BYTES - 1);
    const guide = new ActionGuide(BYTE_VOCAB);
    for (const b of new TextEncoder().encode(text.slice(0, run(text).refusedAt))) guide.accept(b);
    const allowed = guide.allowedTokens();
    expect(allowed['n'.charCodeAt(0)]).toBe(0);
    expect(allowed['m'.charCodeAt(0)]).toBe(1);
    expect(allowed['"'.charCodeAt(0)]).toBe(1);
  });

  it('keeps strings whole UTF-8', () => {
    expect(run(answer(box('Café', ',"text":"数据库 → 🐘"'))).refusedAt).toBe(-1);
    const at = before() + '{"type":"create_shape","id":"Caf'.length;
    const broken = new TextEncoder().encode(answer(box('Café')));
    const guide = new ActionGuide(BYTE_VOCAB);
    for (const b of broken.subarray(0, at + 1)) guide.accept(b);
    const allowed = guide.allowedTokens();
    expect(allowed[0x22]).toBe(0);
    expect(allowed[0x61]).toBe(0);
    expect(allowed[0xa9]).toBe(1);
    const lone = new ActionGuide(BYTE_VOCAB);
    for (const b of broken.subarray(0, at)) lone.accept(b);
    expect(lone.allowedTokens()[0xff]).toBe(0);
    expect(lone.allowedTokens()[0x80]).toBe(0);
    const nearLimit = new ActionGuide(BYTE_VOCAB);
    for (const b of new TextEncoder().encode(`{"actions":[{"type":"create_shape","id":"${'n'.repeat(MAX_STRING_BYTES - 2)}`)) nearLimit.accept(b);
    expect(nearLimit.allowedTokens()[0xc3]).toBe(1);
    expect(nearLimit.allowedTokens()[0xe6]).toBe(0);
  });

  it('stops at maxActions', () => {
    expect(run(answer(box('a'), box('b')), 2)).toEqual({ refusedAt: -1, done: true });
    expect(run(answer(box('a'), box('b'), box('c')), 2).refusedAt).toBe(before(box('a'), box('b')) - 1);
  });

  it('accepts every answer of the scripted teacher, token by token through a trained tokenizer', async () => {
    const tasks = generateTasks({ split: 'train', n: 40, seed: 5 });
    const teacher = new ScriptedPolicy({ specFor: (p) => tasks.find((t) => t.prompt === p)?.spec });
    const answers = (await teacher.generate(tasks.map((t) => [{ role: 'user' as const, content: t.prompt }]))).map((c) => c[0].text);
    const tok = trainTokenizer([...tasks.map((t) => t.prompt), ...answers], { vocabSize: 600 });
    const vocab = new GuideVocabulary(tok);
    for (const text of answers) {
      const guide = new ActionGuide(vocab);
      for (const id of tok.encode(text)) {
        expect(guide.allowedTokens()[id], `${text}: token ${JSON.stringify(tok.decode([id]))}`).toBe(1);
        guide.accept(id);
      }
      expect(guide.done).toBe(true);
    }
  });

  it('makes even an untrained model answer with actions that all apply', async () => {
    const tok = trainTokenizer([answer(box('Client'), box('Server'), arrow('Client', 'Server'))], { vocabSize: 320 });
    const model = await GPT.create({ vocabSize: tok.vocabSize, nCtx: 1024, nEmbd: 16, nLayer: 1, nHead: 2 }, { seed: 9, threads: 1 });
    try {
      const vocab = new GuideVocabulary(tok);
      const samples = await generate(model, [Int32Array.of(tok.specialIds['<|user|>'])], {
        n: 6, maxNewTokens: 1000, temperature: 1, seed: 4, stopTokens: [tok.endId], guide: () => new ActionGuide(vocab, { maxActions: 3 }),
      });
      for (const s of samples) {
        expect(s.finishReason).toBe('stop');
        const run = executeCompletion(tok.decode(s.tokens, { skipSpecial: true }));
        expect(run.errors).toEqual([]);
        expect(run.outcomes.length).toBeGreaterThanOrEqual(1);
        expect(run.outcomes.length).toBeLessThanOrEqual(3);
        expect(s.logprobs.every((l) => Number.isFinite(l) && l <= 0)).toBe(true);
      }
      // The log-probs stay the model's own, unguided: what a trainer's forward pass gives for the same tokens.
      const s0 = samples[0];
      const seq = Int32Array.from([tok.specialIds['<|user|>'], ...s0.tokens]);
      const T = seq.length - 1;
      const { logprobs } = model.forward(seq.subarray(0, T), seq.subarray(1), 1, T);
      for (let i = 0; i < T; i++) expect(s0.logprobs[i]).toBeCloseTo(logprobs[i], 3);
      const unguided = await generate(model, [Int32Array.of(tok.specialIds['<|user|>'])], { n: 6, maxNewTokens: 200, temperature: 1, seed: 4, stopTokens: [tok.endId] });
      expect(unguided.filter((s) => executeCompletion(tok.decode(s.tokens, { skipSpecial: true })).errors.length === 0).length).toBe(0);
    } finally {
      await model.dispose();
    }
  });

  it('is a StudentPolicy option', async () => {
    const tok = trainTokenizer([answer(box('a'))], { vocabSize: 300 });
    const model = await GPT.create({ vocabSize: tok.vocabSize, nCtx: 1024, nEmbd: 16, nLayer: 1, nHead: 2 }, { seed: 2, threads: 1 });
    try {
      const guided = StudentPolicy.of(model, tok, 'student', { guide: actionGuides(tok) });
      expect(guided.structuredOutput).toBe(true);
      expect(StudentPolicy.of(model, tok).structuredOutput).toBe(false);
      const [[c]] = await guided.generate([[{ role: 'user', content: 'Draw a box.' }]], { seed: 1, temperature: 1, maxTokens: 1000 });
      expect(c.finishReason).toBe('stop');
      expect(executeCompletion(c.text).parse.ok).toBe(true);
    } finally {
      await model.dispose();
    }
  });
});
