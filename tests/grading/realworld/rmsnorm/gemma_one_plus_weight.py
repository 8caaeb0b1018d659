# expect: fail diagnosis=rms-one-plus-weight
# style: Gemma RMSNorm: weight initialised to ZEROS and applied as `x_normed * (1 + weight)` in fp32; faithful to Gemma, wrong for this contract (weight starts at ones, y = x_normed * weight)
# shows on: initial weight is zeros, not ones; after loading nn.RMSNorm's state_dict (random weight w) every output is x_normed*(1+w) instead of x_normed*w
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(hidden_size, device=device, dtype=dtype))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float())
        # Gemma stores the gain as an offset from one: (1 + w) with w initialised at 0.
        output = output * (1.0 + self.weight.float())
        return output.type_as(x)
