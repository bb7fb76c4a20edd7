// The rollout inspector on a real run (`canvasgym run --preset quick`), started through the real CLI and driven in
// headless Chromium: every page loads without a console error, filters list exactly the rollouts the file holds with
// that property, one rollout shows its canvas and every rubric, "open in tldraw" builds the shapes in the editor, and
// the server keeps answering while a run's file grows and tears.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { errorKindsOf } from '../../src/diagram/language/error-kinds.ts';
import { executeCompletion } from '../../src/diagram/language/execute.ts';
import { BIN, spawnCli } from '../helpers/cli.ts';

const runsDir = mkdtempSync(join(tmpdir(), 'canvasgym-inspect-'));
const rowsOf = (path: string) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);

let child: ChildProcess;
let base: string;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  execFileSync(process.execPath, [BIN, 'run', '--preset', 'quick', '--runs-dir', runsDir, '--name', 'q', '--no-progress'], { stdio: 'ignore' });
  child = spawn(process.execPath, [BIN, 'inspect', '--runs-dir', runsDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = out.match(/(http:\/\/127\.0\.0\.1:\d+)\//);
      if (url) resolve(url[1]);
    });
    child.once('exit', (code) => reject(new Error(`inspect exited with ${code}: ${out}`)));
  });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  child?.kill('SIGTERM');
});

const open = async (path: string) => {
  const res = await page.goto(base + path);
  return res!.status();
};

describe('canvasgym inspect', () => {
  it('lists the runs, and a run with its stages, rollout files, evaluations and curves', async () => {
    expect(await open('/')).toBe(200);
    await Promise.all([page.waitForURL(`${base}/run/q`), page.click('a[href="/run/q"]')]);
    expect(new URL(page.url()).pathname).toBe('/run/q');
    const stages = await page.$$eval('table.metrics a[href*="/stage/"]', (as) => as.map((a) => a.textContent));
    expect(stages).toContain('GRPO: training rollouts');
    expect(stages).toContain('evaluation: teacher');
    expect(await page.locator('svg.chart').count()).toBe(4);
    expect(await page.locator('text=policy').count()).toBeGreaterThan(0);
  });

  it('filters a stage by error kind, kind, reward and text, listing exactly the matching rows of the file', async () => {
    const file = join(runsDir, 'q', 'grpo', 'rollouts.jsonl');
    const rows = rowsOf(file);
    const unparsed = rows.filter((r) => errorKindsOf(r.errors as string[], r.finish_reason as string).includes('unparsed')).length;
    const cut = rows.filter((r) => r.finish_reason === 'length').length;
    expect(await open('/run/q/stage/grpo?error=unparsed&per=500')).toBe(200);
    expect(Number(await page.textContent('.total'))).toBe(unparsed);
    expect(await open('/run/q/stage/grpo?error=cut+at+the+limit&per=500')).toBe(200);
    expect(Number(await page.textContent('.total'))).toBe(cut);
    const tagsPerRow = await page.$$eval('table.list tr[data-n]', (trs) => trs.map((tr) => tr.textContent ?? ''));
    expect(tagsPerRow.length).toBe(cut);
    for (const t of tagsPerRow) expect(t).toContain('cut at the limit');

    const teacher = rowsOf(join(runsDir, 'q', 'eval', 'teacher', 'rollouts.jsonl'));
    const kind = (teacher[0].spec as { kind: string }).kind;
    const word = (teacher[0].prompt as string).split(/\s+/)[3].toLowerCase();
    const expected = teacher.filter((r) => (r.spec as { kind: string }).kind === kind && (r.reward as number) >= 0.5 && `${r.prompt}\n${r.completion}`.toLowerCase().includes(word));
    expect(await open(`/run/q/stage/eval-teacher?kind=${kind}&min=0.5&q=${encodeURIComponent(word)}`)).toBe(200);
    expect(Number(await page.textContent('.total'))).toBe(expected.length);
    const listed = await page.$$eval('table.list tr[data-n]', (trs) => trs.map((tr) => Number(tr.getAttribute('data-n'))));
    expect(listed).toEqual(teacher.flatMap((r, i) => (expected.includes(r) ? [i + 1] : [])));

    // The same filters through the form a person fills in.
    await open('/run/q/stage/eval-teacher');
    await page.selectOption('select[name=kind]', kind);
    await page.fill('input[name=min]', '0.5');
    await page.fill('input[name=q]', word);
    await Promise.all([page.waitForNavigation(), page.click('form.filters button')]);
    expect(Number(await page.textContent('.total'))).toBe(expected.length);
  });

  it('shows one rollout: canvas, errors, every rubric, the same task elsewhere; and opens it in the tldraw editor', async () => {
    const teacher = rowsOf(join(runsDir, 'q', 'eval', 'teacher', 'rollouts.jsonl'));
    expect(await open('/run/q/stage/eval-teacher/rollout/1')).toBe(200);
    expect(await page.locator('figure.canvas svg').count()).toBe(1);
    const rubrics = await page.$$eval('table.components th', (ths) => ths.map((th) => th.textContent));
    expect(rubrics).toEqual(expect.arrayContaining(['seed', 'strong', 'task']));
    expect(await page.textContent('.stored-reward')).toBe((teacher[0].reward as number).toFixed(3));
    expect(await page.locator('text=The same task elsewhere in the run').count()).toBe(1);
    expect(await page.locator('.card a[href*="/stage/eval-SFT/"]').count()).toBe(1);

    const shapes = [...executeCompletion(teacher[0].completion as string).canvas!.shapes.values()].map((s) => s.text).sort();
    const [editor] = await Promise.all([page.waitForEvent('popup'), page.click('a.open-tldraw')]);
    await editor.waitForFunction(() => window.canvasgymShown !== undefined, null, { timeout: 60_000 });
    const shown = await editor.evaluate(() => {
      const s = window.canvasgymShown!;
      return 'error' in s ? s : { texts: s.read().shapes.map((x) => x.text), arrows: s.read().arrows.length };
    });
    expect(shown).toEqual({ texts: expect.arrayContaining(shapes), arrows: executeCompletion(teacher[0].completion as string).canvas!.arrows.length });
    expect((shown as { texts: string[] }).texts).toHaveLength(shapes.length);
    await editor.close();
  });

  it("shows the judge's score and reasoning where the run asked one", async () => {
    const file = join(runsDir, 'q', 'eval', 'SFT', 'rollouts.jsonl');
    const first = rowsOf(file)[0];
    const n = rowsOf(file).length + 1;
    appendFileSync(file, JSON.stringify({ ...first, judgment: { judge: 'openai:grader', score: 0.25, reasoning: 'Two of the four boxes are missing.', cached: false } }) + '\n');
    expect(await open(`/run/q/stage/eval-SFT/rollout/${n}`)).toBe(200);
    expect(await page.textContent('.judgment')).toContain('openai:grader: score 0.250');
    expect(await page.textContent('.judgment .reasoning')).toBe('Two of the four boxes are missing.');
  });

  it('marks the failing actions of a rollout that has errors', async () => {
    const rows = rowsOf(join(runsDir, 'q', 'eval', 'baseline: names, no arrows', 'rollouts.jsonl'));
    expect(rows.length).toBeGreaterThan(0);
    // A completion with a refused action, written as a rollout of a stage the run has.
    const bad = JSON.stringify({ actions: [{ type: 'create_shape', id: 'a', shape: 'rectangle', x: 0, y: 0, w: 100, h: 50, text: 'A' }, { type: 'connect', from: 'a', to: 'a' }] });
    const file = join(runsDir, 'q', 'teacher', 'rejected.jsonl');
    writeFileSync(file, JSON.stringify({ task_id: 'x', attempt: 0, prompt: 'Draw A.', completion: bad, reward: 0.1, components: {}, errors: ['action 1: arrow cannot connect a shape to itself'], quirks: [] }) + '\n');
    expect(await open('/run/q/stage/teacher-rejected/rollout/1')).toBe(200);
    expect(await page.locator('ol.actions li.failed').count()).toBe(1);
    expect(await page.textContent('ol.actions li.failed .why')).toBe('arrow cannot connect a shape to itself');
  });

  it('compares two stages on the same tasks, largest change first, and exports a filtered set as the file holds it', async () => {
    expect(await open('/run/q')).toBe(200);
    await page.selectOption('select[name=a]', 'q/eval-teacher');
    await page.selectOption('select[name=b]', 'q/eval-SFT');
    await Promise.all([page.waitForNavigation(), page.click('text=compare >> nth=-1')]);
    const diffs = await page.$$eval('table.compare td.diff', (tds) => tds.map((td) => Math.abs(Number(td.textContent))));
    expect(diffs.length).toBe(16);
    expect(diffs).toEqual([...diffs].sort((a, b) => b - a));

    const file = join(runsDir, 'q', 'grpo', 'rollouts.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
    const res = await fetch(`${base}/run/q/stage/grpo/export.jsonl?error=unparsed`);
    expect(res.headers.get('content-type')).toContain('ndjson');
    const exported = (await res.text()).split('\n').filter(Boolean);
    expect(exported).toEqual(lines.filter((l) => errorKindsOf(JSON.parse(l).errors, JSON.parse(l).finish_reason).includes('unparsed')));
  });

  it('answers a bad address or filter with a page naming it, and keeps serving while a file grows and tears', async () => {
    // Every page so far loaded without a console error; the refusals below log their own status, and nothing else.
    expect(consoleErrors).toEqual([]);
    expect(await open('/run/nope')).toBe(404);
    expect(await page.textContent('p.errors')).toContain('no run "nope"');
    expect(await open('/run/q/stage/nothing')).toBe(404);
    expect(await open('/run/q/stage/grpo/rollout/999999')).toBe(404);
    expect(await open('/run/q/stage/grpo?step=abc')).toBe(400);
    expect(await page.textContent('p.errors')).toContain('step');
    expect(await open('/run/q/stage/grpo?colour=red')).toBe(400);
    expect(await open('/run/..%2F..%2Fetc/stage/grpo')).toBe(404);
    expect((await fetch(`${base}/run/q`, { method: 'POST' })).status).toBe(405);

    const file = join(runsDir, 'q', 'grpo', 'rollouts.jsonl');
    const before = rowsOf(file).length;
    await open('/run/q/stage/grpo');
    expect(Number(await page.textContent('.total'))).toBe(before);
    // A torn line, then a row half written: the torn one is counted as unreadable, the half one waits for its end.
    const row = readFileSync(file, 'utf8').split('\n')[0];
    appendFileSync(file, `{"step": 3, "prompt": "torn\n${row}\n${row.slice(0, 40)}`);
    await open('/run/q/stage/grpo');
    expect(Number(await page.textContent('.total'))).toBe(before + 1);
    expect(await page.textContent('p.errors')).toContain('1 line(s)');
    appendFileSync(file, `${row.slice(40)}\n`);
    await open('/run/q/stage/grpo');
    expect(Number(await page.textContent('.total'))).toBe(before + 2);
    expect(consoleErrors.filter((e) => !/status of 40[04] \(/.test(e))).toEqual([]);

    // Rewritten in place to the same size (same inode, rows in another order): read again, not taken for the old rows.
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() && l.startsWith('{"step": 3') === false);
    const valid = lines.filter((l) => {
      try {
        return typeof JSON.parse(l).prompt === 'string';
      } catch {
        return false;
      }
    });
    writeFileSync(file, [...valid].reverse().join('\n') + '\n');
    await open('/run/q/stage/grpo?per=500');
    expect(Number(await page.textContent('.total'))).toBe(valid.length);
    expect(await page.getAttribute('table.list tr[data-n] >> nth=0', 'data-n')).toBe('1');
    const first = JSON.parse(valid.at(-1)!) as { reward: number };
    expect(await page.textContent('table.list tr[data-n] >> nth=0 >> td.num')).toBe(first.reward.toFixed(3));

    // Rows that are JSON but no rollout, and a run folder whose name and run.json are not what a run writes.
    appendFileSync(file, '{"messages": [null, 5]}\n{"prompt": 5, "completion": "x"}\n');
    expect(await open('/run/q/stage/grpo')).toBe(200);
    expect(await page.textContent('p.errors')).toContain('2 line(s)');
    mkdirSync(join(runsDir, 'odd name'));
    writeFileSync(join(runsDir, 'odd name', 'run.json'), '{"config": 5, "stages": {"x": null, "y": {"seconds": "soon", "summary": 3}}}');
    mkdirSync(join(runsDir, 'odd'));
    writeFileSync(join(runsDir, 'odd', 'run.json'), '{"config": {"preset": 7}, "stages": {"x": null, "y": {"seconds": "soon", "summary": 3}}}');
    expect(await open('/')).toBe(200);
    expect(await page.$$eval('table.metrics a', (as) => as.map((a) => a.textContent))).toEqual(expect.arrayContaining(['q', 'odd']));
    expect(await open('/run/odd')).toBe(200);
  });

  it('refuses bad flags with one line and exit code 2', () => {
    const file = join(runsDir, 'q', 'run.json');
    for (const [args, message] of [
      [['--port', 'abc'], /--port must be/],
      [['--runs-dir', file], /--runs-dir: .* is a file, not a folder of runs/],
    ] as const) {
      const r = spawnCli(['inspect', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
