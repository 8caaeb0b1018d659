"""Kata: RMSNorm from scratch. Run `normkata grade` to check it."""

from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    """Root-mean-square normalization over the last dimension, with a learnable gain.

    y = x / sqrt(mean(x**2, last dim) + eps) * weight

    Args:
        hidden_size: size of the last dimension (d_model).
        eps: added to the mean square inside the square root.
        device, dtype: where and in what dtype to create `weight`.
    """

    def __init__(self, hidden_size: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        raise NotImplementedError("create self.eps and the parameter self.weight")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., hidden_size) -> same shape; same dtype as x for bf16/fp16 input."""
        raise NotImplementedError("normalize x")
