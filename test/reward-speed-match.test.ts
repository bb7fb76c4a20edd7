// assembly/strong-match.ts matches entities to shapes and scores the edges' structure on words handed over as atoms
// (strong-values.ts), within fixed tables: what does not fit them (more than 64 entities or 256 edges, long entity
// names, labels of more than 1,024 words) takes JavaScript's path. Either way the values must be the full analysis's.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/random.ts';
import type { ScoreInput } from '../src/reward/rubric.ts';
import { executeCountsFast } from '../src/reward/strong-fast.ts';
import { analyzeStrong, strongRubric } from '../src/reward/strong.ts';
import type { DiagramSpec } from '../src/tasks/spec.ts';

const KINDS = ['rectangle', 'ellipse', 'diamond', 'text'];

function agree(inputs: ScoreInput[]): void {
  for (const input of inputs) {
    expect(executeCountsFast(input.completion)?.checks).toBe('wasm');
    const score = strongRubric.score(input);
    const values = analyzeStrong(input).values;
    const expected: Record<string, number> = {};
    for (const c of strongRubric.components) expected[c.name] = Math.min(1, Math.max(0, values[c.name as keyof typeof values]));
    expect({ input, ...score.components }).toEqual({ input, ...expected });
  }
}

/** Random answers to a spec: its names, their variants and strangers as labels, random kinds and arrows. */
function answers(spec: DiagramSpec, count: number, seed: number, extraLabels: string[] = []): ScoreInput[] {
  const rng = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
  const labels = [...spec.entities, ...spec.entities.map((e) => e.toLowerCase()), ...extraLabels, 'Title', 'Note', ''];
  const inputs: ScoreInput[] = [];
  for (let t = 0; t < count; t++) {
    const n = 1 + Math.floor(rng() * Math.min(40, spec.entities.length + 3));
    const actions: object[] = Array.from({ length: n }, (_, i) => ({ type: 'create_shape', id: `s${i}`, shape: pick(KINDS), x: i * 150, y: (i % 3) * 90, w: 120, h: 60, text: pick(labels) }));
    const links = Math.min(40 - n, Math.floor(rng() * 2 * n));
    for (let k = 0; k < links; k++) {
      const arrow: Record<string, string> = { type: 'connect', from: `s${Math.floor(rng() * n)}`, to: `s${Math.floor(rng() * n)}` };
      if (rng() < 0.3) arrow.text = pick(['calls', 'writes', 'yes', 'no', 'reads from']);
      actions.push(arrow);
    }
    inputs.push({ prompt: `Draw ${spec.entities.slice(0, 3).join(', ')}`, completion: JSON.stringify({ actions }), spec });
  }
  return inputs;
}

describe('strong entity matching in WebAssembly: the tables and what does not fit them', () => {
  it('agrees on specs at and beyond the tables: 64 and 65 entities, 256 and 257 edges', () => {
    for (const count of [64, 65]) {
      const entities = Array.from({ length: count }, (_, i) => `Service ${i} Node`);
      const edges = entities.slice(1).map((e, i) => [entities[i], e] as [string, string]);
      agree(answers({ entities, edges }, 60, count));
    }
    for (const count of [256, 257]) {
      const entities = ['Client', 'API Gateway', 'Database', 'Cache'];
      const edges = Array.from({ length: count }, (_, i) => [entities[i % 4], entities[(i * 3 + 1) % 4]] as [string, string]);
      agree(answers({ entities, edges }, 60, count));
    }
  });

  it('agrees as the spec names fill the name table (512 names, 2,048 words) and it starts over, and past it', () => {
    // 300 specs of 6 new names each (and edge ends that are no entity): the table starts over some 4 times, and a
    // spec's names are looked up again after that.
    const rng = mulberry32(77);
    const specs: DiagramSpec[] = [];
    for (let s = 0; s < 300; s++) {
      const entities = Array.from({ length: 6 }, (_, i) => `Node ${s} ${i}${rng() < 0.3 ? ' Service Store' : ''}`);
      const edges = entities.slice(1).map((e, i) => [entities[i], e] as [string, string]);
      edges.push([`Outside ${s}`, entities[0]]);
      specs.push({ entities, edges });
    }
    for (let s = 0; s < specs.length; s++) {
      agree(answers(specs[s], 2, 1000 + s));
      if (s % 7 === 0) agree(answers(specs[Math.floor(rng() * s)], 1, 2000 + s));
    }
    // More names than the table holds in one spec (64 entities, 256 edges to 400 other names), and words: to JavaScript.
    const entities = Array.from({ length: 64 }, (_, i) => `Part ${i}`);
    const edges = Array.from({ length: 256 }, (_, i) => [`Other ${i}`, `Other ${i + 200}`] as [string, string]);
    agree(answers({ entities, edges }, 20, 9));
    const wordy = Array.from({ length: 40 }, (_, i) => Array.from({ length: 60 }, (_, k) => `w${i}x${k}`).join(' '));
    agree(answers({ entities: wordy, edges: [[wordy[0], wordy[1]]] }, 20, 10));
  });

  it('agrees on entity names too long for the spec\'s words, and labels of more than 1,024 words', () => {
    const long = Array.from({ length: 1100 }, (_, i) => `word${i}`).join(' ');
    agree(answers({ entities: [long, 'Database'], edges: [[long, 'Database']] }, 40, 5, [long, `${long} extra`]));
    const many = Array.from({ length: 700 }, (_, i) => `Part ${i} of ${i + 1}`);
    agree(answers({ entities: many.slice(0, 60), edges: [] }, 40, 6));
  });

  it('agrees on kinds asked for with odd values, names that are Object keys, and edges named canonically', () => {
    const specs = [
      { entities: ['Approve', 'Reject', 'Review'], edges: [['review', 'approve'], ['Review', 'reject']], shapes: { Approve: 'diamond', Reject: 'circle', Review: '' } },
      { entities: ['constructor', 'toString', 'Database'], edges: [['constructor', 'Database']], shapes: {} },
      { entities: ['Auth Service', 'auth svc', 'Authentication Service'], edges: [['authservice', 'authenticationservice'], ['Auth Service', 'auth svc']], shapes: { 'auth svc': 'ellipse' } },
      // Ends that no entity is named, whose canonical form two entities share (and one that one entity's is).
      { entities: ['Front End', 'front-end', 'Database'], edges: [['FrontEnd', 'Database'], ['front end', 'Database'], ['Data Base', 'Front End']] },
    ] as unknown as DiagramSpec[];
    specs.forEach((spec, i) => agree(answers(spec, 150, 10 + i, ['Auth', 'authentication service', 'Approve!', 'to string', 'Front-End'])));
  });

  it('agrees with arrow labels asked for, also with the spec read from the prompt', () => {
    const spec: DiagramSpec = {
      entities: ['Client', 'API Gateway', 'Database'],
      edges: [['Client', 'API Gateway'], ['API Gateway', 'Database']],
      edgeLabels: { 'Client->API Gateway': 'calls', 'API Gateway -> Database': 'reads from', nonsense: 'x' },
    };
    const inputs = answers(spec, 200, 21);
    agree([...inputs, ...inputs.slice(0, 60).map(({ prompt, completion }) => ({ prompt, completion }))]);
  });

  it('agrees on labels with extra words, up to and past what an entity of 1 to 4 words tolerates', () => {
    const spec: DiagramSpec = { entities: ['Cache', 'Load Balancer', 'Fraud Check Service', 'Feature Store Sync Job'], edges: [['Cache', 'Load Balancer']] };
    const extra = ['alpha', 'beta', 'gamma'];
    const labels = spec.entities.flatMap((e) => [1, 2, 3].map((k) => `${e} ${extra.slice(0, k).join(' ')}`));
    agree(answers(spec, 200, 41, labels));
  });

  it('agrees on contested matches: many shapes and entities tied on the same words', () => {
    const spec: DiagramSpec = {
      entities: ['Cache', 'Cache Layer', 'Layer', 'Web Cache', 'Cache Web', 'Web'],
      edges: [['Cache', 'Web'], ['Web Cache', 'Cache Layer'], ['cachelayer', 'web']],
    };
    agree(answers(spec, 300, 33, ['caches', 'Web Caches', 'layer cache', 'web web', 'Cache Cache Layer']));
  });

  it('agrees on contested matches with more entities than shapes, in the tables (60) and beyond them (150)', () => {
    // The method then takes the shapes as its rows: the assignment either path finds must be the same one.
    for (const count of [60, 150]) {
      const entities = Array.from({ length: count }, (_, i) => ['Cache', 'Web Cache', 'Cache Layer', 'Web', 'Queue'][i % 5]);
      const edges = entities.slice(1).map((e, i) => [entities[i], e] as [string, string]);
      agree(answers({ entities, edges, shapes: { Queue: 'diamond' } }, 80, count, ['caches', 'Web Caches', 'layer cache']));
    }
  });
});
