"""Length-prefixed messages between the trusted runner and the untrusted worker.

Payloads are torch.save()d containers of tensors and plain values; the runner loads them
with weights_only=True, so a hostile worker cannot make it execute code.
"""

from __future__ import annotations

import io
import os
import select
import struct
import time
from typing import Any

_HEADER = struct.Struct("!Q")
MAX_MESSAGE = 512 * 1024 * 1024


class ChannelClosed(Exception):
    """The other side closed the pipe or died."""


class ChannelTimeout(Exception):
    """No complete message arrived in time."""


def encode(obj: Any) -> bytes:
    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    payload = buffer.getvalue()
    return _HEADER.pack(len(payload)) + payload


def decode(payload: bytes) -> Any:
    import torch

    return torch.load(io.BytesIO(payload), weights_only=True)


def send(fd: int, obj: Any) -> None:
    data = encode(obj)
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def receive(fd: int, timeout: float | None = None) -> Any:
    """One message from `fd`, waiting at most `timeout` seconds for all of it."""
    deadline = None if timeout is None else time.monotonic() + timeout
    header = _read_exact(fd, _HEADER.size, deadline)
    (size,) = _HEADER.unpack(header)
    if size > MAX_MESSAGE:
        raise ChannelClosed(f"message of {size} bytes is larger than allowed")
    return decode(_read_exact(fd, size, deadline))


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks, remaining = [], size
    while remaining:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise ChannelTimeout()
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other side closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
