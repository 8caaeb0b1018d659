"""`plan --until DATE`: a plan for every day to the interview, from predicted recall on the day."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

import pytest

from normkata.advice.dated import TARGET, dated_plan
from normkata.advice.deadline import Deadline, interview_moment, today
from normkata.advice.standing import load_standing
from normkata.content.bank import load_bank
from normkata.paths import database_path
from normkata.record.store import Store, iso, utcnow
from tests.conftest import FIXTURES, invoke


@pytest.fixture
def store() -> Iterator[Store]:
    opened = Store(database_path())
    yield opened
    opened.close()


def ahead(days: int) -> str:
    return (today(utcnow()) + timedelta(days=days)).isoformat()


def answered_home(runner) -> None:  # type: ignore[no-untyped-def]
    """A first evening: the diagnostic quiz, then a LayerNorm quiz, answers piped (some right)."""
    invoke(runner, ["quiz", "-n", "5", "--seed", "1", "--json"], "A\nB\nA\nB\nA\n")
    invoke(runner, ["quiz", "-t", "layernorm", "-n", "8", "--seed", "2", "--json"], "A\nB\nC\nfalse\n-1.342\nA\nB\n2\n")


def plan_json(runner, *args: str) -> dict:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["plan", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_three_days_ahead_one_entry_a_day_within_its_minutes_lowest_recall_first(runner) -> None:
    answered_home(runner)
    until = ahead(3)
    plan = plan_json(runner, "--until", until)
    assert plan["until"] == until and plan["minutes_per_day"] == 45 and plan["minutes_from"] == "default"
    assert [day["date"] for day in plan["days"]] == [ahead(0), ahead(1), ahead(2)]  # today to the eve
    for day in plan["days"]:
        assert set(day) == {"date", "minutes", "planned", "steps"}
        assert day["steps"], day["date"]
        assert sum(step["minutes"] for step in day["steps"]) == day["planned"] <= day["minutes"]
        recalls = [step["predicted_recall"] for step in day["steps"]]
        assert recalls == sorted(recalls) and all(0.0 <= r <= 1.0 for r in recalls)
        for step in day["steps"]:
            assert set(step) == {"command", "action", "arguments", "minutes", "why", "predicted_recall"}
    assert any(step["command"].startswith("normkata mock --minutes ") for step in plan["days"][-1]["steps"])
    assert not any("mock" in step["command"] for day in plan["days"][:-1] for step in day["steps"])
    # What was missed tonight is reviewed today, what is new is met on the days before the last.
    assert any(step["command"].startswith("normkata review") for step in plan["days"][0]["steps"])
    assert not any("--new" in step["command"] for step in plan["days"][-1]["steps"])

    # Remembered: a bare plan, next and the dashboard aim at the same day.
    assert plan_json(runner) == plan
    shown = json.loads(invoke(runner, ["next", "--json"]).stdout)
    assert shown["until"] == until
    assert shown["command"] == plan["days"][0]["steps"][0]["command"]
    today_only = plan_json(runner, "--minutes", "10")
    assert today_only["until"] == until and sum(step["minutes"] for step in today_only["steps"]) <= 10
    report = json.loads(invoke(runner, ["progress", "--json"]).stdout)
    assert report["until"] == until and report["days_left"] == 3
    assert set(report["topic_recall_on_the_day"]) == {t["topic"] for t in report["topics"]}


def test_until_none_forgets_and_bad_dates_are_one_line_errors(runner) -> None:
    assert invoke(runner, ["plan", "--until", "none"]).stdout == "No interview date was set.\n"
    invoke(runner, ["plan", "--until", ahead(2)])
    forgotten = invoke(runner, ["plan", "--until", "none"])
    assert forgotten.exit_code == 0 and "The interview date is forgotten" in forgotten.stdout
    assert "until" not in json.loads(invoke(runner, ["next", "--json"]).stdout)
    bare = invoke(runner, ["plan"])
    assert bare.exit_code == 2 and "plan needs --minutes N (one sitting) or --until YYYY-MM-DD" in bare.stderr
    yesterday = ahead(-1)
    for value, message in (
        ("soon", "--until soon: not a date; give it as YYYY-MM-DD"),
        (yesterday, f"--until {yesterday}: that day has passed (today is {ahead(0)})"),
        (ahead(400), "more than 366 days ahead"),
    ):
        result = invoke(runner, ["plan", "--until", value])
        assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output, value
        assert len(result.stderr.strip().splitlines()) == 1


def test_minutes_per_day_given_is_remembered_else_the_habit(runner, store) -> None:
    now = utcnow()
    with store.transaction():  # three evenings of 30 minutes in the last week
        for days in (2, 3, 5):
            start = now - timedelta(days=days)
            store._conn.execute(
                "INSERT INTO sessions (kind, lang, started_at, ended_at) VALUES ('quiz', 'en', ?, ?)",
                (iso(start), iso(start + timedelta(minutes=30))),
            )
    plan = plan_json(runner, "--until", ahead(4))
    assert (plan["minutes_per_day"], plan["minutes_from"]) == (30, "habit")
    assert all(day["minutes"] == 30 for day in plan["days"][1:])
    plan = plan_json(runner, "--until", ahead(4), "--minutes-per-day", "20")
    assert (plan["minutes_per_day"], plan["minutes_from"]) == (20, "given")
    assert plan_json(runner)["minutes_per_day"] == 20  # remembered with the date
    assert all(day["planned"] <= 20 for day in plan["days"])


def _card(stability: float, reviewed_days_ago: float, now: datetime) -> tuple[str, str]:
    """An FSRS card in Review, last reviewed `reviewed_days_ago`, due as FSRS would set it (JSON, ISO due)."""
    from fsrs import Card, State

    last = now - timedelta(days=reviewed_days_ago)
    due = last + timedelta(days=max(1, round(stability)))
    card = Card(state=State.Review, step=None, stability=stability, difficulty=5.0, due=due, last_review=last)
    return card.to_json(), iso(due)


def test_forgotten_by_the_day_is_reviewed_before_it_solid_is_left_alone_new_is_spread(monkeypatch, store) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))
    now = utcnow()
    with store.transaction():
        for item, (stability, ago) in {"mini-single": (400.0, 1.0), "mini-tf": (2.0, 1.0)}.items():
            card, due = _card(stability, ago, now)
            store._conn.execute(
                "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES (?, 'question', 'mini', ?, ?)",
                (item, card, due),
            )
    bank = load_bank()
    standing = replace(load_standing(bank, store, now), katas=[])  # the bank's items alone: five days are enough
    deadline = Deadline(today(now) + timedelta(days=5), 30)
    plan = dated_plan(standing, deadline)
    assert len(plan.days) == 5
    covered = {item: day.day for day in plan.days for step in day.steps for item in step.items}
    assert "mini-single" not in covered and plan.left_alone == 1  # 400 days of stability: solid on the day
    # mini-tf falls due tomorrow (two days after its review): it is reviewed then, not today.
    assert covered["mini-tf"] == today(now) + timedelta(days=1)
    # New material is met before the last day, spread over more than one day, each item reviewed again before it.
    new_days = {day.day for day in plan.days for step in day.steps if step.why_key.startswith("dated.new_")}
    assert new_days and max(new_days) < plan.days[-1].day and len(new_days) >= 2
    assert plan.new_left == 0 and plan.left_over == 0
    reviewed_twice = [
        item
        for item in ("mini-multiple", "mini-numeric", "mini-order", "mini-card")
        if sum(item in step.items for day in plan.days for step in day.steps) >= 2
    ]
    assert reviewed_twice == ["mini-multiple", "mini-numeric", "mini-order", "mini-card"]
    assert plan.recall_planned >= TARGET > plan.recall_now
    assert [step.why_key for step in plan.days[-1].steps][-1] == "dated.mock"


def test_recall_on_the_day_is_fsrs_retrievability_at_the_interview(store) -> None:
    """The number a step shows is FSRS's own, computed independently here."""
    from fsrs import Card, Scheduler

    now = utcnow()
    card_json, due = _card(3.0, 1.0, now)
    with store.transaction():
        store._conn.execute(
            "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES "
            "('ln-torch-var-default', 'question', 'layernorm', ?, ?)",
            (card_json, due),
        )
    standing = load_standing(load_bank(), store, now)
    day = today(now) + timedelta(days=6)
    from normkata.advice.dated import item_recall_on_the_day

    expected = Scheduler().get_card_retrievability(Card.from_json(card_json), interview_moment(day, now))
    assert item_recall_on_the_day(standing, Deadline(day))["ln-torch-var-default"] == pytest.approx(expected)
    assert 0.5 < expected < TARGET


def test_the_interview_moment_is_nine_in_the_morning_local_time() -> None:
    moment = interview_moment(date(2030, 5, 20), datetime(2030, 5, 1, tzinfo=timezone.utc))
    assert moment.astimezone().hour == 9 and moment.astimezone().date() == date(2030, 5, 20)


def test_an_interview_tomorrow_says_new_material_cannot_be_reviewed_before_it(runner) -> None:
    plan = plan_json(runner, "--until", ahead(1))
    (day,) = plan["days"]
    news = [step["why"] for step in day["steps"] if "--new" in step["command"]]
    assert news and all("no session is left to review them before the interview" in why for why in news)
    assert day["steps"][-1]["command"].startswith("normkata mock --minutes ")
    three = plan_json(runner, "--until", ahead(3))
    news = [step["why"] for step in three["days"][0]["steps"] if "--new" in step["command"]]
    assert news and all("met early enough to be reviewed before the day" in why for why in news)
