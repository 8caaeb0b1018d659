"""Kata: causal self-attention with QK-norm (Qwen3 style). Run `normkata grade` to check it.

Submodule names are graded (the grader loads the reference's weights into yours):
q_proj, k_proj, v_proj, o_proj (nn.Linear(d_model, d_model, bias=False)) and q_norm, k_norm
(an RMSNorm over head_dim with a parameter `weight` of shape (head_dim,), ones at the start).
You may use F.scaled_dot_product_attention; write the RMSNorm yourself (F.rms_norm and
nn.RMSNorm are not allowed).
"""

from __future__ import annotations

import torch
from torch import nn


class QKNormAttention(nn.Module):
    """Multi-head causal self-attention whose queries and keys are RMS-normalized per head.

    Args:
        d_model: model width; n_heads must divide it (head_dim = d_model // n_heads).
        n_heads: number of attention heads.
        eps: the eps of q_norm and k_norm.
    """

    def __init__(self, d_model: int, n_heads: int, eps: float = 1e-5):
        super().__init__()
        raise NotImplementedError("create q_proj, k_proj, v_proj, o_proj, q_norm, k_norm")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d_model) -> (B, T, d_model)."""
        raise NotImplementedError("project, split heads, normalize q and k, attend causally, merge, project")
