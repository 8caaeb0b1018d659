"""Kata: a Pre-Norm Transformer block and stack. Run `normkata grade` to check it.

CausalSelfAttention and FeedForward are provided: keep them as they are (the grader loads
the reference's weights into your modules, so their parameter names must not change).
You may use nn.RMSNorm and nn.LayerNorm here, or your own from the other katas.
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


class PreNormBlock(nn.Module):
    """One Pre-Norm Transformer block.

    Submodules (these names are graded): norm1, attn (CausalSelfAttention), norm2, ffn (FeedForward).
    norm is "rmsnorm" or "layernorm"; eps goes to both norms.
    """

    def __init__(self, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        raise NotImplementedError("create norm1, attn, norm2, ffn")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d_model) -> (B, T, d_model)."""
        raise NotImplementedError("the two pre-norm residual sublayers")


class PreNormTransformer(nn.Module):
    """n_layers PreNormBlocks in `blocks` (an nn.ModuleList), then `final_norm`."""

    def __init__(self, n_layers: int, d_model: int, n_heads: int, d_ff: int, norm: str = "rmsnorm", eps: float = 1e-5):
        super().__init__()
        raise NotImplementedError("create blocks and final_norm")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d_model) -> (B, T, d_model)."""
        raise NotImplementedError("run the blocks, then the final norm")
