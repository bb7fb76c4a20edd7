import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeSafetensors, encodeSafetensors, loadSafetensors } from '../../src/model/safetensors.ts';
import { GPT, presetConfig, type Positions } from '../../src/model/gpt.ts';
import { trainTokenizer } from '../../src/model/tokenizer.ts';
import { loadCheckpoint, saveCheckpoint } from '../../src/model/checkpoint.ts';
import { seededRandom } from '../../src/random.ts';

const PYTHON = '/usr/bin/python3';
const hasTorch = spawnSync(PYTHON, ['-c', 'import torch, numpy'], { stdio: 'ignore' }).status === 0;

describe('safetensors', () => {
  const tensors = [
    { name: 'a', shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, -6.5]) },
    { name: 'b.bias', shape: [3], data: Float32Array.from([0.25, Number.MIN_VALUE, 3e38]) },
  ];

  it('round-trips tensors and metadata with an 8-byte aligned header', () => {
    const buf = encodeSafetensors(tensors, { format: 'pt' });
    const headerLen = Number(new DataView(buf.buffer).getBigUint64(0, true));
    expect(headerLen % 8).toBe(0);
    const back = decodeSafetensors(buf);
    expect(back.metadata).toEqual({ format: 'pt' });
    expect(back.tensors.map((t) => [t.name, t.shape, Array.from(t.data)])).toEqual(tensors.map((t) => [t.name, t.shape, Array.from(t.data)]));
  });

  it('refuses bad files with a clear error', () => {
    const good = encodeSafetensors(tensors);
    expect(() => decodeSafetensors(good.subarray(0, good.length - 4), 'x.safetensors')).toThrow(/x\.safetensors: truncated: tensor b\.bias ends at byte 36/);
    expect(() => decodeSafetensors(good.subarray(0, 5))).toThrow(/truncated: 5 bytes/);
    expect(() => decodeSafetensors(good.subarray(0, 20))).toThrow(/truncated: the header claims/);
    const withHeader = (header: object, dataBytes: number) => {
      const json = new TextEncoder().encode(JSON.stringify(header));
      const out = new Uint8Array(8 + json.length + dataBytes);
      new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
      out.set(json, 8);
      return out;
    };
    expect(() => decodeSafetensors(withHeader({ w: { dtype: 'F16', shape: [2], data_offsets: [0, 4] } }, 4))).toThrow(/dtype "F16"; canvasgym reads F32 only/);
    expect(() => decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [2], data_offsets: [0, 4] } }, 4))).toThrow(/span 4 bytes, shape \[2\] of F32 needs 8/);
    expect(() =>
      decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] }, v: { dtype: 'F32', shape: [1], data_offsets: [2, 6] } }, 8)),
    ).toThrow(/gap or overlap/);
    expect(() => decodeSafetensors(withHeader({ w: { dtype: 'F32', shape: [1], data_offsets: [4, -1] } }, 8))).toThrow(/bad data_offsets/);
    const notJson = withHeader({}, 0);
    notJson[8] = 0x7b + 1;
    expect(() => decodeSafetensors(notJson)).toThrow(/header is not valid JSON/);
  });
});

/** GPT-2 init is close to zero everywhere; spread the weights so that logits are large and every tensor matters. */
function randomize(model: GPT, seed: number): void {
  const rand = seededRandom(seed);
  for (const p of model.parameters()) {
    const base = /ln_|ln_f/.test(p.name) && p.name.endsWith('weight') ? 1 : 0;
    for (let i = 0; i < p.data.length; i++) p.data[i] = base + (rand() - 0.5) * 0.5;
  }
}

describe('checkpoint', () => {
  const corpus = Array.from({ length: 200 }, (_, i) => `{"type":"create_shape","id":"n${i % 17}","x":${(i * 37) % 500},"text":"Node ${i}"}`);
  const tok = trainTokenizer(corpus, { vocabSize: 300 });
  const sequences = [tok.encode(corpus[3]), tok.encode(corpus[11] + corpus[12]).slice(0, 40), [tok.endId, ...tok.encode('héllo ✓')]];

  async function makeCheckpoint(positions: Positions = 'learned'): Promise<{ dir: string; model: GPT }> {
    // rotary: a low base, so that every pair turns over these positions
    const model = await GPT.create({ ...presetConfig('tiny', tok.vocabSize), ...(positions === 'rotary' ? { positions, ropeTheta: 30 } : {}) }, { seed: 3 });
    randomize(model, 7);
    const dir = join(mkdtempSync(join(tmpdir(), 'ckpt-')), 'final');
    saveCheckpoint(dir, { model, tokenizer: tok });
    return { dir, model };
  }

  it('writes a Hugging Face GPT-2 directory and loads it back to the same logits', async () => {
    const { dir, model } = await makeCheckpoint();
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], vocab_size: tok.vocabSize, eos_token_id: tok.endId, activation_function: 'gelu_new' });
    const tokConfig = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'));
    expect(tokConfig.chat_template).toContain('<|assistant|>');
    const loaded = await loadCheckpoint(dir);
    for (const seq of sequences) {
      const ids = Int32Array.from(seq);
      expect(Array.from(loaded.model.logits(ids, 1, ids.length))).toEqual(Array.from(model.logits(ids, 1, ids.length)));
    }
    expect(loaded.tokenizer.encode(corpus[5])).toEqual(tok.encode(corpus[5]));
    await Promise.all([model.dispose(), loaded.model.dispose()]);
  });

  it('writes a model with rotary positions as a GPT-NeoX directory and loads it back to the same logits', async () => {
    const model = await GPT.create({ ...presetConfig('tiny', tok.vocabSize), positions: 'rotary', ropeTheta: 1000 }, { seed: 3 });
    randomize(model, 7);
    const dir = join(mkdtempSync(join(tmpdir(), 'ckpt-')), 'final');
    saveCheckpoint(dir, { model, tokenizer: tok });
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toMatchObject({
      model_type: 'gpt_neox', architectures: ['GPTNeoXForCausalLM'], rope_theta: 1000, rotary_pct: 1, use_parallel_residual: false, tie_word_embeddings: true,
    });
    const names = loadSafetensors(join(dir, 'model.safetensors')).tensors.map((t) => t.name);
    expect(names).toContain('gpt_neox.layers.1.attention.query_key_value.weight');
    expect(names).toContain('embed_out.weight');
    const loaded = await loadCheckpoint(dir);
    expect(loaded.model.config).toMatchObject({ positions: 'rotary', ropeTheta: 1000 });
    expect(loaded.model.parameters().map((p) => p.name)).not.toContain('transformer.wpe.weight');
    const ids = Int32Array.from(sequences[1]);
    expect(Array.from(loaded.model.logits(ids, 1, ids.length))).toEqual(Array.from(model.logits(ids, 1, ids.length)));
    // what the block does not compute is refused, not loaded wrong
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, use_parallel_residual: true }));
    await expect(loadCheckpoint(dir)).rejects.toThrow(/use_parallel_residual must be false/);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, rotary_pct: 0.25 }));
    await expect(loadCheckpoint(dir)).rejects.toThrow(/rotary_pct 0.25 is not supported/);
    await Promise.all([model.dispose(), loaded.model.dispose()]);
  });

  it('refuses a checkpoint whose weights do not fit its config', async () => {
    const { dir, model } = await makeCheckpoint();
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, n_embd: config.n_embd * 2 }));
    await expect(loadCheckpoint(dir)).rejects.toThrow(/tensor transformer\.wte\.weight has shape \[300,32\], the model in config\.json needs \[300,64\]/);
    await model.dispose();
  });

  it.skipIf(!hasTorch).each(['learned', 'rotary'] as const)('matches a plain PyTorch forward of the Hugging Face layout (GPT-2, or GPT-NeoX with rotary positions) within 1e-4 (%s positions)', async (positions) => {
    const { dir, model } = await makeCheckpoint(positions);
    const work = mkdtempSync(join(tmpdir(), 'ref-'));
    writeFileSync(join(work, 'tokens.json'), JSON.stringify(sequences));
    execFileSync(PYTHON, ['python/reference_logits.py', dir, join(work, 'tokens.json'), join(work, 'logits.f32')], {
      env: { ...process.env, OMP_NUM_THREADS: '1' },
    });
    const raw = readFileSync(join(work, 'logits.f32'));
    const ref = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
    let at = 0;
    let worst = 0;
    let scale = 0;
    for (const seq of sequences) {
      const ours = model.logits(Int32Array.from(seq), 1, seq.length);
      for (let i = 0; i < ours.length; i++) {
        worst = Math.max(worst, Math.abs(ours[i] - ref[at + i]));
        scale = Math.max(scale, Math.abs(ref[at + i]));
      }
      at += ours.length;
    }
    expect(at).toBe(ref.length);
    expect(scale).toBeGreaterThan(1);
    expect(worst).toBeLessThan(1e-4);
    await model.dispose();
  });
});
