// GRPO's arithmetic, as pure functions over flat arrays: group-relative advantages, the clipped surrogate with a
// k3 KL penalty to a reference policy, TRL's loss normalisations, and the per-token gradient the model's backward takes.
// Names and meanings follow TRL's GRPOConfig (scale_rewards, epsilon, epsilon_high, beta, loss_type).

export type ScaleRewards = 'group' | 'batch' | 'none';
export type LossType = 'grpo' | 'dr_grpo' | 'dapo';

export interface Advantages {
  /** One per completion. */
  advantages: Float64Array;
  /** One per group: true when every reward in the group was equal, so the group carries no signal and is left out. */
  skipped: boolean[];
}

const mean = (xs: ArrayLike<number>, from: number, to: number) => {
  let s = 0;
  for (let i = from; i < to; i++) s += xs[i];
  return s / (to - from);
};

/** Unbiased standard deviation (n - 1), as torch.std and TRL use. */
const std = (xs: ArrayLike<number>, from: number, to: number) => {
  const n = to - from;
  if (n < 2) return 0;
  const m = mean(xs, from, to);
  let s = 0;
  for (let i = from; i < to; i++) s += (xs[i] - m) ** 2;
  return Math.sqrt(s / (n - 1));
};

/**
 * A_i = (r_i - mean(group)) / (std + eps), with std taken over the group, over the whole batch, or not at all.
 * Rewards are laid out group by group: rewards[g * groupSize + k].
 */
export function groupAdvantages(rewards: ArrayLike<number>, groupSize: number, scale: ScaleRewards, eps = 1e-4): Advantages {
  if (groupSize < 1 || rewards.length % groupSize !== 0) {
    throw new Error(`rewards (${rewards.length}) must be whole groups of num_generations=${groupSize}`);
  }
  const groups = rewards.length / groupSize;
  const advantages = new Float64Array(rewards.length);
  const skipped: boolean[] = [];
  const batchStd = std(rewards, 0, rewards.length);
  for (let g = 0; g < groups; g++) {
    const from = g * groupSize;
    const to = from + groupSize;
    const groupStd = std(rewards, from, to);
    let flat = true;
    for (let i = from + 1; i < to; i++) if (rewards[i] !== rewards[from]) flat = false;
    skipped.push(flat);
    if (flat) continue;
    const m = mean(rewards, from, to);
    const denom = scale === 'group' ? groupStd + eps : scale === 'batch' ? batchStd + eps : 1;
    for (let i = from; i < to; i++) advantages[i] = (rewards[i] - m) / denom;
  }
  return { advantages, skipped };
}

export interface PolicyLossInput {
  /** Completions, each padded to `T` positions; all arrays below are S*T, row-major. */
  S: number;
  T: number;
  /** log pi_theta(token) under the policy being optimised. */
  logprobs: ArrayLike<number>;
  /** log pi_old(token): the policy that sampled. */
  oldLogprobs: ArrayLike<number>;
  /** log pi_ref(token): the frozen reference; ignored when beta = 0. */
  refLogprobs?: ArrayLike<number>;
  /** 1 for completion tokens that count, 0 for padding, prompts, skipped groups and masked truncated completions. */
  mask: ArrayLike<number>;
  /** One per completion. */
  advantages: ArrayLike<number>;
  epsilon: number;
  /** Upper clip bound (DAPO's clip-higher); defaults to epsilon. */
  epsilonHigh?: number;
  beta: number;
  lossType: LossType;
  /** dr_grpo divides by S * max_completion_length. */
  maxCompletionLength: number;
  /** dapo divides by the active tokens of the whole batch across accumulation steps; defaults to this batch's. */
  numItemsInBatch?: number;
}

export interface PolicyLoss {
  loss: number;
  /** dLoss/dlogprobs per position: what GPT.backward takes. */
  dLogprobs: Float32Array;
  /** Mean over active tokens of the k3 estimate of KL(pi_theta || pi_ref). */
  kl: number;
  /** Share of active tokens whose ratio was clipped in the direction that stops the gradient. */
  clipFraction: number;
  lowClipFraction: number;
  highClipFraction: number;
  activeTokens: number;
}

/**
 * Per token: -min(r * A, clip(r, 1 - eps, 1 + eps_high) * A) + beta * (exp(ref - logp) - (ref - logp) - 1),
 * with r = exp(logp - old). Normalised per TRL's loss_type:
 * grpo: mean over completions of each completion's token mean; dr_grpo: token sum / (S * max_completion_length);
 * dapo: token sum / active tokens in the batch.
 */
export function policyLoss(p: PolicyLossInput): PolicyLoss {
  const { S, T, logprobs, oldLogprobs, refLogprobs, mask, advantages, epsilon, beta, lossType } = p;
  const epsHigh = p.epsilonHigh ?? epsilon;
  if (beta !== 0 && !refLogprobs) throw new Error('beta > 0 needs reference log-probs');
  const dLogprobs = new Float32Array(S * T);
  let active = 0;
  const rowTokens = new Float64Array(S);
  for (let s = 0; s < S; s++) {
    for (let t = 0; t < T; t++) rowTokens[s] += mask[s * T + t];
    active += rowTokens[s];
  }
  const sequencesWithTokens = rowTokens.reduce((n, c) => n + (c > 0 ? 1 : 0), 0);
  const weightOf = (s: number): number => {
    if (rowTokens[s] === 0) return 0;
    switch (lossType) {
      case 'grpo':
        return 1 / (rowTokens[s] * sequencesWithTokens);
      case 'dr_grpo':
        return 1 / (S * p.maxCompletionLength);
      case 'dapo':
        return 1 / (p.numItemsInBatch ?? active);
    }
  };
  let loss = 0;
  let klSum = 0;
  let low = 0;
  let high = 0;
  for (let s = 0; s < S; s++) {
    const w = weightOf(s);
    const a = advantages[s];
    for (let t = 0; t < T; t++) {
      const i = s * T + t;
      const m = mask[i];
      if (m === 0) continue;
      const ratio = Math.exp(logprobs[i] - oldLogprobs[i]);
      const clipped = Math.min(Math.max(ratio, 1 - epsilon), 1 + epsHigh);
      const unclippedTerm = ratio * a;
      const clippedTerm = clipped * a;
      // The clipped branch has zero gradient; it is the active one exactly when it is the smaller term.
      const useUnclipped = unclippedTerm <= clippedTerm;
      let tokenLoss = -(useUnclipped ? unclippedTerm : clippedTerm);
      let grad = useUnclipped ? -unclippedTerm : 0;
      if (ratio < 1 - epsilon && a < 0) low += m;
      if (ratio > 1 + epsHigh && a > 0) high += m;
      if (beta !== 0) {
        const d = refLogprobs![i] - logprobs[i];
        const k3 = Math.exp(d) - d - 1;
        tokenLoss += beta * k3;
        grad += beta * (1 - Math.exp(d));
        klSum += k3 * m;
      }
      loss += w * m * tokenLoss;
      dLogprobs[i] = w * m * grad;
    }
  }
  return {
    loss,
    dLogprobs,
    kl: active > 0 ? klSum / active : 0,
    clipFraction: active > 0 ? (low + high) / active : 0,
    lowClipFraction: active > 0 ? low / active : 0,
    highClipFraction: active > 0 ? high / active : 0,
    activeTokens: active,
  };
}
