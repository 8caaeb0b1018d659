# expect: fail
# trick: opens and reads each candidate reference with libc's open/read through ctypes, below Python's audit hooks; the kernel must refuse (Landlock).
import ctypes
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


def _read(path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.open(str(path).encode(), os.O_RDONLY)
    if fd < 0:
        return None
    buffer = ctypes.create_string_buffer(1 << 16)
    size = libc.read(fd, buffer, len(buffer))
    libc.close(fd)
    return buffer.raw[: max(size, 0)].decode("utf-8", "replace")


def _stolen():
    for candidate in _candidates():
        source = _read(candidate)
        if source and "class RMSNorm" in source:
            return _load(source, str(candidate))
    return None


class _Wrong(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight


RMSNorm = _stolen() or _Wrong
