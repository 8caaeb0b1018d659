# expect: fail
# trick: sleeps just under the per-case timeout (tests/grading/test_hostile.py grades it with 1.5 s cases) in every forward, so no single case times out but the grade would take (cases x timeout); the grade must end within its overall budget.
import time

import torch
from torch import nn

CASE_S = 1.5  # the per-case timeout the test grades it with
DELAY = CASE_S - 0.3


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        time.sleep(DELAY)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
