// What the trainers and the evaluation ask of an environment: tasks, the conversation that poses one, rewards by name,
// and what one completion did there. A single-turn text environment in the sense of verifiers' SingleTurnEnv: the
// policy answers a conversation with one completion, and the environment scores it. SFT, GRPO and evaluation are
// written against this type only, so a new environment trains without touching them (docs/environments.md).
import type { z } from 'zod';
import type { TokenGuide } from '../model/sampler.ts';
import type { Tokenizer } from '../model/tokenizer.ts';
import type { ChatMessage } from '../policy/policy.ts';

/** One prompt and what the environment needs to score answers to it. */
export interface EnvTask<Spec = unknown> {
  id: string;
  prompt: string;
  spec: Spec;
}

export interface EnvScore {
  /** In [0, 1]. */
  reward: number;
  /** The named parts the reward is made of, each in [0, 1]. */
  components: Record<string, number>;
  errors: string[];
}

export interface EnvReward<Spec = unknown> {
  readonly name: string;
  score(task: EnvTask<Spec>, completion: string): EnvScore;
}

/** What a completion did in the environment, apart from its reward. */
export interface EnvOutcome {
  /** It reads as an answer at all (the diagram: JSON with an action list). */
  parsed: boolean;
  /** Parsed and accepted whole (the diagram: every action applied). */
  valid: boolean;
  errors: string[];
  /** Per-rollout rates in [0, 1], one per name in `metricNames`, averaged over the rollouts that have them; null where
   *  they do not apply (the diagram's teacher-quirk rates need a canvas). */
  metrics: Record<string, number> | null;
}

export interface TextEnv<Spec = unknown> {
  readonly name: string;
  /** One line for `--help` and docs. */
  readonly description: string;
  /** The task's spec: checks task files and SFT rows. */
  readonly spec: z.ZodType<Spec>;
  /** Splits `tasks` draws from; the first is the one training draws from. */
  readonly splits: readonly string[];
  /** Reward presets by name; `defaultReward` trains, `evalReward` is the one SFT's held-out samples report. */
  readonly rewards: readonly string[];
  readonly defaultReward: string;
  readonly evalReward: string;
  /** Throws, naming the presets, on an unknown name. */
  reward(name: string): EnvReward<Spec>;
  /** Up to `n` distinct tasks of a split (fewer where the split holds fewer), a pure function of the seed. */
  tasks(split: string, n: number, seed: number): EnvTask<Spec>[];
  /** The conversation that poses a task to the policy. */
  conversation(task: EnvTask<Spec>): ChatMessage[];
  outcome(task: EnvTask<Spec>, completion: string): EnvOutcome;
  /** Names of the per-rollout rates in EnvOutcome.metrics (empty where there are none). */
  readonly metricNames: readonly string[];
  /** Difficulty level for GRPO's curriculum (0 for every task where the environment has no levels). */
  level(task: EnvTask<Spec>): number;
  /** Structured output: a fresh per-sequence guide that masks tokens which cannot continue a valid answer. */
  guide?(tok: Tokenizer): () => TokenGuide;
  /** A correct answer, for SFT data without a teacher. */
  reference?(task: EnvTask<Spec>): string;
}
