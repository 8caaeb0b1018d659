# expect: fail
# trick: each forward starts a non-daemon thread that keeps rewriting the returned tensor and the weight in place for 30 s after forward returns; the runner must judge a snapshot taken when forward returned, and the worker must still be killed at the end.
import threading
import time

import torch
from torch import nn

_started = []


def _scribble(tensors):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for tensor in tensors:
            with torch.no_grad():
                tensor.add_(0.001)
        time.sleep(0.001)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
        if len(_started) < 5:  # a handful is enough to show it; more would only burn CPU
            _started.append(threading.Thread(target=_scribble, args=([out.detach(), self.weight.data],)))
            _started[-1].start()
        return out
