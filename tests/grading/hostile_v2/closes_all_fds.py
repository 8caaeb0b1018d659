# expect: fail
# trick: closes file descriptors 0-255 at import, the worker's pipes to the runner among them; the grade must report an error, not hang or pass.
import os

import torch
from torch import nn

os.closerange(0, 256)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
