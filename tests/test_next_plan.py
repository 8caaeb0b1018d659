"""`normkata next` and `normkata plan` on prepared histories: rows written through the store's API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta

import pytest

from normkata.actions import Action
from normkata.content.katas import load_katas
from normkata.paths import database_path
from normkata.practice.srs import LEECH_LAPSES, schedule
from normkata.record.attempts import KataLog
from normkata.record.store import Store, utcnow
from tests.conftest import FIXTURES, invoke
from tests.grades import grade_result

RIGHT = {"mini-single": "B", "mini-multiple": "AC", "mini-tf": "true", "mini-numeric": "4", "mini-order": "BCA"}


@pytest.fixture(autouse=True)
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


@pytest.fixture
def store() -> Iterator[Store]:
    opened = Store(database_path())
    yield opened
    opened.close()


def answer(store: Store, item_id: str, correct: bool) -> None:
    session = store.start_session("quiz", "en")
    store.record_answer(
        session,
        item_id,
        "mini",
        RIGHT[item_id] if correct else "x",
        correct,
        schedule(store, item_id, 3 if correct else 1, duration_ms=5000),
    )


def rate(store: Store, rating: int, at: timedelta) -> None:
    session = store.start_session("interview", "en")
    state = schedule(store, "mini-card", rating, now=utcnow() - at)
    store.record_rating(session, "mini-card", "mini", "said something", rating, state)


def make_leech(store: Store) -> None:
    """mini-card learnt, then forgotten LEECH_LAPSES times, each time relearnt: weeks ago, in order."""
    at = timedelta(days=60)
    for rating in (3, 3):  # learning steps: new -> learning -> review
        rate(store, rating, at)
        at -= timedelta(minutes=10)
    for _ in range(LEECH_LAPSES):
        rate(store, 1, at)  # Again in Review: a lapse
        at -= timedelta(minutes=10)
        rate(store, 3, at)  # relearnt: back in Review
        at -= timedelta(days=1)


def kata_minutes() -> dict[str, int]:
    return {k.id: k.minutes for k in load_katas()[0]}


def as_typed(step: dict) -> dict:  # type: ignore[type-arg]
    """A step as the learner types it: the action and its arguments are the same command as data."""
    action = Action.of(
        step.pop("action"), **{k: tuple(v) if isinstance(v, list) else v for k, v in step.pop("arguments").items()}
    )
    assert action.command() == step["command"]
    return step


def next_json(runner) -> dict:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["next", "--json"])
    assert result.exit_code == 0, result.output
    return as_typed(json.loads(result.stdout))


def plan_json(runner, minutes: int) -> dict:  # type: ignore[no-untyped-def]
    result = invoke(runner, ["plan", "--minutes", str(minutes), "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    plan["steps"] = [as_typed(step) for step in plan["steps"]]
    return plan


def test_fresh_learner_starts_with_a_short_quiz(runner) -> None:
    assert next_json(runner) == {"command": "normkata quiz -n 5", "why": "a short quiz shows where you stand"}


def test_due_reviews_come_first_then_the_weakest_topic(runner, store) -> None:
    answer(store, "mini-single", correct=False)
    answer(store, "mini-tf", correct=False)
    assert next_json(runner) == {
        "command": "normkata review",
        "why": "2 item(s) due: their review day has come, while you still remember most of them",
    }
    assert min(kata_minutes().values()) > 9, "a kata that short would join this plan"
    assert plan_json(runner, 9) == {
        "steps": [
            {
                "command": "normkata review",
                "minutes": 2,
                "why": "2 item(s) due: their review day has come, while you still remember most of them",
            },
            {
                "command": "normkata quiz --topic mini -n 5",
                "minutes": 4,
                "why": "Mini: 0% expected recall on the 2 item(s) you answered or rated, 3 question(s) never answered",
            },
            {
                "command": "normkata interview --topic mini -n 1",
                "minutes": 3,
                "why": "Mini: 0 of 1 interview card(s) rated Good or Easy",
            },
        ]
    }


def test_a_step_that_does_not_fit_is_cut_to_the_minutes_left(runner, store) -> None:
    answer(store, "mini-single", correct=False)
    answer(store, "mini-tf", correct=False)
    assert plan_json(runner, 3) == {
        "steps": [
            {
                "command": "normkata review",
                "minutes": 2,
                "why": "2 item(s) due: their review day has come, while you still remember most of them",
            },
            {
                "command": "normkata quiz --topic mini -n 1",
                "minutes": 1,
                "why": "Mini: 0% expected recall on the 2 item(s) you answered or rated, 3 question(s) never answered",
            },
        ]
    }


def test_a_leech_is_flagged_first_in_next_and_plan(runner, store, db) -> None:
    make_leech(store)
    lapses = db.execute("SELECT COUNT(*) FROM review_logs WHERE rating = 1 AND state_before = 2").fetchone()[0]
    assert lapses == LEECH_LAPSES
    leech = {
        "command": "normkata interview --id mini-card",
        "why": f"mini-card was forgotten {LEECH_LAPSES} times after you had learnt it (a leech): read its "
        "explanation, then answer it in your own words",
    }
    assert next_json(runner) == leech
    assert plan_json(runner, 3)["steps"] == [{**leech, "minutes": 3}]


def test_seven_lapses_are_not_yet_a_leech(runner, store) -> None:
    make_leech(store)
    store._conn.execute("DELETE FROM review_logs WHERE id = (SELECT MAX(id) FROM review_logs WHERE rating = 1)")
    assert next_json(runner)["command"] != "normkata interview --id mini-card"


def test_a_kata_in_progress_comes_before_the_weakest_topic(runner, store) -> None:
    answer(store, "mini-single", correct=True)  # past the diagnostic, nothing due
    (first, *_rest) = load_katas()[0]
    KataLog(store).attempt(grade_result(first.id, {"forward": "failed"}, score=2, max_score=5), "cpu")
    assert next_json(runner) == {
        "command": f"normkata grade {first.id}",
        "why": f"{first.title.en} is not passed yet (best score 40%)",
    }


def test_strong_topics_leave_the_time_to_katas_and_a_mock(runner, store) -> None:
    for item in RIGHT:
        answer(store, item, correct=True)
    rate(store, 3, timedelta(0))
    passed, *fresh = load_katas()[0]
    KataLog(store).attempt(grade_result(passed.id, score=5, max_score=5), "cpu")
    minutes = sum(k.minutes for k in fresh) + 20
    why = "{}: not started, and interviewers ask you to write it from scratch"
    assert plan_json(runner, minutes) == {
        "steps": [
            *({"command": f"normkata kata {k.id}", "minutes": k.minutes, "why": why.format(k.title.en)} for k in fresh),
            {
                "command": "normkata mock --minutes 20",
                "minutes": 20,
                "why": "every topic is strong: rehearse under time",
            },
        ]
    }


def test_plan_table_and_bad_minutes(runner, store) -> None:
    answer(store, "mini-single", correct=False)
    result = invoke(runner, ["plan", "--minutes", "3"])
    assert result.exit_code == 0
    assert "A plan for 3 minutes: what is due first, then your topics weakest first" in result.stdout
    assert "normkata review" in result.stdout and "3 of 3 minutes planned." in result.stdout
    for bad in (["plan"], ["plan", "--minutes", "0"], ["plan", "--minutes", "soon"]):
        result = invoke(runner, bad)
        assert result.exit_code == 2 and "--minutes" in result.stderr and "Traceback" not in result.output


def test_next_in_chinese(runner, monkeypatch) -> None:
    # NORMKATA_LANG says English: a command suggested in Chinese carries --lang zh.
    result = invoke(runner, ["--lang", "zh", "next"])
    assert result.stdout == "下一步：normkata quiz -n 5 --lang zh（先做一个简短测验，看看自己的水平）\n"
    monkeypatch.setenv("NORMKATA_LANG", "zh")
    result = invoke(runner, ["next"])
    assert result.stdout == "下一步：normkata quiz -n 5（先做一个简短测验，看看自己的水平）\n"


def test_plan_mock_and_history_in_chinese(runner, store) -> None:
    from tests.test_zh_everywhere import english_in

    answer(store, "mini-single", correct=False)
    (first, *_rest) = load_katas()[0]
    KataLog(store).attempt(grade_result(first.id, {"fwd": "failed"}, score=1, max_score=2, seed=3), "cpu")
    KataLog(store).attempt(grade_result(first.id, {"fwd": "passed"}, score=1, max_score=2, seed=3), "cpu")
    runs = [
        (["plan", "--minutes", "40"], ""),
        (["next"], ""),
        (["mock", "--minutes", "5"], "小\n\n因为\n\n1\n"),
        (["mock", "--history"], ""),
        (["history"], ""),
        (["history", "--diff"], ""),
        (["review"], "\n"),
        ([], ""),
    ]
    for args, stdin in runs:
        result = invoke(runner, ["--lang", "zh", *args], stdin)
        assert result.exit_code == 0, (args, result.output)
        assert english_in(result.output) == set(), args
