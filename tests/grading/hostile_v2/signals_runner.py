# expect: fail
# trick: sends SIGTERM, SIGINT and SIGUSR1 to the worker's parent (the runner) at import and in every forward, hoping the runner dies before it records the failures; no signal may leave the worker, and a dead runner must be an error, never a pass.
import os
import signal

import torch
from torch import nn


def _strike():
    for number in (signal.SIGUSR1, signal.SIGINT, signal.SIGTERM):
        try:
            os.kill(os.getppid(), number)
        except OSError:
            pass


_strike()


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        _strike()
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
