"""Kata attempts over time: what each grading run found, and what changed since the last pass."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

#: Statuses that count as failing; "skipped" is neither failing nor passing.
FAILING = ("failed", "error")


@dataclass(frozen=True)
class Attempt:
    id: int
    kata: str
    passed: bool
    score: int
    max_score: int
    seed: int | None
    at: str
    cases: dict[str, str] | None  # None: graded before case results were kept
    misconceptions: tuple[str, ...]  # titles as the grade named them (ids where no title was kept)

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Attempt:
        named = json.loads(row["diagnosis"]) if row["diagnosis"] else []
        return cls(
            row["id"], row["kata"], bool(row["passed"]), row["score"], row["max_score"], row["seed"], row["at"],
            json.loads(row["cases"]) if row["cases"] else None, tuple(d.get("title") or d["id"] for d in named),
        )  # fmt: skip


@dataclass(frozen=True)
class Diff:
    latest: Attempt
    base: Attempt
    base_passed: bool  # the base is the last pass before the latest (else simply the attempt before it)
    newly_failing: list[tuple[str, str]]  # (case, status now)
    newly_passing: list[str]
    still_failing: int
    named_now: list[str]  # misconceptions named now and not in the base
    no_longer_named: list[str]


def base_for(attempts: list[Attempt]) -> tuple[Attempt, bool] | None:
    """What the last attempt is compared with: the last pass before it, else the attempt before it."""
    if len(attempts) < 2:
        return None
    earlier = attempts[:-1]
    passes = [a for a in earlier if a.passed]
    return (passes[-1], True) if passes else (earlier[-1], False)


def diff(latest: Attempt, base: Attempt, base_passed: bool) -> Diff | None:
    """The cases whose verdict changed from `base` to `latest`; None when either kept no case results."""
    if latest.cases is None or base.cases is None:
        return None
    now, then = latest.cases, base.cases
    failing = [(name, status) for name, status in now.items() if status in FAILING and then.get(name) == "passed"]
    passing = [name for name, status in now.items() if status == "passed" and then.get(name) in FAILING]
    still = sum(status in FAILING and then.get(name) in FAILING for name, status in now.items())
    named = [m for m in latest.misconceptions if m not in base.misconceptions]
    gone = [m for m in base.misconceptions if m not in latest.misconceptions]
    return Diff(latest, base, base_passed, failing, passing, still, named, gone)
