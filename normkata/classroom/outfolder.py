"""grade-all's out folder: created and owned by this tool, written without following links.

A class folder is written by students, and so may be anything beside it that is not ours. The
out folder is therefore refused when it lies inside the class folder, and when it already
exists without being ours (unless `--force`). A finished gradebook is never replaced unawares:
an out folder of ours is graded into again only by a rerun of what it holds (the same class
folder, shard and settings); another kata, class, shard or seed is refused unless `--force`,
naming what is there. Every file in it is written through a descriptor
of the folder, as a fresh temporary file renamed into place: a link planted at
`gradebook.csv` or `reports/` is replaced, never written through.

A rerun keeps an earlier grade only when the manifest (`.normkata-manifest.json`) vouches for
it: each entry carries an HMAC over the submission's name, the digest of its content, its
gradebook row and the bytes of its two reports, keyed by the teacher's grading key
(normkata.classroom.key), and the manifest records the settings it was graded with (another
seed, timeout, device or language grades everything again). A gradebook row or report forged
by a submission, or copied from elsewhere, is graded again. The signed manifest that
`gradebook merge` checks is another file (normkata.classroom.signed): this one is bound to
this folder's path, that one travels with a shard.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from normkata.boundedjson import RefusedJSON, loads
from normkata.classroom.gradebook import GRADEBOOK, REPORTS, Row, Settings, gradebook_text
from normkata.classroom.key import grading_key
from normkata.classroom.shards import WHOLE_CLASS, Shard
from normkata.files import open_folder, read_file, write_file
from normkata.grading.contract import GradeResult
from normkata.grading.formats import FORMATS, VISIBILITIES, Weights
from normkata.grading.wire import from_wire
from normkata.i18n.worded import Phrase, Worded

MANIFEST = ".normkata-manifest.json"
#: A report is a few kB; anything far larger in the out folder is not one of ours.
MAX_REPORT_BYTES = 16 * 1024 * 1024
#: A report nests a case's findings a few levels down; the rerun manifest four.
MAX_REPORT_DEPTH = 32


def canonical(value: Any) -> bytes:
    """The one byte string a JSON value signs as: sorted keys, no spaces, ASCII."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass
class Earlier:
    """A grade kept from an earlier run: its result, its row and what the summary counts."""

    result: GradeResult
    row: Row
    kinds: list[str]


@dataclass
class _Recorded:
    """What the rerun manifest says the folder holds: graded from where, which shard, with what."""

    origin: list[str]  # [the class folder's real path, the shard]
    settings: Any
    suite_max: Any
    entries: dict[str, _Entry]

    def describe(self) -> Phrase:
        try:
            settings = Settings.from_json(self.settings).describe()
        except ValueError:
            settings = Phrase("classroom.settings.unknown")
        folder, shard = self.origin
        graded = (
            Phrase("classroom.there.merge")
            if folder == os.devnull
            else Phrase("classroom.there.shard", folder=folder, shard=shard)
        )
        return Phrase("classroom.there.gradebook", n=len(self.entries), settings=settings, graded=graded)


@dataclass
class _Entry:
    sha256: str  # the submission's content
    report: str
    tag: str
    row: dict[str, str] = field(default_factory=dict)
    kinds: list[str] = field(default_factory=list)


class OutFolder:
    """The out folder, opened as a descriptor; see the module's docstring for the rules."""

    def __init__(self, path: Path, fd: int, key: bytes, settings: Settings, origin: list[str]) -> None:
        self.path, self.fd, self.key, self.settings, self.origin = path, fd, key, settings, origin
        self.previous: dict[str, _Entry] = {}
        self.entries: dict[str, _Entry] = {}
        #: The suite's max_score with these settings, once measured (normkata.classroom.batch.SuiteMax).
        self.suite_max: int | None = None
        #: sha256 of the two reports of each submission graded or kept in this run.
        self.hashes: dict[str, tuple[str, str]] = {}

    @classmethod
    def open(
        cls, path: Path, class_folder: Path, *, force: bool, settings: Settings, shard: Shard = WHOLE_CLASS
    ) -> OutFolder:
        """Create or reopen `path` to grade `shard` of `class_folder` into; InputError when it is inside
        `class_folder`, a link, not ours, or holds another gradebook (see the module's docstring)."""
        real_out, real_class = os.path.realpath(path), os.path.realpath(class_folder)
        if _inside(real_out, real_class):
            raise Worded("classroom.refuse.out_inside", out=path, folder=class_folder)
        key = grading_key()
        if not os.path.lexists(path):
            path.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(path, 0o755)
            created = True
        else:
            created = False
        try:
            fd = open_folder(path)
        except OSError as exc:
            raise Worded("classroom.refuse.out_not_folder", out=path, why=exc.strerror) from None
        folder = cls(path, fd, key, settings, [real_class, str(shard)])
        if created:
            return folder
        recorded = folder._recorded()
        if recorded is None and os.listdir(fd) and not force:
            os.close(fd)
            raise Worded("classroom.refuse.out_foreign", out=path)
        if recorded is None:
            return folder
        rerun = recorded.origin == folder.origin and recorded.settings == settings.to_json()
        if not rerun and not force:
            os.close(fd)
            raise Worded("classroom.refuse.out_holds", out=path, there=recorded.describe())
        if rerun:
            folder.suite_max = recorded.suite_max if type(recorded.suite_max) is int else None
            folder.previous = {} if force else recorded.entries
        return folder

    @staticmethod
    def what_is_there(path: Path) -> Phrase | None:
        """What stands in the folder at `path` (None: nothing, or an empty folder), in a few words."""
        try:
            fd = open_folder(path)
        except FileNotFoundError:
            return None
        except OSError as exc:  # a link, a file, a folder that cannot be opened
            return Phrase("classroom.there.not_folder", why=exc.strerror or exc)
        try:
            names = sorted(os.listdir(fd))
            if not names:
                return None
            recorded = OutFolder(path, fd, grading_key(), Settings(""), [])._recorded()
            if recorded is not None:
                return recorded.describe()
            shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
            return Phrase("classroom.there.entries", n=len(names), names=shown)
        finally:
            os.close(fd)

    def _owner_tag(self, origin: object, settings: object, suite_max: object) -> str:
        """This folder's (its real path) with what the manifest records of the gradebook it holds."""
        message = b"out\0" + os.fsencode(os.path.realpath(self.path)) + b"\0" + canonical([origin, settings, suite_max])
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def _entry_tag(self, name: str, entry: _Entry, report: bytes, markdown: bytes) -> str:
        message = {
            "name": name,
            "sha256": entry.sha256,
            "report": entry.report,
            "json": sha256(report),
            "md": sha256(markdown),
            "row": entry.row,
            "kinds": entry.kinds,
        }
        return hmac.new(self.key, b"entry\0" + canonical(message), hashlib.sha256).hexdigest()

    def _recorded(self) -> _Recorded | None:
        """What the rerun manifest records, when this key wrote it for this folder; else None."""
        try:
            text = read_file(MANIFEST, MAX_REPORT_BYTES, dir_fd=self.fd)
            data = loads(text, max_bytes=MAX_REPORT_BYTES, max_depth=MAX_REPORT_DEPTH)
            origin, settings, known = data["origin"], data["settings"], data["suite_max"]
            if not hmac.compare_digest(str(data["owner"]), self._owner_tag(origin, settings, known)):
                return None
            entries = {
                str(k): _Entry(
                    str(v["sha256"]),
                    str(v["report"]),
                    str(v["tag"]),
                    dict(v["row"]),
                    [str(kind) for kind in v["kinds"]],
                )
                for k, v in data["entries"].items()
            }
            if not isinstance(origin, list) or len(origin) != 2:
                return None
            return _Recorded([str(part) for part in origin], settings, known, entries)
        except (OSError, RefusedJSON, ValueError, KeyError, TypeError, AttributeError):
            return None

    def earlier(self, name: str, digest: str, report: str) -> Earlier | None:
        """The grade given earlier to this very content, when the manifest vouches for it."""
        entry = self.previous.get(name)
        if entry is None or entry.sha256 != digest or entry.report != report:
            return None
        try:
            data, markdown = self._read_report(report)
            if not hmac.compare_digest(entry.tag, self._entry_tag(name, entry, data, markdown)):
                return None
            report = loads(data, max_bytes=MAX_REPORT_BYTES, max_depth=MAX_REPORT_DEPTH)
            earlier = Earlier(from_wire(GradeResult, report), Row.of(entry.row), entry.kinds)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        self._keep(name, entry, data, markdown)
        return earlier

    def _read_report(self, report: str) -> tuple[bytes, bytes]:
        reports = open_folder(REPORTS, dir_fd=self.fd)
        try:
            return (
                read_file(f"{report}.json", MAX_REPORT_BYTES, dir_fd=reports),
                read_file(f"{report}.md", MAX_REPORT_BYTES, dir_fd=reports),
            )
        finally:
            os.close(reports)

    def _keep(self, name: str, entry: _Entry, data: bytes, markdown: bytes) -> None:
        self.entries[name] = entry
        self.hashes[name] = (sha256(data), sha256(markdown))

    def write_report(self, row: Row, kinds: list[str], data: bytes, markdown: bytes) -> None:
        """`row`'s two reports (reports/<row.report>.json and .md), vouched for in the manifest."""
        reports = self._reports()
        try:
            _replace(reports, f"{row.report}.json", data)
            _replace(reports, f"{row.report}.md", markdown)
        finally:
            os.close(reports)
        entry = _Entry(row.sha256, row.report, "", row.cells(), list(kinds))
        entry.tag = self._entry_tag(row.submission, entry, data, markdown)
        self._keep(row.submission, entry, data, markdown)

    def write_gradebook(self, rows: list[Row]) -> bytes:
        """gradebook.csv and the manifest (only the reports of this run's rows); the gradebook's bytes."""
        text = gradebook_text(rows).encode("utf-8")
        _replace(self.fd, GRADEBOOK, text)
        kept = {row.submission for row in rows}
        settings = self.settings.to_json()
        manifest = {
            "owner": self._owner_tag(self.origin, settings, self.suite_max),
            "origin": self.origin,
            "settings": settings,
            "suite_max": self.suite_max,
            "entries": {k: vars(v) for k, v in sorted(self.entries.items()) if k in kept},
        }
        _replace(self.fd, MANIFEST, (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
        return text

    def report_files(self, rows: list[Row]) -> dict[str, str]:
        """The sha256 of every report of `rows`, by its path in the folder (reports/x.json)."""
        files = {}
        for row in rows:
            if row.report and row.submission in self.hashes:
                data, markdown = self.hashes[row.submission]
                files[f"{REPORTS}/{row.report}.json"], files[f"{REPORTS}/{row.report}.md"] = data, markdown
        return files

    def write(self, name: str, data: bytes) -> None:
        """Another file of the folder (the signed manifest), written as every file here is."""
        _replace(self.fd, name, data)

    def write_results(self, report: str, result: GradeResult, fmts: tuple[str, ...], weights: Weights) -> None:
        """Each platform's results file of one submission (a key of FORMATS):
        `<fmt>/<report>/<its file>` (`prairielearn/alice/results.json`), scored with `weights`.
        Derived from the report on every run and merge, so not signed."""
        for fmt in fmts:
            data = FORMATS[fmt].text(result, VISIBILITIES[0], weights).encode("utf-8")
            self._write_result(fmt, report, FORMATS[fmt].file, data)

    def _write_result(self, fmt: str, report: str, file: str, data: bytes) -> None:
        outer = _subfolder(self.fd, fmt)
        try:
            inner = _subfolder(outer, report)
            try:
                _replace(inner, file, data)
            finally:
                os.close(inner)
        finally:
            os.close(outer)

    def write_report_page(self, report: str, data: bytes) -> None:
        """reports/<report>.html (normkata.classroom.page), derived from the row and its report."""
        reports = self._reports()
        try:
            _replace(reports, f"{report}.html", data)
        finally:
            os.close(reports)

    def _reports(self) -> int:
        """The reports folder's descriptor; anything else standing at its name is removed first."""
        return _subfolder(self.fd, REPORTS)

    def close(self) -> None:
        os.close(self.fd)


def _subfolder(dir_fd: int, name: str) -> int:
    """The descriptor of the folder `name` in `dir_fd`, made when absent; a link or a file planted
    at its name is removed first, never followed."""
    try:
        return open_folder(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
    except OSError:  # a link or a file planted there: ours to replace
        os.unlink(name, dir_fd=dir_fd)
    os.mkdir(name, 0o755, dir_fd=dir_fd)
    return open_folder(name, dir_fd=dir_fd)


def _replace(dir_fd: int, name: str, data: bytes) -> None:
    """Write `name` in the folder as a new file renamed into place: whatever stood there (a
    link included) is replaced, never followed."""
    temporary = f".{secrets.token_hex(8)}.tmp"
    write_file(temporary, data, dir_fd=dir_fd, mode=0o644)
    try:
        os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        os.unlink(temporary, dir_fd=dir_fd)
        raise
