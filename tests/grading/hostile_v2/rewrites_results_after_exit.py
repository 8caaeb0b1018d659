# expect: fail
# trick: a detached grandchild waits (60 s at most) for the grade to end, then writes a passing Gradescope results.json into PWD, the current folder, $NORMKATA_WORKSPACE and $NORMKATA_HOME, overwriting the real one; no process may outlive the grade and no results file may change after it.
import json
import os
import threading
import time
from pathlib import Path

import torch
from torch import nn

FAKE = {"score": 51, "max_score": 51, "tests": [{"name": "all", "status": "passed", "score": 51}]}
FOLDERS = {os.environ.get("PWD"), os.getcwd(), os.environ.get("NORMKATA_WORKSPACE"), os.environ.get("NORMKATA_HOME")}
RUNNER = os.getppid()


def _runner_alive():
    try:
        os.kill(RUNNER, 0)
        return True
    except PermissionError:
        return True
    except OSError:
        return False


def _overwrite():
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _runner_alive():
        time.sleep(0.2)
    time.sleep(1)  # let the CLI write its results first
    for folder in filter(None, FOLDERS):
        try:
            (Path(folder) / "results.json").write_text(json.dumps(FAKE))
        except OSError:
            pass


def _detached(job):
    """Run job in a grandchild in a session of its own, so its parent's group kill misses it."""
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid:
        os.waitpid(pid, 0)
        return True
    try:
        os.setsid()
        if os.fork() == 0:
            try:
                job()
            finally:
                os._exit(0)
    finally:
        os._exit(0)


if not _detached(_overwrite):
    threading.Thread(target=_overwrite).start()


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
