"""The learner's clock: the one place normkata reads the time, and the learner's zone.

Everything that records a moment (the record's timestamps) or counts days (the interview date,
a plan's days, what is due, the dashboard) asks this clock, so the learner's calendar day is
computed one way everywhere, and a test sets the time and the zone instead of depending on
the hour it runs (tests/conftest.py's `learner_clock`).
"""

from __future__ import annotations

import time as _time
from datetime import date, datetime, time, timedelta, timezone, tzinfo


class Clock:
    """Moments are aware UTC datetimes; days and hours are the learner's local ones.

    `start`: the moment this clock reads when made (then it runs on with the real time); None: the
    real time. `zone`: the learner's zone; None: the system's local zone (TZ), read at each use.
    """

    def __init__(self, start: datetime | None = None, zone: tzinfo | None = None) -> None:
        if start is not None and start.tzinfo is None:
            raise ValueError("a clock's start must be an aware datetime")
        self._start = start.astimezone(timezone.utc) if start is not None else None
        self._since = _time.monotonic()
        self.zone = zone

    def now(self) -> datetime:
        if self._start is None:
            return datetime.now(timezone.utc)
        return self._start + timedelta(seconds=_time.monotonic() - self._since)

    def local(self, moment: datetime) -> datetime:
        """`moment` on the learner's wall clock."""
        return moment.astimezone(self.zone) if self.zone is not None else moment.astimezone()

    def day_of(self, moment: datetime) -> date:
        """The learner's calendar day at `moment`."""
        return self.local(moment).date()

    def today(self) -> date:
        return self.day_of(self.now())

    def at(self, day: date, hour: int, minute: int = 0, second: int = 0) -> datetime:
        """`hour`:`minute` on `day` on the learner's wall clock, as an aware UTC datetime."""
        wall = datetime.combine(day, time(hour, minute, second))
        local = wall.replace(tzinfo=self.zone) if self.zone is not None else wall.astimezone()
        return local.astimezone(timezone.utc)


_current = Clock()


def current() -> Clock:
    """The process's clock: the real time in the system's zone, unless a test set another."""
    return _current


def now() -> datetime:
    """The current moment, aware UTC: what the record stamps."""
    return _current.now()
