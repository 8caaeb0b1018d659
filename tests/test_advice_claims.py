"""Every claim the advice makes is true: the order it says, the hint it says, the counts it says."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta

import pytest

from normkata.content.bank import load_bank
from normkata.grading.contract import CaseResult, Category, Diagnosis, GradeResult, Status
from normkata.paths import database_path
from normkata.practice.srs import schedule
from normkata.record.attempts import KataLog
from normkata.record.store import Store, utcnow
from tests.conftest import invoke
from tests.grades import grade_result


@pytest.fixture
def store() -> Iterator[Store]:
    opened = Store(database_path())
    yield opened
    opened.close()


def answer(store: Store, item_id: str, correct: bool, minutes_ago: float = 0.0) -> None:
    question = load_bank().question(item_id)
    assert question is not None
    session = store.start_session("quiz", "en")
    moment = utcnow() - timedelta(minutes=minutes_ago)
    store.record_answer(
        session,
        item_id,
        question.topic,
        "x",
        correct,
        schedule(store, item_id, 3 if correct else 1, now=moment, duration_ms=5000),
    )


# -- "weakest first" is sorted by the number shown ------------------------------------------------


def test_topics_come_weakest_first_by_the_number_each_step_shows(runner, store) -> None:
    """a topic at 10% was listed before topics at 6% and 5%."""
    bank = load_bank()
    right_share = {"why": 0.75, "batchnorm": 0.25, "layernorm": 0.0, "rmsnorm": 1.0, "prenorm": 0.5}
    for topic, share in right_share.items():
        questions = [q.id for q in bank.questions if q.topic == topic][:4]
        for n, item in enumerate(questions):
            answer(store, item, correct=n < round(share * len(questions)), minutes_ago=600)
    steps = json.loads(invoke(runner, ["plan", "--minutes", "600", "--json"]).stdout)["steps"]
    shown = [(s["command"], s["why"]) for s in steps if s["command"].startswith("normkata quiz --topic")]
    numbered = [(c, int(m.group(1))) for c, why in shown if (m := re.search(r": (\d+)% expected recall on the", why))]
    assert len(numbered) == len(right_share)  # every topic with answers, with its number
    numbers = [n for _c, n in numbered]
    assert numbers == sorted(numbers), numbered
    # The topics not studied yet come after every topic with answers, in the order of study.
    first_fresh = next(i for i, (_c, why) in enumerate(shown) if "not studied yet" in why)
    assert all("expected recall on the" in why for _c, why in shown[:first_fresh])
    assert shown[first_fresh][0].startswith("normkata quiz --topic placement")  # next after prenorm


def test_one_right_answer_keeps_a_topic_and_its_kata_in_the_plan(runner, store) -> None:
    """after one correct review RMSNorm fell to the last row and its kata left the plan."""
    answer(store, "rms-formula", correct=True)
    steps = [s["command"] for s in json.loads(invoke(runner, ["plan", "--minutes", "60", "--json"]).stdout)["steps"]]
    assert steps[0] == "normkata quiz --topic rmsnorm -n 10"  # the only topic with answers
    assert "normkata kata rmsnorm" in steps


# -- hint: the named mistake's first, and nothing to give after a pass ----------------------------


def named_grade(kata: str, named: list[tuple[str, str, int]], passed: bool = False) -> GradeResult:
    """A grade naming misconceptions (id, title, cases), in an order the report does not use."""
    cases = [
        CaseResult(
            "forward[2x8-cpu]", "forward [2x8-cpu]", Category.FORWARD, Status.PASSED if passed else Status.FAILED
        )
    ]
    diagnosis = [Diagnosis(mid, title, "", n) for mid, title, n in named]
    return GradeResult(kata, "rmsnorm.py", cases, diagnosis, 1, "test", 1.0)


def hint_events(store: Store) -> list[str]:
    return [row[0] for row in store._conn.execute("SELECT detail FROM kata_events WHERE kind = 'hint' ORDER BY id")]


def test_hint_gives_the_hint_for_the_mistake_the_last_grade_named_first(runner, store) -> None:
    """after a grade named "eps outside the square root", hint 1 was about keepdim."""
    log = KataLog(store)
    log.attempt(
        named_grade(
            "rmsnorm",
            [
                ("rms-wrong-axis", "statistics over the wrong dimension", 2),
                ("rms-eps-outside-sqrt", "eps added outside the square root", 9),
            ],
        ),
        "cpu",
    )
    first = invoke(runner, ["hint", "rmsnorm"])
    assert first.exit_code == 0
    assert first.stdout.startswith(
        "Hint for the mistake your last rmsnorm grade named: eps added outside the square root\n"
        "Use x * rsqrt(mean(x²) + eps): eps belongs inside the root.\n"
    )
    assert "Hint 1/3" not in first.stdout
    assert "Hint 1/3 for rmsnorm" in invoke(runner, ["hint", "rmsnorm"]).stdout  # then the kata's own, from 1
    assert hint_events(store) == ["named:rms-eps-outside-sqrt", "1"]
    zh = invoke(runner, ["--lang", "zh", "hint", "rmsnorm"]).stdout
    assert "rmsnorm 的提示 2/3" in zh  # the named hint was shown once, after that grade
    log.attempt(named_grade("rmsnorm", [("rms-no-eps", "no eps in the denominator", 3)]), "cpu")
    assert "没有 eps" not in zh
    again = invoke(runner, ["--lang", "zh", "hint", "rmsnorm"]).stdout
    assert "针对你上次 rmsnorm 评测指出的错误：分母里没有 eps" in again and "在开方前给 mean(x²) 加上 eps" in again


def test_after_a_pass_hint_says_the_kata_is_passed_and_takes_nothing(runner, store) -> None:
    """after a pass, hint handed out hint 3 with no word that the kata is passed."""
    invoke(runner, ["hint", "rmsnorm"])
    invoke(runner, ["hint", "rmsnorm"])
    KataLog(store).attempt(grade_result("rmsnorm", {"forward": "passed"}), "cpu")
    result = invoke(runner, ["hint", "rmsnorm"])
    assert result.exit_code == 0
    assert result.stdout.startswith("rmsnorm is passed: no hint needed. normkata solution rmsnorm shows")
    assert "Hint 3/3" not in result.stdout and hint_events(store) == ["1", "2"]
    assert "Hint 2/3 for rmsnorm" in invoke(runner, ["hint", "rmsnorm", "--level", "2"]).stdout  # asked for: shown


def test_the_named_hint_counts_as_a_hint_for_the_rating(runner, store, tmp_path) -> None:
    from normkata.workbench.due import after_attempt

    log = KataLog(store)
    log.event("rmsnorm", "started")
    log.attempt(named_grade("rmsnorm", [("rms-eps-outside-sqrt", "eps added outside the square root", 9)]), "cpu")
    invoke(runner, ["hint", "rmsnorm"])
    passing = named_grade("rmsnorm", [], passed=True)
    log.attempt(passing, "cpu")
    after_attempt(store, passing, "en")
    rating = store._conn.execute("SELECT rating FROM review_logs WHERE item_id = 'kata:rmsnorm'").fetchone()[0]
    assert rating == 2  # Hard: passed after a hint


# -- review counts what it served and what is still due --------------------------------------------


def eleven_due(store: Store) -> list[str]:
    """Eleven single-choice questions missed, a minute apart: due in that order."""
    singles = [q for q in load_bank().questions if q.type == "single"][:11]
    for n, question in enumerate(singles):
        answer(store, question.id, correct=False, minutes_ago=30 - n)
    return [q.id for q in singles]


def test_review_n_1_of_11_due_counts_what_it_served_and_what_is_still_due(runner, store) -> None:
    first = load_bank().question(eleven_due(store)[0])
    assert first is not None
    result = invoke(runner, ["review", "-n", "1"], f"{first.answer}\n")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "1 of the 11 item(s) due" in text and "Question 1/1" in text
    assert "Reviewed 1 of 11 due item(s)." in text and "Questions: 1 of 1 right." in text
    assert "Still due: 10 item(s) (normkata review)." in text
    assert "What you missed" not in text  # a perfect session: nothing missed


def test_review_says_what_was_missed_only_when_something_was(runner, store) -> None:
    eleven_due(store)
    result = invoke(runner, ["review", "-n", "2"], "Z\nZ\n")
    text = " ".join(result.stdout.split())
    assert "Questions: 0 of 2 right." in text
    assert "What you missed (2) is due again in a minute" in text
    assert "Still due: 9 item(s)" in text  # the two missed come back apart from these


def test_a_review_of_everything_due_says_so(runner, store) -> None:
    ids = eleven_due(store)[:1]
    store._conn.execute("DELETE FROM srs WHERE item_id NOT IN (?)", (ids[0],))
    first = load_bank().question(ids[0])
    assert first is not None
    text = " ".join(invoke(runner, ["review"], f"{first.answer}\n").stdout.split())
    assert "1 item(s) due" in text and "Reviewed all 1 due item(s)." in text
    assert "What you missed" not in text and "Still due" not in text and "Next item due: in " in text


# -- titles, not ids, where the learner reads them ------------------------------------------------


def test_grade_now_due_names_the_mistake_and_the_card_by_its_question(store) -> None:
    from normkata.workbench.due import after_attempt

    result = named_grade("rmsnorm", [("rms-eps-outside-sqrt", "eps added outside the square root", 9)])
    notes = [note.words("en") for note in after_attempt(store, result, "en")]
    assert notes == [
        "Now due, to learn why (eps added outside the square root): the card “How do you choose "
        "RMSNorm's eps, and what can go wrong with it?” and 1 more  "
        "(`normkata interview --id card-rms-eps`)"
    ]
    zh = [note.words("zh") for note in after_attempt(store, result, "zh")]
    assert zh[0].startswith("已设为到期，讲清原因（eps 加在了平方根外面）的是卡片“如何选择 RMSNorm 的 eps？")
