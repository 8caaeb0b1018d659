# expect: fail
# trick: drops a .pth file into site-packages whose import line runs at every later Python start (persistence across grades); site-packages must gain no file.
import sys
from pathlib import Path

import torch
from torch import nn

LINE = "import os; os.environ.setdefault('HOSTILE_V2_PTH', 'loaded')\n"


def _site_packages():
    """Folders of sys.path that hold installed packages (the installation this grade runs from)."""
    return [Path(entry) for entry in sys.path if entry.endswith(("site-packages", "dist-packages"))]


def _installed(relative):
    """Every copy of a normkata file: in site-packages, and in a checkout found through sys.path."""
    found = []
    for entry in sys.path:
        base = Path(entry or ".")
        found += [base / relative, base / "normkata" / "_content" / relative]
    return [path for path in dict.fromkeys(found) if path.exists()]


for folder in _site_packages():
    try:
        (folder / "zz_hostile_v2.pth").write_text(LINE)
    except OSError:
        pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
