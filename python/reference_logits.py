"""A plain PyTorch forward (no transformers) over a canvasgym checkpoint, to check its logits independently: GPT-2
(GPT2LMHeadModel's config and weights) or, for a model with rotary positions, GPT-NeoX (GPTNeoXForCausalLM's).

Usage: /usr/bin/python3 python/reference_logits.py CHECKPOINT_DIR TOKENS_JSON OUT_F32
TOKENS_JSON holds a list of token-id lists; OUT_F32 receives each sequence's (T, vocab) logits as little-endian float32, in order.
The safetensors file is parsed with the standard library, so the format is checked independently of canvasgym's writer too.
"""
import json
import math
import struct
import sys

import torch
import torch.nn.functional as F


def load_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (header_len,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + header_len])
    data = raw[8 + header_len :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", f"{name}: dtype {info['dtype']}"
        begin, end = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.float32)
        tensors[name] = t.reshape(info["shape"])
    return tensors


def gpt2_logits(w, cfg, idx):
    """idx: (B, T) token ids -> (B, T, V) logits."""
    B, T = idx.shape
    C, nh = cfg["n_embd"], cfg["n_head"]
    hs = C // nh
    eps = cfg["layer_norm_epsilon"]
    x = w["transformer.wte.weight"][idx] + w["transformer.wpe.weight"][:T]  # (B, T, C)
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for i in range(cfg["n_layer"]):
        p = f"transformer.h.{i}."
        h = F.layer_norm(x, (C,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # (B, T, 3C), Conv1D weight is (in, out)
        q, k, v = (t.view(B, T, nh, hs).transpose(1, 2) for t in qkv.split(C, dim=2))  # (B, nh, T, hs)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hs)  # (B, nh, T, T)
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + y @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = F.layer_norm(x, (C,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = F.gelu(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"], approximate="tanh")  # (B, T, 4C)
        x = x + h @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = F.layer_norm(x, (C,), w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], eps)
    return x @ w["transformer.wte.weight"].T  # tied lm_head: (B, T, V)


def rotate(x, base):
    """GPT-NeoX's rotary positions on (B, nh, T, hs): pair (d, d + hs/2) turned by t * base^(-2d/hs) (rotate_half)."""
    T, hs = x.shape[-2], x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))
    angles = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)  # (T, hs/2)
    cos = torch.cat([angles.cos(), angles.cos()], dim=-1).float()
    sin = torch.cat([angles.sin(), angles.sin()], dim=-1).float()
    x1, x2 = x[..., : hs // 2], x[..., hs // 2 :]
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


def neox_logits(w, cfg, idx):
    """idx: (B, T) token ids -> (B, T, V) logits of a GPT-NeoX checkpoint (sequential residual, tied embeddings)."""
    B, T = idx.shape
    C, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    hs = C // nh
    eps = cfg["layer_norm_eps"]
    base = cfg.get("rope_theta", cfg.get("rotary_emb_base"))
    x = w["gpt_neox.embed_in.weight"][idx]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    for i in range(cfg["num_hidden_layers"]):
        p = f"gpt_neox.layers.{i}."
        h = F.layer_norm(x, (C,), w[p + "input_layernorm.weight"], w[p + "input_layernorm.bias"], eps)
        qkv = F.linear(h, w[p + "attention.query_key_value.weight"], w[p + "attention.query_key_value.bias"])
        qkv = qkv.view(B, T, nh, 3 * hs).transpose(1, 2)  # (B, nh, T, 3hs): each head's q, k, v side by side
        q, k, v = qkv.split(hs, dim=-1)
        q, k = rotate(q, base), rotate(k, base)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(hs)
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = x + F.linear(y, w[p + "attention.dense.weight"], w[p + "attention.dense.bias"])
        h = F.layer_norm(x, (C,), w[p + "post_attention_layernorm.weight"], w[p + "post_attention_layernorm.bias"], eps)
        h = F.gelu(F.linear(h, w[p + "mlp.dense_h_to_4h.weight"], w[p + "mlp.dense_h_to_4h.bias"]), approximate="tanh")
        x = x + F.linear(h, w[p + "mlp.dense_4h_to_h.weight"], w[p + "mlp.dense_4h_to_h.bias"])
    x = F.layer_norm(x, (C,), w["gpt_neox.final_layer_norm.weight"], w["gpt_neox.final_layer_norm.bias"], eps)
    return x @ w["embed_out.weight"].T


def main():
    ckpt, tokens_path, out_path = sys.argv[1:4]
    with open(f"{ckpt}/config.json") as f:
        cfg = json.load(f)
    if cfg["model_type"] == "gpt_neox":
        assert cfg["hidden_act"] == "gelu_new" and cfg["rotary_pct"] == 1.0 and not cfg["use_parallel_residual"]
        forward = neox_logits
    else:
        assert cfg["model_type"] == "gpt2" and cfg["activation_function"] == "gelu_new" and cfg["tie_word_embeddings"]
        forward = gpt2_logits
    w = load_safetensors(f"{ckpt}/model.safetensors")
    with open(tokens_path) as f:
        sequences = json.load(f)
    with torch.no_grad(), open(out_path, "wb") as out:
        for seq in sequences:
            logits = forward(w, cfg, torch.tensor([seq], dtype=torch.long))
            out.write(logits[0].contiguous().numpy().astype("<f4").tobytes())


if __name__ == "__main__":
    main()
