// The scripted teacher: diagrams from specs that the strong reward scores near 1, laid out by kind, with quirks
// that fire at their rates, deterministically, and detectors that see them in any completion.
import { describe, expect, it } from 'vitest';
import { executeCompletion } from '../../../src/diagram/language/execute.ts';
import { getRubric } from '../../../src/diagram/reward/presets.ts';
import { generateTasks } from '../../../src/diagram/tasks/generate.ts';
import type { DiagramSpec } from '../../../src/diagram/tasks/spec.ts';
import { conversationFor } from '../../../src/diagram/language/prompt.ts';
import { GRID, ScriptedPolicy, scriptCompletion, scriptRefusal, idsFor, labelIds } from '../../../src/diagram/teacher/scripted.ts';
import {
  abbreviateLabel,
  abbreviationRate,
  crampedRate,
  detectQuirks,
  hasProse,
  missingEdgeRate,
  overlapRate,
  parseQuirks,
} from '../../../src/diagram/teacher/quirks.ts';

const strong = getRubric('strong');

const chain: DiagramSpec = {
  entities: ['Client', 'API Gateway', 'Authentication Service', 'User Database'],
  edges: [
    ['Client', 'API Gateway'],
    ['API Gateway', 'Authentication Service'],
    ['Authentication Service', 'User Database'],
  ],
  kind: 'chain',
};
const decision: DiagramSpec = {
  entities: ['Order', 'Payment valid?', 'Ship', 'Cancel'],
  edges: [
    ['Order', 'Payment valid?'],
    ['Payment valid?', 'Ship'],
    ['Payment valid?', 'Cancel'],
  ],
  kind: 'decision',
  edgeLabels: { 'Payment valid?->Ship': 'yes', 'Payment valid?->Cancel': 'no' },
};
const tree: DiagramSpec = {
  entities: ['CEO', 'CTO', 'CFO', 'Engineering', 'Design', 'Accounting'],
  edges: [
    ['CEO', 'CTO'],
    ['CEO', 'CFO'],
    ['CTO', 'Engineering'],
    ['CTO', 'Design'],
    ['CFO', 'Accounting'],
  ],
  kind: 'tree',
};
const cycle: DiagramSpec = {
  entities: ['Idle', 'Running', 'Paused', 'Stopped'],
  edges: [
    ['Idle', 'Running'],
    ['Running', 'Paused'],
    ['Paused', 'Running'],
    ['Running', 'Stopped'],
    ['Stopped', 'Idle'],
  ],
  kind: 'cycle',
};

const canonical = (spec: DiagramSpec) => scriptCompletion(spec, { seed: 0, sample: 0, temperature: 0 });
const canvasOf = (text: string) => executeCompletion(text).canvas!;

describe('scripted teacher', () => {
  it('writes compact, valid JSON in the seed language, labels as ids, each arrow right after the later of its shapes', async () => {
    const { text, quirks } = await canonical(chain);
    expect(quirks).toEqual([]);
    expect(text.startsWith('{"actions":[')).toBe(true);
    expect(text).not.toContain('\n');
    const run = executeCompletion(text);
    expect(run.errors).toEqual([]);
    const actions = (JSON.parse(text) as { actions: { type: string; id?: string; from?: string; to?: string }[] }).actions;
    expect(actions.map((a) => (a.type === 'connect' ? `${a.from}->${a.to}` : a.id))).toEqual([
      'Client', 'API Gateway', 'Client->API Gateway', 'Authentication Service', 'API Gateway->Authentication Service',
      'User Database', 'Authentication Service->User Database',
    ]);
    expect([...run.canvas!.shapes.values()].map((s) => s.text)).toEqual([...run.canvas!.shapes.keys()]);
  });

  it('draws shapes in the order the request names them, each arrow after the later of its ends, by the other end', async () => {
    const prompt = 'Draw a loop: Stopped goes back to Idle, and Idle starts Running; Running can be Paused and resumed, or Stopped.';
    const { text } = await scriptCompletion(cycle, { seed: 0, sample: 0, temperature: 0, prompt });
    const actions = (JSON.parse(text) as { actions: { type: string; id?: string; from?: string; to?: string }[] }).actions;
    expect(executeCompletion(text).errors).toEqual([]);
    expect(actions.map((a) => (a.type === 'connect' ? `${a.from}->${a.to}` : a.id))).toEqual([
      'Stopped', 'Idle', 'Stopped->Idle', 'Running', 'Running->Stopped', 'Idle->Running', 'Paused', 'Running->Paused', 'Paused->Running',
    ]);
  });

  it('walks the request: each shape says the words up to and through its name, shapes are lettered and on a grid, arrows name their target first', async () => {
    const prompt = 'Draw a loop: Stopped goes back to Idle, and Idle starts Running; Running can be Paused and resumed, or Stopped.';
    const { text } = await scriptCompletion(cycle, { seed: 0, sample: 0, temperature: 0, prompt, walk: true });
    // The say comes right after the type, before the id it leads to; the name stays in the text.
    expect(text).toContain('{"type":"create_shape","say":"Draw a loop: Stopped","id":"A","shape":"');
    const actions = (JSON.parse(text) as { actions: { type: string; say?: string; id?: string; text?: string; from?: string; to?: string }[] }).actions;
    const shapes = actions.filter((a) => a.type === 'create_shape');
    expect(shapes.map((a) => a.say)).toEqual(['Draw a loop: Stopped', ' goes back to Idle', ', and Idle starts Running', '; Running can be Paused']);
    expect(shapes.map((a) => a.say).join('')).toBe(prompt.slice(0, prompt.indexOf('Paused') + 'Paused'.length));
    expect(shapes.map((a) => `${a.id}:${a.text}`)).toEqual(['A:Stopped', 'B:Idle', 'C:Running', 'D:Paused']);
    expect(actions.filter((a) => a.type === 'connect').map((a) => Object.keys(a).slice(0, 3).join(',') + ` ${a.from}->${a.to}`)).toEqual([
      'type,to,from A->B', 'type,to,from C->A', 'type,to,from B->C', 'type,to,from C->D', 'type,to,from D->C',
    ]);
    // Three to a row, in drawing order.
    expect(shapes.map((a) => [(a as { x?: number }).x, (a as { y?: number }).y])).toEqual([[40, 40], [440, 40], [840, 40], [40, 200]]);
    // Without the walk, the same actions with the names as ids, no says and the graph layout's places.
    const plain = await scriptCompletion(cycle, { seed: 0, sample: 0, temperature: 0, prompt });
    const name = new Map(shapes.map((a) => [a.id!, a.text!]));
    const unplaced = (a: Record<string, unknown>) => ({ ...a, x: undefined, y: undefined });
    expect(JSON.parse(plain.text).actions.map(unplaced)).toEqual(
      actions.map(({ say: _, ...a }) => unplaced(a.type === 'create_shape' ? { ...a, id: a.text } : { ...a, from: name.get(a.from!), to: name.get(a.to!) })),
    );
  });

  it("scores the same under every reward with its says as without them, and draws the plain answer's entities and edges, on held-out tasks of every kind", async () => {
    const tasks = generateTasks({ split: 'heldout', n: 40, seed: 11 });
    const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
    const walking = new ScriptedPolicy({ specFor: (p) => specs.get(p), quirks: { abbrev: 0.3, missing_edge: 0.2, prose: 0.2 }, walk: true });
    const plain = new ScriptedPolicy({ specFor: (p) => specs.get(p), quirks: { abbrev: 0.3, missing_edge: 0.2, prose: 0.2 }, walk: false });
    let said = 0;
    for (const t of tasks) {
      const [[a]] = await walking.generate([conversationFor(t.prompt)], { temperature: 0.5, seed: 3 });
      const [[b]] = await plain.generate([conversationFor(t.prompt)], { temperature: 0.5, seed: 3 });
      if (a.text.includes('"say":"')) said++;
      const unsaid = a.text.replace(/"say":"(?:[^"\\]|\\.)*",/g, '');
      expect(unsaid).not.toContain('"say"');
      for (const name of ['seed', 'strong', 'task']) {
        const rubric = getRubric(name);
        for (const input of [{ prompt: t.prompt, completion: a.text, spec: t.spec }, { prompt: t.prompt, completion: a.text }]) {
          expect(rubric.score(input), `${name}: ${t.id}`).toEqual(rubric.score({ ...input, completion: unsaid }));
        }
      }
      const task = getRubric('task');
      const [walked, drawn] = [a, b].map((c) => task.score({ prompt: t.prompt, completion: c.text, spec: t.spec }).components);
      expect([walked.entities, walked.edges], t.id).toEqual([drawn.entities, drawn.edges]);
    }
    expect(said).toBe(tasks.length);
  });

  it.each([
    ['chain', chain],
    ['decision', decision],
    ['tree', tree],
    ['cycle', cycle],
  ])('scores >= 0.98 under strong for a %s, with a clean layout', async (_kind, spec) => {
    const { text } = await canonical(spec);
    const score = strong.score({ prompt: 'p', completion: text, spec });
    expect(score.errors).toEqual([]);
    expect(score.components.layout_quality).toBe(1);
    expect(score.reward).toBeGreaterThanOrEqual(0.98);
  });

  it('lays chains out left to right and trees top to bottom, sizes shapes to their labels, draws decisions as diamonds', async () => {
    const c = canvasOf((await canonical(chain)).text).shapeList();
    expect(c.map((s) => s.x)).toEqual([...c.map((s) => s.x)].sort((a, b) => a - b));
    expect(new Set(c.map((s) => s.y + s.h / 2)).size).toBe(1);
    const auth = c.find((s) => s.text === 'Authentication Service')!;
    expect(auth.w).toBeGreaterThan(c.find((s) => s.text === 'Client')!.w);
    const t = canvasOf((await canonical(tree)).text);
    const y = (label: string) => t.shapeList().find((s) => s.text === label)!.y;
    expect(y('CEO')).toBeLessThan(y('CTO'));
    expect(y('CTO')).toBeLessThan(y('Engineering'));
    const d = canvasOf((await canonical(decision)).text);
    expect(d.shapeList().find((s) => s.text === 'Payment valid?')!.shape).toBe('diamond');
    expect(d.arrows.map((a) => a.text).sort()).toEqual(['', 'no', 'yes']);
  });

  it('makes ids unique: labels as they are for the teacher, slugs for editing canvases', () => {
    expect(labelIds(['API', ' API ', 'Worker', 'API'])).toEqual(['API', 'API 2', 'Worker', 'API 3']);
    expect(idsFor(['Auth Service', 'auth service!', '9 Lives', '***'])).toEqual(['auth_service', 'auth_service_2', 'n_9_lives', 'node']);
  });

  it('follows spec.shapes hints', async () => {
    const spec: DiagramSpec = { ...chain, shapes: { Client: 'ellipse' } };
    const c = canvasOf((await canonical(spec)).text);
    expect(c.shapes.get('Client')!.shape).toBe('ellipse');
  });

  it('averages >= 0.95 strong reward on held-out tasks of every kind', async () => {
    const tasks = generateTasks({ split: 'ood', n: 24, seed: 7 });
    const policy = new ScriptedPolicy({ specFor: (p) => tasks.find((t) => t.prompt === p)?.spec });
    const out = await policy.generate(tasks.map((t) => conversationFor(t.prompt)), { n: 1, seed: 1 });
    const rewards = tasks.map((t, i) => strong.score({ prompt: t.prompt, completion: out[i][0].text, spec: t.spec }).reward);
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    expect(mean).toBeGreaterThanOrEqual(0.95);
    expect(new Set(tasks.map((t) => t.spec.kind)).size).toBeGreaterThanOrEqual(6);
  });

  it('writes every coordinate and size on the grid, quirks included, so that a student sees few distinct numbers', async () => {
    const tasks = generateTasks({ split: 'ood', n: 16, seed: 3 });
    const quirks = { abbrev: 0.3, cramped: 0.5, overlap: 0.5 };
    const policy = new ScriptedPolicy({ specFor: (p) => tasks.find((t) => t.prompt === p)?.spec, quirks });
    const out = await policy.generate(tasks.map((t) => conversationFor(t.prompt)), { n: 2, seed: 5, temperature: 1 });
    const numbers = out.flat().flatMap((c) => canvasOf(c.text).shapeList().flatMap((s) => [s.x, s.y, s.w, s.h]));
    expect(numbers.length).toBeGreaterThan(100);
    expect(numbers.filter((v) => v % GRID !== 0)).toEqual([]);
    const fired = out.flat().flatMap((c) => c.quirks ?? []);
    expect(fired).toEqual(expect.arrayContaining(['cramped', 'overlap']));
  });

  it('answers a free-form prompt from the extracted spec', async () => {
    const policy = new ScriptedPolicy({ extract: (await import('../../../src/diagram/reward/extract.ts')).extractSpec });
    const [[c]] = await policy.generate([conversationFor('Draw a CI pipeline with commit, tests, build, deploy.')]);
    const labels = canvasOf(c.text).shapeList().map((s) => s.text.toLowerCase());
    expect(labels).toEqual(expect.arrayContaining(['commit', 'tests', 'build', 'deploy']));
  });

  it('refuses at once what one answer cannot hold: more actions than an answer may have, a prompt over the limit', async () => {
    // A 100,000-entity task once held the teacher for over a minute, laying out an answer the parser then refused.
    const entities = Array.from({ length: 100_000 }, (_, i) => `Service ${i}`);
    const huge: DiagramSpec = { entities, edges: entities.slice(1).map((e, i) => [entities[i], e]) };
    const started = performance.now();
    const [answers] = await new ScriptedPolicy({ specFor: () => huge }).generate([conversationFor('Draw the chain')], { n: 2 });
    expect(performance.now() - started).toBeLessThan(2000);
    const refusal = 'scripted teacher: the diagram takes 199,999 actions; the limit is 40 per answer';
    expect(answers).toEqual([1, 2].map(() => ({ text: '', finishReason: 'error', error: refusal })));
    // An action per distinct entity and per distinct edge between two of them: 20 + 20 fit, one more does not.
    const ring = (n: number): DiagramSpec => {
      const names = Array.from({ length: n }, (_, i) => `Step ${i}`);
      return { entities: [...names, names[0]], edges: [...names.map((e, i) => [e, names[(i + 1) % n]] as [string, string]), [names[0], names[1]], [names[0], names[0]], [names[0], 'Nobody']] };
    };
    expect(scriptRefusal(ring(20))).toBeNull();
    expect(scriptRefusal({ ...ring(20), entities: [...ring(20).entities, 'Extra'] })).toBe('the diagram takes 41 actions; the limit is 40 per answer');
    const extracted = new ScriptedPolicy({ extract: (await import('../../../src/diagram/reward/extract.ts')).extractSpec });
    const [[long]] = await extracted.generate([conversationFor(`Draw ${'A -> B '.repeat(3000)}`)]);
    expect(long).toEqual({ text: '', finishReason: 'error', error: 'scripted teacher: the prompt is 21,005 characters; the limit is 20,000' });
  });

  it('names the prompt when it has no spec and no extractor', async () => {
    await expect(new ScriptedPolicy().generate([conversationFor('Draw a cat')])).rejects.toThrow(/no spec for prompt "Draw a cat"/);
  });

  it('is deterministic for a seed, and varies attempts at temperature > 0', async () => {
    const p = new ScriptedPolicy({ specFor: () => tree, quirks: { abbrev: 0.5, prose: 0.5 } });
    const a = await p.generate([conversationFor('x')], { n: 4, seed: 3 });
    const b = await p.generate([conversationFor('x')], { n: 4, seed: 3 });
    expect(a).toEqual(b);
    expect(new Set(a[0].map((c) => c.text)).size).toBeGreaterThan(1);
  });
});

describe('teacher quirks', () => {
  it('parses rates and refuses bad ones by name', () => {
    expect(parseQuirks('abbrev=0.3, cramped=0.2')).toEqual({ abbrev: 0.3, cramped: 0.2 });
    expect(() => parseQuirks('shouting=0.3')).toThrow(/unknown quirk "shouting"/);
    expect(() => parseQuirks('abbrev=1.5')).toThrow(/abbrev: rate must be a number in \[0, 1\]/);
    expect(() => parseQuirks('abbrev')).toThrow(/not name=rate/);
  });

  it('abbreviates the way teachers do', () => {
    expect(abbreviateLabel('User Database')).toBe('User DB');
    expect(abbreviateLabel('Authentication Service')).toBe('Auth Svc');
    expect(abbreviateLabel('Databases')).toBe('DBs');
    expect(abbreviateLabel('Checkout')).toBe('Checkout');
  });

  it('each quirk, forced on, shows in its detector and costs reward; off, the detectors read zero', async () => {
    const clean = await canonical(chain);
    const base = strong.score({ prompt: 'p', completion: clean.text, spec: chain }).reward;
    expect(detectQuirks(clean.text, canvasOf(clean.text), chain)).toEqual({ abbrev: 0, cramped: 0, overlap: 0, missing_edge: 0, prose: 0 });
    const forced = async (name: string) => {
      const s = await scriptCompletion(chain, { seed: 0, sample: 0, temperature: 0, quirks: { [name]: 1 } });
      expect(s.quirks).toEqual([name]);
      expect(strong.score({ prompt: 'p', completion: s.text, spec: chain }).reward).toBeLessThan(base);
      return s.text;
    };
    const abbrev = await forced('abbrev');
    expect(abbreviationRate(canvasOf(abbrev), chain)).toBe(1);
    expect(crampedRate(canvasOf(await forced('cramped')))).toBe(1);
    expect(overlapRate(canvasOf(await forced('overlap')))).toBeGreaterThan(0);
    expect(missingEdgeRate(canvasOf(await forced('missing_edge')), chain)).toBeCloseTo(1 / 3);
    const prose = await forced('prose');
    expect(hasProse(prose)).toBe(true);
    expect(executeCompletion(prose).errors).toEqual([]);
  });

  it('tells prose from an answer cut at the token limit', () => {
    const json = '{"actions":[{"type":"create_shape","id":"a}","shape":"text","x":0,"y":0,"w":9,"h":9,"text":"{ \\" }"}]}';
    expect(hasProse(json)).toBe(false);
    expect(hasProse(`  ${json}\n`)).toBe(false);
    expect(hasProse(json.slice(0, 60))).toBe(false);
    expect(hasProse(`${json} That is the diagram.`)).toBe(true);
    expect(hasProse(`Here you go: ${json}`)).toBe(true);
    expect(hasProse('```json\n' + json + '\n```')).toBe(true);
    expect(hasProse('I cannot draw that.')).toBe(true);
  });

  it('fires each quirk at about its rate over many completions', async () => {
    const rates = { abbrev: 0.3, prose: 0.2, missing_edge: 0.1 };
    const counts: Record<string, number> = {};
    const n = 300;
    for (let i = 0; i < n; i++) {
      const s = await scriptCompletion(chain, { seed: 1, sample: i, temperature: 1, quirks: rates });
      for (const q of s.quirks) counts[q] = (counts[q] ?? 0) + 1;
    }
    for (const [q, r] of Object.entries(rates)) expect(Math.abs(counts[q] / n - r)).toBeLessThan(0.07);
    expect(counts.cramped).toBeUndefined();
  });
});
