"""`normkata` alone and `normkata progress`."""

from __future__ import annotations

import json

import pytest

from normkata.content.katas import load_katas
from tests.conftest import FIXTURES, invoke


@pytest.fixture(autouse=True)
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


def test_fresh_dashboard_suggests_a_quiz(runner) -> None:
    result = invoke(runner, [])
    assert result.exit_code == 0
    assert "normkata: where you stand" in result.stdout
    assert "Due for review: 0" in result.stdout
    assert f"Katas passed: 0 of {len(load_katas()[0])}" in result.stdout  # summarised: `normkata kata` lists them
    assert "Next: normkata quiz -n 5  (a short quiz shows where you stand)" in result.stdout
    assert "Mastery: the share of a topic's questions last answered right" in result.stdout
    assert "Katas passed: 0 of" in result.stdout


def test_progress_json_counts_latest_answers(runner) -> None:
    invoke(runner, ["quiz", "-n", "5", "--seed", "0", "--json"], "b\nzzz\nzzz\nzzz\nzzz\n")
    report = json.loads(invoke(runner, ["progress", "--json"]).stdout)
    (topic,) = report["topics"]
    assert topic["topic"] == "mini" and topic["questions"] == 5 and topic["seen"] == 5
    assert topic["cards"] == 1 and topic["cards_rated"] == 0
    assert report["totals"]["answers"] == 5
    assert report["due"] == 5 - topic["correct_latest"]  # missed ones are due, right ones in days
    assert report["next"] == "normkata review"
    assert [k["kata"] for k in report["katas"]] == [kata.id for kata in load_katas()[0]]
    assert {k["status"] for k in report["katas"]} == {"not started"}


def test_mastery_counts_good_cards_and_right_answers(runner) -> None:
    answers = {
        "mini-single": "B",
        "mini-multiple": "AC",
        "mini-tf": "t",
        "mini-numeric": "4",
        "mini-order": "BCA",
    }
    order = [
        a["id"]
        for a in json.loads(invoke(runner, ["quiz", "-n", "5", "--seed", "9", "--json"], "\n" * 5).stdout)["answers"]
    ]
    invoke(runner, ["quiz", "-n", "5", "--seed", "9", "--json"], "".join(answers[i] + "\n" for i in order))
    invoke(runner, ["interview"], "what I said\n\n4\n")
    report = json.loads(invoke(runner, ["progress", "--json"]).stdout)
    assert report["topics"][0]["mastery"] == 1.0
    text = invoke(runner, ["progress"]).stdout
    assert "██████████ 100%" in text and "1/1" in text


def test_dashboard_in_chinese(runner) -> None:
    result = invoke(runner, ["--lang", "zh"])
    assert "normkata：你的进度" in result.stdout and "已通过的编程练习：0/" in result.stdout


def busy_record() -> None:
    """Quizzes in several topics, cards, a kata passed and one in progress, four mistakes graded this week."""
    from datetime import timedelta

    from normkata.paths import database_path
    from normkata.practice.srs import schedule
    from normkata.record.attempts import KataLog
    from normkata.record.store import Store, utcnow
    from tests.grades import grade_result

    store = Store(database_path())
    session = store.start_session("quiz", "en")
    for n, question in enumerate(q for q in load_bank().questions if q.topic in ("why", "layernorm", "rmsnorm")):
        store.record_answer(
            session,
            question.id,
            question.topic,
            "x",
            n % 3 == 0,
            schedule(store, question.id, 3 if n % 3 == 0 else 1, now=utcnow() - timedelta(days=2)),
        )
    log = KataLog(store)
    named = {"rms-eps-outside-sqrt": "eps added outside the square root", "rms-no-eps": "no eps in the denominator"}
    log.attempt(grade_result("rmsnorm", {"forward": "failed"}, named=named), "cpu")
    log.attempt(grade_result("rmsnorm", {"forward": "passed"}), "cpu")
    named = {"ln-unbiased-variance": "unbiased variance", "ln-batch-axis": "the batch axis"}
    log.attempt(grade_result("layernorm", {"forward": "failed"}, named=named, score=3, max_score=9), "cpu")
    log.attempt(grade_result("dyt", {"forward": "failed"}, score=1, max_score=9), "cpu")
    log.event("batchnorm", "started")
    store.close()


def load_bank():  # type: ignore[no-untyped-def]
    from normkata.content.bank import load_bank as load

    return load()


@pytest.mark.parametrize("columns", [80, 120])
def test_the_dashboard_fits_40_rows_with_a_date_and_a_busy_record(
    runner, monkeypatch, columns: int, learner_clock
) -> None:
    """48-56 lines at 120 columns (70 at 80), the top scrolled away in a 40-line terminal; the
    days left counted on the learner's clock, at any hour."""
    monkeypatch.delenv("NORMKATA_QUIZZES")  # the real bank: eighteen topics
    monkeypatch.setenv("COLUMNS", str(columns))
    busy_record()
    from datetime import timedelta

    until = learner_clock.today() + timedelta(days=5)
    invoke(runner, ["plan", "--until", until.isoformat()])
    text = invoke(runner, []).stdout
    lines = text.splitlines()
    assert len(lines) <= 38, text  # and the prompt, with a line to spare
    assert max(len(line) for line in lines) <= columns
    assert f"interview on {until.isoformat()}, in 5 day(s)" in lines[0]
    assert f"On {until:%m-%d}" in lines[1]
    assert sum("%" in line for line in lines[3:19]) == 16  # every topic on one row, its recall on the day
    joined = " ".join(text.split())
    assert "Katas passed: 1 of" in text and "in progress: layernorm (33%), batchnorm (0%), dyt (11%)" in joined
    # Titles where the learner reads them, not ids: the mistakes, and the item the next step names.
    assert "unbiased variance (divide by n - 1) (layernorm): not reviewed since" in joined
    assert "ln-unbiased-variance" not in text and "rms-eps-outside-sqrt" not in text
    assert "and 1 more (normkata history)" in text
    next_line = joined[joined.index("Next: ") :]
    command, why = next_line.split(" (", 1)
    assert command.startswith("Next: normkata ") and " --id " in command and "grade named a mistake" in why
    assert command.split()[-1] not in why  # the item's id is in the command only
    assert "predicted recall of each topic's questions and cards on" in " ".join(text.split())


def test_the_chinese_dashboard_fits_80_columns(runner, monkeypatch) -> None:
    from rich.cells import cell_len

    monkeypatch.delenv("NORMKATA_QUIZZES")
    monkeypatch.setenv("COLUMNS", "80")
    busy_record()
    text = invoke(runner, ["--lang", "zh"]).stdout
    assert len(text.splitlines()) <= 38 and max(cell_len(line) for line in text.splitlines()) <= 80
    assert "  用了无偏方差（除以 n - 1）（layernorm）：之后未复习" in text
    assert "进行中：layernorm（33%），batchnorm（0%），dyt（11%）" in "".join(text.split())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_24_row_terminal_gets_the_whole_compact_dashboard(runner, monkeypatch, lang: str, learner_clock) -> None:
    """80x24: two topics a row, the loop in one line; everything above the prompt."""
    from datetime import timedelta

    from rich.cells import cell_len

    monkeypatch.delenv("NORMKATA_QUIZZES")
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    busy_record()
    invoke(runner, ["plan", "--until", (learner_clock.today() + timedelta(days=5)).isoformat()])
    text = invoke(runner, ["--lang", lang]).stdout
    lines = text.splitlines()
    assert len(lines) <= 22, text  # the command line above it and the prompt below
    assert max(cell_len(line) for line in lines) <= 80
    assert (
        sum(line.count("%") for line in lines[3:11]) == 16 * 2
    )  # the first sixteen topics, mastery and recall on the day
    assert ("Next: " if lang == "en" else "下一步：") in text


def test_the_kernel_katas_count_toward_the_norm_kernels_topic(runner, monkeypatch: pytest.MonkeyPatch) -> None:
    """`standing` said "kernels, katas 0": the two Triton katas counted for rmsnorm and cost only."""
    monkeypatch.delenv("NORMKATA_QUIZZES")  # the real bank, with its kernels topic
    report = json.loads(invoke(runner, ["progress", "--json"]).stdout)
    kernels = next(topic for topic in report["topics"] if topic["topic"] == "kernels")
    assert kernels["katas"] == 2
