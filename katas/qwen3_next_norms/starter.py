"""Kata: Qwen3-Next's norms, a zero-centred RMSNorm and a gated RMSNorm. Run `normkata grade` to check it."""

from __future__ import annotations

import torch
from torch import nn


class ZeroCentredRMSNorm(nn.Module):
    """RMSNorm over the last dimension whose gain is stored minus one.

    y = x / sqrt(mean(x**2, last dim) + eps) * (1 + weight), weight starting at zeros.

    Args:
        hidden_size: size of the last dimension.
        eps: added to the mean square inside the square root.
        device, dtype: where and in what dtype to create `weight`.
    """

    def __init__(self, hidden_size: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        raise NotImplementedError("create self.eps and the parameter self.weight (zeros)")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., hidden_size) -> same shape, in x's dtype."""
        raise NotImplementedError("normalize x and multiply by (1 + weight)")


class GatedRMSNorm(nn.Module):
    """RMSNorm over the last dimension with a plain gain, then an optional silu gate.

    y = x / sqrt(mean(x**2, last dim) + eps) * weight, then y * silu(gate) when a gate is given.

    Args:
        hidden_size: size of the last dimension.
        eps: added to the mean square inside the square root.
        device, dtype: where and in what dtype to create `weight`.
    """

    def __init__(self, hidden_size: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        raise NotImplementedError("create self.eps and the parameter self.weight (ones)")

    def forward(self, x: torch.Tensor, gate: torch.Tensor | None = None) -> torch.Tensor:
        """x, gate: (..., hidden_size) -> same shape, in x's dtype; no gate: a weighted RMSNorm."""
        raise NotImplementedError("normalize x, multiply by weight, then by silu(gate) if given")
