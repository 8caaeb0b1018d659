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
from collections.abc import Callable
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


def receive(fd: int, timeout: float | None = None, alive: Callable[[], bool] | None = None) -> Any:
    """One message from `fd`, waiting at most `timeout` seconds for all of it.

    With `alive`, a sender that died is noticed within a tenth of a second, even when some
    other process still holds the pipe open.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    header = _read_exact(fd, _HEADER.size, deadline, alive)
    (size,) = _HEADER.unpack(header)
    if size > MAX_MESSAGE:
        raise ChannelClosed(f"message of {size} bytes is larger than allowed")
    return decode(_read_exact(fd, size, deadline, alive))


def _read_exact(fd: int, size: int, deadline: float | None, alive: Callable[[], bool] | None) -> bytes:
    chunks, remaining = [], size
    while remaining:
        while deadline is not None or alive is not None:
            left = 3600.0 if deadline is None else deadline - time.monotonic()
            if left <= 0:
                raise ChannelTimeout()
            if select.select([fd], [], [], min(left, 0.1) if alive else left)[0]:
                break
            if alive is not None and not alive():
                # Drain what it wrote before dying, then give up.
                if not select.select([fd], [], [], 0)[0]:
                    raise ChannelClosed("the other side died")
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed("the other side closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
