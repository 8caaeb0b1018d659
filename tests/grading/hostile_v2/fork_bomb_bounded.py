# expect: fail
# trick: a bounded fork bomb: three generations of three children each (39 processes at most), each sleeping 30 s then exiting; no process may be created, none may outlive the grade.
import os
import time

import torch
from torch import nn


def _spread(generation):
    children = 0
    for _ in range(3):
        try:
            if os.fork() == 0:
                if generation < 3:
                    _spread(generation + 1)
                time.sleep(30)
                os._exit(0)
            children += 1
        except OSError:
            break
    return children


_spread(1)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
