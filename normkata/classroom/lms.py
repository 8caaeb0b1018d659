"""`normkata gradebook export`: a class's grades in the CSV shape an LMS's grade import reads.

Read from the out folder's signed manifest (normkata.classroom.signed), so what goes to the
LMS is what was graded. A submission is matched to a student by its name: name each file or
folder after the student's login (Canvas: SIS Login ID; Moodle: the field chosen at import).

- Canvas (Grades → Import): the columns Student, ID, SIS User ID, SIS Login ID, Section, then
  one column per assignment, headed by its name, and a "Points Possible" row under the header,
  as Canvas's own gradebook export is laid out. Canvas matches a row by ID, SIS User ID or SIS
  Login ID; the name goes into Student and SIS Login ID. A column whose name matches no
  assignment creates one.
- Moodle (Grade administration → Import → CSV file): one identity column, one grade column
  and one feedback column (the reason); at the import, map "Username" to the user field the
  names hold (username, email address or ID number), the grade column to the grade item and
  the feedback column to its feedback.

A submission that could not be graded is left blank (the LMS keeps what it had); one that
broke a rule of the kata (torch's own norm called) gets 0, as on Gradescope.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable
from pathlib import Path

from normkata.classroom.gradebook import neutralise
from normkata.classroom.key import grading_key
from normkata.classroom.merge import MAX_MANIFEST_BYTES
from normkata.classroom.reasons import KINDS
from normkata.classroom.signed import SIGNED, Manifest, SignedRow, Unsigned, verified
from normkata.errors import InputError
from normkata.files import open_folder, read_file
from normkata.grading.contract import Cause

_RULES = {KINDS[Cause.FORBIDDEN], KINDS[Cause.GLOBAL_STATE]}


def read_gradebook(folder: Path) -> Manifest:
    """The verified manifest of a whole class's out folder (grade-all without shards, or a merge)."""
    try:
        fd = open_folder(folder)
    except OSError as exc:
        raise InputError(f"{folder}: not a grade-all out folder ({exc.strerror})") from None
    try:
        data = read_file(SIGNED, MAX_MANIFEST_BYTES, dir_fd=fd)
    except OSError:
        raise InputError(f"{folder}: no {SIGNED}: export a grade-all or gradebook merge out folder") from None
    finally:
        os.close(fd)
    try:
        manifest = verified(data, grading_key())
    except Unsigned as exc:
        raise InputError(f"{folder}/{SIGNED}: {exc}") from None
    if manifest.shard.count != 1:
        raise InputError(
            f"{folder} is shard {manifest.shard} of a class: merge the shards first (normkata gradebook merge)"
        )
    return manifest


def points(signed: SignedRow, scale: float | None) -> str:
    """The row's grade as the LMS gets it: "" when not graded, 0 when a rule was broken, the score
    (out of `scale` when given, else out of the suite's max_score)."""
    row = signed.row
    if row.passed is None or row.score is None:
        return ""
    score = 0.0 if _RULES & set(signed.kinds) else float(row.score)
    if scale is not None and row.max_score:
        score = score / row.max_score * scale
    return f"{score:.2f}".rstrip("0").rstrip(".")


def _canvas(rows: list[SignedRow], assignment: str, scale: float | None) -> list[list[str]]:
    """Canvas's gradebook layout: identity columns, one column per assignment, "Points Possible" under the header."""
    maximum = next((r.row.max_score for r in rows if r.row.max_score is not None), None)
    possible = f"{scale:g}" if scale is not None else "" if maximum is None else str(maximum)
    lines = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", neutralise(assignment)],
        ["Points Possible", "", "", "", "", possible],
    ]
    for signed in rows:
        name = neutralise(signed.row.submission)
        lines.append([name, "", "", name, "", points(signed, scale)])
    return lines


def _moodle(rows: list[SignedRow], assignment: str, scale: float | None) -> list[list[str]]:
    """Moodle's CSV import: one identity column, the grade and its feedback (the reason)."""
    lines = [["Username", neutralise(assignment), neutralise(f"{assignment} feedback")]]
    for signed in rows:
        grade = points(signed, scale)
        lines.append([neutralise(signed.row.submission), grade, neutralise(signed.row.reason) if grade else ""])
    return lines


#: Every LMS `gradebook export --lms` writes for, by name: the one table the command reads. Each
#: lays out the class's rows (sorted by submission) under its header, given the assignment's
#: name and the points to scale to.
LMS: dict[str, Callable[[list[SignedRow], str, float | None], list[list[str]]]] = {
    "canvas": _canvas,
    "moodle": _moodle,
}


def export(manifest: Manifest, lms: str, assignment: str, scale: float | None) -> tuple[str, int, int]:
    """The CSV text, how many grades it holds and how many rows it leaves blank."""
    rows = sorted(manifest.rows, key=lambda r: r.row.submission)
    stream = io.StringIO()
    csv.writer(stream, lineterminator="\n").writerows(LMS[lms](rows, assignment, scale))
    graded = sum(bool(points(r, scale)) for r in rows)
    return stream.getvalue(), graded, len(rows) - graded


def write_export(folder: Path, lms: str, out: Path, assignment: str | None, scale: float | None) -> tuple[int, int]:
    manifest = read_gradebook(folder)
    text, graded, blank = export(manifest, lms, assignment or f"normkata {manifest.settings.kata}", scale)
    out.write_text(text, encoding="utf-8")
    return graded, blank
