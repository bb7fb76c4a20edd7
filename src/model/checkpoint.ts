// A checkpoint is a Hugging Face GPT-2 directory (config.json, model.safetensors, tokenizer files, generation_config.json)
// that transformers' GPT2LMHeadModel/AutoTokenizer load as is, or with rotary positions a GPT-NeoX one
// (GPTNeoXForCausalLM, neox-format.ts), plus, for resumable training, the optimizer moments and trainer state.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from './checkpoint-error.ts';
import { GPT, parameterShapes, validateConfig, type GPTConfig } from './gpt.ts';
import { configFromNeox, fromNeox, neoxConfig, toNeox } from './neox-format.ts';
import { Tokenizer } from './tokenizer.ts';
import { CHAT_TEMPLATE } from './chat.ts';
import { loadSafetensors, saveSafetensors, type NamedTensor } from './safetensors.ts';

export { CheckpointError };

export const LAYER_NORM_EPSILON = 1e-5;

/** Where training stands, enough to continue exactly: the data order is a pure function of (seed, epoch). */
export interface TrainerState {
  globalStep: number;
  epoch: number;
  /** Batches of `epoch` already trained on. */
  batchInEpoch: number;
  maxSteps: number;
  seed: number;
  /** The trainer's settings, checked on resume. */
  args: Record<string, unknown>;
}

/** config.json: GPT-2's, or with rotary positions GPT-NeoX's (neox-format.ts). */
export function huggingFaceConfig(config: GPTConfig, tok: Tokenizer): Record<string, unknown> {
  if (config.positions === 'rotary') return neoxConfig(config, tok, LAYER_NORM_EPSILON);
  return {
    model_type: 'gpt2',
    architectures: ['GPT2LMHeadModel'],
    vocab_size: config.vocabSize,
    n_positions: config.nCtx,
    n_ctx: config.nCtx,
    n_embd: config.nEmbd,
    n_layer: config.nLayer,
    n_head: config.nHead,
    n_inner: null,
    activation_function: 'gelu_new',
    layer_norm_epsilon: LAYER_NORM_EPSILON,
    initializer_range: 0.02,
    // canvasgym trains without dropout; zero keeps model.train() in PyTorch the same model.
    resid_pdrop: 0.0,
    embd_pdrop: 0.0,
    attn_pdrop: 0.0,
    scale_attn_weights: true,
    use_cache: true,
    tie_word_embeddings: true,
    bos_token_id: tok.endId,
    eos_token_id: tok.endId,
    pad_token_id: tok.endId,
    torch_dtype: 'float32',
  };
}

export function configFromHuggingFace(json: Record<string, unknown>, source = 'config.json'): GPTConfig {
  const int = (key: string): number => {
    const v = json[key];
    if (!Number.isInteger(v) || (v as number) <= 0) throw new Error(`${source}: ${key} must be a positive integer, got ${JSON.stringify(v)}`);
    return v as number;
  };
  if (json.model_type === 'gpt_neox') return configFromNeox(json, source);
  if (json.model_type !== 'gpt2') throw new Error(`${source}: model_type is ${JSON.stringify(json.model_type)}, expected "gpt2" or "gpt_neox"`);
  if (json.activation_function !== undefined && json.activation_function !== 'gelu_new') {
    throw new Error(`${source}: activation_function ${JSON.stringify(json.activation_function)} is not supported (gelu_new only)`);
  }
  if (json.n_inner !== undefined && json.n_inner !== null && json.n_inner !== 4 * int('n_embd')) {
    throw new Error(`${source}: n_inner must be 4 * n_embd`);
  }
  return { vocabSize: int('vocab_size'), nCtx: int('n_positions'), nEmbd: int('n_embd'), nLayer: int('n_layer'), nHead: int('n_head') };
}

function tokenizerConfig(tok: Tokenizer, nCtx: number): Record<string, unknown> {
  const end = '<|end|>';
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    bos_token: end,
    eos_token: end,
    pad_token: end,
    unk_token: null,
    model_max_length: nCtx,
    clean_up_tokenization_spaces: false,
    add_bos_token: false,
    add_eos_token: false,
    chat_template: CHAT_TEMPLATE,
    added_tokens_decoder: Object.fromEntries(
      Object.entries(tok.specialIds).map(([content, id]) => [
        String(id),
        { content, lstrip: false, rstrip: false, normalized: false, single_word: false, special: true },
      ]),
    ),
  };
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

function readJson(path: string): Record<string, any> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${(err as Error).message}`);
  }
}

export interface SaveCheckpointOptions {
  model: GPT;
  tokenizer: Tokenizer;
  /** Written with the optimizer moments, for `--resume`. */
  trainerState?: TrainerState;
  generation?: { temperature?: number; topP?: number; maxNewTokens?: number };
}

/** Writes into a temporary directory and renames it, so that an interrupted save never leaves a half checkpoint. */
export function saveCheckpoint(dir: string, o: SaveCheckpointOptions): void {
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const { model, tokenizer: tok } = o;
  writeJson(join(tmp, 'config.json'), huggingFaceConfig(model.config, tok));
  saveSafetensors(
    join(tmp, 'model.safetensors'),
    model.config.positions === 'rotary' ? toNeox(model.parameters(), model.config) : model.parameters(),
    { format: 'pt' },
  );
  writeJson(join(tmp, 'generation_config.json'), {
    bos_token_id: tok.endId,
    eos_token_id: tok.endId,
    pad_token_id: tok.endId,
    do_sample: true,
    temperature: o.generation?.temperature ?? 0.7,
    top_p: o.generation?.topP ?? 1.0,
    max_new_tokens: o.generation?.maxNewTokens ?? model.config.nCtx,
  });
  writeJson(join(tmp, 'tokenizer.json'), tok.toHuggingFace());
  writeJson(join(tmp, 'tokenizer_config.json'), tokenizerConfig(tok, model.config.nCtx));
  writeJson(join(tmp, 'special_tokens_map.json'), { bos_token: '<|end|>', eos_token: '<|end|>', pad_token: '<|end|>' });
  if (o.trainerState) {
    const s = model.optimizer.state();
    saveSafetensors(
      join(tmp, 'optimizer.safetensors'),
      [
        { name: 'exp_avg', shape: [s.m.length], data: s.m },
        { name: 'exp_avg_sq', shape: [s.v.length], data: s.v },
      ],
      { step: String(s.step) },
    );
    writeJson(join(tmp, 'trainer_state.json'), o.trainerState);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}

export function readCheckpointConfig(dir: string): GPTConfig {
  return configFromHuggingFace(readJson(join(dir, 'config.json')), join(dir, 'config.json'));
}

/** The file's tensor for each parameter a config gives, by GPT-2 name, each checked for its shape; what the file holds
 *  beyond them is refused. */
function matchTensors(params: { name: string; shape: number[] }[], tensors: NamedTensor[], source: string): NamedTensor[] {
  const byName = new Map<string, NamedTensor>();
  for (const t of tensors) byName.set(t.name.startsWith('transformer.') || t.name.startsWith('lm_head.') ? t.name : `transformer.${t.name}`, t);
  const matched = params.map((p) => {
    const t = byName.get(p.name);
    if (!t) throw new Error(`${source}: tensor ${p.name} is missing`);
    if (t.shape.join(',') !== p.shape.join(',')) throw new Error(`${source}: tensor ${p.name} has shape [${t.shape}], the model in config.json needs [${p.shape}]`);
    byName.delete(p.name);
    return t;
  });
  // Buffers older transformers versions save, and an lm_head tied to wte, carry no weights of their own.
  const extra = [...byName.keys()].filter((n) => !/\.attn\.(masked_)?bias$/.test(n) && n !== 'lm_head.weight');
  if (extra.length) throw new Error(`${source}: unexpected tensors ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', ...' : ''}`);
  return matched;
}

export interface LoadedCheckpoint {
  model: GPT;
  tokenizer: Tokenizer;
  trainerState?: TrainerState;
}

/**
 * Loads a checkpoint directory. Whatever is wrong with its files (missing, truncated, bad JSON, another model type,
 * tensors of the wrong shape, a tokenizer that does not match) is a CheckpointError naming the file, found before the
 * model is built: a config that claims a huge model fails without taking its memory.
 */
export async function loadCheckpoint(dir: string, opts: { threads?: number; withOptimizer?: boolean } = {}): Promise<LoadedCheckpoint> {
  const { config, tokenizer, weights, optimizer } = readCheckpointFiles(dir, opts.withOptimizer ?? false);
  const model = await GPT.create(config, { threads: opts.threads });
  model.parameters().forEach((p, i) => p.data.set(weights[i].data));
  if (!optimizer) return { model, tokenizer };
  model.optimizer.loadState(optimizer.state);
  return { model, tokenizer, trainerState: optimizer.trainerState };
}

/** Runs a step of reading a checkpoint; what it throws becomes a CheckpointError (its message already names the file). */
function asCheckpointError<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError((err as Error).message);
  }
}

/** A checkpoint's config, tokenizer and weights (and with `withOptimizer` its optimizer moments and trainer state),
 *  read and checked against each other without building a model. */
function readCheckpointFiles(dir: string, withOptimizer: boolean) {
  return asCheckpointError(() => {
    const configPath = join(dir, 'config.json');
    if (!existsSync(configPath)) throw new Error(`${dir} is not a checkpoint: it has no config.json`);
    const config = readCheckpointConfig(dir);
    try {
      validateConfig(config);
    } catch (err) {
      throw new Error(`${configPath}: ${(err as Error).message}`);
    }
    const tokenizerPath = join(dir, 'tokenizer.json');
    const tokenizer = Tokenizer.load(tokenizerPath);
    if (tokenizer.vocabSize !== config.vocabSize) throw new Error(`${tokenizerPath}: ${tokenizer.vocabSize} tokens, but config.json says vocab_size ${config.vocabSize}`);
    const weightsPath = join(dir, 'model.safetensors');
    const params = parameterShapes(config);
    // Every tensor checked against the config before GPT.create takes the memory the config claims.
    const { tensors } = loadSafetensors(weightsPath);
    const weights = config.positions === 'rotary' ? fromNeox(params, tensors, config, weightsPath) : matchTensors(params, tensors, weightsPath);
    if (!withOptimizer) return { config, tokenizer, weights };
    const trainerState = readJson(join(dir, 'trainer_state.json')) as TrainerState;
    const optPath = join(dir, 'optimizer.safetensors');
    const opt = loadSafetensors(optPath);
    const m = opt.tensors.find((t) => t.name === 'exp_avg');
    const v = opt.tensors.find((t) => t.name === 'exp_avg_sq');
    const step = Number(opt.metadata.step);
    if (!m || !v || !Number.isInteger(step) || step < 0) throw new Error(`${optPath}: expected tensors exp_avg, exp_avg_sq and metadata step (a count)`);
    const size = params.reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0);
    if (m.data.length !== size || v.data.length !== size) throw new Error(`${optPath}: the moments hold ${m.data.length} and ${v.data.length} values, the model has ${size} parameters`);
    return { config, tokenizer, weights, optimizer: { trainerState, state: { step, m: m.data, v: v.data } } };
  });
}

/** Reads and checks a checkpoint directory as loadCheckpoint does, without building the model: for commands that want
 *  to refuse a bad checkpoint before they create their output. Throws a CheckpointError. */
export function checkCheckpoint(dir: string): void {
  readCheckpointFiles(dir, false);
}
