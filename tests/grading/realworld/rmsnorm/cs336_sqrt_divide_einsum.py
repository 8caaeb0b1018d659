# expect: pass
# style: CS336 assignment style: `d_model` naming, upcast with x.to(float32), rms = sqrt(mean(x**2) + eps) then DIVIDE (not rsqrt), gain applied with einsum, cast back to in_dtype at the end
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        self.d_model = hidden_size
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        in_dtype = x.dtype
        x = x.to(torch.float32) if in_dtype in (torch.float16, torch.bfloat16) else x
        rms = torch.sqrt(torch.mean(x**2, dim=-1, keepdim=True) + self.eps)
        result = torch.einsum("...d,d->...d", x / rms, self.weight.to(x.dtype))
        return result.to(in_dtype)
