# expect: fail
# trick: reads every file descriptor it inherited (/proc/self/fd/N) and the runner's (/proc/<ppid>/fd/N), looking for the reference or the hidden suite; none may be open in the worker or reachable in the runner.
import os
import stat
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
    for owner in ("self", str(os.getppid())):
        try:
            entries = os.listdir(f"/proc/{owner}/fd")
        except OSError:
            continue
        for entry in entries[:256]:
            path = Path(f"/proc/{owner}/fd/{entry}")
            try:
                if not stat.S_ISREG(path.stat().st_mode):
                    continue  # a pipe would block: only files can hold the reference
                source = path.read_text(errors="replace")[:200000]
            except Exception:
                continue
            if "class RMSNorm" in source:
                try:
                    return _load(source, f"fd {entry}")
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
