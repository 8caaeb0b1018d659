# expect: fail
# trick: writes __pycache__/plugin.cpython-XY.pyc beside each installed normkata/grading/plugin.py, stamped with the source's mtime and size so Python loads it instead of the source; no .pyc may be written there.
import importlib.util
import marshal
import os
import sys
import time
from pathlib import Path

import torch
from torch import nn

# Runs the real source, then marks the module: a grader that loaded this pyc is compromised.
STUB = "exec(compile(open(__file__).read(), __file__, 'exec'))\nHOSTILE_V2_PYC = True\n"


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


for source in _installed("normkata/grading/plugin.py"):
    try:
        stat = source.stat()
        cached = Path(importlib.util.cache_from_source(str(source)))
        cached.parent.mkdir(exist_ok=True)
        header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
        header += (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (stat.st_size & 0xFFFFFFFF).to_bytes(
            4, "little"
        )
        cached.write_bytes(header + marshal.dumps(compile(STUB, str(source), "exec")))
        os.utime(cached, (time.time(), time.time()))
    except OSError:
        pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
