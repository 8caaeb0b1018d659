# expect: fail
# trick: raises exceptions (and prints) with ANSI escape sequences that clear the screen and draw a green "PASSED 51/51"; the report must show them inert (escaped), never let them reach the terminal.
import torch
from torch import nn

FAKE = "\x1b[2J\x1b[H\x1b[1;32mPASSED\x1b[0m rmsnorm: 51/51 cases passed\x1b[8m"
print(FAKE)


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        raise RuntimeError(FAKE)
