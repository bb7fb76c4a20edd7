"""PyTorch CPU reference for bench/model.ts: the same GPT-2 (pre-LayerNorm, learned positions, tanh-GELU MLP, tied
embeddings), timed for training (forward + backward + AdamW) and KV-cached sampling.

Run by /usr/bin/python3 with Debian's python3-torch (and libopenblas0-pthread, else BLAS is the slow reference one).
Threads: --threads sets torch's intra-op threads; OpenBLAS threads come from OPENBLAS_NUM_THREADS, set by the caller.
Prints one JSON object on stdout.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def rotate(x, cos, sin):
    """Rotary positions on (B, nh, T, hs), cos and sin (T, hs) for the rows' positions (rotate_half's layout)."""
    half = x.size(-1) // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], dim=-1) * sin


class Block(nn.Module):
    def __init__(self, C, nh):
        super().__init__()
        self.nh = nh
        self.ln_1 = nn.LayerNorm(C, eps=1e-5)
        self.c_attn = nn.Linear(C, 3 * C)
        self.c_proj = nn.Linear(C, C)
        self.ln_2 = nn.LayerNorm(C, eps=1e-5)
        self.c_fc = nn.Linear(C, 4 * C)
        self.mlp_proj = nn.Linear(4 * C, C)

    def attend(self, q, k, v, causal):
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
        if causal:
            T = q.size(-2)
            att = att.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float('-inf'))
        return F.softmax(att, dim=-1) @ v

    def forward(self, x, cache=None, pos=0, rope=None):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q = q.view(B, T, self.nh, -1).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.nh, -1).transpose(1, 2)
        v = v.view(B, T, self.nh, -1).transpose(1, 2)
        if rope is not None:
            cos, sin = rope[0][pos:pos + T], rope[1][pos:pos + T]
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        if cache is None:
            y = self.attend(q, k, v, True)
        else:
            kc, vc = cache
            kc[:, :, pos:pos + T] = k
            vc[:, :, pos:pos + T] = v
            y = self.attend(q, kc[:, :, :pos + T], vc[:, :, :pos + T], T > 1)
        y = y.transpose(1, 2).reshape(B, T, C)
        x = x + self.c_proj(y)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate='tanh'))


class GPT(nn.Module):
    """GPT-2, or with rope_theta rotary positions in place of wpe (canvasgym's positions: 'rotary')."""

    def __init__(self, V, n_ctx, C, L, nh, rope_theta=None):
        super().__init__()
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(n_ctx, C) if rope_theta is None else None
        self.rope = None
        if rope_theta is not None:
            hs = C // nh
            inv_freq = 1.0 / (rope_theta ** (torch.arange(0, hs, 2, dtype=torch.float64) / hs))
            angles = torch.outer(torch.arange(n_ctx, dtype=torch.float64), inv_freq)
            self.rope = (torch.cat([angles.cos()] * 2, dim=-1).float(), torch.cat([angles.sin()] * 2, dim=-1).float())
        self.h = nn.ModuleList([Block(C, nh) for _ in range(L)])
        self.ln_f = nn.LayerNorm(C, eps=1e-5)
        for p in self.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)

    def forward(self, idx, caches=None, pos=0):
        B, T = idx.shape
        x = self.wte(idx)
        if self.wpe is not None:
            x = x + self.wpe(torch.arange(pos, pos + T))
        for i, block in enumerate(self.h):
            x = block(x, None if caches is None else caches[i], pos, self.rope)
        return self.ln_f(x) @ self.wte.weight.t()  # (B, T, V), tied head


def bench_train(model, V, B, T, steps):
    decay = [p for n, p in model.named_parameters() if p.dim() == 2 and 'wte' not in n and 'wpe' not in n]
    other = [p for n, p in model.named_parameters() if not (p.dim() == 2 and 'wte' not in n and 'wpe' not in n)]
    opt = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.01}, {'params': other, 'weight_decay': 0.0}], lr=1e-4)
    x = torch.randint(0, V, (B, T))
    y = torch.randint(0, V, (B, T))
    times, cpu = [], []
    for step in range(steps + 2):
        t0, c0 = time.perf_counter(), time.process_time()
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, V), y.view(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step >= 2:  # warm-up
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    return B * T / statistics.median(times), B * T / statistics.median(cpu)


@torch.no_grad()
def bench_sample(model, V, n_layer, nh, C, seqs, prompt_len, new_tokens, runs):
    ctx = prompt_len + new_tokens
    hs = C // nh
    times = []
    for rep in range(runs):
        caches = [(torch.zeros(seqs, nh, ctx, hs), torch.zeros(seqs, nh, ctx, hs)) for _ in range(n_layer)]
        prompt = torch.randint(0, V, (seqs, prompt_len))
        t0 = time.perf_counter()
        logits = model(prompt, caches, 0)[:, -1]
        pos = prompt_len
        for _ in range(new_tokens):
            probs = F.softmax(logits, dim=-1)
            tok = torch.multinomial(probs, 1)
            logits = model(tok, caches, pos)[:, -1]
            pos += 1
        times.append(time.perf_counter() - t0)
    return seqs * new_tokens / min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--vocab', type=int, required=True)
    ap.add_argument('--ctx', type=int, required=True)
    ap.add_argument('--embd', type=int, required=True)
    ap.add_argument('--layers', type=int, required=True)
    ap.add_argument('--heads', type=int, required=True)
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--seq', type=int, default=256)
    ap.add_argument('--steps', type=int, default=5)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--sample-seqs', default='8,64')
    ap.add_argument('--prompt-len', type=int, default=16)
    ap.add_argument('--new-tokens', type=int, default=200)
    ap.add_argument('--sample-runs', type=int, default=5)
    ap.add_argument('--rope-theta', type=float, default=None, help='rotary positions with this base instead of learned ones')
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = GPT(a.vocab, a.ctx, a.embd, a.layers, a.heads, a.rope_theta)
    out = {
        'torch': torch.__version__,
        'threads': a.threads,
        'openblasThreads': os.environ.get('OPENBLAS_NUM_THREADS'),
        'sampleTokensPerSec': {},
    }
    # Per CPU-second figures do not depend on how much of the machine other processes take (1 thread only).
    out['trainTokensPerSec'], out['trainTokensPerCpuSec'] = bench_train(model, a.vocab, a.batch, a.seq, a.steps)
    model.eval()
    for s in [int(x) for x in a.sample_seqs.split(',') if x]:
        out['sampleTokensPerSec'][str(s)] = bench_sample(model, a.vocab, a.layers, a.heads, a.embd, s, a.prompt_len, a.new_tokens, a.sample_runs)
    json.dump(out, sys.stdout)
    print()


if __name__ == '__main__':
    main()
