"""Kata: a DiT block with adaLN-Zero conditioning, under the names of facebookresearch/DiT's models.py.

Run `normkata grade` to check it. Attention and Mlp are provided (as timm's, which DiT uses): keep
them as they are, the grader loads the reference's weights into your modules. You may use
nn.LayerNorm here.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    """Multi-head self-attention over all tokens (no mask), as timm's Attention: qkv, then proj."""

    def __init__(self, dim: int, num_heads: int = 8, qkv_bias: bool = True):
        super().__init__()
        assert dim % num_heads == 0, "dim must be divisible by num_heads"
        self.num_heads = num_heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape  # batch, tokens, channels
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)  # (B, heads, N, head_dim) each
        y = F.scaled_dot_product_attention(q, k, v)
        return self.proj(y.transpose(1, 2).reshape(B, N, C))


class Mlp(nn.Module):
    """fc1 -> GELU (tanh approximation, as DiT passes it) -> fc2, as timm's Mlp."""

    def __init__(self, in_features: int, hidden_features: int):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU(approximate="tanh")
        self.fc2 = nn.Linear(hidden_features, in_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class DiTBlock(nn.Module):
    """One DiT block whose norms carry the condition c (adaLN-Zero).

    Submodules (these names are graded): norm1, attn (Attention), norm2, mlp (Mlp), adaLN_modulation
    (nn.Sequential of nn.SiLU and nn.Linear(hidden_size, 6 * hidden_size)). The norms are LayerNorms
    without affine parameters, eps 1e-6; the modulation Linear starts at zero.
    """

    def __init__(self, hidden_size: int, num_heads: int, mlp_ratio: float = 4.0):
        super().__init__()
        raise NotImplementedError("create norm1, attn, norm2, mlp and adaLN_modulation")

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        """x: (N, T, hidden_size), c: (N, hidden_size) -> (N, T, hidden_size)."""
        raise NotImplementedError("modulate each norm's output with c and gate each branch")
