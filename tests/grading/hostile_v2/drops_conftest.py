# expect: fail
# trick: writes a conftest.py that passes every test into the current folder, TMPDIR, PWD and next to each installed hidden suite (katas/rmsnorm/); no conftest.py may appear outside the scratch folder, and none may be loaded by the runner.
import os
import sys
import tempfile
from pathlib import Path

import torch
from torch import nn

CONFTEST = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""


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


folders = [Path.cwd(), Path(tempfile.gettempdir()), Path(os.environ.get("PWD", "."))]
folders += [path.parent for path in _installed("katas/rmsnorm/suite.py")]
for folder in folders:
    try:
        if not (folder / "conftest.py").exists():
            (folder / "conftest.py").write_text(CONFTEST)
    except OSError:
        pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
