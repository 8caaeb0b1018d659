"""The class's gradebook: one row per submission in `gradebook.csv`, one JSON report beside it.

What is written here is read by spreadsheets and terminals: cells are neutralised, report
names are safe file names. Where the files go is `normkata.classroom.outfolder`'s job.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections import Counter
from dataclasses import dataclass, fields

from normkata.grading.contract import GradeResult
from normkata.grading.text import escape_name

GRADEBOOK = "gradebook.csv"
REPORTS = "reports"


@dataclass
class Row:
    """A submission's line in the gradebook. A grader error leaves the verdict columns empty."""

    submission: str
    passed: str = ""  # "true" | "false" | "" (not graded)
    score: str = ""
    max_score: str = ""
    misconceptions: str = ""  # named misconception ids, ";"-separated
    duration_s: str = ""
    seed: str = ""
    sha256: str = ""
    error: str = ""

    @classmethod
    def graded(cls, submission: str, digest: str, result: GradeResult) -> Row:
        verdict = result.verdict
        return cls(submission, str(verdict.passed).lower(), str(verdict.score), str(verdict.max_score),
                   ";".join(d.id for d in result.diagnosis), f"{result.duration_s:.3f}", str(result.seed),
                   digest)  # fmt: skip

    @classmethod
    def failed(cls, submission: str, digest: str, error: str) -> Row:
        return cls(submission, sha256=digest, error=escape_name(" ".join(error.split())))


COLUMNS = [f.name for f in fields(Row)]

#: A cell starting with one of these is a formula to a spreadsheet (OWASP's CSV injection list).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: Report file names kept as they are: short, plain, not hidden; others get a safe name.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def neutralise(cell: str) -> str:
    """A cell a spreadsheet shows as text, never evaluates: a formula start gets a leading quote."""
    return "'" + cell if cell.startswith(_FORMULA_STARTS) else cell


def report_name(submission: str) -> str:
    """The report's file name: the submission's own when it is plain, else a slug and a hash of
    the name (names may be 255 bytes long, hold escapes, dots or separators)."""
    if _PLAIN_NAME.fullmatch(submission):
        return f"{submission}.json"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", submission).strip("._-")[:60] or "submission"
    return f"{slug}-{hashlib.sha256(submission.encode('utf-8', 'backslashreplace')).hexdigest()[:16]}.json"


def gradebook_text(rows: list[Row]) -> str:
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=COLUMNS)
    writer.writeheader()
    for row in sorted(rows, key=lambda r: r.submission):
        writer.writerow({key: neutralise(value) for key, value in vars(row).items()})
    return stream.getvalue()


def report_text(result: GradeResult) -> str:
    return json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n"


def common_misconceptions(results: list[GradeResult], limit: int = 5) -> list[tuple[str, str, int]]:
    """(id, title, submissions naming it), the most common first."""
    counts: Counter[str] = Counter()
    titles: dict[str, str] = {}
    for result in results:
        for named in result.diagnosis:
            counts[named.id] += 1
            titles.setdefault(named.id, named.title)
    return [(key, titles[key], n) for key, n in counts.most_common(limit)]
