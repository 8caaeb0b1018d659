# expect: fail diagnosis=stateful-forward
# style: "inference cache" quirk: the first call's reciprocal RMS is kept in an attribute and reused on later calls with the same shape; right on the first call, wrong afterwards
# shows on: a second forward on a different input of the same shape (first call matches torch to 1e-7, second call errs by 7.6 on a 3·N(0,1) input; a fresh module on that input is right)
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))
        self._rstd = None  # filled on the first call, "to save a reduction" later

    def forward(self, x):
        h = x.float()
        if self._rstd is None or self._rstd.shape[:-1] != h.shape[:-1]:
            self._rstd = torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (h * self._rstd * self.weight).to(x.dtype)
