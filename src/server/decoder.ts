// The student behind the OpenAI routes: requests that arrive together are decoded together. A request waits at most
// `windowMs` for company when the model is idle; requests that arrive while a batch decodes form the next batch. Each
// choice's text is assembled here from its tokens: stop strings end it, and while it streams, text that could still
// turn out to be the start of a stop string is held back.
import { decode, type DecodeRequest, type TokenGuide, type TokenStep } from '../model/sampler.ts';
import { actionGuides } from '../diagram/language/structured.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import type { StudentPolicy } from '../policy/student.ts';

/** One token of a choice with its log-prob (the model's own distribution) and the most likely alternatives. */
export interface TokenLogprob {
  token: string;
  bytes: number[];
  logprob: number;
  /** Where the token's text starts in the choice's text (characters). */
  offset: number;
  top: { token: string; bytes: number[]; logprob: number }[];
}

export interface ChoiceDelta {
  text: string;
  logprobs: TokenLogprob[];
}

export type FinishReason = 'stop' | 'length';

export interface DecodeJob {
  prompt: Int32Array;
  n: number;
  maxTokens: number;
  temperature: number;
  topP?: number;
  seed: number;
  /** Strings that end a choice (not included in its text). */
  stop: string[];
  /** Log-probs per token, with this many alternatives; null: none. */
  logprobs: number | null;
  /** Sample with the action guide (structured.ts). */
  guided: boolean;
  /** Text as it becomes final, for streaming. */
  onDelta?: (choice: number, delta: ChoiceDelta) => void;
  /** True once the client is gone: its samples end at the next step. */
  cancelled?: () => boolean;
}

export interface JobChoice {
  text: string;
  logprobs: TokenLogprob[];
  finishReason: FinishReason;
  completionTokens: number;
}

export interface DecoderStats {
  batches: number;
  requests: number;
  sequences: number;
  largest_batch: number;
  /** Requests whose client left before their answer was done (their samples were ended early). */
  cancelled: number;
  /** Tokens generated, all sequences together. */
  tokens: number;
}

/** One choice's text, assembled token by token. */
class ChoiceText {
  text = '';
  private sent = 0;
  private readonly tokens: { end: number; lp?: TokenLogprob }[] = [];
  private nextToken = 0;
  private readonly all: TokenLogprob[] = [];
  private readonly utf8 = new TextDecoder('utf-8');
  private readonly holdback: number;
  stopped = false;

  constructor(
    private readonly tok: Tokenizer,
    private readonly job: DecodeJob,
    private readonly index: number,
  ) {
    this.holdback = job.onDelta ? Math.max(0, ...job.stop.map((s) => s.length - 1)) : 0;
  }

  /** Follows a chosen token; true when a stop string ended the choice. */
  push(step: TokenStep): boolean {
    if (step.token === this.tok.endId) return false;
    const before = this.text.length;
    this.text += this.utf8.decode(this.tok.tokenBytes(step.token) ?? new Uint8Array(0), { stream: true });
    const lp = this.job.logprobs === null ? undefined : { ...this.describe(step.token), logprob: step.logprob, offset: before, top: (step.top ?? []).map((t) => ({ ...this.describe(t.token), logprob: t.logprob })) };
    this.tokens.push({ end: this.text.length, lp });
    let cut = -1;
    for (const s of this.job.stop) {
      const at = this.text.indexOf(s, Math.max(0, before - s.length + 1));
      if (at !== -1 && (cut === -1 || at < cut)) cut = at;
    }
    if (cut !== -1) {
      this.text = this.text.slice(0, cut);
      this.stopped = true;
      this.flush(true);
      return true;
    }
    this.flush(false);
    return false;
  }

  finish(): void {
    if (!this.stopped) this.text += this.utf8.decode();
    this.flush(true);
  }

  get logprobs(): TokenLogprob[] {
    return this.all;
  }

  private describe(token: number): { token: string; bytes: number[] } {
    const bytes = this.tok.tokenBytes(token);
    return { token: this.tok.decode([token]), bytes: bytes ? Array.from(bytes) : [] };
  }

  /** Sends what is final: all of it at the end, else all but what a stop string could still claim. A token cut by a
   *  stop string is left out of the log-probs with the rest of its text. */
  private flush(final: boolean): void {
    const upTo = final ? this.text.length : Math.max(this.sent, this.text.length - this.holdback);
    const ready: TokenLogprob[] = [];
    while (this.nextToken < this.tokens.length && this.tokens[this.nextToken].end <= upTo) {
      const lp = this.tokens[this.nextToken++].lp;
      if (lp) ready.push(lp);
    }
    if (final) this.nextToken = this.tokens.length;
    this.all.push(...ready);
    const text = this.text.slice(this.sent, upTo);
    this.sent = upTo;
    if (this.job.onDelta && (text || ready.length)) this.job.onDelta(this.index, { text, logprobs: ready });
  }
}

interface Pending {
  job: DecodeJob;
  resolve: (choices: JobChoice[]) => void;
  reject: (err: unknown) => void;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class BatchDecoder {
  private readonly queue: Pending[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  readonly stats: DecoderStats = { batches: 0, requests: 0, sequences: 0, largest_batch: 0, cancelled: 0, tokens: 0 };
  /** Built on first use: the server guides the requests that ask for the action schema even when the policy does not. */
  private actionGuide?: () => TokenGuide;

  constructor(
    readonly student: StudentPolicy,
    private readonly opts: { windowMs: number; maxSequences: number },
  ) {}

  run(job: DecodeJob): Promise<JobChoice[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      if (!this.running && this.timer === undefined) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.drain();
        }, this.opts.windowMs);
      }
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        // At least one request, then as many whole requests as fit in the sequence budget.
        const batch = [this.queue.shift()!];
        let sequences = batch[0].job.n;
        while (this.queue.length > 0 && sequences + this.queue[0].job.n <= this.opts.maxSequences) {
          sequences += this.queue[0].job.n;
          batch.push(this.queue.shift()!);
        }
        await this.decodeBatch(batch, sequences);
      }
    } finally {
      this.running = false;
    }
  }

  private async decodeBatch(batch: Pending[], sequences: number): Promise<void> {
    const { model, tokenizer } = this.student;
    const texts = batch.map(({ job }) => Array.from({ length: job.n }, (_, k) => new ChoiceText(tokenizer, job, k)));
    const requests: DecodeRequest[] = batch.map(({ job }, b) => ({
      prompt: job.prompt,
      n: job.n,
      maxNewTokens: job.maxTokens,
      temperature: job.temperature,
      topP: job.topP,
      seed: job.seed,
      stopTokens: [tokenizer.endId],
      guide: job.guided ? (this.actionGuide ??= actionGuides(tokenizer)) : undefined,
      topLogprobs: job.logprobs ?? 0,
      onToken: (k, step) => texts[b][k].push(step) || job.cancelled?.() === true,
    }));
    this.stats.batches++;
    this.stats.requests += batch.length;
    this.stats.sequences += sequences;
    this.stats.largest_batch = Math.max(this.stats.largest_batch, batch.length);
    let samples;
    try {
      samples = await decode(model, requests, { between: nextTurn });
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    this.stats.cancelled += batch.filter((p) => p.job.cancelled?.() === true).length;
    for (const sample of samples) this.stats.tokens += sample.tokens.length;
    let at = 0;
    batch.forEach((p, b) => {
      const choices = texts[b].map((t, k) => {
        const s = samples[at + k];
        t.finish();
        return { text: t.text, logprobs: t.logprobs, finishReason: s.finishReason, completionTokens: s.tokens.length };
      });
      at += p.job.n;
      p.resolve(choices);
    });
  }
}
