import { describe, expect, it } from 'vitest';
import { scoreRollout, summarize } from '../../src/eval/evaluate.ts';
import { renderReport, lineChart } from '../../src/eval/report.ts';
import { compareTable, differences } from '../../src/eval/compare.ts';
import type { Task } from '../../src/diagram/tasks/spec.ts';
import { diagramEnv } from '../../src/diagram/diagram-env.ts';
import { arithmeticEnv } from '../../src/arithmetic/arithmetic-env.ts';

const task = (id: string, kind: 'chain' | 'tree'): Task => ({ id, prompt: 'Draw a pipeline: client, API, database.', spec: { entities: ['Client', 'API', 'Database'], edges: [['Client', 'API'], ['API', 'Database']], kind, difficulty: 1 } });
const good = JSON.stringify({
  actions: [
    { type: 'create_shape', id: 'client', shape: 'rectangle', x: 0, y: 0, w: 140, h: 60, text: 'Client' },
    { type: 'create_shape', id: 'api', shape: 'rectangle', x: 220, y: 0, w: 140, h: 60, text: 'API' },
    { type: 'create_shape', id: 'db', shape: 'rectangle', x: 440, y: 0, w: 140, h: 60, text: 'Database' },
    { type: 'connect', from: 'client', to: 'api' },
    { type: 'connect', from: 'api', to: 'db' },
  ],
});
const half = JSON.stringify({ actions: [{ type: 'create_shape', id: 'client', shape: 'rectangle', x: 0, y: 0, w: 140, h: 60, text: 'Client' }, { type: 'connect', from: 'client', to: 'ghost' }] });

describe('scoreRollout and summarize', () => {
  it('counts parse, schema and renderer rates and pass@k by task', () => {
    const tasks = [task('t1', 'chain'), task('t2', 'tree')];
    const rollouts = [
      scoreRollout(diagramEnv, tasks[0], 0, good, ['strong', 'seed']),
      scoreRollout(diagramEnv, tasks[0], 1, 'no json here', ['strong', 'seed']),
      scoreRollout(diagramEnv, tasks[1], 0, half, ['strong', 'seed']),
      scoreRollout(diagramEnv, tasks[1], 1, half, ['strong', 'seed']),
    ];
    expect(rollouts[0].renderer_accepts).toBe(true);
    expect(rollouts[0].reward).toBeGreaterThan(0.9);
    expect(rollouts[1].parsed).toBe(false);
    expect(rollouts[2]).toMatchObject({ parsed: true, schema_valid: true, renderer_accepts: false });
    expect(rollouts[2].errors).toEqual(['action 1: arrow target does not exist: ghost']);
    const m = summarize(diagramEnv, 'p', tasks, rollouts, { samples: 2, rubrics: ['strong', 'seed'], passThreshold: 0.9, promptTokens: 0, completionTokens: 0, generationSeconds: 0, scoringSeconds: 0 });
    expect(m.parse_rate.mean).toBe(0.75);
    expect(m.renderer_accept_rate.mean).toBe(0.25);
    expect(m.pass_at_k).toEqual({ 'pass@1': 0.25, 'pass@2': 0.5 });
    expect(Object.keys(m.by_kind)).toEqual(['chain', 'tree']);
    expect(m.by_kind.chain.n).toBe(2);
    expect(m.histogram.counts.reduce((a, b) => a + b)).toBe(4);
    expect(Object.keys(m.components)).toContain('entities_present');
  });
});

describe('report and compare', () => {
  const tasks = [task('t1', 'chain'), task('t2', 'tree')];
  const mk = (label: string, completion: string) => {
    const rollouts = tasks.map((t) => scoreRollout(diagramEnv, t, 0, completion, ['strong', 'seed']));
    const metrics = summarize(diagramEnv, label, tasks, rollouts, { samples: 1, rubrics: ['strong', 'seed'], passThreshold: 0.9, promptTokens: 0, completionTokens: 0, generationSeconds: 0, scoringSeconds: 0 });
    return { label, name: label, metrics, rollouts };
  };
  it('renders a self-contained page with the gallery, charts and worst rollouts', () => {
    const html = renderReport({ env: diagramEnv, title: 'Run <x>', evals: [mk('teacher', good), mk('SFT', half)], curves: [{ title: 'SFT loss', xLabel: 'step', series: [{ name: 'loss', points: [{ x: 1, y: 3 }, { x: 2, y: 1 }] }] }] });
    expect(html).toContain('Run &lt;x&gt;');
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect((html.match(/class="diagram"/g) ?? []).length).toBeGreaterThanOrEqual(4);
    expect(html).toContain('arrow target does not exist: ghost');
    expect(html).toContain('aria-label="SFT loss"');
  });
  it("labels the main reward, its parts and the breakdown with the environment's names", () => {
    const sums = arithmeticEnv.tasks('heldout', 3, 0);
    const rollouts = sums.map((t, i) => scoreRollout(arithmeticEnv, t, 0, i === 0 ? 'no idea' : String(t.spec.a + t.spec.b), ['answer']));
    const metrics = summarize(arithmeticEnv, 'p', sums, rollouts, { samples: 1, rubrics: ['answer'], passThreshold: 0.9, promptTokens: 0, completionTokens: 0, generationSeconds: 0, scoringSeconds: 0 });
    const html = renderReport({ env: arithmeticEnv, title: 'sums', evals: [{ label: 'p', metrics, rollouts }] });
    expect(html).toContain('<th>answer: correct</th>');
    expect(html).toContain('share of completions per answer-reward bin');
    expect(html).toContain('class="tick">answer reward</text>');
    expect(html).toContain('<h2>By level</h2>');
    expect(html).not.toMatch(/strong|seed|By kind/);
    const judged = rollouts.map((r, i) => ({ ...r, judgment: { judge: 'j', score: i / 2, reasoning: '', cached: false } }));
    const withJudge = summarize(arithmeticEnv, 'p', sums, judged, { samples: 1, rubrics: ['answer'], passThreshold: 0.9, promptTokens: 0, completionTokens: 0, generationSeconds: 0, scoringSeconds: 0 });
    expect(Object.keys(withJudge.judge!.spearman)).toEqual(['answer reward', 'answer: correct', 'answer: format']);
    const diagram = renderReport({ env: diagramEnv, title: 'Run', evals: [mk('teacher', good)] });
    expect(diagram).toContain('<th>strong: entities_present</th>');
    expect(diagram).toContain('<span class="muted">(seed ');
    expect(diagram).toContain('<h2>By kind</h2>');
  });

  it('draws each series as a path through its points', () => {
    const svg = lineChart({ title: 't', xLabel: 'step', series: [{ name: 'a', points: [{ x: 0, y: 0 }, { x: 10, y: 1 }] }] }, 200, 100);
    expect(svg).toMatch(/<path d="M48\.0,[\d.]+L188\.0,28\.0"/);
  });
  it('compares with paired differences and says which way', () => {
    const a = mk('SFT', half);
    const b = mk('GRPO', good);
    const d = differences(a, b).find((x) => x.metric === 'strong')!;
    expect(d.paired).toBe(true);
    expect(d.diff.mean).toBeGreaterThan(0.2);
    expect(compareTable([a, b])).toMatch(/GRPO - SFT, strong reward: .* \(paired\)  better/);
  });
});
