"""ChatGLM2 in miniature, for training, written from the architecture description in
shared/DESIGN.md §4 (not from the engine): pre-RMSNorm decoder blocks; fused QKV projection with
bias, multi-query attention with KV groups; RoPE on the first half of each head in adjacent pairs;
gate-first SwiGLU; untied output layer. Parameter names are those of the HF ChatGLM2 checkpoint.

Training packs several documents into one row: `positions` restart at 0 for every document and
`documents` says which document a position belongs to, so attention never crosses a document
boundary and every document is seen exactly as at inference (starting at position 0 with [gMASK]).
"""
import math
from dataclasses import dataclass

import torch
from torch import nn
import torch.nn.functional as F


@dataclass
class GlmConfig:
    vocab_size: int          # padded_vocab_size: pieces + specials, rounded up
    hidden_size: int = 256
    num_layers: int = 4
    num_heads: int = 8
    kv_groups: int = 2
    ffn_hidden_size: int = 704
    seq_length: int = 2048
    norm_eps: float = 1e-5
    dropout: float = 0.0     # training only: on both residual branches

    @property
    def head_dim(self):
        return self.hidden_size // self.num_heads


class RMSNorm(nn.Module):
    def __init__(self, size, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(variance + self.eps) * self.weight


def rotate_first_half(x, positions):
    """x [B, T, heads, d]; rotates (x[2i], x[2i+1]) for i < d/4 by positions · 10000^(−2i/(d/2))."""
    head_dim = x.shape[-1]
    rot = head_dim // 2
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, rot, 2, dtype=torch.float32) / rot))
    angles = positions.float()[..., None] * inv_freq            # [B, T, rot/2]
    cos = angles.cos()[:, :, None, :]
    sin = angles.sin()[:, :, None, :]
    rotated, passed = x[..., :rot], x[..., rot:]
    even, odd = rotated[..., 0::2], rotated[..., 1::2]
    out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return torch.cat((out.flatten(-2), passed), dim=-1)


class SelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        kv_size = c.kv_groups * c.head_dim
        self.query_key_value = nn.Linear(c.hidden_size, c.hidden_size + 2 * kv_size, bias=True)
        self.dense = nn.Linear(c.hidden_size, c.hidden_size, bias=False)

    def forward(self, x, positions, mask):
        c = self.c
        batch, length, _ = x.shape
        qkv = self.query_key_value(x)
        kv_size = c.kv_groups * c.head_dim
        q, k, v = qkv.split([c.hidden_size, kv_size, kv_size], dim=-1)
        q = rotate_first_half(q.view(batch, length, c.num_heads, c.head_dim), positions)
        k = rotate_first_half(k.view(batch, length, c.kv_groups, c.head_dim), positions)
        v = v.view(batch, length, c.kv_groups, c.head_dim)
        # Query head h reads KV group h // (heads / groups).
        repeat = c.num_heads // c.kv_groups
        k = k.repeat_interleave(repeat, dim=2)
        v = v.repeat_interleave(repeat, dim=2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))         # [B, heads, T, d]
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(c.head_dim)
        scores = scores.masked_fill(~mask[:, None], float("-inf"))
        out = F.softmax(scores.float(), dim=-1) @ v
        return self.dense(out.transpose(1, 2).reshape(batch, length, c.hidden_size))


class Mlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense_h_to_4h = nn.Linear(c.hidden_size, 2 * c.ffn_hidden_size, bias=False)
        self.dense_4h_to_h = nn.Linear(c.ffn_hidden_size, c.hidden_size, bias=False)

    def forward(self, x):
        gate, up = self.dense_h_to_4h(x).chunk(2, dim=-1)        # gate rows first
        return self.dense_4h_to_h(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c.hidden_size, c.norm_eps)
        self.self_attention = SelfAttention(c)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.norm_eps)
        self.mlp = Mlp(c)

    def forward(self, x, positions, mask):
        drop = self.self_attention.c.dropout
        attended = self.self_attention(self.input_layernorm(x), positions, mask)
        x = x + F.dropout(attended, drop, self.training)
        return x + F.dropout(self.mlp(self.post_attention_layernorm(x)), drop, self.training)


class Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layers = nn.ModuleList(Block(c) for _ in range(c.num_layers))
        self.final_layernorm = RMSNorm(c.hidden_size, c.norm_eps)


class Embedding(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size)


class Transformer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embedding = Embedding(c)
        self.encoder = Encoder(c)
        self.output_layer = nn.Linear(c.hidden_size, c.vocab_size, bias=False)


class ChatGlm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.transformer = Transformer(c)
        for name, p in self.named_parameters():
            if name.endswith("layernorm.weight"):
                continue
            if name.endswith(".bias"):
                nn.init.zeros_(p)
            else:
                nn.init.normal_(p, std=0.02)
        # Scale the projections that write into the residual stream (GPT-2's rule).
        for layer in self.transformer.encoder.layers:
            for p in (layer.self_attention.dense.weight, layer.mlp.dense_4h_to_h.weight):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * c.num_layers))

    def forward(self, ids, positions=None, documents=None):
        """ids [B, T] → logits [B, T, vocab]. Without positions/documents: one document per row."""
        batch, length = ids.shape
        if positions is None:
            positions = torch.arange(length).expand(batch, length)
        if documents is None:
            documents = torch.zeros_like(ids)
        causal = torch.ones(length, length, dtype=torch.bool).tril()
        mask = causal & (documents[:, :, None] == documents[:, None, :])
        x = self.transformer.embedding.word_embeddings(ids)
        for layer in self.transformer.encoder.layers:
            x = layer(x, positions, mask)
        x = self.transformer.encoder.final_layernorm(x)
        return self.transformer.output_layer(x)
