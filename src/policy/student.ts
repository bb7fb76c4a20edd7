// The student GPT as a Policy: renders each conversation with the chat template and samples every conversation's
// completions together in one batched, KV-cached generation.
import type { GPT } from '../model/gpt.ts';
import { generate, type TokenGuide } from '../model/sampler.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import { renderGenerationPrompt } from '../model/chat.ts';
import { loadCheckpoint } from '../model/checkpoint.ts';
import type { ChatMessage, Completion, Policy, SamplingOptions } from './policy.ts';
import { hashSeed } from '../random.ts';

export const DEFAULT_TEMPERATURE = 0.7;
/** Sequences sampled together at most. */
export const MAX_SEQUENCES = 128;

export interface StudentOptions {
  /** Structured output (off by default): a fresh guide per sequence that masks the tokens which cannot continue a valid
   *  answer, as a server's guided decoding would (an environment's `guide`, src/environment/text-env.ts; the diagram's
   *  is src/diagram/language/structured.ts). Without one, the figures are what the model learned. */
  guide?: () => TokenGuide;
}

export class StudentPolicy implements Policy {
  /** Whether every answer is sampled with a guide. */
  readonly structuredOutput: boolean;
  private readonly guide?: () => TokenGuide;

  private constructor(
    readonly name: string,
    readonly model: GPT,
    readonly tokenizer: Tokenizer,
    /** Whether close() disposes the model (it does for a checkpoint this policy loaded itself). */
    private readonly owned: boolean,
    opts: StudentOptions,
  ) {
    this.structuredOutput = opts.guide !== undefined;
    this.guide = opts.guide;
  }

  /** A policy over a model that stays the caller's (the trainer's model during evaluation). */
  static of(model: GPT, tokenizer: Tokenizer, name = 'student', opts: StudentOptions = {}): StudentPolicy {
    if (tokenizer.vocabSize !== model.config.vocabSize) {
      throw new Error(`tokenizer has ${tokenizer.vocabSize} tokens, the model's vocabulary is ${model.config.vocabSize}`);
    }
    return new StudentPolicy(name, model, tokenizer, false, opts);
  }

  /** `guideFor` builds the per-sequence guide over the checkpoint's tokenizer (an environment's `guide`). */
  static async load(dir: string, opts: { threads?: number; guideFor?: (tok: Tokenizer) => () => TokenGuide } = {}): Promise<StudentPolicy> {
    const { model, tokenizer } = await loadCheckpoint(dir, { threads: opts.threads });
    const guide = opts.guideFor?.(tokenizer);
    return new StudentPolicy(guide ? `${dir} (structured output)` : dir, model, tokenizer, true, { guide });
  }

  async generate(conversations: ChatMessage[][], opts: SamplingOptions = {}): Promise<Completion[][]> {
    const n = opts.n ?? 1;
    const nCtx = this.model.config.nCtx;
    const prompts = conversations.map((c) => renderGenerationPrompt(this.tokenizer, c));
    const fits = prompts.map((p) => p.length < nCtx);
    const out: Completion[][] = prompts.map((p, i) =>
      fits[i] ? [] : Array.from({ length: n }, () => ({
        text: '',
        finishReason: 'error' as const,
        promptTokens: p.length,
        completionTokens: 0,
        error: `prompt is ${p.length} tokens; the model's context is ${nCtx}`,
      })),
    );
    const keptIndex = prompts.map((_, i) => i).filter((i) => fits[i]);
    // Chunks bound the KV cache (sequences x context x layers); each chunk's seed is derived from its first conversation.
    const perChunk = Math.max(1, Math.floor(MAX_SEQUENCES / n));
    for (let c = 0; c < keptIndex.length; c += perChunk) {
      const chunk = keptIndex.slice(c, c + perChunk);
      const samples = await generate(this.model, chunk.map((i) => Int32Array.from(prompts[i])), {
        n,
        // The sampler also stops each sequence at the end of the context.
        maxNewTokens: opts.maxTokens ?? nCtx,
        temperature: opts.temperature ?? DEFAULT_TEMPERATURE,
        topP: opts.topP,
        topK: opts.topK,
        seed: c === 0 ? (opts.seed ?? 0) : hashSeed(opts.seed ?? 0, c),
        stopTokens: [this.tokenizer.endId],
        guide: this.guide,
      });
      for (const s of samples) {
        const conv = chunk[s.promptIndex];
        const body = s.finishReason === 'stop' ? s.tokens.subarray(0, s.tokens.length - 1) : s.tokens;
        out[conv].push({
          text: this.tokenizer.decode(body, { skipSpecial: true }),
          finishReason: s.finishReason,
          promptTokens: prompts[conv].length,
          completionTokens: s.tokens.length,
        });
      }
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.owned) await this.model.dispose();
  }
}
