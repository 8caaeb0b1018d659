"""A learner's source as the grader reads it: regular files only, never through a link, bounded.

A submission is someone else's file. Reading it by following links would grade whatever it
points to (the reference solution, a classmate's file); opening a FIFO or a device could block
or have side effects; a huge file or a deep tree would cost the grader memory and time. So
every read here opens with O_NOFOLLOW, checks the type and size on the descriptor it reads,
and walks folders through descriptors (no path grows with depth), with limits on depth,
entries and bytes. A violation is a `SourceError` that names the file and the reason.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass

from normkata.errors import InputError

#: The largest kata file graded: a layer is a few kB; 1 MB leaves room for comments and data.
MAX_SOURCE_BYTES = 1024 * 1024
#: A folder submission: how deep its folders may nest, how many entries it may hold, and the
#: total size of its .py files.
MAX_FOLDER_DEPTH = 8
MAX_FOLDER_ENTRIES = 500
MAX_FOLDER_BYTES = 4 * MAX_SOURCE_BYTES

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # O_NONBLOCK: a FIFO never blocks us
_DIR_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC


class SourceError(InputError):
    """A submission that is not a plain, bounded source: a link, a FIFO, a device, too large..."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link (submit the file itself)"
    if stat.S_ISFIFO(mode):
        return "a FIFO, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    return "not a regular file"


def _shown(path: str | os.PathLike[str]) -> str:
    """A path as an error may show it: undecodable bytes and control characters escaped."""
    from normkata.grading.text import escape_name

    return escape_name(os.fspath(path))


def check_source(path: str | os.PathLike[str], *, dir_fd: int | None = None) -> os.stat_result:
    """The file's status when it is a regular file (not a link) within MAX_SOURCE_BYTES; reads nothing."""
    try:
        info = os.lstat(path, dir_fd=dir_fd)
    except OSError as exc:
        raise SourceError(f"{_shown(path)}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SourceError(f"{_shown(path)} is {_kind(info.st_mode)}")
    if info.st_size > MAX_SOURCE_BYTES:
        raise SourceError(f"{_shown(path)} is larger than {MAX_SOURCE_BYTES // 1024} kB ({info.st_size} bytes)")
    return info


def read_source(path: str | os.PathLike[str], *, dir_fd: int | None = None) -> bytes:
    """The bytes of a regular file of at most MAX_SOURCE_BYTES, opened without following a link."""
    check_source(path, dir_fd=dir_fd)
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:  # ELOOP: it became a link since lstat
        raise SourceError(f"{_shown(path)}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)  # what we read is what we checked, whatever happened to the path
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"{_shown(path)} is {_kind(info.st_mode)}")
        chunks, size = [], 0
        while chunk := os.read(fd, 65536):
            size += len(chunk)
            if size > MAX_SOURCE_BYTES:
                raise SourceError(f"{_shown(path)} is larger than {MAX_SOURCE_BYTES // 1024} kB")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


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
    is a SourceError; so is a missing `kata_file`.
    """
    files: dict[str, bytes] = {}
    try:
        if os.path.islink(root):
            raise SourceError(f"{_shown(root)} is a symbolic link (submit the folder itself)")
        top = os.open(root, _DIR_FLAGS)
    except OSError as exc:
        raise SourceError(f"{_shown(root)}: {exc.strerror}") from None
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
                        raise SourceError(f"{_shown(root)} holds more than {MAX_FOLDER_ENTRIES} entries")
                    relative = prefix + name
                    info = os.lstat(name, dir_fd=fd)
                    if stat.S_ISLNK(info.st_mode):
                        raise SourceError(f"{_shown(os.path.join(root, relative))} is {_kind(info.st_mode)}")
                    if stat.S_ISDIR(info.st_mode):
                        if depth + 1 > MAX_FOLDER_DEPTH:
                            raise SourceError(f"{_shown(root)} nests folders deeper than {MAX_FOLDER_DEPTH}")
                        stack.append((os.open(name, _DIR_FLAGS, dir_fd=fd), relative + "/", depth + 1))
                    elif name.endswith(".py"):
                        data = read_source(name, dir_fd=fd)
                        total += len(data)
                        if total > MAX_FOLDER_BYTES:
                            raise SourceError(f"{_shown(root)}: its .py files exceed {MAX_FOLDER_BYTES // 1024} kB")
                        files[relative] = data
            finally:
                os.close(fd)
    except OSError as exc:
        raise SourceError(f"{_shown(root)}: {exc.strerror}") from None
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    if kata_file not in files:
        raise SourceError(f"{kata_file} not found in {_shown(root)}")
    hasher = hashlib.sha256()
    for relative in sorted(files):
        hasher.update(os.fsencode(relative) + b"\0" + files[relative] + b"\0")
    return Snapshot(files, hasher.hexdigest())


def write_source(
    path: str | os.PathLike[str], data: bytes, *, replace: bool = False, dir_fd: int | None = None, mode: int = 0o600
) -> None:
    """Write `data` as a new file, or with `replace` over a regular file, never through a link.

    A link in its place (dangling or not), a FIFO, a device or a folder is a SourceError and
    nothing is written: the file is opened without following links and without blocking, and its
    type checked on the descriptor before it is truncated.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (0 if replace else os.O_EXCL)
    try:
        fd = os.open(path, flags, mode, dir_fd=dir_fd)
    except OSError as exc:  # ELOOP: a link; EEXIST: something there already; ENXIO: a FIFO nobody reads
        try:
            info = os.lstat(path, dir_fd=dir_fd)
        except OSError:
            raise SourceError(f"{_shown(path)}: {exc.strerror}") from None
        if stat.S_ISREG(info.st_mode):
            raise SourceError(f"{_shown(path)}: {exc.strerror}") from None
        raise SourceError(f"{_shown(path)} is {_kind(info.st_mode)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"{_shown(path)} is {_kind(info.st_mode)}")
        if replace:
            os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_snapshot(snapshot: Snapshot, folder: str | os.PathLike[str], kata_file: str) -> str:
    """Write the snapshot's files into an empty private `folder`; the path of the kata's file."""
    for relative, data in snapshot.files.items():
        target = os.path.join(folder, relative or kata_file)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write_source(target, data)
    return os.path.join(folder, kata_file)
