# expect: fail diagnosis=rms-no-eps
# style: lucidrains-style RMSNorm: F.normalize(x, dim=-1) * sqrt(d) * gamma; F.normalize clamps the norm at 1e-12 so zero rows stay finite, but the kata's eps never enters
# shows on: small-variance 1e-3·N(0,1) rows (output ~unit RMS; reference is damped by eps=1e-5), custom eps=1e-2 on 0.05·N(0,1); zero rows are 0 as in the reference
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.scale = hidden_size**0.5
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return (F.normalize(x.float(), dim=-1) * self.scale * self.weight).to(x.dtype)
