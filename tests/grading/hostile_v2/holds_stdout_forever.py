# expect: fail
# trick: a detached grandchild keeps the worker's stdout and stderr open and writes to them for 60 s; the grade must not wait for it (no pipe of the CLI may reach the worker) and no process may be left after it.
import os
import sys
import time

import torch
from torch import nn


def _hold():
    for _ in range(12):
        try:
            print("still here", flush=True)
            print("still here", file=sys.stderr, flush=True)
        except OSError:
            pass
        time.sleep(5)


def _detached(job):
    """Run job in a grandchild in a session of its own, so its parent's group kill misses it."""
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid:
        os.waitpid(pid, 0)
        return True
    try:
        os.setsid()
        if os.fork() == 0:
            try:
                job()
            finally:
                os._exit(0)
    finally:
        os._exit(0)


_detached(_hold)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
