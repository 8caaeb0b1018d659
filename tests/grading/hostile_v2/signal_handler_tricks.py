# expect: fail
# trick: ignores and blocks every catchable signal (SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGALRM, ...) and then sleeps 60 s in forward; the runner must still end it (SIGKILL) within the per-case timeout.
import signal
import time

import torch
from torch import nn

for _number in signal.valid_signals():
    if _number not in (signal.SIGKILL, signal.SIGSTOP):
        try:
            signal.signal(_number, signal.SIG_IGN)
        except (OSError, ValueError, RuntimeError):
            pass
signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.5)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
