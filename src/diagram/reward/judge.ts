// The judge: an optional rubric component that asks a chat model whether the diagram satisfies the request. The seed
// calls it "a noisy component of the environment, not an oracle", so every judgment is kept with its reasoning, cached
// on disk (a rerun asks nothing again), and a judge that times out, fails or answers garbage gives "no judgment" with
// a counted warning: never a crash, and never a 0 that would read as the judge's verdict.
//
// A text model reads the canvas as text; a vision model (`image`) gets the rendered PNG. The rubric prompt is fixed,
// and it is part of the cache key, so that changing it asks again.
import type { ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { executeCompletion } from '../language/execute.ts';
import type { Canvas } from '../language/canvas.ts';
import { AnswerCache, chatConnection, sha256, type ChatConnection, type ChatConnectionOptions } from '../../policy/chat-connection.ts';
import { callWithRetries } from '../../policy/remote.ts';
import { renderPng } from '../../render/png.ts';
import { renderSvg } from '../render/svg.ts';
import type { Judgment } from '../../environment/judge.ts';

export const JUDGE_RUBRIC = `You grade diagrams that an assistant drew for a user's request.
Decide how far the diagram satisfies the request:
- every thing the request names appears as its own shape, labelled with its name;
- every connection the request asks for is an arrow, pointing the way the request says;
- nothing the request did not ask for clutters the diagram, and the layout is readable (no shapes on top of each other).
A diagram that is empty, unrelated to the request, or just the request's text in one box scores 0.
Answer with one JSON object and nothing else: {"reasoning": "<one or two sentences>", "score": <a number from 0 to 1>}.`;

export interface JudgeOptions extends ChatConnectionOptions {
  /** Send the rendered PNG (a vision model) instead of the canvas as text. */
  image?: boolean;
  /** Where judgments are cached, one file per (model, rubric, input, request, canvas). */
  cacheDir: string;
}

/** `openai:MODEL` as given to `--judge`: the model's name, or an error message. */
export function parseJudgeSpec(spec: string): { model: string } | { error: string } {
  const m = /^openai:(.+)$/.exec(spec);
  if (!m || !m[1].trim()) return { error: `must be openai:MODEL (an OpenAI-compatible chat model), got ${JSON.stringify(spec)}` };
  return { model: m[1].trim() };
}

/** The canvas as a text model reads it: shapes with kind, label and box, then arrows by their ends' labels. */
export function canvasAsText(canvas: Canvas | null, errors: readonly string[]): string {
  if (!canvas || canvas.shapes.size === 0) return `The answer drew nothing${errors.length ? ` (${errors[0]})` : ''}.`;
  const shapes = canvas.shapeList();
  const label = (id: string) => JSON.stringify(canvas.shapes.get(id)?.text || id);
  const lines = [`Shapes (${shapes.length}):`];
  for (const s of shapes) lines.push(`- ${s.shape} ${JSON.stringify(s.text)} at x=${Math.round(s.x)}, y=${Math.round(s.y)}, ${Math.round(s.w)}x${Math.round(s.h)}`);
  lines.push(`Arrows (${canvas.arrows.length}):`);
  for (const a of canvas.arrows) lines.push(`- ${label(a.from)} -> ${label(a.to)}${a.text ? ` labelled ${JSON.stringify(a.text)}` : ''}`);
  if (errors.length) lines.push(`Refused actions: ${errors.length}`);
  return lines.join('\n');
}

/** The judge's reply read as a judgment: a JSON object with a numeric score in [0, 1], or why not. */
export function readVerdict(text: string): { score: number; reasoning: string } | { error: string } {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end < start) return { error: `no JSON object in the judge's reply: ${JSON.stringify(text.slice(0, 120))}` };
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    return { error: `the judge's reply is not valid JSON: ${JSON.stringify(text.slice(0, 120))}` };
  }
  const v = value as { score?: unknown; reasoning?: unknown };
  if (typeof v.score !== 'number' || !Number.isFinite(v.score) || v.score < 0 || v.score > 1) {
    return { error: `the judge's reply has no score in [0, 1]: ${JSON.stringify(text.slice(0, 120))}` };
  }
  return { score: v.score, reasoning: typeof v.reasoning === 'string' ? v.reasoning : '' };
}


export interface JudgeStats {
  asked: number;
  cached: number;
  /** Judgments that failed: the counted warnings. */
  failed: number;
  /** Judgments that could not be written to the cache. */
  uncached: number;
}

/** The diagram's judge: a chat model grading a completion's canvas (as text or as the rendered PNG) against the
 *  request, with JUDGE_RUBRIC; a Judge in src/environment/judge.ts's sense. */
export class Judge {
  readonly name: string;
  readonly stats: JudgeStats = { asked: 0, cached: 0, failed: 0, uncached: 0 };
  private readonly connection: ChatConnection;
  private readonly cache: AnswerCache;

  constructor(private readonly options: JudgeOptions) {
    this.connection = chatConnection(options, 'judge', 'OPENAI_API_KEY or --judge-api-key');
    this.name = this.connection.name;
    this.cache = new AnswerCache(options.cacheDir);
  }

  /** Judgments for many (request, completion) pairs, in order, asked concurrently up to the limit. */
  judgeAll(items: readonly { prompt: string; completion: string }[]): Promise<Judgment[]> {
    return Promise.all(items.map((x) => this.judge(x.prompt, x.completion)));
  }

  /** The judgment of one completion; never throws (a failure of any kind is no judgment, counted). */
  async judge(prompt: string, completion: string): Promise<Judgment> {
    try {
      return await this.ask(prompt, completion);
    } catch (err) {
      this.stats.failed++;
      return { judge: this.name, score: null, reasoning: '', cached: false, error: `judging failed: ${(err as Error).message}` };
    }
  }

  private async ask(prompt: string, completion: string): Promise<Judgment> {
    const exec = executeCompletion(completion);
    const canvasText = canvasAsText(exec.canvas, exec.errors);
    const input = this.options.image && exec.canvas && exec.canvas.shapes.size > 0 ? 'image' : 'text';
    const file = this.cache.fileOf([this.options.model, JUDGE_RUBRIC, input, prompt, sha256(exec.canvas ? JSON.stringify(exec.canvas.toJSON()) : canvasText)]);
    const cached = this.cache.read(file);
    const hit = cached === null ? null : readVerdict(cached);
    if (hit && !('error' in hit)) {
      this.stats.cached++;
      return { judge: this.name, score: hit.score, reasoning: hit.reasoning, cached: true };
    }
    this.stats.asked++;
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: JUDGE_RUBRIC },
      { role: 'user', content: input === 'image' ? imageContent(prompt, exec.canvas!) : `Request:\n${prompt}\n\nDiagram:\n${canvasText}` },
    ];
    let verdict: { score: number; reasoning: string } | { error: string };
    try {
      const { client, limiter, endpoint } = this.connection;
      const response = await limiter.run(() =>
        callWithRetries(
          async (signal) => (await client).chat.completions.create({ model: this.options.model, messages, temperature: 0 }, { signal }),
          endpoint,
          this.options,
        ),
      );
      verdict = readVerdict(response.choices?.[0]?.message?.content ?? '');
    } catch (err) {
      verdict = { error: (err as Error).message };
    }
    if ('error' in verdict) {
      this.stats.failed++;
      return { judge: this.name, score: null, reasoning: '', cached: false, error: verdict.error };
    }
    const written = this.cache.write(file, { judge: this.name, prompt, ...verdict });
    if (!written.ok) {
      // The judgment stands; only the next run asks again.
      this.stats.uncached++;
      return { judge: this.name, ...verdict, cached: false, error: `not cached: ${written.error}` };
    }
    return { judge: this.name, ...verdict, cached: false };
  }
}

function imageContent(prompt: string, canvas: Canvas): ChatCompletionContentPart[] {
  const png = renderPng(renderSvg(canvas), { width: 800 });
  return [
    { type: 'text', text: `Request:\n${prompt}\n\nThe diagram is the attached image.` },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
  ];
}

/** One line for a command's summary: how many were asked, cached and failed. */
export function judgeSummary(judge: Judge): string {
  const { asked, cached, failed, uncached } = judge.stats;
  return `judge ${judge.name}: ${asked} asked, ${cached} from the cache${failed ? `, ${failed} without a judgment (warnings)` : ''}${uncached ? `, ${uncached} not written to the cache` : ''}`;
}
