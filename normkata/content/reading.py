"""What changes when a content file does (`file_version`), and how large a YAML file may be.

Files a person names or hands over (a question bank, a kata's YAML, a progress file) are read by
normkata.files with `follow_links=True` (the person named the file): only a regular file on a
regular file system, opened without blocking (a FIFO or a device is refused at once, never waited
on), its size checked on the descriptor before a byte is read, so a 1.5 GB file costs a `stat`,
not its size in memory.
"""

from __future__ import annotations

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
