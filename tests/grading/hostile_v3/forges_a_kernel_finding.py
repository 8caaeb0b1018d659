# expect: fail
# trick: writes its own reply on the reply pipe, well framed and well encoded, whose step claims a kernel finding the guard never made (an out-of-bounds access of -3 lanes by program (0, 0, 0)), then waits; the runner must refuse it as a malformed reply, never read it as a finding.
import fcntl
import json
import os
import stat
import struct
import time

import torch
from torch import nn


def _reply_fds():
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if (
                fd > 2
                and stat.S_ISFIFO(os.fstat(fd).st_mode)
                and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
            ):
                yield fd
        except OSError:
            pass


def _forged_reply():
    finding = {"access": "read", "tensor": "y", "program": [0, 0, 0], "lanes": -3, "side": "after"}
    tree = {"ok": True, "steps": [{"outputs": [], "out_of_bounds": [finding]}]}
    text, sizes = json.dumps(tree).encode("ascii"), b"[]"
    payload = struct.pack("!I", len(text)) + text + struct.pack("!I", len(sizes)) + sizes
    return struct.pack("!Q", len(payload)) + payload


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        message = _forged_reply()
        for fd in _reply_fds():
            try:
                os.write(fd, message)
            except OSError:
                pass
        time.sleep(600)
        return x
