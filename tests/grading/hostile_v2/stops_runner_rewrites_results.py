# expect: fail
# trick: a detached grandchild repeatedly SIGSTOPs the worker's parent and grandparent, rewrites every result-looking JSON under TMPDIR, the current folder and NORMKATA_HOME to a pass, then SIGCONTs them (30 s at most); no signal may reach them and no result may change.
import json
import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import torch
from torch import nn

FAKE = {"kata": "rmsnorm", "passed": True, "score": 51, "max_score": 51, "counts": {"passed": 51, "failed": 0}}


def _victims():
    victims = [os.getppid()]
    try:
        stat = Path(f"/proc/{victims[0]}/stat").read_text()
        victims.append(int(stat[stat.rfind(")") + 2 :].split()[1]))
    except Exception:
        pass
    return [pid for pid in victims if pid > 1]


def _results():
    roots = [tempfile.gettempdir(), os.getcwd(), os.environ.get("NORMKATA_HOME", "")]
    found = []
    for root in filter(None, roots):
        for folder, dirs, files in os.walk(root):
            if folder.count(os.sep) - root.count(os.sep) >= 3:
                dirs[:] = []
            for name in files:
                path = Path(folder, name)
                if name.endswith(".json") and len(found) < 50:
                    try:
                        if path.stat().st_size < 1 << 20 and '"kata"' in path.read_text(errors="replace"):
                            found.append(path)
                    except OSError:
                        continue
    return found


def _forge():
    victims = _victims()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        stopped = []
        try:
            for pid in victims:
                try:
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
                except OSError:
                    pass
            for path in _results():
                try:
                    path.write_text(json.dumps(FAKE))
                except OSError:
                    pass
        finally:
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)
        time.sleep(0.5)


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


if not _detached(_forge):
    threading.Thread(target=_forge, daemon=True).start()


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
