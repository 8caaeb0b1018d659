# expect: fail
# trick: stops reading its request pipe (a fresh, silent pipe put in its place) after shrinking it to one page and filling it through /proc/self/fd, so the runner's next request can never be written; the runner must give up at the case's deadline, not block until its ceiling.
import fcntl
import os
import stat

import torch
from torch import nn

F_SETPIPE_SZ = 1031
KEPT = []
for name in os.listdir("/proc/self/fd"):
    fd = int(name)
    try:
        if fd == 0 or not stat.S_ISFIFO(os.fstat(fd).st_mode):
            continue
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY:
            continue
        KEPT.append(os.dup(fd))  # the pipe stays open: the runner sees no EPIPE, only a full pipe
        fcntl.fcntl(KEPT[-1], F_SETPIPE_SZ, 4096)
        try:  # a write end of the same pipe, to fill it
            filler = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
            while os.write(filler, b"\0" * 4096):
                pass
        except OSError:
            pass
        silent, _ = os.pipe()
        KEPT.append(_)
        os.dup2(silent, fd)  # the worker now waits on a pipe nobody writes
    except OSError:
        pass


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
