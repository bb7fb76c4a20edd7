import { describe, expect, it } from 'vitest';
import { diagramEnv } from '../../src/diagram/diagram-env.ts';
import { policyFromSpec } from '../../src/diagram/teacher/registry.ts';
import { generateTasks } from '../../src/diagram/tasks/generate.ts';

describe('the diagram environment', () => {
  it("scores through the rubric presets and reports the teacher's quirks as per-rollout rates", async () => {
    const [task] = generateTasks({ split: 'train', n: 1, seed: 1 });
    const answer = async (quirks: Record<string, number>) => {
      const policy = await policyFromSpec('scripted', { specFor: () => task.spec, quirks });
      return (await policy.generate([diagramEnv.conversation(task)], { seed: 0 }))[0][0].text;
    };
    const clean = await answer({});
    const outcome = diagramEnv.outcome(task, clean);
    expect(outcome).toMatchObject({ parsed: true, valid: true, errors: [] });
    expect(Object.keys(outcome.metrics!)).toEqual([...diagramEnv.metricNames]);
    expect(Object.values(outcome.metrics!)).toEqual([0, 0, 0, 0, 0]);
    expect(diagramEnv.outcome(task, await answer({ cramped: 1 })).metrics!.cramped).toBeGreaterThan(0);
    expect(diagramEnv.outcome(task, await answer({ missing_edge: 1 })).metrics!.missing_edge).toBeGreaterThan(0);
    const strong = diagramEnv.reward('strong');
    expect(strong.score(task, clean).reward).toBeGreaterThan(strong.score(task, '{"actions":[]}').reward);
    const prose = diagramEnv.outcome(task, 'prose only');
    expect(prose).toMatchObject({ parsed: false, wellFormed: false, valid: false });
    expect(prose.metrics).toEqual({ abbrev: 0, cramped: 0, overlap: 0, missing_edge: 0, prose: 1 });
  });
});
