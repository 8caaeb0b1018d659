"""The class's gradebook: one row per submission in `gradebook.csv`, its reports beside it.

What is written here is read by spreadsheets and terminals: cells are neutralised, report
names are safe file names. Where the files go is `normkata.classroom.outfolder`'s job.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from normkata.grading.contract import CASE_TIMEOUT_S, ONE_POINT_EACH, Category, GradeResult, Verdict
from normkata.grading.text import escape_name
from normkata.i18n.worded import Phrase, Worded

GRADEBOOK = "gradebook.csv"
REPORTS = "reports"
#: The categories `--weights` names, as the command line spells them (`low-precision=3`); the
#: kata's rules earn no points and take no weight.
WEIGHT_NAMES = {c.name.lower().replace("_", "-"): c for c in Category if c is not Category.INTEGRITY}


def parse_weights(given: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """`--weights low-precision=3,gradients=2` (repeatable) as Settings.weights: sorted, each
    category once (the last one given wins); Worded for anything else."""
    weights: dict[str, int] = {}
    for part in (p.strip() for text in given for p in text.split(",")):
        name, _, points = part.partition("=")
        name = name.strip().lower().replace("_", "-")
        if name not in WEIGHT_NAMES or not points.strip().isdigit():
            raise Worded("classroom.refuse.weights", given=part, known=", ".join(WEIGHT_NAMES))
        weights[name] = int(points)
    return tuple(sorted(weights.items()))


@dataclass(frozen=True)
class Settings:
    """What every row of one gradebook was graded with: the shards of one class share them all."""

    kata: str
    lang: str = "en"
    seed: int | None = None  # None: each submission drew its own inputs (recorded in its row)
    timeout: float = CASE_TIMEOUT_S
    device: str = "auto"
    #: Points per scored case of a category (`--weights low-precision=3`), by WEIGHT_NAMES' key,
    #: sorted; a category not named is worth 1 a case. Empty: one point per case.
    weights: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["weights"] = dict(self.weights)
        return data

    @property
    def per_category(self) -> dict[Category, int]:
        return {WEIGHT_NAMES[name]: points for name, points in self.weights}

    def describe(self) -> Phrase:
        """`rmsnorm, en, seed 7, 10 s, auto`: what a refusal names."""
        seed = (
            Phrase("classroom.settings.fresh")
            if self.seed is None
            else Phrase("classroom.settings.seed", seed=self.seed)
        )
        return Phrase(
            "classroom.settings",
            kata=self.kata,
            lang=self.lang,
            seed=seed,
            timeout=f"{self.timeout:g}",
            device=self.device,
            weights=Phrase("classroom.settings.weights", weights=", ".join(f"{k}={v}" for k, v in self.weights))
            if self.weights
            else "",
        )

    @classmethod
    def from_json(cls, data: Any) -> Settings:
        """ValueError unless `data` is what to_json writes."""
        if not isinstance(data, dict) or sorted(data) != sorted(f.name for f in fields(cls)):
            raise ValueError("not grade-all settings")
        seed, timeout, weights = data["seed"], data["timeout"], data["weights"]
        if not (
            isinstance(weights, dict)
            and all(name in WEIGHT_NAMES and type(points) is int and points >= 0 for name, points in weights.items())
            and isinstance(data["kata"], str)
            and isinstance(data["lang"], str)
            and isinstance(data["device"], str)
            and (seed is None or type(seed) is int)
            and type(timeout) in (int, float)
        ):
            raise ValueError("not grade-all settings")
        return cls(data["kata"], data["lang"], seed, float(timeout), data["device"], tuple(sorted(weights.items())))


@dataclass
class Row:
    """A submission's line in the gradebook, in typed values; a grader error leaves the verdict
    (passed, score) None. `cells()` spells it as gradebook.csv and the manifests hold it (text:
    "true", "17", "0.412", "" for None); `of(cells)` reads those back, checked."""

    submission: str
    passed: bool | None = None  # None: not graded
    #: The grade, the one every output reads (the summary, the reports, each export): the cases
    #: passed, or 0 when a rule of the kata was broken (Verdict.points).
    score: int | None = None
    max_score: int | None = None  # the suite's, the same on every row (normkata.classroom.batch.SuiteMax)
    cases_passed: int | None = None  # the raw count of scored cases passed, a broken rule or not
    reason: str = ""  # why it did not pass, in one line (normkata.classroom.reasons)
    misconceptions: tuple[str, ...] = ()  # named misconception ids
    duration_s: float | None = None
    seed: int | None = None
    sha256: str = ""
    report: str = ""  # reports/<report>.json and .md (report_names)
    note: str = ""  # about the submission itself (two entries of one name)
    error: str = ""

    @classmethod
    def graded(
        cls,
        submission: str,
        digest: str,
        result: GradeResult,
        reason: str,
        weights: Mapping[Category, int] = ONE_POINT_EACH,
    ) -> Row:
        verdict = result.verdict
        points, possible = Verdict.weighted(result.cases, weights)
        return cls(
            submission,
            verdict.passed,
            points,
            possible,
            verdict.score,
            reason,
            tuple(d.id for d in result.diagnosis),
            round(result.duration_s, 3),
            result.seed,
            digest,
        )

    @classmethod
    def failed(cls, submission: str, digest: str, error: str, *, reason: str = "", seed: int | None = None) -> Row:
        return cls(submission, reason=reason, seed=seed, sha256=digest, error=escape_name(" ".join(error.split())))

    def cells(self) -> dict[str, str]:
        """The row as text, column by column: what gradebook.csv and the manifests hold."""
        return {
            "submission": self.submission,
            "passed": "" if self.passed is None else str(self.passed).lower(),
            "score": _cell(self.score),
            "max_score": _cell(self.max_score),
            "cases_passed": _cell(self.cases_passed),
            "reason": self.reason,
            "misconceptions": ";".join(self.misconceptions),
            "duration_s": "" if self.duration_s is None else f"{self.duration_s:.3f}",
            "seed": _cell(self.seed),
            "sha256": self.sha256,
            "report": self.report,
            "note": self.note,
            "error": self.error,
        }

    @classmethod
    def of(cls, cells: dict[str, str]) -> Row:
        """A row from its cells (a manifest's); ValueError unless they are exactly what `cells()`
        writes: every column, as text, each value in its one spelling."""
        if sorted(cells) != sorted(COLUMNS) or not all(isinstance(v, str) for v in cells.values()):
            raise ValueError("not a gradebook row")
        passed = {"": None, "true": True, "false": False}.get(cells["passed"], False)
        row = cls(
            cells["submission"],
            passed,
            _number(cells["score"]),
            _number(cells["max_score"]),
            _number(cells["cases_passed"]),
            cells["reason"],
            tuple(cells["misconceptions"].split(";")) if cells["misconceptions"] else (),
            _seconds(cells["duration_s"]),
            _number(cells["seed"]),
            cells["sha256"],
            cells["report"],
            cells["note"],
            cells["error"],
        )
        if row.cells() != cells:
            raise ValueError("not a gradebook row")
        return row


def _cell(value: int | None) -> str:
    return "" if value is None else str(value)


def _seconds(cell: str) -> float | None:
    """A duration cell; None for an empty one; ValueError for anything but a finite number."""
    if cell == "":
        return None
    seconds = float(cell)
    if not math.isfinite(seconds):
        raise ValueError("not a duration")
    return seconds


def _number(cell: str) -> int | None:
    """An integer cell; None for an empty one; ValueError for anything else."""
    return None if cell == "" else int(cell)


COLUMNS = [f.name for f in fields(Row)]

#: A cell starting with one of these is a formula to a spreadsheet (OWASP's CSV injection list).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: Report file names kept as they are: short, plain, not hidden; others get a safe name.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def neutralise(cell: str) -> str:
    """A cell a spreadsheet shows as text, never evaluates: a formula start gets a leading quote."""
    return "'" + cell if cell.startswith(_FORMULA_STARTS) else cell


def report_names(names: Iterable[str]) -> dict[str, str]:
    """Each submission's report name (reports/<name>.json and .md), decided from all names at once
    so that no two collide, even on a file system that ignores case: a plain name is its own unless
    another differs from it only in case; any other name (long, escaped, dotted, a folder's
    `name/`, those case twins) is a slug and a hash of the name, numbered on where that is taken,
    so a name chosen to equal another's slug-and-hash never replaces that student's report."""
    ordered = sorted(set(names))
    plain = [n for n in ordered if _PLAIN_NAME.fullmatch(n)]
    folded = Counter(n.casefold() for n in plain)
    chosen = {n: n for n in plain if folded[n.casefold()] == 1}
    taken = {n.casefold() for n in chosen}
    for name in ordered:
        if name in chosen:
            continue
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-")[:60] or "submission"
        base = candidate = f"{slug}-{hashlib.sha256(name.encode('utf-8', 'backslashreplace')).hexdigest()[:16]}"
        number = 2
        while candidate.casefold() in taken:
            candidate, number = f"{base}-{number}", number + 1
        chosen[name] = candidate
        taken.add(candidate.casefold())
    return chosen


def gradebook_text(rows: list[Row]) -> str:
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=COLUMNS)
    writer.writeheader()
    for row in sorted(rows, key=lambda r: r.submission):
        writer.writerow({key: neutralise(value) for key, value in row.cells().items()})
    return stream.getvalue()


def report_text(result: GradeResult) -> str:
    return json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n"
