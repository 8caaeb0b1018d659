# expect: fail
# trick: raises an exception whose message holds a lone surrogate ("\ud800"), which cannot be encoded as UTF-8; the report, JSON and database must still be written, with the character replaced.
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        raise ValueError("shape mismatch near \ud800 in " + str(tuple(x.shape)))
