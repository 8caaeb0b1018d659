"""Values of the record read for what they mean: moments, JSON columns, FSRS cards and parameters.

A progress file is data someone else wrote, and a database can be edited by hand: `progress
import` checks every value of a file with these before anything is written, and the readers
(dashboard, next, plan, review, ...) read stored values through them too. What a reader cannot
use is skipped and noted here (`skip`); the command line says so once, after the command.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from normkata import clock

if TYPE_CHECKING:
    from fsrs import Card, Scheduler


def iso(moment: datetime) -> str:
    """How the record writes a moment: UTC, to the second (`2026-11-28T09:04:39+00:00`)."""
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


#: Nothing in a record happened before normkata's FSRS (or anyone's SQLite progress) existed.
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)
#: How far ahead of this machine's clock another machine's may be: clocks set by hand drift by
#: minutes; a time later than this is not a record of something that happened.
SKEW = timedelta(hours=1)
#: How far ahead a review may be scheduled: FSRS's longest interval is 36 500 days.
HORIZON = timedelta(days=36_600)

#: An FSRS stability is a number of days (fsrs clamps it from 0.001 up; 100 000 days is far past
#: the longest interval); a difficulty lies between 1 and 10.
STABILITY_RANGE = (0.001, 100_000.0)
DIFFICULTY_RANGE = (1.0, 10.0)
#: The keys fsrs.Card.to_json writes; a card_json is one short object of them.
CARD_KEYS = ("card_id", "state", "step", "stability", "difficulty", "due", "last_review")
CARD_MAX_CHARS = 1024
PARAMETERS_MAX_CHARS = 4096
T = TypeVar("T")

#: SQLite's INTEGER is 64-bit: a larger number cannot even be stored.
INT64_MAX = 2**63 - 1


class BadValue(ValueError):
    """What is wrong with a value, in words, and where inside it (`field`: "stability")."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message, self.field = message, field

    def under(self, name: str) -> BadValue:
        """The same problem one level up: `card_json` + `stability` -> `card_json.stability`."""
        if not self.field:
            return BadValue(self.message, name)
        return BadValue(self.message, name + ("" if self.field.startswith("[") else ".") + self.field)

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


def shown(value: object, limit: int = 60) -> str:
    """A value as an error may quote it: JSON, ASCII only (no escape sequence reaches a terminal), cut."""
    try:
        text = json.dumps(value, ensure_ascii=True, allow_nan=True)
    except (TypeError, ValueError):
        text = ascii(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def now_utc() -> datetime:
    return clock.now()


def moment(value: object, *, ahead: timedelta | None = SKEW, now: datetime | None = None) -> datetime:
    """An ISO 8601 time with its zone, not before 2000 and at most `ahead` of `now` (None: any time after)."""
    if not isinstance(value, str) or len(value) > 64:
        raise BadValue(f"must be an ISO 8601 time with its time zone, got {shown(value)}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise BadValue(f"must be an ISO 8601 time with its time zone, got {shown(value)}") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise BadValue(f"must say its time zone (as +00:00), got {shown(value)}")
    now = now or now_utc()
    if parsed < EARLIEST:
        raise BadValue(f"must not be before {EARLIEST:%Y}, got {shown(value)}")
    if ahead is not None and parsed > now + ahead:
        raise BadValue(f"is later than now ({now:%Y-%m-%d %H:%M} UTC), got {shown(value)}")
    return parsed


def integer(value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadValue(f"must be a whole number from {low} to {high}, got {shown(value)}")
    return value


def number(value: object, low: float, high: float, *, what: str = "a finite number") -> float:
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not math.isfinite(value)
        or not low <= value <= high
    ):
        raise BadValue(f"must be {what} from {low:g} to {high:g}, got {shown(value)}")
    return float(value)


# -- JSON ----------------------------------------------------------------------------------------

# A JSON string (escapes included), written unrolled so that a long string costs one pass.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def check_nesting(text: str, limit: int) -> None:
    """A BadValue when the JSON text nests arrays and objects deeper than `limit`, found without
    parsing (Python's parser recurses: 100 000 nested arrays would end in a RecursionError)."""
    depth = 0
    for bracket in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            raise BadValue(f"nests arrays or objects deeper than {limit} levels")


def json_text(value: object, *, max_chars: int, max_depth: int) -> object:
    """The value of a JSON column (text of at most `max_chars`, nested at most `max_depth` deep)."""
    if not isinstance(value, str):
        raise BadValue(f"must be JSON text, got {shown(value)}")
    if len(value) > max_chars:
        raise BadValue(f"must be at most {max_chars} characters of JSON, got {len(value)}")
    check_nesting(value, max_depth)
    try:
        return json.loads(value)
    except (ValueError, RecursionError) as exc:
        raise BadValue(f"is not JSON ({str(exc).splitlines()[0][:80]}), got {shown(value)}") from None


# -- FSRS ----------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _default_scheduler() -> Scheduler:
    from fsrs import Scheduler

    return Scheduler()


def fsrs_card(text: object, *, now: datetime | None = None, clock: bool = True) -> Card:
    """An FSRS card as `srs.card_json` holds it, every field in range; a BadValue naming the field.

    `clock`: its times are checked against `now` too (a review not later than now, a due date
    within FSRS's longest interval), as for a file from elsewhere; a reader of this machine's own
    record asks only whether fsrs can compute with the card.
    """
    from fsrs import Card

    data = json_text(text, max_chars=CARD_MAX_CHARS, max_depth=1)
    if not isinstance(data, dict):
        raise BadValue(f"must be a JSON object (an FSRS card), got {shown(data)}")
    for key in CARD_KEYS:
        if key not in data:
            raise BadValue("is missing", key)
    now = now or now_utc()
    _at("card_id", integer, data["card_id"], 0, INT64_MAX)
    state = _at("state", integer, data["state"], 1, 3)  # Learning, Review, Relearning
    if data["step"] is not None:
        _at("step", integer, data["step"], 0, 100)
    settled = state != 1  # in Review or Relearning a card has been reviewed: it has both numbers
    if data["stability"] is not None or settled:
        _at("stability", number, data["stability"], *STABILITY_RANGE, what="a positive finite number")
    if data["difficulty"] is not None or settled:
        _at("difficulty", number, data["difficulty"], *DIFFICULTY_RANGE)
    if (data["stability"] is None) != (data["difficulty"] is None):
        raise BadValue("must be set together with difficulty", "stability")
    _at("due", moment, data["due"], ahead=HORIZON if clock else None, now=now)
    if data["last_review"] is not None:
        _at("last_review", moment, data["last_review"], ahead=SKEW if clock else None, now=now)
    card = Card.from_dict(data)  # type: ignore[arg-type]  # checked above, key by key
    recall = _default_scheduler().get_card_retrievability(card, max(now, card.last_review or now))
    if not 0.0 <= float(recall) <= 1.0:  # pragma: no cover - the ranges above keep it in [0, 1]
        raise BadValue(f"gives a recall of {recall}", "stability")
    return card


def stored_card(text: object, where: str) -> Card | None:
    """A card of this machine's record as fsrs can use it; None (noted with `skip`) when it cannot."""
    try:
        return fsrs_card(text, clock=False)
    except BadValue as exc:
        skip(where, exc.under("card_json"))
        return None


def fsrs_parameters(text: object) -> list[float]:
    """The learner's fitted FSRS parameters (`fsrs_parameters.parameters`): as many as fsrs has,
    each finite and within fsrs's own bounds."""
    from fsrs import Scheduler

    data = json_text(text, max_chars=PARAMETERS_MAX_CHARS, max_depth=1)
    expected = len(_default_scheduler().parameters)
    if not isinstance(data, list) or len(data) != expected:
        raise BadValue(f"must be a JSON list of {expected} numbers, got {shown(data)}")
    for index, value in enumerate(data):
        _at(f"[{index}]", number, value, -1e6, 1e6)
    try:
        Scheduler(parameters=data)
    except ValueError as exc:  # out of fsrs's bounds: its own message names each parameter, first on line 2
        lines = str(exc).splitlines()
        raise BadValue(lines[min(1, len(lines) - 1)][:120]) from None
    return [float(value) for value in data]


def _at(field: str, check: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`check(*args, **kwargs)`, its BadValue placed at `field`."""
    try:
        return check(*args, **kwargs)
    except BadValue as exc:
        raise exc.under(field) from None


# -- rows a reader could not use -------------------------------------------------------------------

#: Each row once, in the order met (a dict as an ordered set: a watch that meets the same row on
#: every save keeps one entry).
_SKIPPED: dict[str, None] = {}


def skip(where: str, problem: object) -> None:
    """Note a stored row a reader left out (`where`: "srs rms-formula"), to be reported once."""
    _SKIPPED[f"{where}: {problem}"] = None


def take_skipped() -> list[str]:
    """The rows noted since the last call, each once, in the order met; the notes are emptied."""
    found = list(_SKIPPED)
    _SKIPPED.clear()
    return found
