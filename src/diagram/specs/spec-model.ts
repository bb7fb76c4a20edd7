// A chat model writes a request's spec (`canvasgym tasks --from-prompts --spec-model openai:MODEL`): a fixed prompt,
// structured output, and an answer checked before it is used: every entity a span or close paraphrase of the request,
// every edge between two of them. Answers that pass are cached on disk by (server, model, prompt, request), so a rerun
// asks again only what failed; a garbage answer is asked again with what was wrong with it, a timeout retried, and
// whatever still fails is reported to the caller, which falls back to the extraction (src/diagram/specs/from-prompt.ts).
import { z } from 'zod';
import { AnswerCache, chatConnection, type ChatConnection, type ChatConnectionOptions } from '../../policy/chat-connection.ts';
import { callWithRetries, portableResponseSchema, RemoteError } from '../../policy/remote.ts';
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

export interface SpecModelOptions extends ChatConnectionOptions {
  /** Where answers are cached, one file per (server, model, prompt, request). */
  cacheDir: string;
  /** How many times a request is asked while its answers are not a spec of it. */
  attempts?: number;
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
  private readonly connection: ChatConnection;
  private readonly cache: AnswerCache;

  constructor(private readonly options: SpecModelOptions) {
    this.connection = chatConnection(options, 'spec model', 'OPENAI_API_KEY or --spec-api-key');
    this.name = this.connection.name;
    this.cache = new AnswerCache(options.cacheDir);
  }

  /** The model's spec of `prompt`, or why there is none; throws only a fatal RemoteError (a wrong key or model). */
  async spec(prompt: string): Promise<ModelSpec> {
    const file = this.cache.fileOf([this.connection.baseURL, this.options.model, SPEC_PROMPT, prompt]);
    const hit = cachedSpec(this.cache.read(file), prompt);
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
        if (!this.cache.write(file, { model: this.name, prompt, spec: read.spec }).ok) this.stats.uncached++;
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
    const { client, limiter, endpoint } = this.connection;
    const response = await limiter.run(() =>
      callWithRetries(
        async (signal) =>
          (await client).chat.completions.create(
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
        endpoint,
        this.options,
      ),
    );
    return response.choices?.[0]?.message?.content ?? '';
  }
}

/** A cached spec that is still a spec of its request, or null. */
function cachedSpec(text: string | null, prompt: string): DiagramSpec | null {
  if (text === null) return null;
  try {
    const spec = DiagramSpec.safeParse((JSON.parse(text) as { spec?: unknown }).spec);
    return spec.success && !('error' in groundedSpec(prompt, spec.data.entities, spec.data.edges)) ? spec.data : null;
  } catch {
    return null;
  }
}
