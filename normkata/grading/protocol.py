"""Length-prefixed messages between the trusted runner and the untrusted worker.

Payloads are plain values and tensors in normkata.grading.codec's form: JSON and raw bytes,
decoded without running anything of the sender's, so a hostile worker cannot make the runner
execute code.

The worker is untrusted, so every step on the runner's side is bounded: a write waits at most
until the deadline (a worker that stops reading cannot block the runner), a reply larger than
MAX_MESSAGE is refused by its header before it is read, and decoding is stopped at the same
deadline.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from normkata.grading import codec

_HEADER = struct.Struct("!Q")
#: The largest message read: the largest reply a suite asks for is about 42 kB (prenorm), and a
#: runner holding this much plus its decoded copy stays far below 1 GiB.
MAX_MESSAGE = 64 * 1024 * 1024


class ChannelClosed(Exception):
    """The other side closed the pipe or died."""


class ChannelTimeout(Exception):
    """No complete message arrived, was written or was decoded in time."""


class MessageTooLarge(ChannelClosed):
    """The other side announced a message larger than MAX_MESSAGE."""


class _Expired(BaseException):
    """Raised by the decoding alarm; a BaseException so no `except Exception` in torch keeps it."""


def encode(obj: Any) -> bytes:
    payload = codec.encode(obj)
    return _HEADER.pack(len(payload)) + payload


def decode(payload: bytes) -> Any:
    return codec.decode(payload)


def send(fd: int, obj: Any, timeout: float | None = None, alive: Callable[[], bool] | None = None) -> None:
    """Write one message; with `timeout`, `fd` must be non-blocking and the write stops at the
    deadline (ChannelTimeout), or as soon as the reader died (ChannelClosed) when `alive` says so."""
    data = encode(obj)
    deadline = None if timeout is None else time.monotonic() + timeout
    view = memoryview(data)
    while view:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChannelTimeout()
            if not select.select([], [fd], [], min(left, 0.1))[1]:
                if alive is not None and not alive():
                    raise ChannelClosed("the other side died")
                continue
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            continue
        view = view[written:]


def receive(
    fd: int,
    timeout: float | None = None,
    alive: Callable[[], bool] | None = None,
    convert: Callable[[Any], Any] = lambda message: message,
) -> Any:
    """One message from `fd`, read and decoded (then passed through `convert`) within `timeout`.

    With `alive`, a sender that died is noticed within a tenth of a second, even when some
    other process still holds the pipe open. Decoding is stopped at the deadline only in the
    main thread (by an alarm signal), where the runner reads its worker.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    header = _read_exact(fd, _HEADER.size, deadline, alive)
    (size,) = _HEADER.unpack(header)
    if size > MAX_MESSAGE:
        raise MessageTooLarge(f"message of {size} bytes is larger than allowed ({MAX_MESSAGE})")
    payload = _read_exact(fd, size, deadline, alive)
    try:
        with _alarm(deadline):
            return convert(decode(payload))
    except _Expired:
        raise ChannelTimeout() from None


@contextlib.contextmanager
def _alarm(deadline: float | None) -> Iterator[None]:
    """Interrupt the body at `deadline` (main thread only: elsewhere it runs to its end)."""
    if deadline is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _Expired()

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 0.001))
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
