"""A learner's source as the grader reads it: regular files only, never through a link, bounded.

A submission is someone else's file, opened as normkata.files opens every such file (no link
followed, no FIFO waited on, no file of /proc, the size checked on the descriptor before and
while it is read); here are the grader's bounds: a file's size, and for a folder submission
how deep its folders nest, how many entries it holds and how many bytes of .py files. Folders
are walked through descriptors (no path grows with depth). A violation is a
`normkata.files.Refused` that names the file and the reason, in the reader's language.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from normkata.files import Refused, amount, check_file, escape_name, open_folder, read_file, unreadable, write_file

#: The largest kata file graded: a layer is a few kB; 1 MB leaves room for comments and data.
MAX_SOURCE_BYTES = 1024 * 1024
#: A folder submission: how deep its folders may nest, how many entries it may hold, and the
#: total size of its .py files.
MAX_FOLDER_DEPTH = 8
MAX_FOLDER_ENTRIES = 500
MAX_FOLDER_BYTES = 4 * MAX_SOURCE_BYTES


def check_source(path: str | os.PathLike[str], *, dir_fd: int | None = None) -> os.stat_result:
    """The file's status when it is a regular file (not a link) within MAX_SOURCE_BYTES; reads nothing."""
    with _as_submission(path):
        return check_file(path, MAX_SOURCE_BYTES, dir_fd=dir_fd)


def read_source(path: str | os.PathLike[str], *, dir_fd: int | None = None) -> bytes:
    """The bytes of a regular file of at most MAX_SOURCE_BYTES, opened without following a link."""
    with _as_submission(path):
        return read_file(path, MAX_SOURCE_BYTES, dir_fd=dir_fd)


@contextlib.contextmanager
def _as_submission(path: str | os.PathLike[str], *, folder: bool = False) -> Iterator[None]:
    """Every failure to read a submission is Refused, naming it (the grader's callers expect one
    error for all), and a link is answered as a learner reads it: submit the file itself."""
    try:
        yield
    except Refused as refused:
        if refused.key != "files.link":
            raise
        raise Refused(refused.path, "source.link_folder" if folder else "source.link") from None
    except OSError as exc:  # not there, not readable
        raise unreadable(path, exc) from None


@dataclass(frozen=True)
class Snapshot:
    """What is graded of a submission: its .py files (relative path → bytes) and their digest."""

    files: dict[str, bytes]
    digest: str


def snapshot_file(path: str | os.PathLike[str]) -> Snapshot:
    data = read_source(path)
    return Snapshot({"": data}, hashlib.sha256(data).hexdigest())


def snapshot_folder(root: str | os.PathLike[str], kata_file: str) -> Snapshot:
    """Every .py file of a folder submission (not in __pycache__ or hidden folders such as .git),
    walked without following links.

    A link or a special file among them, too deep a tree, too many entries or too many bytes
    is Refused; so is a missing `kata_file`.
    """
    files: dict[str, bytes] = {}
    with _as_submission(root, folder=True):
        top = open_folder(root)
    entries = total = 0
    stack: list[tuple[int, str, int]] = [(top, "", 0)]
    try:
        while stack:
            fd, prefix, depth = stack.pop()
            try:
                with os.scandir(fd) as listing:
                    names = sorted(entry.name for entry in listing)
                for name in names:
                    if name.startswith(".") or name == "__pycache__":
                        continue  # not importable (.git, caches): neither graded nor counted
                    entries += 1
                    if entries > MAX_FOLDER_ENTRIES:
                        raise Refused(root, "source.entries", line="files.line.bare", limit=MAX_FOLDER_ENTRIES)
                    relative = prefix + name
                    info = os.lstat(name, dir_fd=fd)
                    if stat.S_ISLNK(info.st_mode):
                        raise Refused(os.path.join(root, relative), "source.link")
                    if stat.S_ISDIR(info.st_mode):
                        if depth + 1 > MAX_FOLDER_DEPTH:
                            raise Refused(root, "source.depth", line="files.line.bare", limit=MAX_FOLDER_DEPTH)
                        stack.append((open_folder(name, dir_fd=fd), relative + "/", depth + 1))
                    elif name.endswith(".py"):
                        data = read_source(name, dir_fd=fd)
                        total += len(data)
                        if total > MAX_FOLDER_BYTES:
                            raise Refused(
                                root, "source.folder_bytes", line="files.line.error", amount=amount(MAX_FOLDER_BYTES)
                            )
                        files[relative] = data
            finally:
                os.close(fd)
    except Refused:
        raise
    except OSError as exc:
        raise unreadable(root, exc) from None
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    if kata_file not in files:
        raise Refused(kata_file, "source.missing", line="files.line.bare", folder=escape_name(os.fspath(root)))
    hasher = hashlib.sha256()
    for relative in sorted(files):
        hasher.update(os.fsencode(relative) + b"\0" + files[relative] + b"\0")
    return Snapshot(files, hasher.hexdigest())


def write_snapshot(snapshot: Snapshot, folder: str | os.PathLike[str], kata_file: str) -> str:
    """Write the snapshot's files into an empty private `folder`; the path of the kata's file."""
    for relative, data in snapshot.files.items():
        target = os.path.join(folder, relative or kata_file)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write_file(target, data)
    return os.path.join(folder, kata_file)
