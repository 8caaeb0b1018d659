"""The class's gradebook: one row per submission in `gradebook.csv`, one JSON report beside it."""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass, fields
from pathlib import Path

from normkata.grading.contract import GradeResult

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
        return cls(submission, str(result.passed).lower(), str(result.score), str(result.max_score),
                   ";".join(d.id for d in result.diagnosis), f"{result.duration_s:.3f}", str(result.seed),
                   digest)  # fmt: skip

    @classmethod
    def failed(cls, submission: str, digest: str, error: str) -> Row:
        return cls(submission, sha256=digest, error=" ".join(error.split()))


COLUMNS = [f.name for f in fields(Row)]


def report_path(out: Path, submission: str) -> Path:
    return out / REPORTS / f"{submission}.json"


def read_rows(out: Path) -> dict[str, Row]:
    """The rows of an earlier run, by submission; none when there is no readable gradebook."""
    path = out / GRADEBOOK
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as stream:
        reader = csv.DictReader(stream)
        if reader.fieldnames != COLUMNS:
            return {}  # another layout: grade everything again rather than guess
        return {row["submission"]: Row(**row) for row in reader}


def write_rows(out: Path, rows: list[Row]) -> Path:
    path = out / GRADEBOOK
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=COLUMNS)
        writer.writeheader()
        for row in sorted(rows, key=lambda r: r.submission):
            writer.writerow(vars(row))
    return path


def write_report(out: Path, submission: str, result: GradeResult) -> None:
    path = report_path(out, submission)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def read_report(out: Path, submission: str) -> GradeResult | None:
    try:
        return GradeResult.from_json(json.loads(report_path(out, submission).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def common_misconceptions(results: list[GradeResult], limit: int = 5) -> list[tuple[str, str, int]]:
    """(id, title, submissions naming it), the most common first."""
    counts: Counter[str] = Counter()
    titles: dict[str, str] = {}
    for result in results:
        for named in result.diagnosis:
            counts[named.id] += 1
            titles.setdefault(named.id, named.title)
    return [(key, titles[key], n) for key, n in counts.most_common(limit)]
