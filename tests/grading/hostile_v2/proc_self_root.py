# expect: fail
# trick: reads each candidate reference through /proc/self/root/... and /proc/self/cwd/.., paths that name no protected folder; the kernel must resolve them and refuse.
import os
import sys
from pathlib import Path

import torch
from torch import nn


def _candidates():
    """Every place a reference could be: installed content, and checkouts above sys.path."""
    found = []
    for entry in sys.path:
        base = Path(entry or ".").resolve()
        found.append(base / "normkata" / "_content" / "solutions" / "rmsnorm.py")
        found += [folder / "solutions" / "rmsnorm.py" for folder in (base, *base.parents)]
    return list(dict.fromkeys(found))


def _load(source, name):
    namespace = {"__name__": "stolen"}
    exec(compile(source, name, "exec"), namespace)
    return namespace["RMSNorm"]


def _stolen():
    for candidate in _candidates():
        for alias in (f"/proc/self/root{candidate}", f"/proc/{os.getpid()}/root{candidate}"):
            try:
                return _load(Path(alias).read_text(), alias)
            except Exception:
                continue
    return None


class _Wrong(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight


RMSNorm = _stolen() or _Wrong
