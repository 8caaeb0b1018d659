"""The learner's clock (normkata/clock.py): one reading of the time and the zone, which the record
stamps with and the coach counts days by."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone

from normkata.clock import Clock
from tests.conftest import invoke, set_learner_clock


def test_the_learners_day_is_the_local_one_not_utcs() -> None:
    zone = timezone(timedelta(hours=-10))
    clock = Clock(datetime(2026, 12, 6, 23, 30, tzinfo=zone), zone)
    assert clock.now().date() == date(2026, 12, 7)  # in UTC it is already Monday
    assert clock.today() == date(2026, 12, 6)  # for the learner it is still Sunday
    assert clock.at(date(2026, 12, 8), 9) == datetime(2026, 12, 8, 19, 0, tzinfo=timezone.utc)
    assert clock.day_of(datetime(2026, 12, 7, 10, 5, tzinfo=timezone.utc)) == date(2026, 12, 7)
    assert clock.day_of(datetime(2026, 12, 7, 9, 55, tzinfo=timezone.utc)) == date(2026, 12, 6)


def test_a_set_clock_runs_on_from_its_start() -> None:
    start = datetime(2026, 12, 6, 0, 10, tzinfo=timezone(timedelta(hours=13)))
    first = Clock(start).now()
    assert timedelta(0) <= first - start < timedelta(seconds=5)


def test_the_record_stamps_what_is_done_by_the_learners_clock(runner, monkeypatch, db) -> None:
    """An answer given at 23:30 local time on Sunday is stamped with that moment, and the plan
    asked then starts on that Sunday."""
    clock = set_learner_clock(monkeypatch, "23:30", -10, date(2026, 12, 6))
    invoke(runner, ["quiz", "-n", "1", "--seed", "1", "--json"], "A\n")
    (stamp,) = [row["answered_at"] for row in db.execute("SELECT answered_at FROM answers")]
    assert timedelta(0) <= clock.now() - datetime.fromisoformat(stamp) < timedelta(seconds=30)
    assert stamp.startswith("2026-12-07T09:3")  # 23:30 at UTC-10 is 09:30 UTC the next day
    plan = json.loads(invoke(runner, ["plan", "--until", "2026-12-09", "--json"]).stdout)
    assert [day["date"] for day in plan["days"]] == ["2026-12-06", "2026-12-07", "2026-12-08"]
