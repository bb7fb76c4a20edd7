// Sampled completions laid out for one batched forward: each row is prompt + completion, padded to a common T, with the
// sampler's log-probs and the loss mask at the positions that predict completion tokens.
import type { Sample } from '../model/sampler.ts';

export interface CompletionBatch {
  /** Rows (completions). */
  S: number;
  T: number;
  /** (S, T) input tokens, padded with padId. */
  tokens: Int32Array;
  /** (S, T) the next token where it is a completion token, else -1 (prompt and padding: no log-prob taken). */
  targets: Int32Array;
  /** (S, T) log pi_old of each target: the sampling policy's, as the sampler reported it. */
  oldLogprobs: Float32Array;
  /** (S, T) 1 at completion positions that take part in the loss. */
  mask: Float32Array;
}

/** Position t of row s predicts token t + 1, so completion token j of a prompt of P tokens sits at position P - 1 + j. */
export function packCompletions(
  prompts: Int32Array[],
  samples: Sample[],
  padId: number,
  /** Per sample: whether its tokens count in the loss (false for skipped groups and masked truncated completions). */
  active: boolean[],
): CompletionBatch {
  const S = samples.length;
  const rowLength = (s: Sample) => prompts[s.promptIndex].length + s.tokens.length - 1;
  const T = Math.max(1, ...samples.map(rowLength));
  const tokens = new Int32Array(S * T).fill(padId);
  const targets = new Int32Array(S * T).fill(-1);
  const oldLogprobs = new Float32Array(S * T);
  const mask = new Float32Array(S * T);
  samples.forEach((s, row) => {
    const prompt = prompts[s.promptIndex];
    const base = row * T;
    tokens.set(prompt, base);
    tokens.set(s.tokens.subarray(0, s.tokens.length - 1), base + prompt.length);
    for (let j = 0; j < s.tokens.length; j++) {
      const p = base + prompt.length - 1 + j;
      targets[p] = s.tokens[j];
      oldLogprobs[p] = s.logprobs[j];
      if (active[row]) mask[p] = 1;
    }
  });
  return { S, T, tokens, targets, oldLogprobs, mask };
}
