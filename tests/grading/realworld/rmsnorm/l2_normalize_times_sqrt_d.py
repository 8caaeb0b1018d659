# expect: fail diagnosis=rms-no-eps
# style: "RMS = L2 norm / sqrt(d)" folk style: x / x.norm(dim=-1, keepdim=True) * d**0.5 * weight, with no eps anywhere (fp32 upcast kept)
# shows on: all-zero rows give NaN (0/0); small-variance 1e-3·N(0,1) rows come out ~unit RMS instead of being damped by eps=1e-5 (err 2.6); eps=1e-2 on 0.05·N (err 1.4); input gradient at d=3 (err 2e-3)
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps  # accepted, never used
        self.scale = hidden_size**0.5
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        h = x.float()
        h = h / h.norm(dim=-1, keepdim=True) * self.scale
        return (h * self.weight).to(x.dtype)
