# expect: fail
# trick: sleeps just under the per-case timeout (read from the runner's command line, else 10 s) in every forward, so no single case times out but the grade takes hours; the grade must end within its overall budget.
import os
import time
from pathlib import Path

import torch
from torch import nn


def _timeout():
    try:
        words = Path(f"/proc/{os.getppid()}/cmdline").read_bytes().split(b"\0")
        return float(words[words.index(b"--timeout") + 1])
    except Exception:
        return 10.0


DELAY = max(_timeout() - 0.3, 0.1)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        time.sleep(DELAY)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
