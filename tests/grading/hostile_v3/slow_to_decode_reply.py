# expect: fail
# trick: writes its own reply on the reply pipe, a valid torch.save stream of 8 MB whose pickle is four million tiny list items (about 15 s for torch's weights-only unpickler, minutes at 500 MB), then waits; decoding must stop at the case's deadline.
import fcntl
import os
import pickle
import stat
import struct
import time

import torch
from torch import nn

MAGIC = 0x1950A86A20F9469CFC6C  # torch.save's legacy (non-zip) format
SYS_INFO = {"protocol_version": 1001, "little_endian": True, "type_sizes": {"short": 2, "int": 4, "long": 4}}


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


def _slow_reply(items=4_000_000):
    body = b"\x80\x02](" + b"K\x00" * items + b"e."  # PROTO 2, EMPTY_LIST, MARK, BININT1 0 ..., APPENDS, STOP
    payload = b"".join(
        [pickle.dumps(MAGIC, 2), pickle.dumps(1001, 2), pickle.dumps(SYS_INFO, 2), body, pickle.dumps([], 2)]
    )
    return struct.pack("!Q", len(payload)) + payload


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        message = _slow_reply()
        for fd in _reply_fds():
            try:
                os.write(fd, message)
            except OSError:
                pass
        time.sleep(600)
        return x
