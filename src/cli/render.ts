// `canvasgym render`: draws a completion as SVG or PNG, or writes the sample diagrams with their scores.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Command } from 'commander';
import type { z } from 'zod';
import { executeCompletion } from '../diagram/language/execute.ts';
import type { Canvas } from '../diagram/language/canvas.ts';
import type { DiagramSpec } from '../diagram/tasks/spec.ts';
import { renderSvg } from '../diagram/render/svg.ts';
import { rasterize } from '../render/png.ts';
import { parseRenderer } from '../diagram/tldraw/renderer.ts';
import { JsonlError, readTextFileSync } from '../io/jsonl.ts';
import { UsageError } from './usage-error.ts';
import { outputDirFlag, outputFileFlag } from './flags.ts';
import { RenderSettings } from './render-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';

type RenderFlags = z.infer<typeof RenderSettings>;

/** What a file may hold: a completion as the model wrote it, or a record (rollout, teacher row) with a `completion` field. */
export function readCompletion(text: string): { completion: string; prompt?: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { completion?: unknown }).completion === 'string') {
      const record = value as { completion: string; prompt?: unknown };
      return { completion: record.completion, prompt: typeof record.prompt === 'string' ? record.prompt : undefined };
    }
  } catch {
    // Not JSON as a whole: raw model text, which the parser searches for fences and braces.
  }
  return { completion: text };
}

interface Drawing {
  svg: string;
  canvas: Canvas;
  errors: string[];
}

function draw(completion: string, source: string, title: string | undefined, showErrors: boolean): Drawing {
  const run = executeCompletion(completion);
  if (!run.parse.ok) throw new UsageError(`${source}: the completion does not parse: ${run.parse.error.message}`);
  // A completion that parses always yields a canvas, possibly empty.
  const canvas = run.canvas!;
  return { svg: renderSvg(canvas, { title, errors: showErrors ? run.errors : [] }), canvas, errors: run.errors };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Writes the drawing as SVG or PNG by the file's extension; returns a one-line description. */
function writeDrawing(d: Drawing, out: string, flags: RenderFlags): string {
  const what = `${plural(d.canvas.shapes.size, 'shape')}, ${plural(d.canvas.arrows.length, 'arrow')}`;
  if (extname(out).toLowerCase() === '.svg') {
    writeFileSync(out, d.svg);
    return `wrote ${out} (${what})`;
  }
  const image = rasterize(d.svg, { scale: flags.scale, width: flags.width });
  writeFileSync(out, image.png);
  return `wrote ${out} (${image.width}x${image.height} px, ${what})`;
}

function checkOut(out: string | undefined): string {
  if (!out) throw new UsageError('render needs --out FILE.svg or FILE.png (or --sample --out DIR)');
  const ext = extname(out).toLowerCase();
  if (ext !== '.svg' && ext !== '.png') throw new UsageError(`--out must end in .svg or .png, got ${JSON.stringify(out)}`);
  return outputFileFlag('--out', out);
}

/** The text of --in: a file of UTF-8 text. */
function readIn(path: string | undefined): string {
  if (!path) throw new UsageError('render needs --in FILE holding a completion (or --sample)');
  if (!existsSync(path) || !statSync(path).isFile()) throw new UsageError(`--in: no such file: ${path}`);
  try {
    return readTextFileSync(path);
  } catch (err) {
    if (err instanceof JsonlError) throw new UsageError(`--in: ${err.message}`);
    throw err;
  }
}

function renderFile(flags: RenderFlags): void {
  const out = checkOut(flags.out);
  const { completion, prompt } = readCompletion(readIn(flags.in));
  const drawing = draw(completion, flags.in!, flags.prompt ?? prompt, flags.errors);
  for (const e of drawing.errors) process.stderr.write(`warning: refused ${e}\n`);
  process.stdout.write(`${writeDrawing(drawing, out, flags)}\n`);
}

interface Sample {
  name: string;
  prompt: string;
  spec: DiagramSpec;
  completion: string;
}

const box = (id: string, shape: string, x: number, y: number, w: number, h: number, text: string) => ({ type: 'create_shape', id, shape, x, y, w, h, text });
const arrow = (from: string, to: string, text?: string) => ({ type: 'connect', from, to, ...(text ? { text } : {}) });

/** The seed's example answer, as its text gives it, and a larger branching flow with decisions and arrow labels. */
export const SAMPLES: Sample[] = [
  {
    name: 'seed',
    prompt: 'Draw a frontend that sends a request to an API.',
    spec: { entities: ['Frontend', 'API'], edges: [['Frontend', 'API']], kind: 'chain', edgeLabels: { 'Frontend->API': 'request' } },
    completion: JSON.stringify({
      actions: [box('frontend', 'rectangle', 80, 100, 180, 80, 'Frontend'), box('api', 'rectangle', 340, 100, 180, 80, 'API'), arrow('frontend', 'api', 'request')],
    }),
  },
  {
    name: 'incident',
    prompt:
      'Draw an incident response flow: an alert fires and a severity check sends high-severity incidents to paging on-call and low ones to a ticket. ' +
      'On-call mitigates and checks whether it is resolved: yes leads to a postmortem, no to escalating and mitigating again. ' +
      'Tickets go to the backlog. The postmortem and the backlog both end by closing the incident.',
    spec: {
      entities: ['Alert', 'Severity?', 'Page on-call', 'Open ticket', 'Mitigate', 'Resolved?', 'Escalate', 'Postmortem', 'Backlog', 'Close incident'],
      edges: [
        ['Alert', 'Severity?'],
        ['Severity?', 'Page on-call'],
        ['Severity?', 'Open ticket'],
        ['Page on-call', 'Mitigate'],
        ['Mitigate', 'Resolved?'],
        ['Resolved?', 'Postmortem'],
        ['Resolved?', 'Escalate'],
        ['Escalate', 'Mitigate'],
        ['Open ticket', 'Backlog'],
        ['Postmortem', 'Close incident'],
        ['Backlog', 'Close incident'],
      ],
      kind: 'decision',
      edgeLabels: { 'Severity?->Page on-call': 'high', 'Severity?->Open ticket': 'low', 'Resolved?->Postmortem': 'yes', 'Resolved?->Escalate': 'no' },
    },
    completion: JSON.stringify({
      actions: [
        box('alert', 'ellipse', 40, 195, 150, 80, 'Alert'),
        box('severity', 'diamond', 240, 175, 160, 120, 'Severity?'),
        box('page', 'rectangle', 460, 90, 160, 70, 'Page on-call'),
        box('ticket', 'rectangle', 460, 310, 160, 70, 'Open ticket'),
        box('mitigate', 'rectangle', 680, 90, 160, 70, 'Mitigate'),
        box('resolved', 'diamond', 900, 65, 160, 120, 'Resolved?'),
        box('escalate', 'rectangle', 900, 240, 160, 60, 'Escalate'),
        box('postmortem', 'rectangle', 1120, 90, 160, 70, 'Postmortem'),
        box('backlog', 'rectangle', 1120, 310, 160, 70, 'Backlog'),
        box('close', 'ellipse', 1340, 195, 160, 90, 'Close incident'),
        arrow('alert', 'severity'),
        arrow('severity', 'page', 'high'),
        arrow('severity', 'ticket', 'low'),
        arrow('page', 'mitigate'),
        arrow('mitigate', 'resolved'),
        arrow('resolved', 'postmortem', 'yes'),
        arrow('resolved', 'escalate', 'no'),
        arrow('escalate', 'mitigate', 'retry'),
        arrow('ticket', 'backlog'),
        arrow('postmortem', 'close'),
        arrow('backlog', 'close'),
      ],
    }),
  },
];

async function renderSamples(flags: RenderFlags): Promise<void> {
  const dir = flags.out;
  if (!dir) throw new UsageError('render --sample needs --out DIR');
  mkdirSync(outputDirFlag('--out', dir), { recursive: true });
  const { getRubric } = await import('../diagram/reward/presets.ts');
  const rubrics = ['strong', 'seed'].map((name) => getRubric(name));
  for (const s of SAMPLES) {
    const drawing = draw(s.completion, `sample ${s.name}`, s.prompt, flags.errors);
    process.stdout.write(`${writeDrawing(drawing, join(dir, `${s.name}.svg`), flags)}\n`);
    const scores = rubrics.map((r) => `${r.name} ${r.score({ prompt: s.prompt, completion: s.completion, spec: s.spec }).reward.toFixed(3)}`);
    process.stdout.write(`${writeDrawing(drawing, join(dir, `${s.name}.png`), flags)}; reward ${scores.join(', ')}\n`);
  }
}

/** --renderer tldraw: the PNG tldraw itself exports, of the file or of the samples (one browser for all). */
async function renderTldraw(flags: RenderFlags): Promise<void> {
  if (flags.width !== undefined) throw new UsageError('--width is not available with --renderer tldraw; use --scale');
  let jobs: { completion: string; out: string }[];
  if (flags.sample) {
    const dir = flags.out;
    if (!dir) throw new UsageError('render --sample needs --out DIR');
    mkdirSync(outputDirFlag('--out', dir), { recursive: true });
    jobs = SAMPLES.map((s) => ({ completion: s.completion, out: join(dir, `${s.name}.tldraw.png`) }));
  } else {
    const out = checkOut(flags.out);
    if (extname(out).toLowerCase() !== '.png') throw new UsageError('--renderer tldraw writes PNG: --out must end in .png');
    jobs = [{ completion: readCompletion(readIn(flags.in)).completion, out }];
  }
  let pictures;
  try {
    const { tldrawPictures } = await import('../diagram/tldraw/score.ts');
    pictures = await tldrawPictures(jobs.map((j) => j.completion), flags.scale);
  } catch (err) {
    throw new UsageError(`--renderer tldraw: ${(err as Error).message}`);
  }
  for (const [k, job] of jobs.entries()) {
    const p = pictures[k];
    if (!p) throw new UsageError(`${flags.in ?? 'sample'}: the completion does not parse`);
    for (const e of p.errors) process.stderr.write(`warning: refused ${e}\n`);
    for (const c of p.capped) process.stderr.write(`warning: ${c}\n`);
    if (!p.png) throw new UsageError(`${flags.in ?? 'sample'}: nothing to draw, tldraw holds no shape`);
    writeFileSync(job.out, p.png);
    process.stdout.write(`wrote ${job.out} (tldraw, ${plural(p.shapes, 'shape')}, ${plural(p.arrows, 'arrow')})\n`);
  }
}

export function registerRender(cmd: Command): void {
  addSettingFlags(cmd, RenderSettings).action(async (opts: Record<string, unknown>) => {
    const flags = readSettings(RenderSettings, opts);
    let renderer;
    try {
      renderer = parseRenderer(flags.renderer);
    } catch (err) {
      throw new UsageError(`--renderer: ${(err as Error).message}`);
    }
    if (renderer === 'tldraw') await renderTldraw(flags);
    else if (flags.sample) await renderSamples(flags);
    else renderFile(flags);
  });
}
