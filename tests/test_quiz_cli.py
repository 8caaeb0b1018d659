"""`normkata quiz` through CliRunner: output, exit codes and what lands in the database."""

from __future__ import annotations

import json

import pytest

from normkata.practice import quiz as session
from tests.conftest import FIXTURES, invoke


@pytest.fixture
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


def _order(runner, seed: int = 3) -> list[str]:  # type: ignore[no-untyped-def]
    """The question ids a seed selects, read from a run that skips every question."""
    result = invoke(runner, ["quiz", "-n", "5", "--seed", str(seed), "--json"], "\n" * 5)
    return [a["id"] for a in json.loads(result.stdout)["answers"]]


RIGHT = {
    "mini-single": "b",
    "mini-multiple": "C,A",
    "mini-tf": "t",
    "mini-numeric": "4.2",
    "mini-order": "bca",
}
WRONG = {"mini-single": "A", "mini-multiple": "A", "mini-tf": "f", "mini-numeric": "5", "mini-order": "ABC"}


def test_json_summary_and_rows(runner, db, mini_bank) -> None:
    order = _order(runner)
    answers = [RIGHT[i] if n % 2 == 0 else WRONG[i] for n, i in enumerate(order)]
    result = invoke(runner, ["quiz", "-n", "5", "--seed", "3", "--json"], "\n".join(answers) + "\n")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["asked"] == 5 and summary["answered"] == 5 and summary["correct"] == 3
    assert summary["score"] == 0.6 and summary["complete"] is True
    assert [a["correct"] for a in summary["answers"]] == [True, False, True, False, True]
    rows = db.execute("SELECT item_id, correct FROM answers WHERE session_id = 2 ORDER BY id").fetchall()
    assert [(r["item_id"], bool(r["correct"])) for r in rows] == list(
        zip(order, [True, False, True, False, True], strict=True)
    )
    assert db.execute("SELECT ended_at FROM sessions WHERE id = 2").fetchone()[0] is not None


def test_same_seed_same_questions(runner, mini_bank) -> None:
    assert _order(runner, 7) == _order(runner, 7)


def test_bundled_bank_piped_json(runner, db) -> None:
    result = invoke(runner, ["quiz", "-n", "3", "--seed", "1", "--json"], "A\nB\nA\n")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["answered"] == 3 and len(summary["answers"]) == 3
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 3


def test_feedback_explanation_and_summary(runner, mini_bank) -> None:
    order = _order(runner, 1)
    stdin = "\n".join(RIGHT[i] for i in order) + "\n"
    result = invoke(runner, ["quiz", "-n", "5", "--seed", "1"], stdin)
    assert result.exit_code == 0
    assert result.stdout.count("✓ Correct.") == 5
    assert "B is two." in result.stdout and "Source: beyond the source documents" in result.stdout
    assert "│ All   │       5 │        5 │       0 │  100% │" in result.stdout


def test_eof_keeps_answers_and_prints_summary(runner, db, mini_bank) -> None:
    result = invoke(runner, ["quiz", "-n", "5", "--seed", "2"], "A\nA\n")
    assert result.exit_code == 0
    assert "Stopped early: 2 of 5 answered, all of them saved." in result.stdout
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 2


def test_ctrl_c_exits_130_and_keeps_answers(runner, db, mini_bank, monkeypatch) -> None:
    from normkata.ui import terminal as ui

    calls = {"n": 0}
    real_ask = ui.Prompter.ask

    def ask_then_interrupt(self, prompt):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_ask(self, prompt)

    monkeypatch.setattr(ui.Prompter, "ask", ask_then_interrupt)
    result = invoke(runner, ["quiz", "-n", "5", "--seed", "2"], "A\nA\nA\nA\nA\n")
    assert result.exit_code == 130
    assert "Stopped early: 2 of 5 answered" in result.stdout
    assert "Traceback" not in result.output
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 2


def test_unreadable_piped_answer_counts_as_wrong(runner, db, mini_bank) -> None:
    order = _order(runner, 4)
    stdin = "".join("zzz\n" if i == "mini-numeric" else RIGHT[i] + "\n" for i in order)
    result = invoke(runner, ["quiz", "-n", "5", "--seed", "4"], stdin)
    assert "Unreadable answer ('zzz' is not a number): counted as wrong." in result.stdout
    row = db.execute("SELECT given, correct FROM answers WHERE item_id = 'mini-numeric' AND session_id = 2").fetchone()
    assert (row["given"], row["correct"]) == ("zzz", 0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--topic", "nope"], "--topic: unknown topic 'nope' (known: mini)"),
        (["-n", "0"], "Invalid value for '-n'"),
        (["--difficulty", "extreme"], "Invalid value for '--difficulty'"),
        (["--lang", "fr"], "Invalid value for '--lang'"),
    ],
)
def test_bad_options_exit_2_with_one_line(runner, mini_bank, args, message) -> None:
    result = invoke(runner, ["quiz", *args], "")
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_broken_bank_is_an_input_error(runner, monkeypatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "broken"))
    result = invoke(runner, ["quiz"], "")
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")
    assert "a_errors.yaml:10: questions[0].answer" in result.stderr
    assert "(and 5 more: run normkata content check)" in result.stderr


def test_chinese_interface(runner, mini_bank) -> None:
    result = invoke(runner, ["quiz", "-n", "1", "--seed", "0", "--lang", "zh"], "\n")
    assert "第 1/1 题" in result.stdout and "小结" in result.stdout
    assert "）：" in result.stdout and "）:" not in result.stdout  # a full-width colon ends the prompt


def test_summary_groups_by_topic() -> None:
    result = session.QuizResult(asked=3)
    result.records += [
        session.AnswerRecord("a", "x", "A", True, "A"),
        session.AnswerRecord("b", "y", "B", False, "A"),
        session.AnswerRecord("c", "x", "C", False, "C"),
    ]
    assert dict(result.by_topic()) == {"x": session.TopicTotals(1, 2, 0), "y": session.TopicTotals(0, 1, 0)}


def test_whole_rmsnorm_topic_in_chinese(runner, db) -> None:
    from normkata.content.bank import load_bank

    questions = [q for q in load_bank().questions if q.topic == "rmsnorm"]
    result = invoke(runner, ["quiz", "--topic", "rmsnorm", "--lang", "zh", "-n", "100"], "A\n" * len(questions))
    assert result.exit_code == 0
    assert f"第 {len(questions)}/{len(questions)} 题" in result.stdout
    assert "出处" in result.stdout and "小结" in result.stdout
    assert "Stopped early" not in result.stdout and "提前结束" not in result.stdout
    assert db.execute("SELECT COUNT(DISTINCT item_id) FROM answers").fetchone()[0] == len(questions)
