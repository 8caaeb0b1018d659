"""The order of study: fundamentals first on a thin record, weakness once there is evidence,
and `next` always plan's first step, on the real bank and prepared records."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from normkata.content.bank import check_topic, load_bank
from normkata.content.katas import load_katas
from normkata.content.study import study_order
from normkata.paths import database_path
from normkata.practice import curriculum
from normkata.practice.srs import schedule
from normkata.record.attempts import KataLog
from normkata.record.store import Store
from tests.conftest import invoke
from tests.grades import grade_result


@pytest.fixture
def store() -> Iterator[Store]:
    opened = Store(database_path())
    yield opened
    opened.close()


def answer(store: Store, item_id: str, correct: bool) -> None:
    question = load_bank().question(item_id)
    assert question is not None
    session = store.start_session("quiz", "en")
    store.record_answer(
        session, item_id, question.topic, "x", correct, schedule(store, item_id, 3 if correct else 1, duration_ms=5000)
    )


def next_and_plan(runner, minutes: int = 60) -> tuple[dict, list[dict]]:  # type: ignore[no-untyped-def]
    advice = json.loads(invoke(runner, ["next", "--json"]).stdout)
    advice = {key: advice[key] for key in ("command", "why")}  # the action and its arguments: tests/test_next_plan.py
    steps = json.loads(invoke(runner, ["plan", "--minutes", str(minutes), "--json"]).stdout)["steps"]
    return advice, steps


def test_the_order_names_every_topic_and_respects_prerequisites() -> None:
    bank = load_bank()
    plan = study_order()
    assert set(plan.order) == set(bank.topics), "every bank topic has its place in the order of study"
    for topic, needs in plan.requires.items():
        for need in needs:
            assert curriculum.rank(need) < curriculum.rank(topic), (need, topic)
    assert set(plan.core) <= set(plan.order)
    for kata in load_katas()[0]:
        home = curriculum.kata_home(kata.home, kata.topics)
        assert home in kata.topics, kata.id


def test_a_fresh_record_starts_with_a_diagnostic_then_the_fundamentals(runner) -> None:
    advice, steps = next_and_plan(runner, 45)
    assert advice == {"command": "normkata quiz -n 5", "why": "a short quiz shows where you stand"}
    assert {k: steps[0][k] for k in ("command", "why")} == advice
    commands = [s["command"] for s in steps]
    assert commands[1:3] == ["normkata quiz --topic why -n 10", "normkata interview --topic why -n 3"]
    assert not any("backward" in c for c in commands), commands
    # The diagnostic itself: one question of each core topic, easy first.
    result = invoke(runner, ["quiz", "-n", "5", "--json"], "\n" * 5)
    bank = load_bank()
    asked = [bank.question(a["id"]) for a in json.loads(result.stdout)["answers"]]
    assert [q.topic for q in asked if q] == list(curriculum.core_topics())
    assert all(q and q.difficulty == "easy" for q in asked)


@pytest.mark.parametrize(
    ("record", "first"),
    [
        ({"why-what-goes-wrong": True}, "normkata quiz --topic why -n 9"),
        # A mistake is evidence: its topic comes before the order of study.
        ({"why-what-goes-wrong": True, "rms-formula": False}, "normkata review"),
    ],
)
def test_next_is_plans_first_step_on_prepared_records(runner, store, record, first) -> None:
    for item, right in record.items():
        answer(store, item, right)
    advice, steps = next_and_plan(runner)
    assert advice["command"] == first
    assert {k: steps[0][k] for k in ("command", "why")} == advice


def test_weakness_with_evidence_comes_before_the_order_of_study(runner, store) -> None:
    answer(store, "why-what-goes-wrong", True)
    answer(store, "rms-formula", False)
    store._conn.execute("UPDATE srs SET due = '2999-01-01T00:00:00+00:00'")  # nothing due: topics decide
    store._conn.commit()
    advice, steps = next_and_plan(runner)
    assert advice["command"].startswith("normkata quiz --topic rmsnorm"), advice
    assert {k: steps[0][k] for k in ("command", "why")} == advice
    assert steps[1]["command"].startswith("normkata interview --topic rmsnorm")


def test_a_kata_in_progress_is_next_and_plans_first(runner, store) -> None:
    answer(store, "why-what-goes-wrong", True)
    KataLog(store).attempt(grade_result("layernorm", {"fwd": "failed"}, score=1, max_score=5), "cpu")
    advice, steps = next_and_plan(runner)
    assert advice["command"] == "normkata grade layernorm"
    assert {k: steps[0][k] for k in ("command", "why")} == advice


def test_backward_katas_come_with_the_backward_topic_not_before(runner, store) -> None:
    _advice, steps = next_and_plan(runner, 600)
    commands = [s["command"] for s in steps]
    assert commands.index("normkata kata rmsnorm") < commands.index("normkata quiz --topic backward -n 10")
    assert commands.index("normkata kata rmsnorm_backward") > commands.index("normkata quiz --topic backward -n 10")


@pytest.mark.parametrize(
    "typed",
    ["prenorm", "Pre-Norm vs Post-Norm", "pre-norm 与 post-norm", "PRENORM"],
)
def test_topics_by_id_or_title_in_either_language(typed: str) -> None:
    assert check_topic(load_bank(), typed) == "prenorm"


def test_topic_titles_in_chinese_and_their_parts() -> None:
    bank = load_bank()
    assert check_topic(bank, "均方根归一化") == "rmsnorm"
    assert check_topic(bank, "RMSNorm（均方根归一化）") == "rmsnorm"
    assert check_topic(bank, "Why we normalize") == "why"


def test_quiz_accepts_the_title_progress_shows(runner) -> None:
    result = invoke(runner, ["quiz", "-t", "Pre-Norm vs Post-Norm", "-n", "1", "--json"], "\n")
    assert result.exit_code == 0, result.output


def test_interview_on_a_fresh_record_follows_the_order_of_study(runner) -> None:
    result = invoke(runner, ["interview", "-n", "3"], "\n")
    assert "Card 1/3  Why we normalize · easy" in result.stdout
