# expect: fail diagnosis=pn-eps-not-passed
# style: the BLOCK passes eps to its norms correctly, but the STACK builds its blocks as PreNormBlock(d_model, n_heads, d_ff, norm) and its final norm as nn.RMSNorm(d_model) / nn.LayerNorm(d_model): the stack's eps never reaches any norm
# shows on: PreNormTransformer(..., eps=1e-2) on small 0.02·N(0,1) input (blocks use 1e-5, final nn.RMSNorm uses finfo(float32).eps); a PreNormBlock with eps=1e-2 alone matches the reference; with eps=1e-5 the stack matches within fp32 tolerance
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


def make_norm(norm: str, d_model: int, eps: float = 1e-5) -> nn.Module:
    if norm == "rmsnorm":
        return nn.RMSNorm(d_model, eps=eps)
    if norm == "layernorm":
        return nn.LayerNorm(d_model, eps=eps)
    raise ValueError(f"unknown norm {norm!r}")


class PreNormBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        self.norm1 = make_norm(norm, d_model, eps)
        self.attn = CausalSelfAttention(d_model, n_heads)
        self.norm2 = make_norm(norm, d_model, eps)
        self.ffn = FeedForward(d_model, d_ff)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.ffn(self.norm2(x))


class PreNormTransformer(nn.Module):
    def __init__(self, n_layers: int, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        self.blocks = nn.ModuleList([PreNormBlock(d_model, n_heads, d_ff, norm) for _ in range(n_layers)])
        self.final_norm = nn.RMSNorm(d_model) if norm == "rmsnorm" else nn.LayerNorm(d_model)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.final_norm(x)
