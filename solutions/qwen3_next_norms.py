"""Reference: Qwen3-Next's zero-centred RMSNorm (gain 1 + weight) and its gated RMSNorm (weight · silu(gate))."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def _normalized(x: torch.Tensor, eps: float) -> torch.Tensor:
    """x / sqrt(mean(x²) + eps) over the last dimension, in float32 at least."""
    x = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)  # (..., d) * (..., 1)


class ZeroCentredRMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(hidden_size, device=device, dtype=dtype))  # the gain is 1 + weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = _normalized(x, self.eps)
        return (y * (1.0 + self.weight.to(y.dtype))).to(x.dtype)  # one rounding, after the gain

    def extra_repr(self) -> str:
        return f"{self.weight.shape[0]}, eps={self.eps}"


class GatedRMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))  # a plain gain

    def forward(self, x: torch.Tensor, gate: torch.Tensor | None = None) -> torch.Tensor:
        y = _normalized(x, self.eps)
        y = y * self.weight.to(y.dtype)
        if gate is not None:  # normalize first, then gate
            y = y * F.silu(gate.to(y.dtype))
        return y.to(x.dtype)

    def extra_repr(self) -> str:
        return f"{self.weight.shape[0]}, eps={self.eps}"
