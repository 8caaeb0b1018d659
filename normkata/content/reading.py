"""Files a person names or hands over (a question bank, a kata's YAML, a progress file), read
without surprises: only a regular file, opened without blocking (a FIFO or a device is refused at
once, never waited on), its size checked on the descriptor before a byte is read, so a 1.5 GB file
costs a `stat`, not its size in memory.

Links are followed: the person named the file. Submissions and the workspace, which someone else
may have filled, are read by normkata.grading.source instead, which follows none.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: A question bank or a kata's YAML is a few hundred kilobytes; anything this big is not one.
MAX_YAML_BYTES = 8 * 1024 * 1024


def file_version(path: Path) -> tuple[int, ...]:
    """What changes when `path` does (ctime and inode too: a copy may keep mtime and size); a
    missing path is a version of its own. Caches of what was read from a file are keyed by it."""
    try:
        status = path.stat()
    except OSError:
        return ()
    return status.st_mtime_ns, status.st_ctime_ns, status.st_size, status.st_ino


class RefusedFile(OSError):
    """Not a regular file (`what` says what it is), or larger than `limit` bytes (`size`)."""

    def __init__(self, path: Path, *, what: str | None = None, size: int | None = None, limit: int = 0) -> None:
        self.path, self.what, self.size, self.limit = path, what, size, limit
        if what is not None:
            text = f"{what}, not a regular file"
        else:
            text = f"larger than {_amount(limit)} ({size} bytes)"
        super().__init__(text)


def _amount(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 and limit % 2**20 == 0 else f"{limit} bytes"


def _what(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "something else"


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; RefusedFile otherwise, and
    OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(path, what=_what(info.st_mode))
        if info.st_size > limit:
            raise RefusedFile(path, size=info.st_size, limit=limit)
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:  # it grew while being read
                raise RefusedFile(path, size=size, limit=limit)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
