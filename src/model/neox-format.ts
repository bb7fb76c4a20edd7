// A model with rotary positions is saved as Hugging Face's GPT-NeoX (`GPTNeoXForCausalLM`, the Pythia models): the one
// architecture of the field that is GPT-2's block with rotary positions in place of learned ones (LayerNorm with bias,
// biases on every linear layer, a 4x tanh-GELU MLP, the residual stream sequential with `use_parallel_residual` false,
// the rotation on all of a head's dimensions in rotate_half's layout). Llama's block would change the norm, the MLP and
// the biases as well. The model keeps GPT-2's names and layouts inside (gpt.ts); this maps them to GPT-NeoX's and back:
// nn.Linear weights are (out, in) where GPT-2's Conv1D are (in, out), and the fused query_key_value projection is laid
// out per head (head, q|k|v, d) where c_attn is (q|k|v, head, d).
import { ROPE_THETA, type GPTConfig } from './gpt.ts';
import type { NamedTensor } from './safetensors.ts';

export function neoxConfig(config: GPTConfig, ids: { endId: number }, layerNormEps: number): Record<string, unknown> {
  return {
    model_type: 'gpt_neox',
    architectures: ['GPTNeoXForCausalLM'],
    vocab_size: config.vocabSize,
    max_position_embeddings: config.nCtx,
    hidden_size: config.nEmbd,
    num_hidden_layers: config.nLayer,
    num_attention_heads: config.nHead,
    intermediate_size: 4 * config.nEmbd,
    hidden_act: 'gelu_new',
    rotary_pct: 1.0,
    // transformers reads rope_theta (rotary_emb_base before 4.45)
    rope_theta: config.ropeTheta ?? ROPE_THETA,
    rotary_emb_base: config.ropeTheta ?? ROPE_THETA,
    use_parallel_residual: false,
    attention_bias: true,
    layer_norm_eps: layerNormEps,
    initializer_range: 0.02,
    attention_dropout: 0.0,
    hidden_dropout: 0.0,
    use_cache: true,
    tie_word_embeddings: true,
    bos_token_id: ids.endId,
    eos_token_id: ids.endId,
    pad_token_id: ids.endId,
    torch_dtype: 'float32',
  };
}

/** The GPTConfig of a GPT-NeoX config.json, refusing what the block does not compute. */
export function configFromNeox(json: Record<string, unknown>, source: string): GPTConfig {
  const int = (key: string): number => {
    const v = json[key];
    if (!Number.isInteger(v) || (v as number) <= 0) throw new Error(`${source}: ${key} must be a positive integer, got ${JSON.stringify(v)}`);
    return v as number;
  };
  const need = (key: string, ok: (v: unknown) => boolean, what: string): void => {
    if (json[key] !== undefined && !ok(json[key])) throw new Error(`${source}: ${key} ${JSON.stringify(json[key])} is not supported (${what})`);
  };
  need('hidden_act', (v) => v === 'gelu_new', 'gelu_new only');
  need('rotary_pct', (v) => v === 1, 'rotary positions on every dimension: 1.0');
  need('attention_bias', (v) => v === true, 'true');
  if (json.use_parallel_residual !== false) throw new Error(`${source}: use_parallel_residual must be false (canvasgym's block runs attention, then the MLP)`);
  const C = int('hidden_size');
  if (int('intermediate_size') !== 4 * C) throw new Error(`${source}: intermediate_size must be 4 * hidden_size`);
  const theta = json.rope_theta ?? json.rotary_emb_base;
  if (typeof theta !== 'number' || !(theta > 1)) throw new Error(`${source}: rope_theta must be a number above 1, got ${JSON.stringify(theta)}`);
  return {
    vocabSize: int('vocab_size'), nCtx: int('max_position_embeddings'), nEmbd: C, nLayer: int('num_hidden_layers'),
    nHead: int('num_attention_heads'), positions: 'rotary', ropeTheta: theta,
  };
}

/** Where a GPT-2 name's tensor goes in GPT-NeoX, and whether it is a Conv1D weight (transposed; c_attn also permuted). */
function neoxName(name: string): { name: string; linear: boolean; qkv: boolean } {
  const plain = (n: string) => ({ name: n, linear: false, qkv: false });
  if (name === 'transformer.wte.weight') return plain('gpt_neox.embed_in.weight');
  if (name === 'transformer.ln_f.weight') return plain('gpt_neox.final_layer_norm.weight');
  if (name === 'transformer.ln_f.bias') return plain('gpt_neox.final_layer_norm.bias');
  const m = /^transformer\.h\.(\d+)\.(ln_1|ln_2|attn\.c_attn|attn\.c_proj|mlp\.c_fc|mlp\.c_proj)\.(weight|bias)$/.exec(name);
  if (!m) throw new Error(`no GPT-NeoX name for ${name}`);
  const part = { ln_1: 'input_layernorm', ln_2: 'post_attention_layernorm', 'attn.c_attn': 'attention.query_key_value',
    'attn.c_proj': 'attention.dense', 'mlp.c_fc': 'mlp.dense_h_to_4h', 'mlp.c_proj': 'mlp.dense_4h_to_h' }[m[2]]!;
  return { name: `gpt_neox.layers.${m[1]}.${part}.${m[3]}`, linear: !m[2].startsWith('ln') && m[3] === 'weight', qkv: m[2] === 'attn.c_attn' };
}

/** c_attn's output column of GPT-NeoX's query_key_value output row o: row (h, part, d) is column (part, h, d). */
function qkvColumn(o: number, C: number, nh: number): number {
  const hs = C / nh, h = Math.floor(o / (3 * hs)), part = Math.floor((o % (3 * hs)) / hs), d = o % hs;
  return part * C + h * hs + d;
}

/** The one definition of the layouts' correspondence: for each element j of the GPT-NeoX tensor, the index of the
 *  GPT-2 tensor's element it holds (null where they are the same), and the GPT-NeoX shape. */
function neoxLayout(n: ReturnType<typeof neoxName>, shape: number[], config: GPTConfig): { from: Int32Array | null; shape: number[] } {
  const { nEmbd: C, nHead: nh } = config;
  if (!n.qkv && !n.linear) return { from: null, shape };
  if (!n.linear) return { from: Int32Array.from({ length: 3 * C }, (_, o) => qkvColumn(o, C, nh)), shape };
  const [K, N] = shape;
  const from = new Int32Array(K * N);
  for (let o = 0; o < N; o++) {
    const col = n.qkv ? qkvColumn(o, C, nh) : o;
    for (let i = 0; i < K; i++) from[o * K + i] = i * N + col;
  }
  return { from, shape: [N, K] };
}

/** The model's tensors (GPT-2 names and layouts) as GPT-NeoX's, embed_out written out beside embed_in (tied). */
export function toNeox(params: NamedTensor[], config: GPTConfig): NamedTensor[] {
  const out = params.map((p): NamedTensor => {
    const n = neoxName(p.name);
    const { from, shape } = neoxLayout(n, p.shape, config);
    return { name: n.name, shape, data: from ? Float32Array.from(from, (i) => p.data[i]) : p.data };
  });
  const wte = out.find((t) => t.name === 'gpt_neox.embed_in.weight')!;
  return [...out, { name: 'embed_out.weight', shape: wte.shape, data: wte.data }];
}

/** GPT-NeoX tensors in the model's names and layouts, for the parameters `params` names (checked by the caller); a
 *  tensor the model does not have is refused, embed_out must equal embed_in (the model ties them). */
export function fromNeox(params: { name: string; shape: number[] }[], tensors: NamedTensor[], config: GPTConfig, source: string): NamedTensor[] {
  const byName = new Map(tensors.map((t) => [t.name, t]));
  const out = params.map((p): NamedTensor => {
    const n = neoxName(p.name);
    const t = byName.get(n.name);
    if (!t) throw new Error(`${source}: tensor ${n.name} is missing`);
    byName.delete(n.name);
    const { from, shape } = neoxLayout(n, p.shape, config);
    if (t.shape.join(',') !== shape.join(',')) throw new Error(`${source}: tensor ${n.name} has shape [${t.shape}], the model in config.json needs [${shape}]`);
    if (!from) return { name: p.name, shape: p.shape, data: t.data };
    const data = new Float32Array(t.data.length);
    from.forEach((i, j) => (data[i] = t.data[j]));
    return { name: p.name, shape: p.shape, data };
  });
  const head = byName.get('embed_out.weight');
  byName.delete('embed_out.weight');
  const embed = out.find((t) => t.name === 'transformer.wte.weight')!;
  if (head && (head.data.length !== embed.data.length || head.data.some((x, i) => x !== embed.data[i]))) {
    throw new Error(`${source}: embed_out.weight differs from gpt_neox.embed_in.weight; canvasgym's model ties them`);
  }
  // Buffers older transformers versions save carry no weights.
  const extra = [...byName.keys()].filter((n) => !/\.attention\.(masked_)?bias$|rotary_emb\.inv_freq$/.test(n));
  if (extra.length) throw new Error(`${source}: unexpected tensors ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', ...' : ''}`);
  return out;
}
