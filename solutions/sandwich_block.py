"""Reference sandwich (Peri-LN) block and stack, as Gemma 2 and Gemma 3 place their norms.

h = x + post_attention_layernorm(self_attn(input_layernorm(x)))
out = h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h)))
Names follow Hugging Face's Gemma2DecoderLayer / Gemma2Model (layers, norm).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention where each position sees only itself and the past."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)  # queries, keys and values in one matmul
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape  # batch, time, channels (d_model)
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_heads, C // self.n_heads).transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hs)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, nh, T, hs)
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class FeedForward(nn.Module):
    """Position-wise MLP: d_model -> d_ff -> d_model with a GELU in between."""

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.up = nn.Linear(d_model, d_ff)
        self.down = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


class SandwichBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, eps: float = 1e-6):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(d_model, eps=eps)
        self.self_attn = CausalSelfAttention(d_model, n_heads)
        self.post_attention_layernorm = nn.RMSNorm(d_model, eps=eps)
        self.pre_feedforward_layernorm = nn.RMSNorm(d_model, eps=eps)
        self.mlp = FeedForward(d_model, d_ff)
        self.post_feedforward_layernorm = nn.RMSNorm(d_model, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Each sublayer is normalized on both sides; the stream x itself is never normalized here.
        x = x + self.post_attention_layernorm(self.self_attn(self.input_layernorm(x)))
        x = x + self.post_feedforward_layernorm(self.mlp(self.pre_feedforward_layernorm(x)))
        return x


class SandwichTransformer(nn.Module):
    def __init__(self, n_layers: int, d_model: int, n_heads: int, d_ff: int, eps: float = 1e-6):
        super().__init__()
        self.layers = nn.ModuleList([SandwichBlock(d_model, n_heads, d_ff, eps) for _ in range(n_layers)])
        self.norm = nn.RMSNorm(d_model, eps=eps)  # normalized updates still add up: normalize the stream once

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)
