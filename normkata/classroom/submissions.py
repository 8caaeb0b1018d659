"""What counts as a submission in a class folder, and what of it is graded (its snapshot)."""

from __future__ import annotations

import fnmatch
import os
import stat
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from normkata.grading.source import Snapshot, snapshot_file, snapshot_folder
from normkata.grading.text import escape_name
from normkata.i18n import t


@dataclass(frozen=True)
class StudentSubmission:
    """One student's work in a class folder: a file `DIR/alice.py`, or a folder `DIR/alice/` holding
    the kata's file. (The runner's view of code under test is grading.proxy.Submission.)

    `name` is the entry's name made safe to show (undecodable bytes and control characters
    escaped): the gradebook's key, unique in the class. Links, FIFOs and devices are submissions
    too, graded as the error they are when their snapshot is taken. `note` says why a name is
    not the entry's plain stem (another entry had it)."""

    name: str
    file: Path  # the file graded (it may be missing from a folder: graded as an error)
    folder: bool
    note: str = ""

    def snapshot(self) -> Snapshot:
        """Its .py files as they are now, read without following links (Refused otherwise)."""
        if self.folder:
            return snapshot_folder(self.file.parent, self.file.name)
        return snapshot_file(self.file)


def _is_folder(entry: os.DirEntry[str]) -> bool | None:
    """True for a folder, False for a `.py` file of any type, None when it is no submission.
    A link counts as what it points to, so that it becomes its submission's error row."""
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            mode = entry.stat(follow_symlinks=True).st_mode  # to classify only; never read through it
    except OSError:  # a dangling link
        mode = 0
    if stat.S_ISDIR(mode):
        return True
    return False if entry.name.endswith(".py") else None


def find_submissions(
    root: Path, kata_file: str, pattern: str, skip: Path | None = None, lang: str = "en"
) -> list[StudentSubmission]:
    """Entries of `root` whose name matches `pattern`: `.py` files (FIFOs, devices and links
    included, as errors), and folders (each holding `kata_file`, or graded as missing it).
    Hidden entries, `__pycache__` and `skip` (the output folder) are left out.

    Names are decided from all entries at once, so that each is unique: an entry is named by
    its stem (`alice` for alice.py and for alice/) unless another entry has that stem too; then
    each of them is named as it is listed (`alice.py`, `alice/`), numbered where even that is
    taken (`name (2)`: two raw names can escape alike), and carries a note. Nothing stops the batch."""
    skipped = os.path.realpath(skip) if skip is not None else None
    with os.scandir(root) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    found: list[tuple[str, str, Path, bool]] = []  # stem, as listed, the file graded, folder
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "__pycache__" or not fnmatch.fnmatch(entry.name, pattern):
            continue
        if skipped is not None and os.path.realpath(entry.path) == skipped:
            continue
        folder = _is_folder(entry)
        if folder is None:
            continue
        path = root / entry.name
        stem = entry.name if folder else entry.name[: -len(".py")]
        listed = escape_name(entry.name) + ("/" if folder else "")
        found.append((escape_name(stem), listed, path / kata_file if folder else path, folder))
    stems = Counter(stem for stem, _, _, _ in found)
    wanted = [stem if stems[stem] == 1 else listed for stem, listed, _, _ in found]
    reserved, used = set(wanted), set[str]()
    submissions = []
    for (stem, _, file, folder), name in zip(found, wanted, strict=True):
        if name in used:
            number = 2
            while f"{name} ({number})" in used | reserved:
                number += 1
            name = f"{name} ({number})"
        used.add(name)
        note = ""
        if stems[stem] > 1:
            shared = ", ".join(listed for other, listed, _, _ in found if other == stem)
            note = t("classroom.note.same_name", lang, name=stem, entries=shared)
        submissions.append(StudentSubmission(name, file, folder, note))
    return submissions
