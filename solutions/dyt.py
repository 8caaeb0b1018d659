"""Reference Dynamic Tanh (DyT), as in "Transformers without Normalization" (jiachenzhu/DyT).

DyT(x) = weight · tanh(alpha · x) + bias: one learnable scalar alpha, per-channel weight and bias.
"""

from __future__ import annotations

import torch
from torch import nn


class DyT(nn.Module):
    def __init__(
        self,
        normalized_shape: int | tuple[int, ...],
        alpha_init: float = 0.5,
        bias: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.alpha_init = alpha_init
        self.alpha = nn.Parameter(torch.full((1,), alpha_init, device=device, dtype=dtype))  # one scalar, learned
        self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype))  # gamma
        self.bias = nn.Parameter(torch.zeros(shape, device=device, dtype=dtype)) if bias else None  # beta

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.tanh(self.alpha * x) * self.weight  # element-wise: no statistic over any dimension
        return y + self.bias if self.bias is not None else y

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, alpha_init={self.alpha_init}, bias={self.bias is not None}"
