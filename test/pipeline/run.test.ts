// The main job end to end on the quick preset, through the real CLI, then its report in real headless Chromium.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { StageProgress } from '../../src/io/progress.ts';
import { badRunName, RUN_CONFIGS, runPipeline, STAGES } from '../../src/pipeline/run.ts';

const runsDir = mkdtempSync(join(tmpdir(), 'canvasgym-run-'));
const cli = (...args: string[]) => execFileSync('node', ['bin/canvasgym.js', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('canvasgym run --preset quick', () => {
  it('writes every artifact, names the report last, and does not redo finished stages', () => {
    const out = cli('run', '--preset', 'quick', '--runs-dir', runsDir, '--name', 't', '--no-progress');
    const dir = join(runsDir, 't');
    expect(out.trim().split('\n').at(-1)).toBe(`finished in ${out.match(/finished in ([\d.]+) min/)![1]} min; report: ${join(dir, 'report.html')}`);
    for (const f of ['run.json', 'tasks/train.jsonl', 'tasks/heldout.jsonl', 'tasks/ood.jsonl', 'teacher/train.jsonl', 'teacher/summary.json', 'sft/final/model.safetensors', 'sft/log.jsonl', 'grpo/final/model.safetensors', 'grpo/log.jsonl', 'eval/teacher/metrics.json', 'eval/SFT/rollouts.jsonl', 'eval/GRPO/metrics.json', 'eval/GRPO greedy/metrics.json', 'eval/GRPO OOD/metrics.json', 'eval/baseline: one box/metrics.json', 'summary.json', 'report.html']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    expect(readdirSync(join(dir, 'eval/teacher/images')).length).toBeGreaterThan(0);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(Object.keys(summary.policies)).toEqual([
      'baseline: empty', 'baseline: one box', 'baseline: prompt in a box', 'baseline: names, no arrows',
      'teacher', 'SFT', 'SFT greedy', 'GRPO', 'GRPO greedy', 'SFT-structured', 'GRPO-structured', 'teacher OOD', 'SFT OOD', 'GRPO OOD',
    ]);
    // IID first, then the out-of-distribution probe: different tasks, so never paired with the IID ones.
    const ids = (label: string) => readFileSync(join(dir, 'eval', label, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).task_id as string);
    expect(ids('GRPO').every((id) => id.startsWith('heldout-'))).toBe(true);
    expect(ids('GRPO OOD').every((id) => id.startsWith('ood-'))).toBe(true);
    // What a score is worth: one box scores little under task, however much strong gives it.
    expect(summary.policies['baseline: one box'].task.mean).toBeLessThanOrEqual(0.1);
    expect(summary.policies['baseline: one box'].strong.mean).toBeGreaterThan(0.7);
    expect(summary.policies.teacher.task.mean).toBeGreaterThan(0.8);
    // Structured output: whatever a student finished saying is in the action language and applies without an error.
    for (const label of ['SFT-structured', 'GRPO-structured']) {
      const rollouts = readFileSync(join(dir, 'eval', label, 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(rollouts).toHaveLength(16);
      for (const r of rollouts.filter((r) => r.finish_reason === 'stop')) expect(r.errors, r.completion).toEqual([]);
      expect(rollouts.every((r) => r.completion.startsWith('{"actions":['))).toBe(true);
    }
    expect(summary.policies.teacher.strong.mean).toBeGreaterThan(0.8);
    expect(summary.differences.map((d: { base: string; name: string }) => `${d.base}->${d.name}`)).toContain('SFT->GRPO');
    // RL's gain on what the task asked for, paired over the same tasks: the mean is the difference of the two means.
    const gain = summary.content_differences.find((d: { base: string; name: string }) => d.base === 'SFT' && d.name === 'GRPO').diff;
    const contentOf = (label: string) => summary.policies[label].components.entities_present.mean + summary.policies[label].components.edges_correct.mean;
    expect(gain.mean).toBeCloseTo(contentOf('GRPO') - contentOf('SFT'), 9);
    expect(gain.lo).toBeLessThanOrEqual(gain.mean);
    expect(gain.hi).toBeGreaterThanOrEqual(gain.mean);
    expect(out).toContain(`GRPO - SFT, entities_present + edges_correct (paired, 95% bootstrap): ${gain.mean.toFixed(3)}`);

    const again = spawnSync('node', ['bin/canvasgym.js', 'run', '--preset', 'quick', '--runs-dir', runsDir, '--name', 't', '--no-progress'], { encoding: 'utf8' });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/report: /);
    expect(again.stderr.match(/: already done/g) ?? []).toHaveLength(STAGES.length);
  });

  it('refuses a rerun with other settings, and a bad preset, with a clear message', () => {
    const run = (args: string[]) => {
      try {
        cli(...args);
        return '';
      } catch (e) {
        const x = e as { status: number; stderr: string };
        return `${x.status} ${x.stderr.trim()}`;
      }
    };
    expect(run(['run', '--preset', 'full', '--runs-dir', runsDir, '--name', 't', '--no-progress'])).toMatch(/^2 canvasgym: .* holds a run with other settings \(preset quick\); rerun with --fresh/);
    expect(run(['run', '--preset', 'huge'])).toBe('2 canvasgym: --preset must be quick, default, full, got "huge"');
  });

  it('--fresh deletes only a run: a --name that is not one folder name is refused, and nothing is deleted', async () => {
    const root = mkdtempSync(join(tmpdir(), 'canvasgym-fresh-'));
    const runs = join(root, 'runs');
    const kept = [join(root, 'precious.txt'), join(runs, 'keep', 'run.json'), join(runs, 'notarun', 'thesis.tex')];
    for (const f of kept) {
      mkdirSync(join(f, '..'), { recursive: true });
      writeFileSync(f, '{}');
    }
    for (const name of ['..', '.']) {
      const r = spawnSync('node', ['bin/canvasgym.js', 'run', '--preset', 'quick', '--runs-dir', runs, '--name', name, '--fresh', '--no-progress'], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`canvasgym: --name must be one folder name inside the runs directory (letters, digits, dots, dashes and underscores; not . or ..), got "${name}"\n`);
    }
    for (const name of ['a/b', '/tmp', '../runs', '', 'x\u0007', 'a\\b']) expect(badRunName(name), name).toMatch(/^must be one folder name/);
    for (const name of ['t', 'my.run', '..x', 'quick-2']) expect(badRunName(name), name).toBeUndefined();
    const run = (name: string) => runPipeline({ runsDir: runs, name, config: RUN_CONFIGS.quick, fresh: true, progress: new StageProgress(STAGES, { bars: false }) });
    await expect(run('..')).rejects.toThrow(/the run's name must be one folder name/);
    // A directory that holds no run is not deleted either.
    await expect(run('notarun')).rejects.toThrow(`--fresh: ${join(runs, 'notarun')} holds no run (no run.json); nothing was deleted`);
    for (const f of kept) expect(existsSync(f), f).toBe(true);
  });

  it('the report opens in Chromium with its charts and diagrams drawn and no request leaving the file', async () => {
    const file = join(runsDir, 't', 'report.html');
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(`file://${file}`);
      const drawn = await page.evaluate(() => {
        const size = (sel: string) => [...document.querySelectorAll(sel)].filter((e) => e.getBoundingClientRect().width > 50 && e.getBoundingClientRect().height > 50).length;
        return { charts: size('svg.chart'), diagrams: size('svg.diagram'), paths: document.querySelectorAll('svg.chart path').length, bars: document.querySelectorAll('svg.chart rect').length };
      });
      expect(drawn.charts).toBe(5);
      expect(drawn.diagrams).toBeGreaterThan(3);
      expect(drawn.paths).toBeGreaterThan(2);
      expect(drawn.bars).toBeGreaterThan(3);
      expect(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'))).toEqual([]);
      await page.screenshot({ path: join(runsDir, 'report.png'), fullPage: true });
      // At a laptop's widths: no table runs past the page unless inside a scroll container that stays within it, and
      // no text of a chart (legend, ticks, labels) overlaps another.
      for (const width of [1280, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        const layout = await page.evaluate(() => {
          const pageWidth = document.documentElement.clientWidth;
          const unscrolled = [...document.querySelectorAll('table')].filter((t) => {
            if (t.getBoundingClientRect().right <= pageWidth + 0.5) return false;
            for (let e = t.parentElement; e; e = e.parentElement) {
              if (['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.getBoundingClientRect().right <= pageWidth + 0.5) return false;
            }
            return true;
          });
          const overlaps: string[] = [];
          for (const chart of document.querySelectorAll('svg.chart')) {
            const boxes = [...chart.querySelectorAll('text')].map((t) => ({ text: t.textContent ?? '', r: t.getBoundingClientRect() }));
            for (let i = 0; i < boxes.length; i++) {
              for (let j = i + 1; j < boxes.length; j++) {
                const [a, b] = [boxes[i].r, boxes[j].r];
                if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) overlaps.push(`${boxes[i].text} / ${boxes[j].text}`);
              }
            }
          }
          // A table wider than its box scrolls with its first column held.
          const wide = [...document.querySelectorAll('table')].filter((t) => t.parentElement && t.getBoundingClientRect().width > t.parentElement.clientWidth + 0.5);
          const firstColumnHeld = wide.every((t) => [...t.querySelectorAll('tr > :first-child')].every((c) => getComputedStyle(c).position === 'sticky'));
          const leads = [...document.querySelectorAll('.card .reward')].map((e) => (e.textContent ?? '').split(' ')[0]);
          return { unscrolled: unscrolled.map((t) => t.textContent?.slice(0, 60)), overlaps, firstColumnHeld, wide: wide.length, leads };
        });
        expect(layout.unscrolled, `tables past the page at ${width} px`).toEqual([]);
        expect(layout.overlaps, `chart texts overlapping at ${width} px`).toEqual([]);
        expect(layout.firstColumnHeld, `${layout.wide} wide tables`).toBe(true);
        // The gallery and the worst rollouts lead with the reward the run trains on.
        expect(new Set(layout.leads)).toEqual(new Set(['task']));
      }
    } finally {
      await browser.close();
    }
  });
});
