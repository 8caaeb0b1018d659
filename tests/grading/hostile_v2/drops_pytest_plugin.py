# expect: fail
# trick: installs a pytest plugin (a module plus a dist-info with a pytest11 entry point) into site-packages, so the next pytest the runner starts autoloads it and marks every case passed; site-packages must gain no file.
import sys
from pathlib import Path

import torch
from torch import nn

PLUGIN = """import pytest


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


for folder in _site_packages():
    try:
        (folder / "hostile_v2_autopass.py").write_text(PLUGIN)
        info = folder / "hostile_v2_autopass-0.1.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hostile-v2-autopass\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text("[pytest11]\nautopass = hostile_v2_autopass\n")
        (info / "RECORD").write_text("")
    except OSError:
        pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
