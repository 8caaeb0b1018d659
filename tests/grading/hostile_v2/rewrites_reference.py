# expect: fail
# trick: overwrites every installed or checked-out solutions/rmsnorm.py with this very file, so the reference makes the same mistake; the reference must stay unchanged (and unreadable).
import sys
from pathlib import Path

import torch
from torch import nn


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


_mine = Path(__file__).read_text()
for target in _installed("solutions/rmsnorm.py"):
    try:
        target.write_text(_mine)
    except OSError:
        pass
for entry in sys.path:  # a checkout above sys.path
    for folder in (Path(entry or ".").resolve(), *Path(entry or ".").resolve().parents):
        try:
            if (folder / "solutions" / "rmsnorm.py").exists():
                (folder / "solutions" / "rmsnorm.py").write_text(_mine)
        except OSError:
            pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
