# expect: pass
# style: MiniMind RMSNorm: `_norm` helper, `(weight * _norm(x.float())).type_as(x)` (multiply in fp32, cast last), plus harmless extra attributes (`dim`, a `dropout` float that is never used)
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(torch.nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-5, device=None, dtype=None):
        super().__init__()
        self.dim = hidden_size
        self.eps = eps
        self.dropout = 0.0  # copied from the model config, unused here
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return (self.weight * self._norm(x.float())).type_as(x)
