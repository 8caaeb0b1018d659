# expect: fail
# trick: changes modes, owners, times and extended attributes of files it cannot write (its class folder, a classmate's file, the installation, NORMKATA_HOME, the workspace), by path and through descriptors; nothing outside scratch may change, not even a time.
import os

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = [os.path.abspath(__file__), HERE, os.path.dirname(HERE)]
for root in (
    os.path.dirname(HERE),
    os.environ.get("PYTHONPATH", "").split(os.pathsep)[0],
    os.environ.get("NORMKATA_HOME", ""),
    os.environ.get("NORMKATA_WORKSPACE", ""),
):
    if root and os.path.isdir(root):
        for folder, _, files in os.walk(root):
            TARGETS.append(folder)
            TARGETS.extend(os.path.join(folder, name) for name in files)
            if len(TARGETS) > 400:
                break


def _attempts(path):
    mode = os.stat(path).st_mode & 0o7777
    yield lambda: os.chmod(path, mode ^ 0o002)
    yield lambda: os.utime(path, (1_000_000_000, 1_000_000_000))
    yield lambda: os.chown(path, os.getuid(), os.getgid())
    yield lambda: os.setxattr(path, "user.normkata", b"pwned")
    fd = os.open(path, os.O_RDONLY)
    try:
        yield lambda: os.fchmod(fd, mode ^ 0o020)
        yield lambda: os.utime(fd, (2_000_000_000, 2_000_000_000))
        yield lambda: os.fchown(fd, os.getuid(), os.getgid())
    finally:
        os.close(fd)


CHANGED = 0
for target in TARGETS[:400]:
    try:
        for attempt in _attempts(target):
            try:
                attempt()
                CHANGED += 1
            except OSError:
                pass
    except OSError:
        pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
