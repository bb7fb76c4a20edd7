// SFT's settings, once, with TRL's SFTConfig names where TRL has the knob. The config type, the defaults of each
// preset, the checks of runSft, the `canvasgym sft` flags and their help, and the table in docs/sft.md all come from
// this schema.
import { z } from 'zod';
import { MODEL_INITS, POSITIONS, type ModelInit, type Positions } from '../model/gpt.ts';
import { MAX_VOCAB_SIZE, MIN_VOCAB_SIZE } from '../model/tokenizer.ts';
import { threadsSetting } from '../settings.ts';

export const PRESETS = ['tiny', 'default', 'large'] as const;
export type Preset = (typeof PRESETS)[number];

const posInt = () => z.int().positive();
const share = () => z.number().min(0).lt(1);

// The defaults are the `default` preset's: about 2.7M training tokens, what an idle pair of cores trains in about 5.5
// minutes on data without a system prompt (docs/sft.md). Smaller batches, more updates: at this size the student
// learns more per token from more steps.
export const SftSettings = z.object({
  output_dir: z.string().min(1).describe('output directory: log.jsonl, checkpoint-N/, final/').meta({ flag: '--out', arg: 'dir' }),
  preset: z.enum(PRESETS).default('default').describe("the model's size (presetConfig) and the defaults of the other settings").meta({ arg: 'name' }),
  vocab_size: z.int().min(MIN_VOCAB_SIZE).max(MAX_VOCAB_SIZE).default(2048).describe("BPE vocabulary size of a new run (bytes, merges and the chat tokens)").meta({ note: '256 bytes and the chat tokens, then merges' }),
  learning_rate: z.number().positive().default(3e-3).describe('peak learning rate').meta({ arg: 'x' }),
  num_train_epochs: z.number().positive().default(1).describe('passes over the data, used when max_steps is 0 (on the command line: --epochs)').meta({ flag: false }),
  max_steps: z.int().min(0).default(1500).describe('optimizer steps; 0: num_train_epochs decides (on the command line: --steps)').meta({ flag: false }),
  warmup_ratio: share().default(0.05).describe('share of the steps spent warming the learning rate up'),
  min_lr_rate: z.number().min(0).max(1).default(0.1).describe("the cosine's floor, as a share of learning_rate"),
  weight_decay: z.number().min(0).default(0.1).describe('AdamW weight decay'),
  adam_beta1: share().default(0.9).describe('AdamW beta1'),
  adam_beta2: share().default(0.95).describe('AdamW beta2'),
  adam_epsilon: z.number().positive().default(1e-8).describe('AdamW epsilon'),
  max_grad_norm: z.number().positive().default(1).describe('gradient clipping'),
  max_length: posInt().default(1024).describe("longer conversations are truncated (their end is lost), as TRL does; the model's context is the preset's, widened in steps of 64 up to max_length when the longest conversation needs it"),
  tokens_per_batch: posInt().default(2048).describe('padded tokens per batch (rows x longest row): the batch is a token budget, not a row count'),
  completion_only_loss: z.boolean().default(true).describe('loss on assistant tokens only; false is refused').meta({ flag: false }),
  eval_fraction: share().default(0.05).describe('share of prompts held out for evaluation (by user prompt: no held-out prompt is trained on)'),
  eval_steps: posInt().default(250).describe('evaluate every n steps'),
  eval_samples: z.int().min(0).default(32).describe('held-out prompts sampled at each evaluation'),
  final_eval_samples: z.int().min(0).default(128).describe('held-out prompts sampled at the last evaluation, for the final figures'),
  final_eval_structured_output: z.boolean().default(true).describe('the last evaluation samples the same prompts again with structured output, so the final figures show both'),
  eval_loss_rows: z.int().min(0).default(64).describe('held-out conversations the held-out loss is taken over'),
  eval_temperature: z.number().min(0).default(0.7).describe('sampling temperature of the evaluations'),
  save_steps: posInt().default(250).describe('save a checkpoint every n steps'),
  logging_steps: posInt().default(10).describe('steps between printed lines without a progress bar (log.jsonl has every step)'),
  seed: z.int().default(42).describe('seed for initialisation, data order and evaluation sampling'),
  model_init: z.enum(MODEL_INITS as [ModelInit, ...ModelInit[]]).default('induction').describe("how a new run's weights start; induction plants a copying circuit (3+ heads, 2+ layers; docs/sft.md)").meta({ arg: 'scheme' }),
  positions: z.enum(POSITIONS as [Positions, ...Positions[]]).default('learned').describe("how a new run's model knows where a token stands: GPT-2's learned position embeddings, or rotary positions (docs/model.md)").meta({ arg: 'kind' }),
  stutter_rate: share().default(0.03).describe('share of assistant tokens repeated once in the input, untrained (teaches recovery from a stutter)'),
  threads: threadsSetting("worker threads of the model's kernels"),
});

export type SFTConfig = z.infer<typeof SftSettings>;
export type PresetDefaults = Omit<SFTConfig, 'output_dir' | 'preset' | 'threads'>;

const DEFAULTS: PresetDefaults = SftSettings.omit({ output_dir: true, preset: true, threads: true }).parse({});

/** What each preset changes from the defaults. */
export const PRESET_CHANGES: Record<Preset, Partial<PresetDefaults>> = {
  tiny: { vocab_size: 512, learning_rate: 1e-2, max_steps: 12, eval_steps: 6, eval_samples: 4, final_eval_samples: 4, eval_loss_rows: 8, save_steps: 6, logging_steps: 1, model_init: 'gpt2', stutter_rate: 0 },
  default: {},
  large: { learning_rate: 1e-3, max_steps: 400, tokens_per_batch: 4096, eval_steps: 50, save_steps: 100 },
};

export const PRESET_DEFAULTS = Object.fromEntries(PRESETS.map((p) => [p, { ...DEFAULTS, ...PRESET_CHANGES[p] }])) as Record<Preset, PresetDefaults>;
