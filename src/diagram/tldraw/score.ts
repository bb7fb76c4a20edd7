// Scoring with the real editor: completions go through tldraw in batches, and each readback becomes the
// `readback` of a ScoreInput, which the strong rubric's renderer_accepts and layout_quality then use.
import { SEED_ACTION_TYPES } from '../language/actions.ts';
import { executeCompletion } from '../language/execute.ts';
import { scoreLayoutGeometry, type Box, type LayoutReport, type Link } from '../reward/layout.ts';
import type { RendererReadback, Rubric, Score, ScoreInput } from '../reward/rubric.ts';
import { TldrawDriver, type RunOptions } from './driver.ts';
import { prepareDiagram, toReadback, type TldrawReadback } from './prepare.ts';
import type { Renderer } from './renderer.ts';


// The editor's lints in the layout score. An overflowing label costs like layout.ts's own overflow check
// (a base plus its relative excess), measured by tldraw in its own font; an arrow with a free end costs like a sliver.
const OVERFLOW_BASE = 0.1;
const OVERFLOW_DEPTH = 0.3;
const UNBOUND_ARROW = 0.4;

/**
 * Layout of what the editor drew: page bounds (shapes grown to fit their labels), arrows bound at both ends.
 * Text fit comes from tldraw's overflow lint instead of the reward's DejaVu estimate, so it is not counted twice.
 */
export function tldrawLayout(rb: TldrawReadback): LayoutReport {
  const index = new Map<string, number>();
  const boxes: Box[] = rb.shapes.map((s, i) => {
    index.set(s.id, i);
    return { x: s.x, y: s.y, w: s.w, h: s.h, shape: s.shape, text: '' };
  });
  const links: Link[] = rb.arrows.flatMap((a) =>
    a.from !== null && a.to !== null && index.has(a.from) && index.has(a.to) ? [{ from: index.get(a.from)!, to: index.get(a.to)! }] : [],
  );
  const report = scoreLayoutGeometry(boxes, links);
  if (boxes.length === 0) return report;
  const requested = new Map(rb.shapes.map((s) => [s.id, s.requested]));
  let overflow = 0;
  for (const o of rb.lints.overflow) {
    const r = requested.get(o.id)!;
    const excess = Math.min(2, Math.max(0, o.need.w / r.w - 1) + Math.max(0, o.need.h / r.h - 1));
    overflow += OVERFLOW_BASE + OVERFLOW_DEPTH * excess;
  }
  const penalties = { ...report.penalties, textOverflow: overflow };
  const counts = { ...report.counts, textOverflow: rb.lints.overflow.length };
  const total = Object.values(penalties).reduce((a, b) => a + b, 0) + UNBOUND_ARROW * rb.lints.unboundArrows.length;
  return { score: Math.exp(-total), counts, penalties };
}

/** The readback in the renderer-neutral form a ScoreInput carries. */
export function rendererReadback(rb: TldrawReadback): RendererReadback {
  return {
    renderer: 'tldraw',
    outcomes: rb.outcomes,
    shapes: rb.shapes.length,
    layout: tldrawLayout(rb),
    errors: [...rb.errors.map((e) => e.message), ...(rb.crashed ? [`the editor crashed: ${rb.crashed}`] : [])],
  };
}

/**
 * Runs each completion through tldraw. Completions that do not parse get null: no action reaches any renderer.
 * Single-turn answers use the seed's language, exactly as executeCompletion does.
 */
export async function tldrawReadbacks(driver: TldrawDriver, completions: string[], opts: RunOptions = {}): Promise<(TldrawReadback | null)[]> {
  const prepared = completions.map((text) => {
    const exec = executeCompletion(text);
    if (!exec.parse.ok) return null;
    return prepareDiagram(exec.parse.actions, { allowedTypes: SEED_ACTION_TYPES });
  });
  const work = prepared.flatMap((p, i) => (p ? [{ p, i }] : []));
  const results = await driver.run(work.map((w) => w.p.page), opts);
  const out: (TldrawReadback | null)[] = prepared.map(() => null);
  work.forEach((w, k) => {
    out[w.i] = toReadback(w.p, results[k]);
  });
  return out;
}

/** Scores a batch with a rubric, through tldraw when asked: one browser pass for the whole batch. */
export async function scoreBatch(rubric: Rubric, inputs: ScoreInput[], renderer: Renderer, driver?: TldrawDriver): Promise<Score[]> {
  if (renderer === 'canvas') return inputs.map((i) => rubric.score(i));
  if (!driver) throw new Error('scoring with --renderer tldraw needs a started TldrawDriver');
  const readbacks = await tldrawReadbacks(driver, inputs.map((i) => i.completion));
  return inputs.map((input, k) => {
    const rb = readbacks[k];
    return rubric.score(rb ? { ...input, readback: rendererReadback(rb) } : input);
  });
}

/**
 * Readbacks for JSONL lines of {prompt, completion, ...}: undefined for a line without a string completion
 * (the caller reports that line) or whose completion does not parse.
 */
export async function lineReadbacks(driver: TldrawDriver, lines: string[]): Promise<(RendererReadback | undefined)[]> {
  const completions = lines.map((text) => {
    try {
      const row: unknown = JSON.parse(text);
      const completion = (row as { completion?: unknown } | null)?.completion;
      return typeof completion === 'string' ? completion : undefined;
    } catch {
      return undefined;
    }
  });
  const present = completions.flatMap((c, i) => (c === undefined ? [] : [{ c, i }]));
  const readbacks = await tldrawReadbacks(driver, present.map((p) => p.c));
  const out: (RendererReadback | undefined)[] = lines.map(() => undefined);
  present.forEach((p, k) => {
    const rb = readbacks[k];
    if (rb) out[p.i] = rendererReadback(rb);
  });
  return out;
}

export interface TldrawPicture {
  /** Absent when nothing was drawn. */
  png?: Buffer;
  shapes: number;
  arrows: number;
  /** Refused actions, one line each. */
  errors: string[];
  /** Values clamped or cut before tldraw saw them. */
  capped: string[];
}

/** tldraw's own PNG of each completion (a browser is started and closed around the batch). */
export async function tldrawPictures(completions: string[], pixelRatio = 2): Promise<(TldrawPicture | null)[]> {
  const driver = await TldrawDriver.start();
  try {
    const rbs = await tldrawReadbacks(driver, completions, { png: true, pixelRatio, maxPngSide: 8192 });
    return rbs.map((rb) =>
      rb ? { png: rb.png, shapes: rb.shapes.length, arrows: rb.arrows.length, errors: rb.errors.map((e) => e.message), capped: rb.capped } : null,
    );
  } finally {
    await driver.close();
  }
}
