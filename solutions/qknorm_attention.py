"""Reference causal self-attention with QK-norm, as in Qwen3: q and k are RMS-normalized per head,
over head_dim, with one learnable gain of size head_dim each, before the scaled dot product."""

from __future__ import annotations

import math

import torch
from torch import nn


class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) · weight over the last dimension, computed in float32 at least."""

    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        in_dtype = x.dtype
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (h * self.weight).to(in_dtype)


class QKNormAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, eps: float = 1e-5):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must be divisible by n_heads"
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
        self.q_norm = RMSNorm(self.head_dim, eps)  # one gain of size head_dim, shared by every head
        self.k_norm = RMSNorm(self.head_dim, eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape  # batch, time, channels (d_model)
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim)
        k = self.k_proj(x).view(B, T, self.n_heads, self.head_dim)
        v = self.v_proj(x).view(B, T, self.n_heads, self.head_dim)
        q, k = self.q_norm(q), self.k_norm(k)  # per head, before the dot product; v is left alone
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, nh, T, hd)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)  # (B, nh, T, T)
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        att = att.masked_fill(future, float("-inf")).softmax(dim=-1)  # a position sees itself and the past
        y = (att @ v).transpose(1, 2).reshape(B, T, C)  # heads side by side again
        return self.o_proj(y)
