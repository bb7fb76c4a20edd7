// The real tldraw editor in Debian's Chromium: apply, read back, lints, PNG, no network, crash recovery, shutdown.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyActions } from '../../../src/diagram/language/apply.ts';
import { strongRubric } from '../../../src/diagram/reward/strong.ts';
import { TldrawDriver } from '../../../src/diagram/tldraw/driver.ts';
import { prepareDiagram, toReadback, type TldrawReadback } from '../../../src/diagram/tldraw/prepare.ts';
import { scoreBatch } from '../../../src/diagram/tldraw/score.ts';
import { sampleActions, sampleCompletion } from '../../../src/diagram/tldraw/sample.ts';

let driver: TldrawDriver;

async function readback(actions: Record<string, unknown>[][], png = false): Promise<TldrawReadback[]> {
  const prepared = actions.map((a) => prepareDiagram(a));
  const results = await driver.run(prepared.map((p) => p.page), { png });
  return results.map((r, i) => toReadback(prepared[i], r));
}

const rect = (id: string, x: number, y: number, w = 120, h = 60, text = id) => ({ type: 'create_shape', id, shape: 'rectangle', x, y, w, h, text });

/** Live (not zombie) processes whose command line mentions `needle`. */
function processesWith(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(needle) && !l.trimStart().startsWith('Z') && !l.includes('ps -eo'));
}

beforeAll(async () => {
  driver = await TldrawDriver.start({ batchSize: 8 });
});

afterAll(async () => {
  await driver?.close();
});

describe('tldraw validator', () => {
  it('applies actions like the built-in canvas and reads back shapes and bound arrows', async () => {
    const diagrams = [1, 2, 3, 4].map((seed) => sampleActions(seed, true));
    const rbs = await readback(diagrams);
    for (const [i, actions] of diagrams.entries()) {
      const canvas = applyActions(actions);
      const rb = rbs[i];
      expect(rb.outcomes.map((o) => o.applied)).toEqual(canvas.outcomes.map((o) => o.applied));
      expect(rb.outcomes.filter((o) => !o.applied).length).toBeGreaterThanOrEqual(4);
      expect(rb.arrows.map((a) => [a.from, a.to])).toEqual(canvas.canvas.arrows.map((a) => [a.from, a.to]));
      expect(rb.shapes.map((s) => s.id)).toEqual(canvas.canvas.shapeList().map((s) => s.id));
      for (const s of rb.shapes) {
        const want = canvas.canvas.shapes.get(s.id)!;
        expect([s.x, s.y, s.text]).toEqual([want.x, want.y, want.text]);
        // tldraw may grow a shape to fit its label, never shrink it (text shapes size their own height).
        expect(s.w).toBeGreaterThanOrEqual(want.w - 0.5);
        if (s.shape !== 'text') expect(s.h).toBeGreaterThanOrEqual(want.h - 0.5);
      }
      expect(rb.lints.unboundArrows).toEqual([]);
    }
  });

  it('reports overlapping shapes and text that overflows its shape', async () => {
    const [clean, messy] = await readback([
      [rect('a', 0, 0), rect('b', 300, 0), { type: 'connect', from: 'a', to: 'b' }],
      [rect('a', 0, 0), rect('b', 60, 30), rect('tiny', 400, 0, 60, 30, 'a label much too long for such a small box')],
    ]);
    expect(clean.lints).toEqual({ overflow: [], overlaps: [], unboundArrows: [] });
    expect(messy.lints.overlaps).toEqual([{ a: 'a', b: 'b', area: 60 * 30 }]);
    expect(messy.lints.overflow.map((o) => o.id)).toEqual(['tiny']);
    const tiny = messy.shapes.find((s) => s.id === 'tiny')!;
    expect(tiny.h).toBeGreaterThan(30);
  });

  it('exports a real PNG sized to the diagram', async () => {
    const [rb] = await readback([[rect('a', 0, 0, 200, 80), rect('b', 300, 0, 200, 80), { type: 'connect', from: 'a', to: 'b', text: 'calls' }]], true);
    const png = rb.png!;
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    // 500 x 80 canvas units plus 16 of padding each side, at one pixel per unit.
    expect(Math.abs(w - 532)).toBeLessThanOrEqual(2);
    expect(Math.abs(h - 112)).toBeLessThanOrEqual(2);
    expect(png.length).toBeGreaterThan(2000);
  });

  it('feeds the strong reward: renderer_accepts and layout come from the editor', async () => {
    const inputs = [sampleCompletion(5), sampleCompletion(6, true)].map((completion) => ({ prompt: 'Draw a small system diagram.', completion }));
    const viaTldraw = await scoreBatch(strongRubric, inputs, 'tldraw', driver);
    const viaCanvas = await scoreBatch(strongRubric, inputs, 'canvas');
    for (const [i, s] of viaTldraw.entries()) {
      expect(s.components.renderer_accepts).toBeCloseTo(viaCanvas[i].components.renderer_accepts, 9);
      expect(s.components.layout_quality).toBeGreaterThan(0);
    }
    expect(viaTldraw[1].components.renderer_accepts).toBeLessThan(1);
  });

  it('replaces a crashed page and retries its diagrams', async () => {
    const before = driver.restarts();
    const page = driver.pages()[0];
    const crashed = new Promise((resolve) => page.once('crash', resolve));
    const cdp = await page.context().newCDPSession(page);
    // The renderer dies before answering, so the command itself fails: the crash event is what to wait for.
    cdp.send('Page.crash').catch(() => undefined);
    await crashed;
    const rbs = await readback([sampleActions(7), sampleActions(8)]);
    expect(driver.restarts()).toBe(before + 1);
    expect(rbs.map((r) => r.shapes.length)).toEqual([7, 8].map((s) => applyActions(sampleActions(s)).canvas.shapes.size));
  });

  it('makes no request outside 127.0.0.1, and fails the run when something tries', async () => {
    expect(driver.problems).toEqual([]);
    await driver.pages()[0].evaluate(() => fetch('http://example.com/font.woff2').catch(() => undefined));
    expect(driver.problems.map((p) => p.problem)).toContain('external');
    await expect(readback([sampleActions(9)])).rejects.toThrow(/external http:\/\/example\.com/);
  });

  it('shuts down without leaving a Chromium process behind', async () => {
    expect(processesWith(driver.userDataDir).length).toBeGreaterThan(0);
    await driver.close();
    expect(processesWith(driver.userDataDir)).toEqual([]);
  });
});
