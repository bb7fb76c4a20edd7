// strong-values.ts asks labelMatch only about pairs that share a stem bit or a canonical form's hash: entities and
// labels whose canonical forms agree while their words do not ("Front End" and "frontend"), and long entities whose
// matches can weigh below zero, against the full analysis.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/random.ts';
import { normalizeLabel } from '../src/reward/labels.ts';
import type { ScoreInput } from '../src/reward/rubric.ts';
import { executeCountsFast } from '../src/reward/strong-fast.ts';
import { analyzeStrong, strongRubric } from '../src/reward/strong.ts';
import type { DiagramSpec } from '../src/tasks/spec.ts';

const shape = (id: string, text: string, x: number) =>
  `{"type": "create_shape", "id": "${id}", "shape": "rectangle", "x": ${x}, "y": 0, "w": 120, "h": 60, "text": ${JSON.stringify(text)}}`;
const connect = (from: string, to: string) => `{"type": "connect", "from": "${from}", "to": "${to}"}`;

function agree(inputs: ScoreInput[]): void {
  for (const input of inputs) {
    expect(executeCountsFast(input.completion)).not.toBeNull();
    const score = strongRubric.score(input);
    const values = analyzeStrong(input).values;
    const expected: Record<string, number> = {};
    for (const c of strongRubric.components) expected[c.name] = Math.min(1, Math.max(0, values[c.name as keyof typeof values]));
    expect({ input, ...score.components }).toEqual({ input, ...expected });
  }
}

const LONG = 'one two three four five six seven eight nine ten eleven twelve';

describe('strong entity matching: the pairs labelMatch is asked about', () => {
  it('finds canonical forms that agree across word splits, whose stems share no bit', () => {
    const pairs = [
      ['Front End', 'frontend'],
      ['Load Balancer', 'loadbalancer'],
      ['Data Base', 'Database'],
      ['Web Server', 'webserver'],
    ];
    let disjoint = 0;
    for (const [a, b] of pairs) {
      const x = normalizeLabel(a);
      const y = normalizeLabel(b);
      expect(x.compact).toBe(y.compact);
      expect(x.compactHash).toBe(y.compactHash);
      if ((x.stemMask & y.stemMask) === 0) disjoint++;
    }
    expect(disjoint).toBeGreaterThan(0);
  });

  it('gives the full analysis\'s values on such labels, contested matches and long entities', () => {
    const specs: DiagramSpec[] = [
      { entities: ['Front End', 'Load Balancer', 'Data Base'], edges: [['Front End', 'Load Balancer'], ['loadbalancer', 'database']] },
      { entities: ['frontend', 'Web Server', 'Front'], edges: [['frontend', 'webserver']] },
      { entities: [LONG, 'one two', 'twelve'], edges: [[LONG, 'twelve']] },
    ];
    const labels = ['frontend', 'FrontEnd', 'front-end', 'Front End', 'loadbalancer', 'Load Balancer', 'Database', 'data base', 'webserver',
      'Web Server', 'Front', 'end', `${LONG} a b c d e f`, `${LONG} x y z`, 'one two', 'twelve', 'eleven twelve', 'Title', ''];
    const rng = mulberry32(3);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
    const inputs: ScoreInput[] = [];
    for (let t = 0; t < 600; t++) {
      const spec = pick(specs);
      const n = 1 + Math.floor(rng() * 5);
      const actions = Array.from({ length: n }, (_, i) => shape(`s${i}`, pick(labels), i * 200));
      for (let k = Math.floor(rng() * 4); k > 0; k--) actions.push(connect(`s${Math.floor(rng() * n)}`, `s${Math.floor(rng() * n)}`));
      inputs.push({ prompt: `Draw ${spec.entities.join(', ')}`, completion: `{"actions": [${actions.join(', ')}]}`, spec });
    }
    agree(inputs);
  });
});

describe('strong action checks: the table of shapes by id (assembly/seed-score.ts, shared with the seed scorer)', () => {
  it('finds every shape by id, the last of 39 included, and forgets the previous completion\'s', () => {
    const spec: DiagramSpec = { entities: ['Database'], edges: [] };
    let wasm = 0;
    for (let k = 1; k <= 39; k++) {
      const ids = Array.from({ length: k }, (_, i) => `node-${i * 7919}`);
      const shapes = ids.map((id, i) => shape(id, 'Database', i * 200));
      const last = ids[k - 1];
      const texts = [
        `{"actions": [${[...shapes, connect(ids[0], last)].join(', ')}]}`,
        `{"actions": [${[...shapes, connect(last, ids[0])].join(', ')}]}`,
        `{"actions": [${[...shapes, shape(last, 'again', 9000)].join(', ')}]}`,
        `{"actions": [${[shape('other', 'x', 0), connect('other', last)].join(', ')}]}`,
      ];
      for (const completion of texts) {
        if (executeCountsFast(completion)?.checks === 'wasm') wasm++;
        agree([{ prompt: 'Draw a database', completion, spec }]);
      }
    }
    expect(wasm).toBe(39 * 4);
  });
});
