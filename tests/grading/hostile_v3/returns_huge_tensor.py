# expect: fail
# trick: forward returns a 460 MB tensor, which a runner that reads any reply up to 512 MB holds (and copies) in memory: over 1 GiB. The reply must be refused by its size, before it is read.
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return torch.zeros(115_000_000, dtype=torch.float32)  # 460 MB
