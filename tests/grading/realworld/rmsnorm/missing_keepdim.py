# expect: fail diagnosis=rms-missing-keepdim
# style: Llama-style with fp32 upcast, but `variance = x.pow(2).mean(-1)` without keepdim=True, so the (...,) statistic broadcasts against the LAST dim
# shows on: (2,5,8) and (3,16) raise a broadcast RuntimeError; square (4,4) input silently divides column j by row j's RMS (err 0.77); (4,1,7) returns a (4,4,7) tensor; (1,1) and 1-D (8,) inputs happen to be right
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        input_dtype = x.dtype
        h = x.to(torch.float32)
        variance = h.pow(2).mean(-1)
        h = h * torch.rsqrt(variance + self.eps)
        return self.weight * h.to(input_dtype)
