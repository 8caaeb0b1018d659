"""The kata record: what a learner did on each kata (events, grading attempts), written and read here.

An attempt keeps ids, not words: each case's id and status, each named misconception's id
(with the title it was named by, shown only when the suite no longer knows the id). Screens
turn ids into words in the language of the moment (normkata.content.suite_names), so attempts graded
in different languages compare case by case.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from normkata.record.store import Store, iso, utcnow

if TYPE_CHECKING:
    from normkata.content.katas import Kata
    from normkata.grading.contract import GradeResult

#: Statuses that count as failing; "skipped" is neither failing nor passing.
FAILING = ("failed", "error")
#: The grader's case for a file that would not import: it is then the attempt's only case.
IMPORT = "import"


@dataclass(frozen=True)
class KataStatus:
    kata: str
    status: str  # not started | in progress | passed
    best_score: float | None
    attempts: int
    hints: int
    gave_up: bool


@dataclass(frozen=True)
class Hint:
    level: int  # from 1
    total: int
    text: str

    def heading(self, kata: str, lang: str) -> str:
        """ "Hint 2/3 for rmsnorm", the last one marked as such."""
        from normkata.i18n import t

        key = "hint.title.last" if self.level == self.total else "hint.title"
        return t(key, lang, level=self.level, total=self.total, kata=kata)


class KataLog:
    """Kata events and grading attempts, kept in the same store.

    Each one also takes the next number of `kata_activity`, in the same transaction, so that
    "the kata you worked on last" is exactly the last thing done.
    """

    def __init__(self, store: Store) -> None:
        self._conn = store._conn
        self.store = store

    def event(self, kata: str, kind: str, detail: str = "") -> None:
        with self.store.transaction():
            self._conn.execute(
                "INSERT INTO kata_events (kata, kind, detail, at) VALUES (?, ?, ?, ?)",
                (kata, kind, detail, iso(utcnow())),
            )
            self._conn.execute("INSERT INTO kata_activity (kata, kind) VALUES (?, ?)", (kata, kind))

    def attempt(self, result: GradeResult, device: str) -> None:
        """One grading run, its cases and misconceptions by id (for `history` in any language): the
        ids the grade carries, stored as they came (no title is read back to its id)."""
        cases = {c.id: c.status.value for c in result.cases}
        # In the order the report names them (most cases first): `hint` gives the first one's hint.
        named = sorted(result.diagnosis, key=lambda d: -d.cases)
        diagnosis = [{"id": d.id, "title": d.title, "cases": d.cases} for d in named]
        with self.store.transaction():
            self._conn.execute(
                "INSERT INTO kata_attempts (kata, file, passed, score, max_score, counts, device, duration_s, at, "
                "seed, sandbox, cases, diagnosis) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    result.kata,
                    result.file,
                    int(result.passed),
                    result.score,
                    result.max_score,
                    json.dumps(result.counts),
                    device,
                    result.duration_s,
                    iso(utcnow()),
                    result.seed,
                    result.sandbox,
                    json.dumps(cases, ensure_ascii=False),
                    json.dumps(diagnosis, ensure_ascii=False),
                ),
            )
            self._conn.execute("INSERT INTO kata_activity (kata, kind) VALUES (?, 'attempt')", (result.kata,))

    def take_hint(self, kata: Kata, lang: str) -> Hint:
        """The next hint (the last one again once all are taken), counted once, when first shown."""
        hints = [hint.in_(lang) for hint in kata.hints]
        taken = self.hints_taken(kata.id)
        level = min(taken + 1, len(hints))
        if level > taken:
            self.event(kata.id, "hint", str(level))
        return Hint(level, len(hints), hints[level - 1])

    def hints_taken(self, kata: str) -> int:
        """Levelled hints taken in the kata's current round: since it was last written again, or
        ever (a named mistake's hint, detail `named:<id>`, is a hint for the rating, not a level)."""
        return int(
            self._conn.execute(
                "SELECT COUNT(*) FROM kata_events WHERE kata = ? AND kind = 'hint' AND detail NOT LIKE 'named:%' "
                "AND id > COALESCE((SELECT MAX(id) FROM kata_events WHERE kata = ? AND kind = 'review'), 0)",
                (kata, kata),
            ).fetchone()[0]
        )

    def named_hint_shown(self, kata: str, misconception: str, since: str) -> bool:
        """Whether the hint for `misconception` was shown since `since` (ISO: the grade that named it)."""
        row = self._conn.execute(
            "SELECT 1 FROM kata_events WHERE kata = ? AND kind = 'hint' AND detail = ? AND at >= ? LIMIT 1",
            (kata, f"named:{misconception}", since),
        ).fetchone()
        return row is not None

    def status(self, kata: str) -> KataStatus:
        attempts = self._conn.execute(
            "SELECT COUNT(*), MAX(passed), MAX(CAST(score AS REAL) / MAX(max_score, 1)) "
            "FROM kata_attempts WHERE kata = ?",
            (kata,),
        ).fetchone()
        kinds = {row[0] for row in self._conn.execute("SELECT DISTINCT kind FROM kata_events WHERE kata = ?", (kata,))}
        count, passed, best = int(attempts[0]), bool(attempts[1]), attempts[2]
        state = "passed" if passed else "in progress" if count or kinds else "not started"
        return KataStatus(kata, state, best, count, self.hints_taken(kata), "gave_up" in kinds)

    def passed_here(self, kata: str) -> bool:
        """Whether a grade run on this machine ever passed the kata (not one carried in by `progress import`)."""
        row = self._conn.execute(
            "SELECT 1 FROM kata_attempts WHERE kata = ? AND passed != 0 AND imported = 0 LIMIT 1", (kata,)
        ).fetchone()
        return row is not None

    def attempts(self, kata: str | None = None) -> list[Attempt]:
        """Grading runs, oldest first (of one kata, or of all)."""
        where, params = ("WHERE kata = ?", (kata,)) if kata else ("", ())
        rows = self._conn.execute(
            "SELECT id, kata, passed, score, max_score, seed, at, cases, diagnosis FROM kata_attempts "
            f"{where} ORDER BY id",
            params,
        ).fetchall()
        return [Attempt.from_row(row) for row in rows]

    def diagnosed(self, since: str | None = None) -> list[Diagnosed]:
        """Grading runs that named misconceptions (since `since`, ISO), oldest first, their JSON as stored."""
        sql = "SELECT id, kata, at, diagnosis FROM kata_attempts WHERE diagnosis IS NOT NULL"
        params: tuple = ()
        if since:
            sql, params = sql + " AND at >= ?", (since,)
        return [Diagnosed(*row) for row in self._conn.execute(sql + " ORDER BY id", params)]

    # -- a kata's round (normkata.workbench.due) ---------------------------------------------------

    def last_review_event(self, kata: str) -> KataEvent | None:
        """The latest `review` event of the kata (it was written again), or None."""
        row = self._conn.execute(
            "SELECT id, kind, at, detail FROM kata_events WHERE kata = ? AND kind = 'review' ORDER BY id DESC LIMIT 1",
            (kata,),
        ).fetchone()
        return KataEvent(*row) if row else None

    def events_after(self, kata: str, event_id: int) -> list[KataEvent]:
        """The kata's events after `event_id`, oldest first (without their details)."""
        rows = self._conn.execute(
            "SELECT id, kind, at FROM kata_events WHERE kata = ? AND id > ? ORDER BY id", (kata, event_id)
        )
        return [KataEvent(*row) for row in rows]

    def attempts_after(self, kata: str, attempt_id: int) -> list[Graded]:
        """The kata's grading runs after `attempt_id`, oldest first."""
        rows = self._conn.execute(
            "SELECT id, passed, seed, at, imported FROM kata_attempts WHERE kata = ? AND id > ? ORDER BY id",
            (kata, attempt_id),
        )
        return [Graded(*row) for row in rows]

    def last_attempt_id(self, kata: str) -> int:
        """The id of the kata's latest grading run; 0 when it has none."""
        return int(
            self._conn.execute("SELECT COALESCE(MAX(id), 0) FROM kata_attempts WHERE kata = ?", (kata,)).fetchone()[0]
        )

    def seeds_used(self, kata: str) -> set[object]:
        """The seeds the kata's grading runs used."""
        rows = self._conn.execute("SELECT seed FROM kata_attempts WHERE kata = ? AND seed IS NOT NULL", (kata,))
        return {row[0] for row in rows}

    def keep(self, kata: str, file: str, source: str, kept_at: str) -> None:
        """The learner's file as it was before the kata is written again."""
        with self.store.transaction():
            self._conn.execute(
                "INSERT INTO kata_kept (kata, file, source, kept_at) VALUES (?, ?, ?, ?)", (kata, file, source, kept_at)
            )

    def last_kata(self) -> str | None:
        row = self._conn.execute("SELECT kata FROM kata_activity ORDER BY seq DESC LIMIT 1").fetchone()
        return row[0] if row else None


@dataclass(frozen=True)
class Diagnosed:
    """A grading run's misconceptions as stored: `diagnosis` is JSON text (checked by its reader)."""

    id: int
    kata: str
    at: str  # ISO
    diagnosis: str

    @property
    def where(self) -> str:
        """The row, as a note about a value in it that cannot be used names it."""
        return f"kata_attempts #{self.id}"


@dataclass(frozen=True)
class KataEvent:
    """A row of `kata_events`, as stored (`detail` only where it was asked for)."""

    id: int
    kind: str
    at: str  # ISO
    detail: str = ""

    @property
    def where(self) -> str:
        return f"kata_events #{self.id}"


@dataclass(frozen=True)
class Graded:
    """A grading run as a kata's round counts it, as stored."""

    id: int
    passed: int
    seed: int | None
    at: str  # ISO
    imported: int  # carried in by `progress import`

    @property
    def where(self) -> str:
        return f"kata_attempts #{self.id}"


@dataclass(frozen=True)
class Named:
    """A misconception an attempt named: its id, and the title it was named by then."""

    id: str
    title: str

    def shown(self, kata: str, lang: str) -> str:
        from normkata.content.suite_names import suite_names

        return suite_names(kata).misconception(self.id, lang) or self.title or self.id


@dataclass(frozen=True)
class Attempt:
    id: int
    kata: str
    passed: bool
    score: int
    max_score: int
    seed: int | None
    at: str
    cases: dict[str, str] | None  # case id -> status; None: graded before case results were kept
    misconceptions: tuple[Named, ...]

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Attempt:
        named, cases = _json(row["diagnosis"]), _json(row["cases"])
        named = named if isinstance(named, list) else []
        return cls(
            row["id"],
            row["kata"],
            bool(row["passed"]),
            row["score"],
            row["max_score"],
            row["seed"],
            row["at"],
            cases if isinstance(cases, dict) else None,
            tuple(Named(str(d["id"]), str(d.get("title") or "")) for d in named if isinstance(d, dict) and "id" in d),
        )

    def case(self, case_id: str, lang: str) -> str:
        from normkata.content.suite_names import suite_names

        return suite_names(self.kata).case(case_id, lang)

    def titles(self, lang: str) -> list[str]:
        return [m.shown(self.kata, lang) for m in self.misconceptions]


def _json(text: str | None) -> object:
    """A JSON column; None for NULL or for text that is not JSON (never a crash on an old row)."""
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class Diff:
    latest: Attempt
    base: Attempt
    base_passed: bool  # the base is the last pass before the latest (else simply the attempt before it)
    newly_failing: list[tuple[str, str]]  # (case id, status now)
    newly_passing: list[str]  # case ids
    still_failing: int
    named_now: list[Named]  # misconceptions named now and not in the base
    no_longer_named: list[Named]


def _status(cases: dict[str, str], case: str) -> str | None:
    """A case's status in an attempt; one the attempt lacks because the file would not import
    counts as an error there, and a file that ran every case did import."""
    if case in cases:
        return cases[case]
    if cases.get(IMPORT) in FAILING:
        return "error"
    return "passed" if case == IMPORT and cases else None


def base_for(attempts: list[Attempt]) -> tuple[Attempt, bool] | None:
    """What the last attempt is compared with: the last pass before it, else the attempt before it."""
    if len(attempts) < 2:
        return None
    earlier = attempts[:-1]
    passes = [a for a in earlier if a.passed]
    return (passes[-1], True) if passes else (earlier[-1], False)


def diff(latest: Attempt, base: Attempt, base_passed: bool) -> Diff | None:
    """The cases whose verdict changed from `base` to `latest`, by id; None when either kept no case results."""
    if latest.cases is None or base.cases is None:
        return None
    now = latest.cases

    def then(case: str) -> str | None:
        return _status(base.cases or {}, case)

    failing = [(case, status) for case, status in now.items() if status in FAILING and then(case) == "passed"]
    passing = [case for case, status in now.items() if status == "passed" and then(case) in FAILING]
    still = sum(status in FAILING and then(case) in FAILING for case, status in now.items())
    before = {m.id for m in base.misconceptions}
    after = {m.id for m in latest.misconceptions}
    named = [m for m in latest.misconceptions if m.id not in before]
    gone = [m for m in base.misconceptions if m.id not in after]
    return Diff(latest, base, base_passed, failing, passing, still, named, gone)
