// `canvasgym eval` through the real CLI: the scripted teacher on held-out tasks with each renderer, then --compare.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'canvasgym-eval-'));
const cli = (...args: string[]) => spawnSync('node', ['bin/canvasgym.js', ...args], { encoding: 'utf8' });

describe('canvasgym eval', () => {
  it('writes metrics, rollouts, a PNG per diagram and the report; tldraw agrees with the canvas on the teacher', () => {
    const canvas = cli('eval', '--policy', 'scripted', '--split', 'heldout', '--n', '6', '--samples', '2', '--out', join(dir, 'canvas'), '--no-progress');
    expect(canvas.status, canvas.stderr).toBe(0);
    const tl = cli('eval', '--policy', 'scripted', '--split', 'heldout', '--n', '6', '--renderer', 'tldraw', '--out', join(dir, 'tldraw'), '--no-progress');
    expect(tl.status, tl.stderr).toBe(0);
    for (const d of ['canvas', 'tldraw']) {
      const m = JSON.parse(readFileSync(join(dir, d, 'metrics.json'), 'utf8'));
      expect(m.renderer_accept_rate.mean).toBe(1);
      expect(m.reward.strong.mean).toBeGreaterThan(0.95);
      expect(readdirSync(join(dir, d, 'images')).length).toBe(m.completions);
      expect(existsSync(join(dir, d, 'report.html'))).toBe(true);
    }
    const m = JSON.parse(readFileSync(join(dir, 'canvas', 'metrics.json'), 'utf8'));
    expect(m.completions).toBe(12);
    expect(Object.keys(m.pass_at_k)).toEqual(['pass@1', 'pass@2']);
    // Fixed baselines on the same tasks, beside the policy: one box scores little under task, 0.75 under strong.
    const oneBox = JSON.parse(readFileSync(join(dir, 'canvas', 'baselines', 'one-box', 'metrics.json'), 'utf8'));
    expect(oneBox.tasks).toBe(6);
    expect(oneBox.reward.task.mean).toBeLessThanOrEqual(0.1);
    expect(oneBox.reward.strong.mean).toBeGreaterThan(0.7);
    expect(canvas.stdout).toMatch(/baseline:names +task 0\.\d+/);
    expect(readFileSync(join(dir, 'canvas', 'report.html'), 'utf8')).toContain('baseline:prompt-box');
    const png = readFileSync(join(dir, 'tldraw', 'images', readdirSync(join(dir, 'tldraw', 'images'))[0]));
    expect(png.subarray(1, 4).toString()).toBe('PNG');

    const cmp = cli('eval', '--compare', join(dir, 'canvas'), join(dir, 'tldraw'));
    expect(cmp.status).toBe(0);
    expect(cmp.stdout).toMatch(/strong reward/);
    expect(cmp.stdout).toMatch(/Difference of means \(95% bootstrap interval\):/);
  });

  it('refuses a task file past the row limits at once, and records a task the scripted teacher cannot answer (issue 19: C5)', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `Service ${i}`);
    const chain = (n: number) => {
      const entities = names(n);
      return { entities, edges: entities.slice(1).map((e, i) => [entities[i], e]) };
    };
    const file = (name: string, tasks: object[]) => {
      const path = join(dir, name);
      writeFileSync(path, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
      return path;
    };
    // 100,000 entities once kept eval busy for over a minute; refused now with one line (the row's size or its entities).
    for (const [tasks, message] of [
      [file('over.jsonl', [{ id: 'big', prompt: 'Draw the chain', spec: chain(201) }]), /over\.jsonl line 1: not a task: spec\.entities: 201 entities; the limit is 200/],
      [file('huge.jsonl', [{ id: 'huge', prompt: 'Draw the chain', spec: chain(100_000) }]), /huge\.jsonl line 1: /],
    ] as const) {
      const run = cli('eval', '--policy', 'scripted', '--tasks', tasks, '--out', join(dir, 'refused'), '--no-progress');
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    // 30 entities and 29 edges fit the limits but not one answer (40 actions): the teacher says so instead of laying them out.
    const tasks = file('wide.jsonl', [{ id: 'wide', prompt: 'Draw the chain', spec: chain(30) }]);
    const run = cli('eval', '--policy', 'scripted', '--tasks', tasks, '--out', join(dir, 'wide'), '--no-progress');
    expect(run.status, run.stderr).toBe(0);
    const rollout = JSON.parse(readFileSync(join(dir, 'wide', 'rollouts.jsonl'), 'utf8').split('\n')[0]);
    expect(rollout.errors[0]).toBe('policy error: scripted teacher: the diagram takes 59 actions; the limit is 40 per answer');
  });

  it('names what is wrong with bad input', () => {
    expect(cli('eval', '--policy', 'nobody', '--out', join(dir, 'x')).stderr).toMatch(/--policy: unknown policy "nobody"/);
    expect(cli('eval', '--policy', 'scripted', '--renderer', 'paper', '--out', join(dir, 'x')).stderr).toMatch(/--renderer: unknown renderer "paper"/);
    expect(cli('eval', '--compare', join(dir, 'nothing')).stderr).toMatch(/is not an eval directory/);
    expect(cli('eval', '--policy', 'scripted', '--structured-output', '--out', join(dir, 'x')).stderr).toMatch(/--policy: structured output applies to student checkpoints and remote models, not to the scripted teacher/);
    expect(cli('eval', '--policy', 'scripted', '--split', 'heldout', '--n', '999999999', '--out', join(dir, 'x')).stderr).toMatch(/more than the heldout split holds/);
  });
});
