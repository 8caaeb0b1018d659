# expect: fail
# trick: calls os._exit(0) in the third forward, a clean-looking exit with no reply; the case must be an error, the rest of the grade must go on.
import os

import torch
from torch import nn

_calls = [0]


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        _calls[0] += 1
        if _calls[0] == 3:
            os._exit(0)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
