# expect: fail
# trick: makes symlinks in the current folder and in TMPDIR pointing at each candidate reference and reads through them; the target must stay unreadable whatever the link's location.
import os
import sys
import tempfile
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
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        for index, candidate in enumerate(_candidates()):
            link = folder / f".hostile_link_{os.getpid()}_{index}.py"
            try:
                link.symlink_to(candidate)
                return _load(link.read_text(), str(link))
            except Exception:
                continue
            finally:
                try:
                    link.unlink()
                except OSError:
                    pass
    return None


class _Wrong(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight


RMSNorm = _stolen() or _Wrong
