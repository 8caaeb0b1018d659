# expect: fail
# trick: prints 1 GiB to stdout at import, in 1 MiB lines; the grader must cap what it keeps of the worker's output (no 1 GiB file, no 1 GiB in memory, a readable report).
import sys

import torch
from torch import nn

_line = "x" * ((1 << 20) - 1)  # with the newline, 1 MiB
try:
    for _ in range(1024):
        print(_line)
except OSError:
    pass
sys.stdout.flush()


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
