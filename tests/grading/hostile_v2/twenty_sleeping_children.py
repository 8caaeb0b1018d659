# expect: fail
# trick: forks 20 children at import that sleep 60 s and exit; none may be created (or, if they are, none may outlive the grade).
import os
import time

import torch
from torch import nn

for _ in range(20):
    try:
        if os.fork() == 0:
            try:
                time.sleep(60)
            finally:
                os._exit(0)
    except OSError:
        break


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
