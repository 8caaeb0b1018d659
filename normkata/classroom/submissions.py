"""What counts as a submission in a class folder, and the hash that says it changed."""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass
from pathlib import Path

from normkata.errors import InputError


@dataclass(frozen=True)
class Submission:
    """One learner's work: a file `DIR/alice.py`, or a folder `DIR/alice/` holding the kata's file."""

    name: str
    file: Path  # the file graded (it may be missing from a folder: graded as an error)
    folder: bool

    def digest(self) -> str:
        """sha256 of what is graded: the file, or every .py file of the folder with its path."""
        hasher = hashlib.sha256()
        if not self.folder:
            hasher.update(self.file.read_bytes())
            return hasher.hexdigest()
        root = self.file.parent
        for path in sorted(p for p in root.rglob("*.py") if p.is_file() and "__pycache__" not in p.parts):
            hasher.update(path.relative_to(root).as_posix().encode() + b"\0")
            hasher.update(path.read_bytes() + b"\0")
        return hasher.hexdigest()


def find_submissions(root: Path, kata_file: str, pattern: str, skip: Path | None = None) -> list[Submission]:
    """Entries of `root` whose name matches `pattern`: `.py` files, and folders (each holding
    `kata_file`, or graded as missing it). Hidden entries, `__pycache__` and `skip` (the
    output folder) are left out. Two submissions with one name are an InputError."""
    found: dict[str, Submission] = {}
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.name == "__pycache__" or not fnmatch.fnmatch(entry.name, pattern):
            continue
        if skip is not None and entry.resolve() == skip.resolve():
            continue
        if entry.is_dir():
            submission = Submission(entry.name, entry / kata_file, folder=True)
        elif entry.is_file() and entry.suffix == ".py":
            submission = Submission(entry.stem, entry, folder=False)
        else:
            continue
        if submission.name in found:
            raise InputError(f"{root}: {found[submission.name].file} and {submission.file} are both "
                             f"submission {submission.name!r}: rename one")  # fmt: skip
        found[submission.name] = submission
    return list(found.values())
