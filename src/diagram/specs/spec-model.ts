// A chat model writes a request's spec (`canvasgym tasks --from-prompts --spec-model openai:MODEL`): a fixed prompt,
// structured output, and an answer checked before it is used: every entity a span or close paraphrase of the request,
// every edge between two of them. Answers that pass are cached on disk by (server, model, prompt, request), so a rerun
// asks again only what failed; a garbage answer is asked again with what was wrong with it, a timeout retried, and
// whatever still fails is reported to the caller, which falls back to the extraction (src/diagram/specs/from-prompt.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { z } from 'zod';
import { OPENAI_DEFAULT_BASE_URL } from '../../policy/openai.ts';
import { callWithRetries, Limiter, portableResponseSchema, RemoteError, withDefaults, type Endpoint, type RemoteOptions } from '../../policy/remote.ts';
import { DiagramSpec } from '../tasks/spec.ts';
import { groundedSpec } from './grounded.ts';

export const SPEC_PROMPT = `You read a user's request for a small diagram and list what the diagram must show.
Answer with JSON: {"entities": [...], "edges": [{"from", "to", "label"}]}.
- entities: every thing the request names that gets its own shape (a component, a step, a state, a person), written as
  the request writes it, without a leading "the" or "a". Counted things are numbered: "three consumers" is
  "consumer 1", "consumer 2", "consumer 3".
- edges: every arrow the request asks for, from and to written exactly as in entities, pointing the way the request
  says; label is the arrow's text where the request gives one, else "".
Add nothing the request does not name.`;

/** What the model answers: the spec in a form every structured-output server takes (no tuples, every field required). */
const ModelAnswer = z
  .object({
    entities: z.array(z.string()),
    edges: z.array(z.object({ from: z.string(), to: z.string(), label: z.string() }).strict()),
  })
  .strict();

/** The response schema sent with each request. */
export const SPEC_RESPONSE_SCHEMA = { name: 'diagram_spec', schema: portableResponseSchema(z.toJSONSchema(ModelAnswer) as Record<string, unknown>) };

export interface SpecModelOptions extends RemoteOptions {
  /** The chat model's name on the server. */
  model: string;
  /** Defaults to OPENAI_BASE_URL, then OpenAI's API. */
  baseURL?: string;
  /** Defaults to OPENAI_API_KEY; a local server may go without one. */
  apiKey?: string;
  /** Where answers are cached, one file per (server, model, prompt, request). */
  cacheDir: string;
  /** How many times a request is asked while its answers are not a spec of it. */
  attempts?: number;
  env?: NodeJS.ProcessEnv;
}

export type ModelSpec = { spec: DiagramSpec; cached: boolean } | { error: string };

export interface SpecModelStats {
  asked: number;
  cached: number;
  failed: number;
  /** Specs that could not be written to the cache. */
  uncached: number;
}

/** A model's answer as a spec of `prompt`, or why it is not one. */
export function readModelAnswer(text: string, prompt: string): { spec: DiagramSpec } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return { error: `not JSON: ${JSON.stringify(text.slice(0, 60))}` };
  }
  const answer = ModelAnswer.safeParse(value);
  if (!answer.success) {
    const issue = answer.error.issues[0];
    return { error: `not a spec: ${issue.path.join('.') || 'answer'}: ${issue.message}` };
  }
  const { entities, edges } = answer.data;
  const grounded = groundedSpec(prompt, entities, edges.map((e) => [e.from, e.to, e.label] as const));
  if ('error' in grounded) return grounded;
  const spec = DiagramSpec.safeParse(grounded);
  if (!spec.success) return { error: `not a spec: ${spec.error.issues[0].path.join('.')}: ${spec.error.issues[0].message}` };
  return { spec: spec.data };
}

export class SpecModel {
  readonly name: string;
  readonly stats: SpecModelStats = { asked: 0, cached: 0, failed: 0, uncached: 0 };
  private readonly client: Promise<OpenAI>;
  private readonly limiter: Limiter;
  private readonly endpoint: Endpoint;
  private readonly baseURL: string;

  constructor(private readonly options: SpecModelOptions) {
    const env = options.env ?? process.env;
    const baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.baseURL = baseURL;
    // A local server accepts any key; the SDK insists on one.
    const apiKey = options.apiKey ?? env.OPENAI_API_KEY ?? 'no-key';
    this.name = `openai:${options.model}`;
    this.endpoint = { policy: `spec model ${this.name}`, baseUrl: baseURL, model: options.model, keyHint: 'OPENAI_API_KEY or --spec-api-key' };
    this.client = import('openai').then(({ default: SDK }) => new SDK({ apiKey, baseURL, maxRetries: 0, timeout: withDefaults(options).timeoutMs + 1_000 }));
    this.limiter = new Limiter(withDefaults(options).concurrency);
  }

  /** The model's spec of `prompt`, or why there is none; throws only a fatal RemoteError (a wrong key or model). */
  async spec(prompt: string): Promise<ModelSpec> {
    const file = join(this.options.cacheDir, `${sha256(JSON.stringify([this.baseURL, this.options.model, SPEC_PROMPT, prompt]))}.json`);
    const hit = readCached(file, prompt);
    if (hit) {
      this.stats.cached++;
      return { spec: hit, cached: true };
    }
    this.stats.asked++;
    let why = '';
    let last: { text: string; why: string } | undefined;
    for (let attempt = 0; attempt < (this.options.attempts ?? 3); attempt++) {
      let text: string;
      try {
        text = await this.ask(prompt, last);
      } catch (err) {
        // A wrong key or model fails every request alike: the caller stops on it. A timeout or a server error that
        // outlasted the retries ends the asking for this request only.
        if (err instanceof RemoteError && err.fatal) throw err;
        why = (err as Error).message;
        break;
      }
      const read = readModelAnswer(text, prompt);
      if ('spec' in read) {
        if (!writeCached(file, this.name, prompt, read.spec)) this.stats.uncached++;
        return { spec: read.spec, cached: false };
      }
      why = read.error;
      last = { text, why };
    }
    this.stats.failed++;
    return { error: why };
  }

  /** One answer; after an answer that was not a spec, the model sees it and what was wrong with it (asked the same
   *  way at temperature 0, it would give the same answer again). */
  private async ask(prompt: string, last?: { text: string; why: string }): Promise<string> {
    const response = await this.limiter.run(() =>
      callWithRetries(
        async (signal) =>
          (await this.client).chat.completions.create(
            {
              model: this.options.model,
              messages: [
                { role: 'system', content: SPEC_PROMPT },
                { role: 'user', content: prompt },
                ...(last
                  ? [
                      { role: 'assistant' as const, content: last.text },
                      { role: 'user' as const, content: `That answer cannot be used: ${last.why}. Answer again with the JSON only.` },
                    ]
                  : []),
              ],
              temperature: 0,
              response_format: { type: 'json_schema', json_schema: { ...SPEC_RESPONSE_SCHEMA, strict: true } },
            },
            { signal },
          ),
        this.endpoint,
        this.options,
      ),
    );
    return response.choices?.[0]?.message?.content ?? '';
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function readCached(file: string, prompt: string): DiagramSpec | null {
  try {
    const spec = DiagramSpec.safeParse((JSON.parse(readFileSync(file, 'utf8')) as { spec?: unknown }).spec);
    return spec.success && !('error' in groundedSpec(prompt, spec.data.entities, spec.data.edges)) ? spec.data : null;
  } catch {
    return null;
  }
}

/** Written whole under another name, then renamed: a reader never meets half a file. Whether it was written: a cache
 *  that cannot be written costs a later run its question, counted, not this spec. */
function writeCached(file: string, model: string, prompt: string, spec: DiagramSpec): boolean {
  try {
    mkdirSync(join(file, '..'), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ model, prompt, spec }) + '\n');
    renameSync(tmp, file);
    return true;
  } catch {
    return false;
  }
}
