// GRPO's settings, once: names and meanings follow TRL's GRPOConfig. The config type, the defaults, the checks of
// trainGrpo, the `canvasgym grpo` flags and their help, and the table in docs/grpo.md all come from this schema.
import { z } from 'zod';
import type { LossType, ScaleRewards } from './grpo-loss.ts';
import { threadsSetting } from '../settings.ts';

export const LOSS_TYPES = ['grpo', 'dr_grpo', 'dapo'] as const satisfies readonly LossType[];
export const SCALE_REWARDS = ['group', 'batch', 'none'] as const satisfies readonly ScaleRewards[];
export const LR_SCHEDULERS = ['constant', 'cosine'] as const;
export type LrScheduler = (typeof LR_SCHEDULERS)[number];

const posInt = () => z.int().positive();
const share = () => z.number().min(0).lt(1);

// The defaults are sized so that GRPO on the default SFT student wins its held-out comparison in a few CPU minutes
// (docs/grpo.md, "Why the defaults").
export const GrpoSettings = z.object({
  output_dir: z.string().min(1).describe('output directory: log.jsonl, rollouts.jsonl, checkpoint-N/, final/').meta({ flag: '--out', arg: 'dir', required: 'the output directory' }),
  init: z.string().min(1).describe('student checkpoint to start from (an SFT student); also the frozen reference model').meta({ arg: 'dir', required: 'the student checkpoint to start from (e.g. RUN/sft/final)' }),
  reward: z.string().min(1).optional().describe("reward preset by name, one of the environment's rewards (docs/reward.md); unset: the environment's defaultReward").meta({ arg: 'name' }),
  num_generations: z.int().min(2).default(8).describe('completions per prompt (the group; a group of one has no relative advantage)'),
  generation_batch_size: posInt().default(32).describe('completions sampled per step: prompts per step x num_generations, so a multiple of it'),
  per_device_train_batch_size: posInt().default(16).describe('completions per forward/backward pass; gradients accumulate over the generation batch'),
  max_steps: posInt().default(60).describe('steps; each samples one generation batch and makes num_iterations optimizer updates on it').meta({ flag: '--steps' }),
  num_iterations: posInt().default(1).describe("optimizer updates per generation batch (TRL's mu); above 1 the ratio to the sampling policy moves and clipping acts"),
  learning_rate: z.number().positive().default(1e-4).describe('peak learning rate').meta({ arg: 'x' }),
  lr_scheduler_type: z.enum(LR_SCHEDULERS).default('constant').describe('the learning rate after warmup').meta({ flag: '--lr-scheduler' }),
  warmup_ratio: share().default(0.1).describe('share of the updates spent warming the learning rate up'),
  min_lr_rate: z.number().min(0).max(1).default(0.1).describe("the cosine's floor, as a share of learning_rate"),
  weight_decay: z.number().min(0).default(0).describe('AdamW weight decay'),
  adam_beta1: share().default(0.9).describe('AdamW beta1'),
  adam_beta2: share().default(0.99).describe('AdamW beta2'),
  adam_epsilon: z.number().positive().default(1e-8).describe('AdamW epsilon'),
  max_grad_norm: z.number().positive().default(1).describe('gradient clipping'),
  beta: z.number().min(0).default(0.1).describe('KL coefficient to the reference model (k3 estimator); 0 drops the reference'),
  epsilon: share().default(0.2).describe('lower clip: the ratio may fall to 1 - epsilon'),
  epsilon_high: z.number().min(0).default(0.28).describe("upper clip: the ratio may rise to 1 + epsilon_high (DAPO's clip-higher)"),
  loss_type: z.enum(LOSS_TYPES).default('dapo').describe('token normalisation of the loss'),
  scale_rewards: z.enum(SCALE_REWARDS).default('group').describe('advantage scaling'),
  mask_truncated_completions: z.boolean().default(true).describe("completions cut by max_completion_length take no part in the loss (their rewards still shape the group's baseline)"),
  max_completion_length: posInt().default(384).describe('new tokens per completion'),
  temperature: z.number().positive().default(0.8).describe('sampling temperature'),
  top_p: z.number().positive().max(1).default(1).describe('nucleus sampling'),
  top_k: z.int().min(0).default(0).describe('top-k sampling; 0: off'),
  curriculum: z.boolean().default(false).describe('raise the allowed difficulty level step by step instead of drawing every level from the start'),
  curriculum_ratio: z.number().positive().max(1).default(0.5).describe('share of max_steps over which the curriculum reaches the top level'),
  log_completions_steps: posInt().default(5).describe('write full rollouts every n steps (and at the last step)'),
  num_completions_to_print: z.int().min(0).default(4).describe('rollouts written each time'),
  save_steps: posInt().default(10).describe('checkpoint every n steps'),
  seed: z.int().default(42).describe('seed for prompts and sampling'),
  threads: threadsSetting('worker threads per model (the policy and the reference each have theirs)'),
});

/** The settings with the rule between them (a refined schema can no longer be extended or narrowed, so it is apart). */
export const CheckedGrpoSettings = GrpoSettings.refine((c) => c.generation_batch_size % c.num_generations === 0, {
  path: ['generation_batch_size'],
  error: (i) => {
    const c = i.input as { generation_batch_size: number; num_generations: number };
    return `generation_batch_size (${c.generation_batch_size}) must be a multiple of num_generations (${c.num_generations})`;
  },
});

export type GRPOConfig = z.infer<typeof GrpoSettings>;

export const GRPO_DEFAULTS: Omit<GRPOConfig, 'output_dir' | 'init'> = GrpoSettings.omit({ output_dir: true, init: true }).parse({});
