"""Kata: a sandwich (Peri-LN) Transformer block and stack, with the norms placed as Gemma 2 and 3 place them.

Run `normkata grade` to check it. CausalSelfAttention and FeedForward are provided (the same as
in the prenorm kata): keep them as they are, the grader loads the reference's weights into your
modules. You may use nn.RMSNorm here, or your own RMSNorm from the rmsnorm kata.
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
    """One block with a norm before and after each sublayer (Gemma 2 / Gemma 3).

    Submodules (these names are graded): input_layernorm, self_attn (CausalSelfAttention),
    post_attention_layernorm, pre_feedforward_layernorm, mlp (FeedForward), post_feedforward_layernorm.
    Every norm is an RMSNorm over d_model with weight (ones) and the given eps.
    """

    def __init__(self, d_model: int, n_heads: int, d_ff: int, eps: float = 1e-6):
        super().__init__()
        raise NotImplementedError("create the four norms, self_attn and mlp")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d_model) -> (B, T, d_model)."""
        raise NotImplementedError("the two sandwiched residual sublayers")


class SandwichTransformer(nn.Module):
    """n_layers SandwichBlocks in `layers` (an nn.ModuleList), then the final RMSNorm `norm`."""

    def __init__(self, n_layers: int, d_model: int, n_heads: int, d_ff: int, eps: float = 1e-6):
        super().__init__()
        raise NotImplementedError("create layers and norm")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d_model) -> (B, T, d_model)."""
        raise NotImplementedError("run the layers, then the final norm")
