// One interface for everything that answers a prompt: the scripted teacher, remote models and the student.
// Generation, scoring and evaluation code is written once against it.
import type { ChatMessage } from '../model/chat.ts';

export type { ChatMessage };

export interface SamplingOptions {
  /** Completions per conversation. */
  n?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  maxTokens?: number;
  /** Makes sampling reproducible where the policy supports it. */
  seed?: number;
}

export type FinishReason = 'stop' | 'length' | 'error';

export interface Completion {
  text: string;
  finishReason?: FinishReason;
  promptTokens?: number;
  completionTokens?: number;
  /** Set when finishReason is 'error': why this completion is missing. */
  error?: string;
  /** Teacher quirks that shaped this completion (scripted teacher with quirks on); absent elsewhere. */
  quirks?: string[];
}

export interface Policy {
  /** e.g. `scripted`, `openai:gpt-4o-mini`, `runs/x/sft/final`. */
  readonly name: string;
  /** One list of `n` completions per conversation, in order. Conversations are batched so that local models can sample them together. */
  generate(conversations: ChatMessage[][], opts?: SamplingOptions): Promise<Completion[][]>;
  close?(): Promise<void>;
}
