// `canvasgym eval` through the real CLI: the scripted teacher on held-out tasks with each renderer, then --compare.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
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
    const png = readFileSync(join(dir, 'tldraw', 'images', readdirSync(join(dir, 'tldraw', 'images'))[0]));
    expect(png.subarray(1, 4).toString()).toBe('PNG');

    const cmp = cli('eval', '--compare', join(dir, 'canvas'), join(dir, 'tldraw'));
    expect(cmp.status).toBe(0);
    expect(cmp.stdout).toMatch(/strong reward/);
    expect(cmp.stdout).toMatch(/Difference of means \(95% bootstrap interval\):/);
  });

  it('names what is wrong with bad input', () => {
    expect(cli('eval', '--policy', 'nobody', '--out', join(dir, 'x')).stderr).toMatch(/--policy: unknown policy "nobody"/);
    expect(cli('eval', '--policy', 'scripted', '--renderer', 'paper', '--out', join(dir, 'x')).stderr).toMatch(/--renderer: unknown renderer "paper"/);
    expect(cli('eval', '--compare', join(dir, 'nothing')).stderr).toMatch(/is not an eval directory/);
    expect(cli('eval', '--policy', 'scripted', '--structured-output', '--out', join(dir, 'x')).stderr).toMatch(/--policy: structured output applies to student checkpoints and remote models, not to the scripted teacher/);
    expect(cli('eval', '--policy', 'scripted', '--split', 'heldout', '--n', '999999999', '--out', join(dir, 'x')).stderr).toMatch(/more than the heldout split holds/);
  });
});
