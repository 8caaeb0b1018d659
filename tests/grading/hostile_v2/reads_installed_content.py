# expect: fail
# trick: finds site-packages/normkata/_content/solutions/rmsnorm.py by scanning sys.path (no import of normkata) and execs it; reading it must fail (sandbox: not readable).
import sys
from pathlib import Path

import torch
from torch import nn


def _stolen():
    for entry in sys.path:
        candidate = Path(entry or ".") / "normkata" / "_content" / "solutions" / "rmsnorm.py"
        try:
            namespace = {"__name__": "stolen"}
            exec(compile(candidate.read_text(), str(candidate), "exec"), namespace)
            return namespace["RMSNorm"]
        except Exception:
            continue
    return None


class _Wrong(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight


RMSNorm = _stolen() or _Wrong
