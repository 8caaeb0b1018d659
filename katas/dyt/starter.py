"""Kata: Dynamic Tanh (DyT), the norm-free layer of "Transformers without Normalization".

Run `normkata grade` to check it. See the instructions (`normkata kata dyt`) for every detail
that is graded.
"""

from __future__ import annotations

import torch
from torch import nn


class DyT(nn.Module):
    """weight · tanh(alpha · x) + bias, element-wise, broadcast over the trailing normalized_shape dims.

    Parameters (these names and shapes are graded): alpha (1,), weight and bias (normalized_shape).
    """

    def __init__(self, normalized_shape, alpha_init=0.5, bias=True, device=None, dtype=None):
        super().__init__()
        raise NotImplementedError("create alpha, weight and bias")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., *normalized_shape) -> the same shape."""
        raise NotImplementedError("weight · tanh(alpha · x) + bias")
