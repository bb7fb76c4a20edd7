import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/env/corpus.ts';
import { executeCompletion } from '../src/env/execute.ts';
import { mulberry32 } from '../src/random.ts';
import { HACKS, HACK_PROMPTS, honestCompletion } from '../src/reward/hacks.ts';
import type { ScoreInput } from '../src/reward/rubric.ts';
import { layoutScore, layoutScoreFromGeometry } from '../src/reward/layout.ts';
import { executeCountsFast, strongCanvasJson } from '../src/reward/strong-fast.ts';
import { analyzeStrong, strongRubric } from '../src/reward/strong.ts';
import { generateTasks } from '../src/tasks/generate.ts';
import type { DiagramSpec } from '../src/tasks/spec.ts';

/**
 * The rubric's score (the fast path where the reader settles the text) against the full analysis on a Canvas,
 * component by component and reward; returns how many inputs the fast path took.
 */
function agree(inputs: ScoreInput[]): number {
  let fast = 0;
  for (const input of inputs) {
    if (executeCountsFast(input.completion) !== null) fast++;
    const score = strongRubric.score(input);
    const values = analyzeStrong(input).values;
    const expected: Record<string, number> = {};
    let reward = 0;
    for (const c of strongRubric.components) {
      const v = Math.min(1, Math.max(0, values[c.name as keyof typeof values]));
      expected[c.name] = v;
      reward += c.weight * v;
    }
    expect({ input, reward: score.reward, ...score.components }).toEqual({ input, reward, ...expected });
  }
  return fast;
}

const shape = (id: string, text: string, x = 0, kind = 'rectangle') =>
  `{"type": "create_shape", "id": ${JSON.stringify(id)}, "shape": "${kind}", "x": ${x}, "y": 0, "w": 120, "h": 60, "text": ${JSON.stringify(text)}}`;
const connect = (from: string, to: string, text?: string) =>
  `{"type": "connect", "from": ${JSON.stringify(from)}, "to": ${JSON.stringify(to)}${text === undefined ? '' : `, "text": ${JSON.stringify(text)}`}}`;
const doc = (...actions: string[]) => `{"actions": [${actions.join(', ')}]}`;

/** Documents of 2-5 actions with random field values: every JSON kind, infinities, escapes, other action types. */
function randomDocuments(count: number, seed: number): string[] {
  const values = ['"a"', '""', '"b"', '"rectangle"', '"diamond"', '"Rectangle"', '"ellips\\u0065"', '0', '-0', '12.5', '1000', '1000.0000000000001',
    '5e-324', '-3', '1e400', '-1e400', 'true', 'null', '[]', '{"x": 1}', '"\\u0061"', '12345678901234567890', '1e23', '"é"', '"\uFFFD"'];
  const fields = ['type', 'id', 'shape', 'x', 'y', 'w', 'h', 'text', 'from', 'to'];
  const types = ['"create_shape"', '"connect"', '"update_shape"', '"delete_shape"', '""', '"create_sh\\u0061pe"', '3', 'null'];
  const rng = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
  const good = (i: number) => `{"type": "create_shape", "id": "${'abc'[i]}", "shape": "ellipse", "x": ${i * 200}, "y": 0, "w": 100, "h": 50}`;
  const docs: string[] = [];
  for (let t = 0; t < count; t++) {
    const actions = [good(0), good(1)];
    for (let k = 0; k < 1 + Math.floor(rng() * 3); k++) {
      const parts = [`"type": ${pick(types)}`];
      for (const f of fields.slice(1)) if (rng() < 0.8) parts.push(`"${f}": ${rng() < 0.5 ? pick(['"a"', '"b"', '"c"', '10', '50']) : pick(values)}`);
      actions.splice(Math.floor(rng() * (actions.length + 1)), 0, `{${parts.join(', ')}}`);
    }
    docs.push(doc(...actions));
  }
  return docs;
}

describe('strong fast path: action checks on the records', () => {
  it('gives executeCompletion\'s verdicts for every kind of value in every field', () => {
    let settled = 0;
    for (const text of randomDocuments(4000, 3)) {
      const fast = executeCountsFast(text);
      if (fast === null) continue;
      settled++;
      const e = executeCompletion(text);
      const exact = {
        actions: e.outcomes.length,
        schemaErrors: e.outcomes.filter((o) => !o.applied && o.error?.kind === 'schema').length,
        applied: e.outcomes.filter((o) => o.applied).length,
        canvas: e.canvas?.toJSON() ?? null,
      };
      expect({ text, actions: fast.actions, schemaErrors: fast.schemaErrors, applied: fast.applied, canvas: fast.canvas && strongCanvasJson(fast.canvas) }).toEqual({
        text,
        ...exact,
      });
    }
    expect(settled).toBeGreaterThan(3900);
  });
});

/** executeCountsFast's answer as a plain value (its object and canvas are reused by the next call). */
function countsOf(text: string, checks: 'auto' | 'js') {
  const c = executeCountsFast(text, checks);
  if (c === null) return { answer: null, checks: null };
  const { source, actions, schemaErrors, applied, clean } = c;
  return { answer: { source, actions, schemaErrors, applied, clean, canvas: c.canvas && strongCanvasJson(c.canvas) }, checks: c.checks };
}

/** The WebAssembly checks (where they settle a text) against the JavaScript ones; returns how many they settled. */
function checksAgree(texts: string[]): number {
  let wasm = 0;
  for (const text of texts) {
    const auto = countsOf(text, 'auto');
    const js = countsOf(text, 'js');
    if (auto.checks === 'wasm') wasm++;
    expect({ text, ...auto.answer }).toEqual({ text, ...js.answer });
  }
  return wasm;
}

describe('strong fast path: the WebAssembly action checks equal the JavaScript ones', () => {
  it('on random field values, corpora and random edits', () => {
    const random = randomDocuments(4000, 41);
    const settledRandom = checksAgree(random);
    // Escaped types, shapes and ids, and U+FFFD in ids, are left to JavaScript; the rest is settled in WebAssembly.
    expect(settledRandom).toBeGreaterThan(0.5 * random.length);
    expect(settledRandom).toBeLessThan(0.95 * random.length);
    const corpus = [...generateCorpus({ n: 3000, seed: 51 }), ...generateCorpus({ n: 3000, seed: 52 })].map((c) => c.completion);
    const settledCorpus = checksAgree(corpus);
    expect(settledCorpus).toBeGreaterThan(0.6 * corpus.length);
    const rng = mulberry32(53);
    const pieces = ['"', '\\', ' ', 'é', '1', '.5', 'e9', '-', ',', '}', '{', '"a"', '"connect"', '"diamond"', 'true', '0', '1e400', '"text"', '"\uFFFD"'];
    const edited: string[] = [];
    for (const item of generateCorpus({ n: 1500, seed: 54 }).filter((c) => c.category === 'valid')) {
      for (let k = 0; k < 5; k++) {
        let t = item.completion;
        for (let e = 0; e < 1 + Math.floor(rng() * 3); e++) {
          const at = Math.floor(rng() * t.length);
          t = t.slice(0, at) + pieces[Math.floor(rng() * pieces.length)] + t.slice(at + Math.floor(rng() * 3));
        }
        edited.push(t);
      }
    }
    expect(checksAgree(edited)).toBeGreaterThan(0.1 * edited.length);
  });

  it('on ids bytes cannot tell apart, duplicates, prefixes, multi-byte text and limits', () => {
    const box = (id: string, extra = '') => `{"type": "create_shape", "id": ${id}, "shape": "rectangle", "x": 0, "y": 0, "w": 10, "h": 10${extra}}`;
    const link = (from: string, to: string, extra = '') => `{"type": "connect", "from": ${from}, "to": ${to}${extra}}`;
    // Written as code units: the test's transform may respell a lone surrogate in a literal.
    const lone = String.fromCharCode(0xd800);
    const trail = String.fromCharCode(0xdc00);
    const cases = [
      // A lone surrogate and U+FFFD are one byte sequence after encodeInto, and two ids to JavaScript.
      doc(box(`"${lone}"`), box('"\uFFFD"')),
      doc(box('"\uFFFD"'), box(`"${lone}"`), link(`"${lone}"`, '"\uFFFD"')),
      doc(box(`"x${trail}"`), box('"x\uFFFD"'), link('"x\uFFFD"', `"x${trail}"`)),
      doc(box('"a"'), box('"a"'), box('"ab"'), link('"a"', '"ab"'), link('"ab"', '"ab"'), link('"a"', '"b"')),
      doc(box('"é"'), box('"e"'), box('"e\u0301"'), link('"é"', '"e"'), link('"e"', '"\u00e9"')),
      doc(box('"a"', ', "w": 1000'), box('"b"', ', "w": 1000.0000000000001'), box('"c"', ', "h": 0'), box('"d"', ', "x": 12345678901234567890')),
      doc(box('"a"', ', "text": "Caf\u00e9 \"x\""'), box('"b"', ', "text": "🚀 data"'), link('"a"', '"b"', ', "text": "ok\nnow"')),
      doc(box('"a"', ', "text": null'), box('"b"', ', "shape": "text"'), link('"a"', '"b"', ', "text": 3')),
      doc(...Array.from({ length: 20 }, (_, i) => box(`"s${i}"`)), ...Array.from({ length: 20 }, (_, i) => link(`"s${i}"`, `"s${(i + 1) % 20}"`))),
    ];
    expect(checksAgree(cases)).toBeGreaterThanOrEqual(5);
  });
});

describe('strong fast path: the layout geometry tallied in WebAssembly', () => {
  it('gives layoutScore\'s score to the bit on random layouts: overlaps, gaps, slivers, huge and tiny numbers, arrows', () => {
    const rng = mulberry32(61);
    const coords = [() => Math.round(rng() * 800), () => rng() * 400, () => 0, () => -1000, () => 5000, () => 1e308, () => -1.7e308, () => 4.9e-324, () => 29.999999999999996];
    const sides = [() => 1 + Math.round(rng() * 200), () => rng() * 1000, () => 1000, () => 5e-324, () => 8, () => 7.999999999999999, () => 240];
    const labels = ['', 'Database', 'A much longer label that overflows a small box', 'x'];
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
    let tallied = 0;
    for (let t = 0; t < 3000; t++) {
      const n = 1 + Math.floor(rng() * 12);
      // A third of the layouts are rows of equal boxes whose gaps sit at the crowding limit (30) or near it.
      const gap = t % 3 === 0 ? pick([30, 29, 31, 0, 29.999999999999996, 21.213203435596427]) : -1;
      let cursor = 0;
      const coord = () => {
        if (gap < 0) return rng() < 0.8 ? coords[Math.floor(rng() * 2)]() : pick(coords)();
        cursor += 100 + gap;
        return rng() < 0.5 ? cursor : 0;
      };
      const side = () => (gap >= 0 ? 100 : rng() < 0.8 ? sides[0]() : pick(sides)());
      const shapes = Array.from({ length: n }, (_, i) =>
        `{"type": "create_shape", "id": "s${i}", "shape": "${pick(['rectangle', 'ellipse', 'diamond', 'text'])}", "x": ${coord()}, "y": ${coord()}, "w": ${side()}, "h": ${side()}, "text": "${pick(labels)}"}`);
      const arrows = Array.from({ length: Math.floor(rng() * 2 * n) }, () => connect(`s${Math.floor(rng() * n)}`, `s${Math.floor(rng() * n)}`));
      const c = executeCountsFast(doc(...shapes, ...arrows));
      if (!c?.canvas?.tallied) continue;
      tallied++;
      c.canvas.complete();
      const fromGeometry = layoutScoreFromGeometry(c.canvas.geometry, 0, c.canvas, c.canvas.measures);
      expect({ t, score: fromGeometry }).toEqual({ t, score: layoutScore(c.canvas) });
      expect(Object.is(fromGeometry, layoutScore(c.canvas))).toBe(true);
    }
    expect(tallied).toBeGreaterThan(2900);
  });
});

describe('strong fast path: the rubric\'s values equal the full analysis', () => {
  it('on generated corpora, with the row\'s spec and with the spec read from the prompt', () => {
    const items = [...generateCorpus({ n: 2500, seed: 31 }), ...generateCorpus({ n: 2500, seed: 32 })];
    const inputs = items.flatMap((it, i) => (i % 4 === 0 ? [it, { prompt: it.prompt, completion: it.completion }] : [it]));
    expect(agree(inputs)).toBeGreaterThan(0.9 * inputs.length);
  });

  it('on corpora grouped like GRPO (one spec object per group: the spec\'s plan is reused), and the default unchanged', () => {
    const items = generateCorpus({ n: 2400, seed: 34, perPrompt: 8 });
    expect(generateCorpus({ n: 300, seed: 34, perPrompt: 1 })).toEqual(generateCorpus({ n: 300, seed: 34 }));
    expect(() => generateCorpus({ n: 3, seed: 1, perPrompt: 0 })).toThrow(/perPrompt/);
    const inputs = items.flatMap((it, i) => (i % 3 === 0 ? [it, { prompt: it.prompt, completion: it.completion }] : [it]));
    expect(agree(inputs)).toBeGreaterThan(0.9 * inputs.length);
  });

  it('on the task suite\'s prompts (decisions, shapes, arrow labels) with honest answers and every hack', () => {
    const tasks = [...generateTasks({ split: 'train', n: 120, seed: 5 }), ...generateTasks({ split: 'ood', n: 60, seed: 6 })];
    const inputs: ScoreInput[] = [];
    for (const task of [...tasks, ...HACK_PROMPTS.map((h) => ({ ...h, id: 'hack' }))]) {
      const hackInput = { prompt: task.prompt, spec: task.spec };
      for (const completion of [honestCompletion(hackInput), ...HACKS.map((h) => h.make(hackInput))]) {
        inputs.push({ prompt: task.prompt, completion, spec: task.spec }, { prompt: task.prompt, completion });
      }
    }
    expect(inputs.some((i) => i.spec?.edgeLabels && Object.keys(i.spec.edgeLabels).length > 0)).toBe(true);
    expect(inputs.some((i) => i.spec?.shapes && Object.keys(i.spec.shapes).length > 0)).toBe(true);
    expect(agree(inputs)).toBeGreaterThan(0.9 * inputs.length);
  });

  it('on hand-written specs: shared canonical names, contested matches, odd keys, shapes asked for, no entities', () => {
    const specs: DiagramSpec[] = [
      { entities: ['API', 'api', 'A P I'], edges: [['API', 'api'], ['api', 'A P I'], ['a-p-i', 'API']] },
      { entities: ['API', 'api'], edges: [['api', 'API']], edgeLabels: { 'API -> api': 'calls', 'api->API': 'answers', 'api -> API': 'replies' } },
      { entities: ['Auth', 'Auth Service', 'Authentication'], edges: [['Auth', 'Auth Service'], ['Authentication', 'Auth']] },
      { entities: ['Database', 'Cache'], edges: [['Database', 'Cache'], ['DB', 'cache'], ['Nowhere', 'Cache']] },
      {
        entities: ['Start', 'Valid?', 'Done', 'constructor'],
        edges: [['Start', 'Valid?'], ['Valid?', 'Done']],
        shapes: { 'Valid?': 'diamond', Done: 'ellipse' },
        edgeLabels: { 'Valid?->Done': 'yes', 'Start -> Valid?': 'check', 'no arrow here': 'x', 'Done->': 'y', '->Start': 'z', 'a->b->c': 'w' },
      },
      { entities: ['Client', 'Server'], edges: [] },
      { entities: ['Fraud Check', 'Fraud', 'Check'], edges: [['Fraud', 'Check'], ['Fraud Check', 'Fraud']] },
      { entities: ['Queue', 'Queues', 'queue'], edges: [['Queue', 'Queues'], ['queue', 'Queue']] },
    ];
    const labels = ['API', 'api', 'Auth Service', 'Authentication', 'Auth', 'DB', 'Database', 'Cache', 'Start', 'Valid?', 'Done', 'Client',
      'Server', 'Fraud Check', 'Fraud', 'Check', 'Queue', 'Queues', 'constructor', 'Title', '', ' ', 'Postgres Database Cache', '🚀'];
    const kinds = ['rectangle', 'ellipse', 'diamond', 'text'];
    const rng = mulberry32(17);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
    const inputs: ScoreInput[] = [];
    for (let t = 0; t < 1500; t++) {
      const spec = pick(specs);
      const n = 1 + Math.floor(rng() * 6);
      const actions = Array.from({ length: n }, (_, i) => shape(`s${i}`, pick(labels), i * (rng() < 0.2 ? 50 : 200), pick(kinds)));
      for (let k = Math.floor(rng() * 8); k > 0; k--) {
        actions.push(connect(`s${Math.floor(rng() * n)}`, `s${Math.floor(rng() * (n + 1))}`, rng() < 0.3 ? pick(['yes', 'check', 'no', 'Yes!']) : undefined));
      }
      const prompt = `Draw ${spec.entities.join(', ')}: ${spec.edges.map(([a, b]) => `${a} -> ${b}`).join(', ')}`;
      inputs.push({ prompt, completion: doc(...actions), spec }, { prompt, completion: doc(...actions) });
    }
    // Each spec drawn exactly, in order and reversed, with its edges (and their labels) forward, then backward.
    for (const spec of specs) {
      const prompt = `Draw ${spec.entities.join(', ')}`;
      for (const order of [spec.entities, [...spec.entities].reverse()]) {
        const ids = new Map(order.map((e, i) => [e, `s${i}`]));
        const shapes = order.map((e, i) => shape(`s${i}`, e, i * 200));
        const arrows = (back: boolean) =>
          Object.entries(spec.edgeLabels ?? {}).map(([key, label]) => {
            const [a, b] = key.split('->').map((x) => ids.get(x.trim()) ?? 's0');
            return back ? connect(b, a, label) : connect(a, b, label);
          });
        const edges = (back: boolean) =>
          spec.edges.flatMap(([a, b]) => (ids.has(a) && ids.has(b) ? [back ? connect(ids.get(b)!, ids.get(a)!) : connect(ids.get(a)!, ids.get(b)!)] : []));
        for (const back of [false, true]) {
          inputs.push({ prompt, spec, completion: doc(...shapes, ...edges(back), ...arrows(back)) }, { prompt, spec, completion: doc(...shapes, ...arrows(back)) });
        }
      }
    }
    inputs.push({ prompt: 'hello there', completion: doc(shape('a', 'x'), shape('b', '', 300), connect('a', 'b')) });
    expect(agree(inputs)).toBe(inputs.length);
  });

  it('with labels interned across completions: thousands of distinct ones, huge ones, escapes, U+FFFD and lone surrogates', () => {
    const rng = mulberry32(71);
    const words = ['Auth', 'Service', 'Database', 'Cache', 'Queue', 'API', 'Gateway', 'Worker', 'Store', 'Index'];
    const lone = String.fromCharCode(0xd800);
    const special = [`Cache${lone}`, 'Cache\uFFFD', 'Cache\ud800', '\u0041uth Service', 'Auth Service', '', ' ', 'Database\nCache'];
    const label = () => {
      const r = rng();
      if (r < 0.1) return special[Math.floor(rng() * special.length)];
      if (r < 0.12) return `${words[Math.floor(rng() * 10)]} ${'x'.repeat(20000 + Math.floor(rng() * 20000))}`;
      // Thousands of distinct labels, so that the intern table starts over several times.
      return `${words[Math.floor(rng() * 10)]} ${words[Math.floor(rng() * 10)]} ${Math.floor(rng() * 3000)}`;
    };
    const inputs: ScoreInput[] = [];
    for (let t = 0; t < 2500; t++) {
      const n = 1 + Math.floor(rng() * 6);
      // Labels written raw, as the doc helper's JSON.stringify would escape the escapes themselves.
      const actions = Array.from({ length: n }, (_, i) =>
        `{"type": "create_shape", "id": "s${i}", "shape": "rectangle", "x": ${i * 200}, "y": 0, "w": 120, "h": 60, "text": "${label()}"}`);
      for (let k = 1; k < n; k++) actions.push(connect(`s${k - 1}`, `s${k}`));
      const entities = [...new Set(Array.from({ length: 1 + Math.floor(rng() * 4) }, () => `${words[Math.floor(rng() * 10)]} ${words[Math.floor(rng() * 10)]}`))];
      const spec: DiagramSpec = { entities, edges: entities.slice(1).map((e, i) => [entities[i], e] as [string, string]) };
      inputs.push({ prompt: `Draw ${entities.join(', ')}`, completion: doc(...actions), spec });
    }
    expect(agree(inputs)).toBeGreaterThan(0.95 * inputs.length);
  });

  it('on brace spans after a scan of the whole text: a document that closes at the last brace, or not, beside fences', () => {
    const spec: DiagramSpec = { entities: ['Client', 'API'], edges: [['Client', 'API']] };
    const body = doc(shape('c', 'Client'), shape('a', 'API', 200), connect('c', 'a'));
    const wide = doc(shape('c', 'Clïent'), shape('a', 'API ✓', 200), connect('c', 'a'));
    const texts: string[] = [];
    for (const d of [body, wide]) {
      for (const lead of ['', '  \n', '[1] ', '"x" ']) {
        for (const tail of [
          ' and that is all.',
          '\n```json\n{"actions": [1,\n```',
          '\n```\nnot json\n```',
          ' {note} after',
          ' } extra',
          '}',
          ' ' + d,
          '\n```json\n' + d + '\n```',
        ]) {
          texts.push(lead + d + tail);
          texts.push(lead + d.slice(0, -2) + tail);
        }
      }
    }
    const inputs = texts.map((completion) => ({ prompt: 'Client calls API.', completion, spec }));
    expect(agree(inputs)).toBe(inputs.length);
    // The first group: the document found in the span (its records kept from the whole text, or scanned again).
    expect(executeCountsFast(body + ' and that is all.')?.source).toBe('span');
    expect(executeCountsFast(body + '\n```json\n{"actions": [1,\n```')?.canvas?.count).toBe(2);
    expect(executeCountsFast(wide + ' } extra')?.source).toBeUndefined();
  });

  it('on random edits of valid completions', () => {
    const rng = mulberry32(13);
    const pieces = ['"', '\\', ' ', 'é', '1', '.5', 'e9', '-', ',', '}', '{', 'Database', '"connect"', '"diamond"', 'true', '0'];
    const base = generateCorpus({ n: 400, seed: 33 }).filter((c) => c.category === 'valid');
    const inputs: ScoreInput[] = [];
    for (const item of base) {
      for (let k = 0; k < 5; k++) {
        let t = item.completion;
        for (let e = 0; e < 1 + Math.floor(rng() * 3); e++) {
          const at = Math.floor(rng() * t.length);
          t = t.slice(0, at) + pieces[Math.floor(rng() * pieces.length)] + t.slice(at + Math.floor(rng() * 3));
        }
        inputs.push({ prompt: item.prompt, completion: t, spec: item.spec });
      }
    }
    expect(agree(inputs)).toBeGreaterThan(inputs.length / 2);
  });
});
