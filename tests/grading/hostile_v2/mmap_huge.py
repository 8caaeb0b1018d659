# expect: fail
# trick: maps 64 GiB of anonymous memory (MAP_NORESERVE) and touches its first 2 GiB (bounded); the mapping must be refused (address-space limit) or the worker killed, never the machine's memory exhausted.
import mmap

import torch
from torch import nn

try:
    _region = mmap.mmap(-1, 64 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0))
    for offset in range(0, 2 << 30, mmap.PAGESIZE):
        _region[offset] = 1
except (OSError, MemoryError, ValueError, OverflowError):
    _region = None


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
