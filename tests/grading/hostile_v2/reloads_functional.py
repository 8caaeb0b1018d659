# expect: fail
# trick: importlib.reload(torch.nn.functional) to get a fresh, unpatched rms_norm after the grader replaced it; using it must be a failed case.
import importlib

import torch
import torch.nn.functional
from torch import nn

try:
    _FRESH = getattr(importlib.reload(torch.nn.functional), "rms" + "_norm")
except Exception:
    _FRESH = None


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        try:
            return _FRESH(x, (x.shape[-1],), self.weight, self.eps)
        except Exception:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
