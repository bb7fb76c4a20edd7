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

/** `Readback` is what an outside renderer made of a completion, for environments that have one (the diagram's tldraw
 *  editor); where given, it stands in for the environment's own execution. */
export interface EnvReward<Spec = unknown, Readback = never> {
  readonly name: string;
  score(task: EnvTask<Spec>, completion: string, readback?: Readback): EnvScore;
}

/** What a completion did in the environment, apart from its reward. */
export interface EnvOutcome {
  /** It reads as an answer at all (the diagram: JSON with an action list). */
  parsed: boolean;
  /** Parsed, and every part of it in the answer's schema (the diagram: no action failed its schema). */
  wellFormed: boolean;
  /** Parsed and accepted whole (the diagram: every action applied). */
  valid: boolean;
  errors: string[];
  /** Per-rollout rates in [0, 1], one per name in `metricNames` (the diagram: its teacher quirks); null where the
   *  environment has none. Training averages them over the completions that parsed, evaluation over all. */
  metrics: Record<string, number> | null;
}

export interface TextEnv<Spec = unknown, Readback = never> {
  readonly name: string;
  /** One line for `--help` and docs. */
  readonly description: string;
  /** The task's spec: checks the `spec` of SFT rows (task files, the diagram's only, are read by src/cli/task-file.ts). */
  readonly spec: z.ZodType<Spec>;
  /** Splits `tasks` draws from; the first is the one training draws from. */
  readonly splits: readonly string[];
  /** Reward presets by name; `defaultReward` trains. */
  readonly rewards: readonly string[];
  readonly defaultReward: string;
  /** What evaluation reports by default; the first is the main one (SFT's held-out samples, an eval's `reward`). */
  readonly evalRewards: readonly string[];
  /** Throws, naming the presets, on an unknown name. */
  reward(name: string): EnvReward<Spec, Readback>;
  /** Up to `n` distinct tasks of a split (fewer where the split holds fewer), a pure function of the seed. */
  tasks(split: string, n: number, seed: number): EnvTask<Spec>[];
  /** The conversation that poses a task to the policy. */
  conversation(task: EnvTask<Spec>): ChatMessage[];
  outcome(task: EnvTask<Spec>, completion: string, readback?: Readback): EnvOutcome;
  /** Names of the per-rollout rates in EnvOutcome.metrics (empty where there are none). */
  readonly metricNames: readonly string[];
  /** Difficulty level for GRPO's curriculum (0 for every task where the environment has no levels). */
  level(task: EnvTask<Spec>): number;
  /** Structured output: a fresh per-sequence guide that masks tokens which cannot continue a valid answer. */
  guide?(tok: Tokenizer): () => TokenGuide;
  /** A correct answer, for SFT data without a teacher. */
  reference?(task: EnvTask<Spec>): string;
  /** Labels evaluation breaks its figures down by (metrics' `by_<name>`): the diagram's kind and difficulty. */
  groups?(task: EnvTask<Spec>): Record<string, string>;
  /** A picture of what the completion made, as SVG (`empty` when it holds nothing), or why there is none; with a
   *  title and the errors drawn in for a file of its own. */
  draw?(completion: string, o?: { title?: string; errors?: boolean }): { svg: string; empty: boolean } | { error: string };
}
