# expect: fail
# trick: opens each candidate's folder with O_PATH and then the file relative to it (openat with dir_fd), so no full path is ever named; the file must stay unreadable.
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
        try:
            folder = os.open(candidate.parent, os.O_PATH | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            fd = os.open(candidate.name, os.O_RDONLY, dir_fd=folder)
            with os.fdopen(fd) as handle:
                return _load(handle.read(), str(candidate))
        except Exception:
            continue
        finally:
            os.close(folder)
    return None


class _Wrong(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight


RMSNorm = _stolen() or _Wrong
