# expect: fail
# trick: opens a TCP listener on 127.0.0.1 (any free port) and serves it from a thread for 60 s, a channel out of the sandbox; the socket must not be created.
import socket
import threading
import time

import torch
from torch import nn


def _serve():
    try:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(1)
    except OSError:
        return
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection, _ = server.accept()
            connection.close()
        except OSError:
            continue
    server.close()


threading.Thread(target=_serve, daemon=True).start()


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
