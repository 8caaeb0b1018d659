"""The interview date that `plan --until` remembers, and the moments a plan toward it is made of.

Dates are the learner's calendar days, by the learner's clock (normkata.clock: local time, set by
tests). Recall is predicted for INTERVIEW_HOUR on the interview day; today's session is now, each
later day's at SESSION_HOUR or, asked later in the evening, at the hour it is now (a learner who
studies at 23:30 tonight meets tonight's material again at 23:30, not at 19:00 before it is due).
The plan runs from today to the eve of the interview (an interview today: today alone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from normkata.clock import Clock, current
from normkata.record.store import Store

SETTING_DATE = "interview_date"
SETTING_MINUTES = "minutes_per_day"
SETTING_TARGET = "target_recall"
#: What is predicted at or above this on the day is solid and left alone (`plan --target-recall`):
#: FSRS's own default desired retention, so that "due" and "would be forgotten by the day" agree.
DEFAULT_TARGET = 0.9
#: The target recall a learner may set: below 0.7 a plan stops aiming at knowing the answers,
#: above 0.97 FSRS's intervals shrink to days that no plan can keep.
TARGET_RECALL = (0.7, 0.97)
#: Minutes a day when neither --minutes-per-day nor a habit says otherwise.
DEFAULT_MINUTES = 45
#: Recall is predicted for this hour of the interview day, local time.
INTERVIEW_HOUR = 9
#: Each day after today is planned as one evening session at this hour, local time.
SESSION_HOUR = 19
#: The furthest date a plan reaches: a year of days is already more than anyone reads.
MAX_DAYS = 366
#: Minutes a day a learner may give (`plan --minutes-per-day`).
MINUTES_PER_DAY = (5, 720)
#: A habit is the median minutes of the study days among the last HABIT_DAYS, once there are HABIT_MIN of them.
HABIT_DAYS, HABIT_MIN = 14, 3
#: A session left open (the terminal closed) counts for at most this long.
SESSION_CAP = timedelta(hours=2)


class BadDate(ValueError):
    """`--until` that is not a usable date: the message says why (i18n key, fields)."""

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(key)
        self.key, self.fields = key, fields


@dataclass(frozen=True)
class Deadline:
    """The interview day, the minutes a day the learner gave (None: their habit, else
    DEFAULT_MINUTES), and the recall on the day at or above which an item is left alone."""

    day: date
    minutes_per_day: int | None = None
    target: float = DEFAULT_TARGET


def today(now: datetime, clock: Clock | None = None) -> date:
    """The learner's calendar day at `now`."""
    return (clock or current()).day_of(now)


def parse_until(text: str, now: datetime, clock: Clock | None = None) -> date | None:
    """`--until`'s value: an ISO date (YYYY-MM-DD) from today to MAX_DAYS ahead; None for `none`."""
    if text.strip().lower() == "none":
        return None
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise BadDate("deadline.bad_date", value=text) from None
    first = today(now, clock)
    if day < first:
        raise BadDate("deadline.past", value=text, today=first.isoformat())
    if (day - first).days > MAX_DAYS:
        raise BadDate("deadline.too_far", value=text, days=MAX_DAYS)
    return day


def load(store: Store, clock: Clock | None = None) -> Deadline | None:
    """The remembered interview date, held to what `--until` accepts: a value that is not a date, or
    a date further than MAX_DAYS ahead (a settings row edited by hand: a plan to 9999 would never
    end), is ignored and noted, never fatal; so are minutes a day outside MINUTES_PER_DAY and a
    target recall outside TARGET_RECALL."""
    from normkata.record.values import shown, skip

    stored = store.setting(SETTING_DATE)
    if stored is None:
        return None
    try:
        day = date.fromisoformat(stored)
    except (TypeError, ValueError):
        skip(f"settings {SETTING_DATE}", f"must be a date (YYYY-MM-DD), got {shown(stored)}")
        return None
    if (day - (clock or current()).today()).days > MAX_DAYS:
        skip(f"settings {SETTING_DATE}", f"must be at most {MAX_DAYS} days ahead, got {shown(stored)}")
        return None
    minutes = store.setting(SETTING_MINUTES)
    low, high = MINUTES_PER_DAY
    usable = minutes is not None and minutes.isdigit() and len(minutes) <= 4 and low <= int(minutes) <= high
    if minutes is not None and not usable:
        skip(f"settings {SETTING_MINUTES}", f"must be {low} to {high}, got {shown(minutes)}")
    return Deadline(day, int(minutes) if usable and minutes is not None else None, _target(store))


def _target(store: Store) -> float:
    from normkata.record.values import shown, skip

    stored = store.setting(SETTING_TARGET)
    if stored is None:
        return DEFAULT_TARGET
    try:
        value = float(stored) if len(stored) <= 8 else math.nan
    except ValueError:
        value = math.nan
    low, high = TARGET_RECALL
    if not low <= value <= high:
        skip(f"settings {SETTING_TARGET}", f"must be {low} to {high}, got {shown(stored)}")
        return DEFAULT_TARGET
    return value


def remember(store: Store, deadline: Deadline | None, *, target: float | None = None) -> None:
    """Keep the date (and its minutes per day when given); None forgets both. `target`: the
    target recall to keep with it (None: the one kept before, else DEFAULT_TARGET)."""
    store.set_setting(SETTING_DATE, deadline.day.isoformat() if deadline else None)
    minutes = deadline.minutes_per_day if deadline else None
    if deadline is None or minutes is not None:
        store.set_setting(SETTING_MINUTES, str(minutes) if minutes is not None else None)
    if deadline is None or target is not None:
        store.set_setting(SETTING_TARGET, f"{target:g}" if target is not None else None)


def interview_moment(day: date, now: datetime, clock: Clock | None = None) -> datetime:
    """When recall is predicted: INTERVIEW_HOUR on the day, or now when that has passed (an interview today)."""
    return max((clock or current()).at(day, INTERVIEW_HOUR), now)


def sessions(day: date, now: datetime, clock: Clock | None = None) -> list[tuple[date, datetime]]:
    """(day, moment) of each study session from today to the eve of `day` (today alone when it is
    today): today's is now; each later one at SESSION_HOUR, or at the time of day it is now when
    that is later, so that what is met tonight and due in whole days is due by that session."""
    clock = clock or current()
    first = clock.day_of(now)
    count = max(1, (day - first).days)
    wall = clock.local(now)
    moments = [(first, now)]
    for offset in range(1, count):
        later = first + timedelta(days=offset)
        hour = clock.at(later, SESSION_HOUR)
        same_time = clock.at(later, wall.hour, wall.minute, wall.second)
        moments.append((later, max(hour, same_time, now)))
    return moments


def days_left(day: date, now: datetime, clock: Clock | None = None) -> int:
    return (day - today(now, clock)).days


def studied_minutes(spans: list[tuple[datetime, datetime]], clock: Clock | None = None) -> dict[date, int]:
    """Local day -> minutes spent in practice sessions that day (each session capped at SESSION_CAP)."""
    minutes: dict[date, float] = {}
    for start, end in spans:
        length = min(max(end - start, timedelta(0)), SESSION_CAP)
        key = today(start, clock)
        minutes[key] = minutes.get(key, 0.0) + length.total_seconds() / 60
    return {day: round(value) for day, value in minutes.items()}


def habit(spans: list[tuple[datetime, datetime]], now: datetime, clock: Clock | None = None) -> int | None:
    """The median minutes of the study days among the last HABIT_DAYS (today left out: it is not
    over), rounded to 5; None below HABIT_MIN such days."""
    import statistics

    first = today(now, clock) - timedelta(days=HABIT_DAYS)
    days = [m for day, m in studied_minutes(spans, clock).items() if first <= day < today(now, clock) and m > 0]
    if len(days) < HABIT_MIN:
        return None
    return max(5, 5 * round(statistics.median(days) / 5))


def minutes_per_day(
    deadline: Deadline, spans: list[tuple[datetime, datetime]], now: datetime, clock: Clock | None = None
) -> tuple[int, str]:
    """The minutes each day gets, and where the number comes from: `given`, `habit` or `default`."""
    if deadline.minutes_per_day is not None:
        return deadline.minutes_per_day, "given"
    usual = habit(spans, now, clock)
    return (usual, "habit") if usual is not None else (DEFAULT_MINUTES, "default")
