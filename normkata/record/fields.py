"""What each column of a progress file means: the rule a value must meet before it is imported.

`progress import` reads a file someone else wrote. SQL types say little (a "due" of "0000" is
text; a score of 2**70 is an integer SQLite cannot store), so every column of every table the
import merges has a rule here, and a test holds the rules equal to the schema: a migration that
adds a column adds its rule. A rule returns the value to store (times in UTC, as this machine
writes them) or raises BadValue saying what the value must be.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from normkata.clock import Clock, current
from normkata.content.schema import ID_PATTERN
from normkata.record.values import (
    HORIZON,
    INT64_MAX,
    BadValue,
    fsrs_card,
    fsrs_parameters,
    integer,
    iso,
    json_text,
    moment,
    number,
    shown,
)

#: Bounds on what one row may hold. Answers, responses and mock answers are typed by a person;
#: a kept kata file is one the grader read (at most 1 MiB, normkata.grading.source.MAX_SOURCE_BYTES:
#: a test holds them equal); a duration is at most a year (a kata round may span weeks).
ID_CHARS = 200
TITLE_CHARS = 500
PATH_CHARS = 4096
TEXT_CHARS = 64 * 1024
SETTING_CHARS = 200  # a date or a number of minutes, with room to spare
SOURCE_CHARS = 1024 * 1024
JSON_CHARS = 64 * 1024
JSON_DEPTH = 4
MAX_SECONDS = 366 * 24 * 3600
MAX_CASES = 10_000

#: Item ids are the bank's ids, or `kata:<kata id>` for a kata scheduled as a review.
ITEM_PATTERN = re.compile(r"^(kata:)?[a-z0-9][a-z0-9_.-]*$")
CASE_STATUSES = ("passed", "failed", "error", "skipped")
ITEM_KINDS = ("question", "card", "kata")


@dataclass(frozen=True)
class Column:
    """A column's rule: `check(value, now)` returns what is stored; None is allowed when `nullable`."""

    check: Callable[[Any, datetime], object]
    nullable: bool = False


# -- rules ---------------------------------------------------------------------------------------


def row_id() -> Column:
    return Column(lambda value, _now: integer(value, 1, INT64_MAX))


def whole(low: int, high: int, *, nullable: bool = False) -> Column:
    return Column(lambda value, _now: integer(value, low, high), nullable)


def flag(*, nullable: bool = False) -> Column:
    return whole(0, 1, nullable=nullable)


def real(low: float, high: float, *, nullable: bool = False) -> Column:
    return Column(lambda value, _now: number(value, low, high), nullable)


def text(
    limit: int, *, pattern: re.Pattern[str] | None = None, choices: tuple[str, ...] = (), nullable: bool = False
) -> Column:
    def check(value: object, _now: datetime) -> str:
        if not isinstance(value, str):
            raise BadValue(f"must be text, got {shown(value)}")
        if len(value) > limit:
            raise BadValue(f"must be at most {limit} characters, got {len(value)}")
        if choices and value not in choices:
            raise BadValue(f"must be one of {', '.join(choices)}, got {shown(value)}")
        if pattern is not None and not pattern.match(value):
            raise BadValue(f"must be an id (lowercase letters, digits, '_', '.', '-'), got {shown(value)}")
        return value

    return Column(check, nullable)


def identifier(*, nullable: bool = False) -> Column:
    return text(ID_CHARS, pattern=ID_PATTERN, nullable=nullable)


def when(*, nullable: bool = False, schedule: bool = False) -> Column:
    """A time something happened (not later than now, give or take a clock's skew), or, with
    `schedule`, when a review is due (up to FSRS's longest interval ahead); stored in UTC."""

    def check(value: object, now: datetime) -> str:
        return iso(moment(value, ahead=HORIZON, now=now) if schedule else moment(value, now=now))

    return Column(check, nullable)


def json_column(shape: Callable[[object], None], *, nullable: bool = False) -> Column:
    """JSON text, bounded in size and nesting, whose value has `shape`; stored as the file wrote it."""

    def check(value: object, _now: datetime) -> str:
        shape(json_text(value, max_chars=JSON_CHARS, max_depth=JSON_DEPTH))
        return str(value)

    return Column(check, nullable)


def _parameters(value: object, _now: datetime) -> str:
    fsrs_parameters(value)
    return str(value)


def _card(value: object, now: datetime) -> str:
    """Stored as fsrs writes it: what readers parse is exactly what was checked."""
    return fsrs_card(value, now=now).to_json()


# -- shapes of the JSON columns --------------------------------------------------------------------


def counts_shape(value: object) -> None:
    if not isinstance(value, dict) or not set(value) <= set(CASE_STATUSES):
        raise BadValue(f"must be an object of {', '.join(CASE_STATUSES)} counts, got {shown(value)}")
    for status, count in value.items():
        try:
            integer(count, 0, MAX_CASES)
        except BadValue as exc:
            raise exc.under(status) from None


def cases_shape(value: object) -> None:
    if not isinstance(value, dict) or len(value) > MAX_CASES:
        raise BadValue(f"must be an object of case id -> status, got {shown(value)}")
    for case, status in value.items():
        if len(case) > TITLE_CHARS or status not in CASE_STATUSES:
            raise BadValue(f"must map a case id to one of {', '.join(CASE_STATUSES)}, got {shown({case: status})}")


def diagnosis_shape(value: object) -> None:
    if not isinstance(value, list) or len(value) > MAX_CASES:
        raise BadValue(f"must be a list of misconceptions, got {shown(value)}")
    for index, named in enumerate(value):
        cases = named.get("cases", 0) if isinstance(named, dict) else None
        ok = (
            isinstance(named, dict)
            and set(named) <= {"id", "title", "cases"}
            and isinstance(named.get("id"), str)
            and bool(ID_PATTERN.match(named["id"]))
            and len(named["id"]) <= ID_CHARS
            and isinstance(named.get("title", ""), str)
            and len(named.get("title", "")) <= TITLE_CHARS
            and isinstance(cases, int)
            and not isinstance(cases, bool)
            and 0 <= cases <= MAX_CASES
        )
        if not ok:
            raise BadValue(
                f'must be {{"id": a misconception id, "title": text, "cases": a count}}, got {shown(named)}',
                f"[{index}]",
            )


def made_shape(value: object) -> None:
    if (
        not isinstance(value, list)
        or len(value) > 100
        or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 100 for i in value)
        or len(set(value)) != len(value)
    ):
        raise BadValue(f"must be a list of the key points ticked (distinct indexes), got {shown(value)}")


def round_shape(value: object) -> None:
    """A 'review' event's detail: the last attempt before the round."""
    if not isinstance(value, dict) or set(value) != {"after_attempt"}:
        raise BadValue(f'must be {{"after_attempt": an attempt id}}, got {shown(value)}')
    try:
        integer(value["after_attempt"], 0, INT64_MAX)
    except BadValue as exc:
        raise exc.under("after_attempt") from None


# -- the learner's settings ----------------------------------------------------------------------
# One rule per setting, used by `progress import` and by the setting's reader
# (normkata.advice.deadline) alike: what one refuses the other cannot be handed.

INTERVIEW_DATE = "interview_date"
MINUTES_PER_DAY = "minutes_per_day"
TARGET_RECALL = "target_recall"
#: The furthest interview date: a year of days is already more than a plan anyone reads.
MAX_DAYS = 366
#: Minutes a day a learner may give (`plan --minutes-per-day`).
MINUTES_RANGE = (5, 720)
#: The target recall a learner may set (`plan --target-recall`): below 0.7 a plan stops aiming at
#: knowing the answers, above 0.97 FSRS's intervals shrink to days that no plan can keep.
TARGET_RANGE = (0.7, 0.97)
#: A forgotten setting is kept as a dated empty row (normkata.record.store.FORGOTTEN).
_FORGOTTEN = ""
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def interview_date(value: object, now: datetime, clock: Clock | None = None) -> date:
    """The remembered interview date: YYYY-MM-DD, at most MAX_DAYS after the learner's today."""
    try:
        day = date.fromisoformat(value) if isinstance(value, str) and _DATE.fullmatch(value) else None
    except ValueError:
        day = None
    if day is None:
        raise BadValue(f"must be a date (YYYY-MM-DD), got {shown(value)}")
    if (day - (clock or current()).day_of(now)).days > MAX_DAYS:
        raise BadValue(f"must be at most {MAX_DAYS} days ahead, got {shown(value)}")
    return day


def minutes_per_day(value: object, _now: datetime) -> int:
    """The minutes a day the learner gave: a whole number in MINUTES_RANGE, written as digits."""
    low, high = MINUTES_RANGE
    if not (isinstance(value, str) and value.isdigit() and len(value) <= 4 and low <= int(value) <= high):
        raise BadValue(f"must be {low} to {high}, got {shown(value)}")
    return int(value)


def target_recall(value: object, _now: datetime) -> float:
    """The recall on the day at or above which an item is left alone: a number in TARGET_RANGE."""
    low, high = TARGET_RANGE
    try:
        number = float(value) if isinstance(value, str) and len(value) <= 8 else math.nan
    except ValueError:
        number = math.nan
    if not low <= number <= high:  # NaN too
        raise BadValue(f"must be {low} to {high}, got {shown(value)}")
    return number


#: setting name -> the rule its value meets (what it returns is what the reader uses).
SETTINGS: dict[str, Callable[[object, datetime], object]] = {
    INTERVIEW_DATE: interview_date,
    MINUTES_PER_DAY: minutes_per_day,
    TARGET_RECALL: target_recall,
}


def setting(name: str, value: str, now: datetime) -> None:
    """A settings row: a known name, and a value its rule accepts (or forgotten: empty)."""
    if name not in SETTINGS:
        raise BadValue(f"must be one of {', '.join(SETTINGS)}, got {shown(name)}", "name")
    if value != _FORGOTTEN:
        try:
            SETTINGS[name](value, now)
        except BadValue as exc:
            raise BadValue(f"{exc.message} ({name})", "value") from None


# -- the tables ----------------------------------------------------------------------------------

#: table -> column -> rule, for every table `progress import` merges.
COLUMNS: dict[str, dict[str, Column]] = {
    "sessions": {
        "id": row_id(),
        "kind": text(16, choices=("quiz", "interview", "review", "mock")),
        "lang": text(8, choices=("en", "zh")),
        "started_at": when(),
        "ended_at": when(nullable=True),
    },
    "answers": {
        "id": row_id(),
        "session_id": row_id(),
        "item_id": identifier(),
        "topic": identifier(),
        "given": text(TEXT_CHARS),
        "correct": flag(),
        "answered_at": when(),
    },
    "ratings": {
        "id": row_id(),
        "session_id": row_id(),
        "item_id": identifier(),
        "topic": identifier(),
        "response": text(TEXT_CHARS),
        "rating": whole(1, 4),
        "rated_at": when(),
    },
    "review_logs": {
        "id": row_id(),
        "item_id": text(ID_CHARS, pattern=ITEM_PATTERN),
        "kind": text(16, choices=ITEM_KINDS),
        "topic": identifier(),
        "rating": whole(1, 4),
        "state_before": whole(1, 3, nullable=True),
        "reviewed_at": when(),
        "duration_ms": whole(0, MAX_SECONDS * 1000, nullable=True),
    },
    "kata_attempts": {
        "id": row_id(),
        "kata": identifier(),
        "file": text(PATH_CHARS),
        "passed": flag(),
        "score": whole(0, MAX_CASES),
        "max_score": whole(0, MAX_CASES),
        "counts": json_column(counts_shape),
        "device": text(16, pattern=re.compile(r"^[a-z0-9:]+$")),
        "duration_s": real(0, MAX_SECONDS),
        "at": when(),
        "seed": whole(0, INT64_MAX, nullable=True),
        "sandbox": text(TITLE_CHARS, nullable=True),
        "cases": json_column(cases_shape, nullable=True),
        "diagnosis": json_column(diagnosis_shape, nullable=True),
        "imported": flag(nullable=True),  # this machine's mark: read, never copied (see transfer)
    },
    "kata_events": {
        "id": row_id(),
        "kata": identifier(),
        "kind": text(16, choices=("started", "hint", "gave_up", "review")),
        "detail": text(PATH_CHARS),  # by kind: see `event_detail`
        "at": when(),
    },
    "mock_interviews": {
        "id": row_id(),
        "session_id": row_id(),
        "topic": identifier(nullable=True),
        "minutes": whole(1, 24 * 60),
        "started_at": when(),
        "ended_at": when(nullable=True),
        "seconds_used": whole(0, MAX_SECONDS, nullable=True),
    },
    "mock_answers": {
        "id": row_id(),
        "mock_id": row_id(),
        "position": whole(1, 10_000),
        "card_id": identifier(),
        "follow_up": whole(0, 100, nullable=True),
        "answer": text(TEXT_CHARS),
        "seconds": whole(0, MAX_SECONDS),
        "points": whole(0, 100),
        "made": json_column(made_shape, nullable=True),
        "rating": whole(1, 4, nullable=True),
    },
    "kata_kept": {
        "id": row_id(),
        "kata": identifier(),
        "file": text(PATH_CHARS),
        "source": text(SOURCE_CHARS),
        "kept_at": when(),
    },
    "fsrs_parameters": {
        "id": row_id(),
        "parameters": Column(_parameters),
        "reviews": whole(0, 10**9),
        "retention_before": real(0, 1, nullable=True),
        "retention_after": real(0, 1, nullable=True),
        "recalled": real(0, 1, nullable=True),
        "fitted_at": when(),
    },
    "settings": {
        "name": identifier(),
        # What a value means is its setting's rule (SETTINGS), checked with the row (check_row).
        "value": text(SETTING_CHARS),
        "set_at": when(),
    },
    "srs": {
        "item_id": text(ID_CHARS, pattern=ITEM_PATTERN),
        "kind": text(16, choices=ITEM_KINDS),
        "topic": identifier(),
        "card_json": Column(_card),
        "due": when(schedule=True),
    },
}


def check_row(table: str, values: dict[str, Any], now: datetime) -> None:
    """What one row's columns must agree on; a BadValue naming the column."""
    if table == "settings":
        setting(values["name"], values["value"], now)
    if table == "kata_attempts" and values["score"] > values["max_score"]:
        raise BadValue(f"must not exceed max_score ({values['max_score']}), got {values['score']}", "score")
    if table == "kata_events":
        event_detail(values["kind"], values["detail"])
    if table == "mock_answers" and values["made"] is not None:
        beyond = [i for i in json.loads(values["made"]) if i >= values["points"]]
        if beyond:
            raise BadValue(f"ticks key point {beyond[0]} of {values['points']}", "made")
    if table in ("srs", "review_logs") and (values["kind"] == "kata") != values["item_id"].startswith("kata:"):
        raise BadValue(f"must be 'kata' exactly for the item ids 'kata:...', got {shown(values['kind'])}", "kind")


def event_detail(kind: str, detail: str) -> None:
    """A kata event's detail, by kind: a hint's level, a round's last attempt, a started file's path."""
    if kind == "hint" and not re.fullmatch(r"[1-9][0-9]?", detail):
        raise BadValue(f"must be the hint's level (1 to 99), got {shown(detail)}", "detail")
    if kind == "review":
        try:
            round_shape(json_text(detail, max_chars=JSON_CHARS, max_depth=JSON_DEPTH))
        except BadValue as exc:
            raise exc.under("detail") from None
    if kind == "gave_up" and detail:
        raise BadValue(f"must be empty, got {shown(detail)}", "detail")
