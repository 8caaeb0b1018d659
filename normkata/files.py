"""Files and folders someone else controls, opened one guarded way.

A submission, a class folder, the workspace, a grade-all out folder, a file a person names on the
command line: any of them may be a link to the reference solution or a classmate's file, a FIFO
that blocks whoever opens it, a device, a file of /proc or /sys (whose size says nothing:
/proc/self/environ reports 0 bytes and holds the process's secrets), or a file that grows while it
is read. Every module opens such files and folders through this one, so a fix reaches them all:

- never through a link (`follow_links` only for a file the person named themselves: a question
  bank, a progress file), opened without blocking (a FIFO is refused, never waited on);
- regular files only, on a regular file system (procfs, sysfs and their kin are refused),
  checked on the descriptor that is read, whatever happened to the path in between;
- the size bound checked on the descriptor before a byte is read, and again while reading;
- folders opened as descriptors, their entries reached relative to them (no path grows);
- files written as new ones, or over a regular file checked on its descriptor, never through a link.

A refusal is a `Refused` (an InputError, so one line and exit code 2, and an OSError, for callers
that handle any failure to read): a catalog key and its fields, worded in the reader's language
where it is shown (`in_(lang)`; `str()` is the English).
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
import sys
from typing import Any

from normkata.errors import InputError

#: Opening never waits: O_NONBLOCK makes a FIFO answer at once instead of blocking the reader.
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NO_LINK = os.O_NOFOLLOW

#: Linux's file systems whose files are no data at rest (`statfs` f_type, linux/magic.h): what
#: their files report as a size is not what a read returns, and reading some has side effects.
SPECIAL_FILE_SYSTEMS = {
    0x9FA0: "procfs",
    0x62656572: "sysfs",
    0x64626720: "debugfs",
    0x74726163: "tracefs",
    0x73636673: "securityfs",
    0x0027E0EB: "cgroup",
    0x63677270: "cgroup2",
    0x62656570: "configfs",
    0xCAFE4A11: "bpf",
    0xDE5E81E4: "efivarfs",
    0x6165676C: "pstore",
    0x65735543: "fusectl",
    0x42494E4D: "binfmt_misc",
}

# Names are shown on one line: every control character (newline and tab too) is escaped.
_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def escape_name(name: str) -> str:
    """A file name made safe to show on one line: bytes that are not UTF-8 (held by Python as
    lone surrogates) shown as `\\xff`, every control character escaped."""
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError:  # a lone surrogate that no file name holds
        raw = name.encode("utf-8", "backslashreplace")
    text = raw.decode("utf-8", "backslashreplace")
    return _NAME_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class Refused(InputError, OSError):
    """A file or folder not opened, read or written: `key` (a `files.*` or other catalog key) says
    why, with `fields`; `line` puts the path in front ("{path} is {what}", "{path}: {what}", ...);
    `path` is the name as given, shown escaped."""

    def __init__(self, path: str | os.PathLike[str], key: str, /, *, line: str = "files.line", **fields: Any) -> None:
        self.path, self.key, self.line, self.fields = os.fspath(path), key, line, fields
        super().__init__(self.in_("en"))
        self.strerror = self.what("en")  # as an OSError's reason reads: "a FIFO, not a regular file"

    def what(self, lang: str) -> str:
        """Why, without the path: "a FIFO, not a regular file"."""
        from normkata.i18n import t

        return t(self.key, lang, **self.fields)

    def in_(self, lang: str) -> str:
        """The one line: "rmsnorm.py is a FIFO, not a regular file", "rmsnorm.py: Permission denied"."""
        from normkata.i18n import t

        return t(self.line, lang, path=escape_name(self.path), what=self.what(lang))

    def __str__(self) -> str:
        return self.in_("en")


def amount(limit: int) -> str:
    """A size limit as people read it: 64 MiB, 1024 kB, 300 bytes."""
    if limit >= 2 * 2**20 and limit % 2**20 == 0:
        return f"{limit // 2**20} MiB"
    if limit >= 1024 and limit % 1024 == 0:
        return f"{limit // 1024} kB"
    return f"{limit} bytes"


def _kind(mode: int, *, folder: bool = False) -> str:
    """The catalog key that says what stands there instead of a regular file (or a folder)."""
    if stat.S_ISLNK(mode):
        return "files.link"
    if stat.S_ISFIFO(mode):
        return "files.fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "files.device"
    if stat.S_ISSOCK(mode):
        return "files.socket"
    if stat.S_ISDIR(mode):
        return "files.folder"
    return "files.not_folder" if folder else "files.not_regular"


def _file_system(fd: int) -> str | None:
    """The name of the special file system `fd` is on (procfs, sysfs, ...); None for any other.

    Read with statfs(2): Python has no binding for it, and only its f_type tells /proc from a
    disk. f_type is the struct's first field (a C long) on every Linux ABI.
    """
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    buffer = ctypes.create_string_buffer(512)  # struct statfs is 120 bytes on 64-bit Linux
    if _libc().fstatfs(fd, buffer) != 0:
        return None
    return SPECIAL_FILE_SYSTEMS.get(ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF)


@functools.cache
def _libc() -> Any:
    """The C library this process runs on, loaded once (ctypes is imported at the first read)."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def unreadable(path: str | os.PathLike[str], exc: OSError) -> Refused:
    """An OSError (not found, permission denied) said as a refusal of `path`, for a reader whose
    caller expects one error for every file it cannot take (the grader's submissions)."""
    return Refused(path, "files.unreadable", line="files.line.error", reason=exc.strerror or str(exc))


def _check_descriptor(path: str | os.PathLike[str], fd: int, limit: int | None) -> os.stat_result:
    """What was opened is a regular file on a regular file system, within `limit` bytes."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise Refused(path, _kind(info.st_mode))
    special = _file_system(fd)
    if special is not None:
        raise Refused(path, "files.special", fs=special)
    if limit is not None and info.st_size > limit:
        raise Refused(path, "files.too_large", amount=amount(limit), size=info.st_size)
    return info


def check_file(path: str | os.PathLike[str], limit: int | None = None, *, dir_fd: int | None = None) -> os.stat_result:
    """The status of the regular file at `path` (not a link, not on procfs, within `limit`);
    nothing is read. Refused, or the OSError of a file that cannot be found or opened."""
    info = os.lstat(path, dir_fd=dir_fd)  # before opening: a device is never opened
    if not stat.S_ISREG(info.st_mode):
        raise Refused(path, _kind(info.st_mode))
    fd = open_file(path, limit, dir_fd=dir_fd)
    os.close(fd)
    return info


def open_file(
    path: str | os.PathLike[str], limit: int | None = None, *, dir_fd: int | None = None, follow_links: bool = False
) -> int:
    """A descriptor of the regular file at `path`, checked as the module says; the caller closes it.

    Refused for a link (unless `follow_links`), a special file, a file of procfs or sysfs, or one
    larger than `limit`; the OSError of a file that cannot be found or opened.
    """
    try:
        fd = os.open(path, _READ | (0 if follow_links else _NO_LINK), dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_links:
            raise Refused(path, "files.link") from None
        raise
    try:
        _check_descriptor(path, fd, limit)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(
    path: str | os.PathLike[str], limit: int, *, dir_fd: int | None = None, follow_links: bool = False
) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them (checked on its descriptor
    before the first byte and again as it is read: a file that grows is refused too)."""
    fd = open_file(path, limit, dir_fd=dir_fd, follow_links=follow_links)
    try:
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:
                raise Refused(path, "files.too_large", amount=amount(limit), size=size)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_folder(path: str | os.PathLike[str], *, dir_fd: int | None = None) -> int:
    """A descriptor of the folder at `path`, never reached through a link; the caller closes it.
    Refused for a link or anything but a folder; the OSError of one that cannot be found or opened."""
    try:
        return os.open(path, _FOLDER | _NO_LINK, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
    info = os.lstat(path, dir_fd=dir_fd)
    raise Refused(path, _kind(info.st_mode, folder=True))


def write_file(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    replace: bool = False,
    dir_fd: int | None = None,
    mode: int = 0o600,
) -> None:
    """Write `data` as a new file, or with `replace` over a regular file, never through a link.

    A link in its place (dangling or not), a FIFO, a device or a folder is Refused and nothing is
    written: the file is opened without following links and without blocking, and its type
    checked on the descriptor before it is truncated. Without `replace`, anything already at
    `path` is refused (FileExistsError for a regular file).
    """
    flags = os.O_WRONLY | os.O_CREAT | _NO_LINK | os.O_NONBLOCK | os.O_CLOEXEC | (0 if replace else os.O_EXCL)
    try:
        fd = os.open(path, flags, mode, dir_fd=dir_fd)
    except OSError as exc:  # ELOOP: a link; EEXIST: something there already; ENXIO: a FIFO nobody reads
        try:
            info = os.lstat(path, dir_fd=dir_fd)
        except OSError:
            raise exc from None
        if stat.S_ISREG(info.st_mode):
            raise
        raise Refused(path, _kind(info.st_mode)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(path, _kind(info.st_mode))
        if replace:
            os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
