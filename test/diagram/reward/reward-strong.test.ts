import { describe, expect, it } from 'vitest';
import { analyzeStrong, strongRubric } from '../../../src/diagram/reward/strong.ts';
import { bestAssignment, labelMatch, matchEntities, spellOut } from '../../../src/diagram/reward/labels.ts';
import { DEFAULT_MAX_ACTIONS } from '../../../src/diagram/language/actions.ts';
import { DEFAULT_MAX_INPUT_CHARS } from '../../../src/diagram/language/parse.ts';
import { mulberry32 } from '../../../src/random.ts';
import { LIMITS } from '../../../src/diagram/tasks/limits.ts';
import type { DiagramSpec } from '../../../src/diagram/tasks/spec.ts';

const prompt = 'Draw a three step data pipeline: client, API, database.';
const spec: DiagramSpec = { entities: ['Client', 'API', 'Database'], edges: [['Client', 'API'], ['API', 'Database']] };
const box = (id: string, x: number, text = id) => ({ type: 'create_shape', id, shape: 'rectangle', x, y: 40, w: 140, h: 60, text });
const link = (from: string, to: string, text?: string) => ({ type: 'connect', from, to, ...(text ? { text } : {}) });
const answer = (actions: unknown[]) => JSON.stringify({ actions });
const honest = [box('client', 40, 'Client'), box('api', 240, 'API'), box('db', 440, 'Database'), link('client', 'api'), link('api', 'db')];
const score = (completion: string, s: DiagramSpec | undefined = spec) => strongRubric.score({ prompt, completion, spec: s });

describe('labelMatch', () => {
  it('ignores case, punctuation and plurals', () => {
    expect(labelMatch('Auth Service', 'auth-service')).toBe(1); // the entity itself is spelled "Auth": no penalty
    expect(labelMatch('Authentication Service', 'auth-service')).toBe(0.5); // the label abbreviates a fuller name
    expect(labelMatch('Auth Service', 'Authentication Service')).toBe(1);
    expect(labelMatch('Source Dev Box', 'src dev box')).toBe(0.5);
    expect(labelMatch('Src Dev Box', 'src dev box')).toBe(1);
    expect(labelMatch('Authentication Service', 'AUTHENTICATION SERVICES!')).toBe(1);
    expect(labelMatch('Queries', 'query')).toBe(1);
    expect(labelMatch('APIs', 'API')).toBe(1);
    expect(labelMatch('Front-end', 'frontend')).toBe(1);
  });

  it('gives full credit only to the fuller name', () => {
    expect(labelMatch('Database', 'Database')).toBe(1);
    expect(labelMatch('Database', 'DB')).toBe(0.5);
    expect(labelMatch('DB', 'Database')).toBe(1);
    expect(labelMatch('vector DB', 'Vector Database')).toBe(1);
    expect(labelMatch('vector DB', 'Vector DB')).toBe(1); // the entity is spelled that way
    expect(labelMatch(spellOut('vector DB'), 'Vector DB')).toBe(0.5); // what the extraction path compares
    expect(labelMatch('Kubernetes', 'k8s')).toBe(0.5);
    expect(labelMatch('Message Queue', 'MQ')).toBe(0.5);
    expect(labelMatch('Repository', 'repo')).toBe(0.5);
  });

  it('refuses labels stuffed with extra words and wrong names', () => {
    expect(labelMatch('Database', 'Postgres Database')).toBeCloseTo(0.8);
    expect(labelMatch('Database', 'Main Postgres Database')).toBe(0);
    expect(labelMatch('Client', 'Draw a three step data pipeline client API database')).toBe(0);
    expect(labelMatch('Client', 'Server')).toBe(0);
    expect(labelMatch('Fraud Check', 'Fraud')).toBe(0.25);
  });
});

describe('matchEntities', () => {
  it('matches one shape to at most one entity, choosing the best assignment', () => {
    // Greedy would give "Auth Service" to the first entity that matches it; the best total gives each its own.
    const m = matchEntities(['Auth', 'Auth Service'], ['Auth Service', 'Authentication']);
    expect(m.assignment).toEqual([1, 0]);
    const one = matchEntities(['Client', 'API', 'Database'], ['Client API Database']);
    expect(one.assignment.filter((j) => j !== -1).length).toBeLessThanOrEqual(1);
  });

  it('never lets a giant text box of every prompt word match', () => {
    const m = matchEntities(['Client', 'API', 'Database'], [prompt]);
    expect(m.quality).toEqual([0, 0, 0]);
  });

  it('assigns rows to columns optimally in rectangular problems', () => {
    expect(bestAssignment([[1, 0.9], [0.8, 0]])).toEqual([1, 0]);
    expect(bestAssignment([[0.5], [0.9], [0]])).toEqual([-1, 0, -1]);
    expect(bestAssignment([])).toEqual([]);
  });

  it('finds the best total on random contested problems, more rows than columns or fewer', () => {
    const rng = mulberry32(19);
    /** The best total by trying every assignment of rows to distinct columns (or to none). */
    const best = (w: number[][], i = 0, used = new Set<number>()): number => {
      if (i === w.length) return 0;
      let top = best(w, i + 1, used);
      for (let j = 0; j < w[i].length; j++) {
        if (used.has(j) || w[i][j] === 0) continue;
        used.add(j);
        top = Math.max(top, w[i][j] + best(w, i + 1, used));
        used.delete(j);
      }
      return top;
    };
    for (let t = 0; t < 400; t++) {
      const n = 1 + Math.floor(rng() * 7);
      const m = 1 + Math.floor(rng() * 5);
      // Few distinct weights, so that rows tie and contest the same columns.
      const w = Array.from({ length: n }, () => Array.from({ length: m }, () => [0, 0, 0.5, 0.8, 1][Math.floor(rng() * 5)]));
      const a = bestAssignment(w);
      const columns = a.filter((j) => j !== -1);
      expect(new Set(columns).size).toBe(columns.length);
      expect(a.reduce((sum, j, i) => sum + (j === -1 ? 0 : w[i][j]), 0)).toBeCloseTo(best(w), 9);
      for (const [i, j] of a.entries()) if (j !== -1) expect(w[i][j]).toBeGreaterThan(0);
    }
  });
});

describe('strong rubric', () => {
  it('scores an honest answer 1 and reports every component with its weight', () => {
    const s = score(answer(honest));
    expect(s.reward).toBeCloseTo(1);
    expect(Object.keys(s.components)).toEqual(['parses_json', 'schema_valid', 'renderer_accepts', 'entities_present', 'edges_correct', 'layout_quality']);
    expect(Object.values(s.weights).reduce((a, b) => a + b, 0)).toBeCloseTo(1);
  });

  it('gives partial credit per action: 3 of 4 valid lies between none and all', () => {
    const actions = [box('client', 40, 'Client'), box('api', 240, 'API'), box('db', 440, 'Database'), link('client', 'api')];
    const all = score(answer(actions));
    const three = score(answer([...actions.slice(0, 3), { ...link('client', 'api'), to: 42 }]));
    const none = score(answer(actions.map((a) => ({ ...a, type: 'make_shape' }))));
    expect(three.components.schema_valid).toBeCloseTo(0.75);
    expect(none.reward).toBeLessThan(three.reward);
    expect(three.reward).toBeLessThan(all.reward);
  });

  it('tells schema errors from canvas refusals', () => {
    const s = score(answer([...honest, link('client', 'ghost'), { ...box('x', 900), w: -5 }]));
    expect(s.components.schema_valid).toBeCloseTo(6 / 7);
    expect(s.components.renderer_accepts).toBeCloseTo(5 / 7);
    expect(s.errors).toHaveLength(2);
  });

  it('gives renderer_accepts 0 when nothing is drawn', () => {
    const s = score(answer([link('a', 'b')]));
    expect(s.components.schema_valid).toBe(1);
    expect(s.components.renderer_accepts).toBe(0);
  });

  it('gives full parse credit only to bare JSON', () => {
    const bare = score(answer(honest));
    const fenced = score('```json\n' + answer(honest) + '\n```');
    const prose = score('Here you go: ' + answer(honest) + ' Enjoy!');
    const broken = score(answer(honest).slice(0, -3));
    expect(fenced.components.parses_json).toBe(0.8);
    expect(prose.components.parses_json).toBe(0.6);
    expect(broken.reward).toBe(0);
    expect(bare.reward).toBeGreaterThan(fenced.reward);
    expect(fenced.reward).toBeGreaterThan(prose.reward);
  });

  it('pays less for abbreviated labels, so RL can move "DB" to "Database"', () => {
    const db = score(answer(honest.map((a) => ('id' in a && a.id === 'db' ? { ...a, text: 'DB' } : a))));
    expect(db.components.entities_present).toBeCloseTo((1 + 1 + 0.5) / 3);
    expect(db.reward).toBeLessThan(score(answer(honest)).reward);
  });

  it('asks for the fuller name when the entities come from a prompt that abbreviates', () => {
    const rag = 'Draw a simple RAG system with documents, embeddings, vector DB, retriever, and LLM.';
    const names = ['Documents', 'Embeddings', 'VECTOR', 'Retriever', 'LLM'];
    const diagram = (vector: string) =>
      answer([...names.map((n, i) => box(`n${i}`, 40 + 220 * i, n === 'VECTOR' ? vector : n)), ...[0, 1, 2, 3].map((i) => link(`n${i}`, `n${i + 1}`))]);
    const full = strongRubric.score({ prompt: rag, completion: diagram('Vector Database') });
    const short = strongRubric.score({ prompt: rag, completion: diagram('Vector DB') });
    expect(full.components.entities_present).toBeGreaterThan(short.components.entities_present);
  });

  it('charges duplicated entity shapes beyond a small allowance', () => {
    const copies = [1, 2, 3, 4].map((k) => box(`db${k}`, 40 + 200 * k, 'Database')).map((a) => ({ ...a, y: 400 }));
    const s = analyzeStrong({ prompt, completion: answer([...honest, ...copies]), spec });
    expect(s.excessShapes).toBe(2); // 4 extra shapes, 2 free for 3 entities
    expect(s.values.entities_present).toBeCloseTo(3 / 5);
  });

  it('scores edges: missing, reversed and extra arrows all lose', () => {
    const shapes = honest.slice(0, 3);
    const edge = (arrows: unknown[]) => score(answer([...shapes, ...arrows])).components.edges_correct;
    expect(edge([link('client', 'api'), link('api', 'db')])).toBe(1);
    expect(edge([link('client', 'api')])).toBeCloseTo(0.5);
    expect(edge([link('api', 'client'), link('db', 'api')])).toBe(0);
    expect(edge([link('client', 'api'), link('api', 'db'), link('client', 'db')])).toBeCloseTo(2 / 3);
    expect(edge([link('client', 'api'), link('api', 'db'), link('client', 'api')])).toBeCloseTo(2 / 3);
  });

  it('gives requested arrow labels a small share of edges_correct', () => {
    const labeled: DiagramSpec = { ...spec, edgeLabels: { 'Client->API': 'HTTPS request' } };
    const shapes = honest.slice(0, 3);
    const plain = score(answer([...shapes, link('client', 'api'), link('api', 'db')]), labeled);
    const withLabel = score(answer([...shapes, link('client', 'api', 'HTTPS requests'), link('api', 'db')]), labeled);
    expect(withLabel.components.edges_correct).toBe(1);
    expect(plain.components.edges_correct).toBeCloseTo(0.85);
  });

  it('penalises arrows when the task asks for none, and rewards connecting entities when structure is unknown', () => {
    const noEdges: DiagramSpec = { entities: ['Client', 'API', 'Database'], edges: [] };
    const shapes = honest.slice(0, 3);
    expect(score(answer(shapes), noEdges).components.edges_correct).toBe(1);
    expect(score(answer(honest), noEdges).components.edges_correct).toBeCloseTo(1 / 3);
    const unordered = 'Draw a diagram with a client, an API and a database.';
    const connected = strongRubric.score({ prompt: unordered, completion: answer(honest) });
    const loose = strongRubric.score({ prompt: unordered, completion: answer(shapes) });
    expect(connected.components.edges_correct).toBe(1);
    expect(loose.components.edges_correct).toBe(0);
  });

  it('uses the spec extracted from the prompt when the row has none', () => {
    const a = analyzeStrong({ prompt, completion: answer(honest) });
    expect(a.specSource).toBe('prompt');
    expect(a.spec.entities).toEqual(['client', 'API', 'database']);
    expect(a.values.edges_correct).toBe(1);
  });
});

describe('shape kinds the spec asks for', () => {
  it('pays less for a decision drawn as a rectangle than as a diamond', () => {
    const decisionSpec: DiagramSpec = { entities: ['Request', 'Approved?', 'Ship', 'Reject'], edges: [['Request', 'Approved?'], ['Approved?', 'Ship'], ['Approved?', 'Reject']], shapes: { 'Approved?': 'diamond' } };
    const build = (kind: string) =>
      JSON.stringify({
        actions: [
          { type: 'create_shape', id: 'req', shape: 'rectangle', x: 0, y: 100, w: 140, h: 60, text: 'Request' },
          { type: 'create_shape', id: 'ok', shape: kind, x: 220, y: 90, w: 140, h: 80, text: 'Approved?' },
          { type: 'create_shape', id: 'ship', shape: 'rectangle', x: 440, y: 0, w: 140, h: 60, text: 'Ship' },
          { type: 'create_shape', id: 'rej', shape: 'rectangle', x: 440, y: 200, w: 140, h: 60, text: 'Reject' },
          { type: 'connect', from: 'req', to: 'ok' },
          { type: 'connect', from: 'ok', to: 'ship', text: 'yes' },
          { type: 'connect', from: 'ok', to: 'rej', text: 'no' },
        ],
      });
    const diamond = strongRubric.score({ prompt: 'x', completion: build('diamond'), spec: decisionSpec });
    const rect = strongRubric.score({ prompt: 'x', completion: build('rectangle'), spec: decisionSpec });
    expect(diamond.components.entities_present).toBe(1);
    expect(rect.components.entities_present).toBeCloseTo((3 + 0.75) / 4);
  });
});

describe('cost at the row limits (src/diagram/tasks/limits.ts)', () => {
  // The biggest spec a row may carry, against answers that make each part of the score work hardest. Before the
  // matching went linear a 10,000-entity chain took 2.9 s and 800 tied entities 3.7 s; these take milliseconds.
  const words = (n: number, tag: string) => Array.from({ length: n }, (_, k) => `w${tag}${k}`).join(' ');
  const entities = Array.from({ length: LIMITS.entities }, (_, i) => `${words(25, '')} e${i}`.slice(-LIMITS.nameChars));
  const edges = Array.from({ length: LIMITS.edges }, (_, k) => [entities[k % LIMITS.entities], entities[(k * 7 + 1) % LIMITS.entities]] as [string, string]);
  const edgeLabels = Object.fromEntries(edges.map(([a, b], k) => [`${a}->${b}`, `${words(15, 'l')} ${k}`.slice(-LIMITS.nameChars)]));
  const big: DiagramSpec = { entities, edges, edgeLabels };
  const diagram = (label: (i: number) => string, arrow: string, shapes = 20) =>
    answer([
      ...Array.from({ length: shapes }, (_, i) => box(`s${i}`, 200 * i, label(i))),
      ...Array.from({ length: DEFAULT_MAX_ACTIONS - shapes }, (_, i) => link(`s${i % shapes}`, `s${(i + 1) % shapes}`, arrow)),
    ]);
  const answers = {
    'the entities, every arrow labelled': diagram((i) => entities[i], edgeLabels[`${edges[0][0]}->${edges[0][1]}`]),
    'one name on every shape: 200 entities tied for 40 shapes': diagram(() => entities[0], 'x', DEFAULT_MAX_ACTIONS),
    'labels of every word the entities share': diagram(() => words(25, ''), words(15, 'l')),
    'one label of 190,000 characters': diagram((i) => (i === 0 ? words(30_000, 'h').slice(0, 190_000) : entities[i]), 'x'),
  };

  it.each(Object.entries(answers))('scores the biggest spec allowed in well under a second: %s', (_, completion) => {
    expect(completion.length).toBeLessThanOrEqual(DEFAULT_MAX_INPUT_CHARS);
    const input = { prompt, completion, spec: big };
    strongRubric.score(input);
    // A copy of the spec, so that nothing worked out for it before is reused.
    const started = performance.now();
    strongRubric.score({ ...input, spec: { ...big } });
    // Measured 20-50 ms (130 at worst) on 2 cores shared under a load of 10.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('scores a prompt of the longest allowed, and the spec read from it, in well under a second', () => {
    const names = Array.from({ length: 2000 }, (_, i) => `Service ${i}`);
    const long = `Draw a pipeline: ${names.join(' -> ')}`.slice(0, LIMITS.promptChars);
    const started = performance.now();
    strongRubric.score({ prompt: long, completion: diagram((i) => names[i], 'x') });
    // Measured 60-200 ms, most of it reading the prompt.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
