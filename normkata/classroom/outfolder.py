"""grade-all's out folder: created and owned by this tool, written without following links.

A class folder is written by students, and so may be anything beside it that is not ours. The
out folder is therefore refused when it lies inside the class folder, and when it already
exists without being ours (unless `--force`). Every file in it is written through a descriptor
of the folder, as a fresh temporary file renamed into place: a link planted at
`gradebook.csv` or `reports/` is replaced, never written through.

A rerun keeps an earlier grade only when the manifest (`.normkata-manifest.json`) vouches for
its report: each entry carries an HMAC over the submission's name, the digest of its content
and the report's bytes, keyed by a secret kept in the user's state folder, outside any class.
A gradebook row or report forged by a submission, or copied from elsewhere, is graded again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from normkata.classroom.gradebook import GRADEBOOK, REPORTS, Row, gradebook_text, report_name, report_text
from normkata.errors import InputError
from normkata.grading.contract import GradeResult
from normkata.grading.wire import from_wire
from normkata.paths import state_dir

MANIFEST = ".normkata-manifest.json"
#: The key's file in the state folder: 32 random bytes, readable by its owner only.
KEY_FILE = "grade-all.key"
#: A report is a few kB; anything far larger in the out folder is not one of ours.
MAX_REPORT_BYTES = 16 * 1024 * 1024
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _key() -> bytes:
    home = state_dir()
    home.mkdir(parents=True, exist_ok=True)
    path = home / KEY_FILE
    if not os.path.lexists(path):
        # Written whole under a private name, then linked into place: two grade-alls starting at
        # once agree on one key, and none reads a half-written one.
        staged = home / f".{KEY_FILE}.{secrets.token_hex(8)}"
        fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as stream:
            stream.write(secrets.token_bytes(32))
        try:
            os.link(staged, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(staged)
    try:
        data = _read(os.fspath(path), None, 64)
    except OSError as exc:
        raise InputError(f"{path}: the grade-all key cannot be read ({exc})") from None
    if len(data) != 32:
        raise InputError(f"{path} is not a grade-all key (32 bytes): remove it and run again")
    return data


def _read(name: str, dir_fd: int | None, limit: int) -> bytes:
    """A regular file's bytes, opened without following a link; OSError otherwise."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            raise OSError(f"{name} is not a regular file of at most {limit} bytes")
        return stream.read(limit + 1)[:limit]


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass
class _Entry:
    sha256: str
    report: str
    tag: str


class OutFolder:
    """The out folder, opened as a descriptor; see the module's docstring for the rules."""

    def __init__(self, path: Path, fd: int, key: bytes, entries: dict[str, _Entry]) -> None:
        self.path, self.fd, self.key, self.previous = path, fd, key, entries
        self.entries: dict[str, _Entry] = {}

    @classmethod
    def open(cls, path: Path, class_folder: Path, *, force: bool) -> OutFolder:
        """Create or reopen `path`; InputError when it is inside `class_folder`, a link, or not ours."""
        real_out, real_class = os.path.realpath(path), os.path.realpath(class_folder)
        if _inside(real_out, real_class):
            raise InputError(f"--out {path} is inside the class folder {class_folder}, where students' files "
                             "could stand in for the gradebook: choose a folder outside it")  # fmt: skip
        key = _key()
        if not os.path.lexists(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(path, 0o755)
            created = True
        else:
            created = False
        try:
            fd = os.open(path, _DIR)
        except OSError as exc:
            raise InputError(f"--out {path}: not a folder of its own ({exc.strerror}; links are not "
                             "followed)") from None
        folder = cls(path, fd, key, {})
        if created:
            return folder
        entries = folder._manifest()
        if entries is None and os.listdir(fd) and not force:
            os.close(fd)
            raise InputError(f"--out {path} exists and was not written by normkata grade-all: choose another "
                             "folder, or add --force to grade everything into it")  # fmt: skip
        folder.previous = {} if force or entries is None else entries
        return folder

    def _owner_tag(self) -> str:
        return hmac.new(self.key, b"out\0" + os.fsencode(os.path.realpath(self.path)), hashlib.sha256).hexdigest()

    def _entry_tag(self, name: str, digest: str, report: bytes) -> str:
        parts = (name.encode("utf-8", "backslashreplace"), digest.encode(), hashlib.sha256(report).digest())
        message = b"\0".join(parts)
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def _manifest(self) -> dict[str, _Entry] | None:
        """The manifest's entries when this key wrote it for this folder, else None."""
        try:
            data = json.loads(_read(MANIFEST, self.fd, MAX_REPORT_BYTES))
            if not hmac.compare_digest(str(data["owner"]), self._owner_tag()):
                return None
            entries = data["entries"].items()
            return {str(k): _Entry(str(v["sha256"]), str(v["report"]), str(v["tag"])) for k, v in entries}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def earlier(self, name: str, digest: str) -> GradeResult | None:
        """The result graded earlier for this very content, when its report is vouched for."""
        entry = self.previous.get(name)
        if entry is None or entry.sha256 != digest or entry.report != report_name(name):
            return None
        try:
            reports = os.open(REPORTS, _DIR, dir_fd=self.fd)
            try:
                data = _read(entry.report, reports, MAX_REPORT_BYTES)
            finally:
                os.close(reports)
            if not hmac.compare_digest(entry.tag, self._entry_tag(name, digest, data)):
                return None
            result = from_wire(GradeResult, json.loads(data))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        self.entries[name] = entry
        return result

    def write_report(self, name: str, digest: str, result: GradeResult) -> None:
        data = report_text(result).encode("utf-8")
        reports = self._reports()
        try:
            _replace(reports, report_name(name), data)
        finally:
            os.close(reports)
        self.entries[name] = _Entry(digest, report_name(name), self._entry_tag(name, digest, data))

    def write_gradebook(self, rows: list[Row]) -> Path:
        """gradebook.csv and the manifest (only the reports of this run's rows)."""
        _replace(self.fd, GRADEBOOK, gradebook_text(rows).encode("utf-8"))
        kept = {row.submission for row in rows}
        manifest = {"owner": self._owner_tag(),
                    "entries": {k: vars(v) for k, v in sorted(self.entries.items()) if k in kept}}  # fmt: skip
        _replace(self.fd, MANIFEST, (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
        return self.path / GRADEBOOK

    def _reports(self) -> int:
        """The reports folder's descriptor; anything else standing at its name is removed first."""
        try:
            return os.open(REPORTS, _DIR, dir_fd=self.fd)
        except FileNotFoundError:
            pass
        except OSError:  # a link or a file planted there: ours to replace
            os.unlink(REPORTS, dir_fd=self.fd)
        os.mkdir(REPORTS, 0o755, dir_fd=self.fd)
        return os.open(REPORTS, _DIR, dir_fd=self.fd)

    def close(self) -> None:
        os.close(self.fd)


def _replace(dir_fd: int, name: str, data: bytes) -> None:
    """Write `name` in the folder as a new file renamed into place: whatever stood there (a
    link included) is replaced, never followed."""
    temporary = f".{secrets.token_hex(8)}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                 dir_fd=dir_fd)  # fmt: skip
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        os.unlink(temporary, dir_fd=dir_fd)
        raise
