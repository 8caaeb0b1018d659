# expect: fail
# trick: every forward takes just under the case timeout (graded with --timeout 1), so each case passes its own deadline and the whole grade runs into its budget; the grade must end within the budget, not after it.
import time

import torch
from torch import nn

CASE_S = 1.0  # the per-case timeout the test grades it with


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        deadline = time.monotonic() + CASE_S * 0.9
        while time.monotonic() < deadline:  # CPU, not sleep: both must be stopped
            pass
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
