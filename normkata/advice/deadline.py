"""The interview date that `plan --until` remembers, and the moments a plan toward it is made of.

Dates are the learner's calendar days (local time). Recall is predicted for INTERVIEW_HOUR on
the interview day; today's session is now, each later day's is at SESSION_HOUR. The plan runs
from today to the eve of the interview (an interview today: today alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from normkata.record.fields import INTERVIEW_DATE as SETTING_DATE
from normkata.record.fields import MAX_DAYS, interview_date, local_day
from normkata.record.fields import MINUTES_PER_DAY as SETTING_MINUTES
from normkata.record.fields import MINUTES_RANGE as MINUTES_PER_DAY  # noqa: F401  (plan --minutes-per-day)
from normkata.record.fields import minutes_per_day as minutes_rule
from normkata.record.store import Store

#: Minutes a day when neither --minutes-per-day nor a habit says otherwise.
DEFAULT_MINUTES = 45
#: Recall is predicted for this hour of the interview day, local time.
INTERVIEW_HOUR = 9
#: Each day after today is planned as one evening session at this hour, local time.
SESSION_HOUR = 19
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
    """The interview day, and the minutes a day the learner gave (None: their habit, else DEFAULT_MINUTES)."""

    day: date
    minutes_per_day: int | None = None


def today(now: datetime) -> date:
    return local_day(now)


def parse_until(text: str, now: datetime) -> date | None:
    """`--until`'s value: an ISO date (YYYY-MM-DD) from today to MAX_DAYS ahead; None for `none`."""
    if text.strip().lower() == "none":
        return None
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise BadDate("deadline.bad_date", value=text) from None
    first = today(now)
    if day < first:
        raise BadDate("deadline.past", value=text, today=first.isoformat())
    if (day - first).days > MAX_DAYS:
        raise BadDate("deadline.too_far", value=text, days=MAX_DAYS)
    return day


def load(store: Store, now: datetime | None = None) -> Deadline | None:
    """The remembered interview date, held to what `--until` accepts: a value that is not a date, or
    a date further than MAX_DAYS ahead (a settings row edited by hand: a plan to 9999 would never
    end), is ignored and noted, never fatal; so are minutes a day outside MINUTES_PER_DAY."""
    from normkata.record.values import BadValue, skip

    stored = store.setting(SETTING_DATE)
    if stored is None:
        return None
    now = now or datetime.now(timezone.utc)
    try:
        day = interview_date(stored, now)
    except BadValue as exc:
        skip(f"settings {SETTING_DATE}", exc.message)
        return None
    minutes = store.setting(SETTING_MINUTES)
    given = None
    if minutes is not None:
        try:
            given = minutes_rule(minutes, now)
        except BadValue as exc:
            skip(f"settings {SETTING_MINUTES}", exc.message)
    return Deadline(day, given)


def remember(store: Store, deadline: Deadline | None) -> None:
    """Keep the date (and its minutes per day when given); None forgets both."""
    store.set_setting(SETTING_DATE, deadline.day.isoformat() if deadline else None)
    minutes = deadline.minutes_per_day if deadline else None
    if deadline is None or minutes is not None:
        store.set_setting(SETTING_MINUTES, str(minutes) if minutes is not None else None)


def local_moment(day: date, hour: int) -> datetime:
    """`hour`:00 on `day` in local time, as an aware UTC datetime."""
    return datetime.combine(day, time(hour)).astimezone().astimezone(timezone.utc)


def interview_moment(day: date, now: datetime) -> datetime:
    """When recall is predicted: INTERVIEW_HOUR on the day, or now when that has passed (an interview today)."""
    return max(local_moment(day, INTERVIEW_HOUR), now)


def sessions(day: date, now: datetime) -> list[tuple[date, datetime]]:
    """(day, moment) of each study session from today to the eve of `day` (today alone when it is today)."""
    first = today(now)
    count = max(1, (day - first).days)
    moments = [(first, now)]
    for offset in range(1, count):
        later = first + timedelta(days=offset)
        moments.append((later, max(local_moment(later, SESSION_HOUR), now)))
    return moments


def days_left(day: date, now: datetime) -> int:
    return (day - today(now)).days


def studied_minutes(spans: list[tuple[datetime, datetime]]) -> dict[date, int]:
    """Local day -> minutes spent in practice sessions that day (each session capped at SESSION_CAP)."""
    minutes: dict[date, float] = {}
    for start, end in spans:
        length = min(max(end - start, timedelta(0)), SESSION_CAP)
        key = today(start)
        minutes[key] = minutes.get(key, 0.0) + length.total_seconds() / 60
    return {day: round(value) for day, value in minutes.items()}


def habit(spans: list[tuple[datetime, datetime]], now: datetime) -> int | None:
    """The median minutes of the study days among the last HABIT_DAYS (today left out: it is not
    over), rounded to 5; None below HABIT_MIN such days."""
    import statistics

    first = today(now) - timedelta(days=HABIT_DAYS)
    days = [m for day, m in studied_minutes(spans).items() if first <= day < today(now) and m > 0]
    if len(days) < HABIT_MIN:
        return None
    return max(5, 5 * round(statistics.median(days) / 5))


def minutes_per_day(deadline: Deadline, spans: list[tuple[datetime, datetime]], now: datetime) -> tuple[int, str]:
    """The minutes each day gets, and where the number comes from: `given`, `habit` or `default`."""
    if deadline.minutes_per_day is not None:
        return deadline.minutes_per_day, "given"
    usual = habit(spans, now)
    return (usual, "habit") if usual is not None else (DEFAULT_MINUTES, "default")
