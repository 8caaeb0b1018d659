"""Reference fused residual add + RMSNorm, as inference engines run it between two sublayers.

s = x + residual               (formed in float32 at least)
new_residual = s               (in the input's dtype: x and residual share it)
normed = s / sqrt(mean(s²) + eps) · weight   (statistic from the float32 sum, result in x's dtype)
"""

from __future__ import annotations

import torch
from torch import nn


class AddRMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))  # gain, starts at 1

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        compute = torch.promote_types(torch.promote_types(x.dtype, residual.dtype), torch.float32)
        s = x.to(compute) + residual.to(compute)  # one rounding at most, never a half-precision sum
        new_residual = s.to(residual.dtype)  # what the next block adds to
        normed = s * torch.rsqrt(s.pow(2).mean(-1, keepdim=True) + self.eps)  # from the unrounded sum
        return normed.to(x.dtype) * self.weight, new_residual

    def extra_repr(self) -> str:
        return f"{self.weight.shape[0]}, eps={self.eps}"
