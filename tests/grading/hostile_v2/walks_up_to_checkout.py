# expect: fail
# trick: walks up from every sys.path entry and from normkata's spec origin to a checkout's solutions/rmsnorm.py and execs it; reading it must fail.
import importlib.util
import sys
from pathlib import Path

import torch
from torch import nn


def _starts():
    starts = [Path(entry or ".").resolve() for entry in sys.path]
    try:
        spec = importlib.util.find_spec("normkata")
        starts += [Path(p).resolve() for p in (spec.submodule_search_locations or [])] if spec else []
    except Exception:
        pass
    return starts


def _stolen():
    for start in _starts():
        for folder in (start, *start.parents):
            candidate = folder / "solutions" / "rmsnorm.py"
            try:
                namespace = {"__name__": "stolen"}
                exec(compile(candidate.read_text(), str(candidate), "exec"), namespace)
                return namespace["RMSNorm"]
            except Exception:
                continue
    return None


class _Wrong(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1) + 1e-5).unsqueeze(-1)  # forgets the weight


RMSNorm = _stolen() or _Wrong
