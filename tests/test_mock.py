"""`normkata mock`: interviewer's order, multi-line answers, the debrief's ticks, the saved scorecard."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from normkata.content.model import Card
from normkata.i18n import Text
from normkata.practice.mock import Asked, interview_order, rating_for
from tests.conftest import FIXTURES, invoke
from tests.terminal import spawn_normkata


@pytest.fixture(autouse=True)
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


def _card(card_id: str, difficulty: str, follow_ups: int) -> Card:
    asks = tuple(f"{card_id} follow-up {i}" for i in range(follow_ups))
    return Card(
        card_id,
        "t",
        difficulty,
        Text(card_id, card_id),
        (Text("a", "a"), Text("b", "b")),
        Text("", ""),
        tuple(Text(ask, ask) for ask in asks),
        "beyond",
    )


def test_interviewer_order_easy_first_follow_ups_after_their_question() -> None:
    cards = [_card("hard", "hard", 1), _card("easy", "easy", 2), _card("medium", "medium", 0)]
    order = interview_order(cards, minutes=30, strength={})
    assert [(a.card.id, a.follow_up) for a in order] == [
        ("easy", None),
        ("easy", 0),
        ("easy", 1),
        ("medium", None),
        ("hard", None),
        ("hard", 0),
    ]


def test_the_weakest_cards_are_chosen_when_time_is_short() -> None:
    cards = [_card("known", "easy", 0), _card("shaky", "medium", 0), _card("new", "hard", 0)]
    order = interview_order(cards, minutes=5, strength={"known": 0.95, "shaky": 0.4})
    assert [a.card.id for a in order] == ["shaky", "new"]  # two cards of 150 s fit in 5 min, the known one waits
    assert [a.card.id for a in interview_order(cards, minutes=1, strength={})] == ["known"]  # one at least
    assert Asked(cards[0]).points == 2 and Asked(_card("f", "easy", 1), 0).points == 0


@pytest.mark.parametrize(("made", "rating"), [(0, 1), (1, 2), (2, 3), (3, 3), (4, 4)])
def test_ticks_become_a_rating(made: int, rating: int) -> None:
    assert rating_for(made, 4) == rating


def test_piped_mock_saves_the_scorecard_and_feeds_fsrs(runner, db) -> None:
    result = invoke(runner, ["mock", "--minutes", "5"], "small\ntidy too\n\nbecause\n\n9\n1\n")
    assert result.exit_code == 0, result.output
    assert "Question 1  4:5" in result.stdout and "Follow-up" in result.stdout
    assert "Type numbers from 1 to 2, a, or Enter." in result.stdout  # 9 is not a key point
    assert "1 of 2 key points (50%)" in result.stdout and "saved as mock interview #1." in result.stdout
    rows = db.execute("SELECT position, card_id, follow_up, answer, points, made, rating FROM mock_answers ORDER BY id")
    assert [tuple(r) for r in rows] == [
        (1, "mini-card", None, "small\ntidy too", 2, "[1]", 3),
        (2, "mini-card", 0, "because", 0, None, None),
    ]
    mock = db.execute("SELECT topic, minutes, ended_at FROM mock_interviews").fetchone()
    assert mock["topic"] is None and mock["minutes"] == 5 and mock["ended_at"]
    assert tuple(db.execute("SELECT item_id, response, rating FROM ratings").fetchone()) == (
        "mini-card",
        "small\ntidy too",
        3,
    )
    log = db.execute("SELECT kind, rating, state_before, duration_ms FROM review_logs").fetchone()
    assert (log["kind"], log["rating"], log["state_before"]) == ("card", 3, 1) and log["duration_ms"] is not None
    history = invoke(runner, ["mock", "--history"])
    assert history.exit_code == 0 and "│ 1 │" in history.stdout and "1/2 (50%)" in history.stdout


def test_a_follow_up_is_debriefed_beside_its_own_key_points(runner, db) -> None:
    """ "Why?" came back with "(no answer)" and nothing to set it against."""
    result = invoke(runner, ["mock", "--minutes", "5"], "small\n\n\n1\n")
    assert result.exit_code == 0, result.output
    debrief = result.stdout.split("Debrief")[-1]
    follow_up = debrief[debrief.index("Why?") :]
    assert "(no answer)" in follow_up and "• smallness keeps them tidy" in follow_up
    assert "Compare your follow-up answers" not in result.stdout  # no longer the card's model answer
    assert db.execute("SELECT points FROM mock_answers WHERE follow_up = 0").fetchone()[0] == 0  # shown, not scored
    chinese = invoke(runner, ["mock", "--minutes", "5", "--lang", "zh"], "小\n\n\n1\n")
    assert chinese.exit_code == 0 and "• 小才整洁" in chinese.stdout


def test_an_unanswered_card_is_scored_again_without_asking(runner, db) -> None:
    result = invoke(runner, ["mock"], "\n\n")
    assert result.exit_code == 0
    assert "Key points you made" not in result.stdout and "(no answer)" in result.stdout
    assert db.execute("SELECT rating FROM ratings").fetchone()[0] == 1


def test_end_of_input_keeps_the_answers_given(runner, db) -> None:
    result = invoke(runner, ["mock"], "only this\n")
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert db.execute("SELECT answer, made FROM mock_answers").fetchall()[0][:] == ("only this", None)
    assert db.execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0


def test_editor_answers(runner, db, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "from the editor\\n\\n# a comment\\n" > "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(editor))
    result = invoke(runner, ["mock", "--editor"], "a\n")
    assert result.exit_code == 0, result.output
    answers = [r[0] for r in db.execute("SELECT answer FROM mock_answers ORDER BY id")]
    assert answers == ["from the editor", "from the editor"]
    assert json.loads(db.execute("SELECT made FROM mock_answers WHERE follow_up IS NULL").fetchone()[0]) == [1, 2]


def test_no_answer_at_all(runner, db) -> None:
    result = invoke(runner, ["mock"], "")
    assert result.exit_code == 0 and "No answer was given: nothing to score.\nNext: " in result.stdout
    assert db.execute("SELECT COUNT(*) FROM mock_answers").fetchone()[0] == 0
    # A mock with no answer is not saved (it was, as an empty row in --history).
    assert db.execute("SELECT COUNT(*) FROM mock_interviews").fetchone()[0] == 0


def test_topic_in_any_case(runner, db) -> None:
    assert invoke(runner, ["mock", "--topic", "MINI"], "an answer\n\n").exit_code == 0
    assert db.execute("SELECT topic FROM mock_interviews").fetchone()[0] == "mini"


def test_bad_options_and_empty_history(runner) -> None:
    assert "No mock interviews yet" in invoke(runner, ["mock", "--history"]).stdout
    for args, name in ((["mock", "--minutes", "0"], "--minutes"), (["mock", "--topic", "zzz"], "--topic")):
        result = invoke(runner, args, "")
        assert result.exit_code == 2 and name in result.stderr and "Traceback" not in result.output


@pytest.mark.slow
def test_mock_in_a_real_terminal(isolated_home: Path) -> None:
    """A pasted two-line answer with a `3` typed ahead, then a `2` typed ahead of the debrief: both dropped."""
    pexpect = pytest.importorskip("pexpect")
    env = {
        **os.environ,
        "NORMKATA_HOME": str(isolated_home),
        "NORMKATA_QUIZZES": str(FIXTURES / "good"),
        "NORMKATA_LANG": "en",
        "TERM": "xterm",
        "COLUMNS": "100",
    }
    child = spawn_normkata(["mock", "--minutes", "5"], env)
    child.expect("Explain minis.")
    child.expect(r"Your answer \(\d:\d\d left\):")
    child.send("small\ntidy too\n\n3\n")  # pasted at once: the answer, its end, and a key typed ahead
    child.expect("Why\\?")
    child.expect(r"Your answer \(\d:\d\d left\):")
    child.send("because\n\n2\n")
    child.expect("Key points you made")
    child.sendline("1")
    child.expect(r"saved as mock interview #1\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    import sqlite3

    db = sqlite3.connect(isolated_home / "normkata.db")
    rows = db.execute("SELECT follow_up, answer, made, rating FROM mock_answers ORDER BY id").fetchall()
    assert db.execute("SELECT item_id, rating FROM ratings").fetchall() == [("mini-card", 3)]
    db.close()
    assert rows == [(None, "small\ntidy too", "[1]", 3), (0, "because", None, None)]


@pytest.mark.slow
def test_interview_in_a_real_terminal(isolated_home: Path) -> None:
    """The issue's two findings: a pasted second line is not the rating, a `3` typed ahead rates nothing."""
    pexpect = pytest.importorskip("pexpect")
    env = {
        **os.environ,
        "NORMKATA_HOME": str(isolated_home),
        "NORMKATA_QUIZZES": str(FIXTURES / "good"),
        "NORMKATA_LANG": "en",
        "TERM": "xterm",
        "COLUMNS": "100",
    }
    child = spawn_normkata(["interview"], env)
    child.expect("Your answer")
    child.send("first line\nsecond line\n\n3\n")  # pasted, with a rating typed before the key points were shown
    child.expect("How did you do\\?")
    child.sendline("2")
    child.expect("card\\(s\\) rated and saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    import sqlite3

    db = sqlite3.connect(isolated_home / "normkata.db")
    assert db.execute("SELECT response, rating FROM ratings").fetchall() == [("first line\nsecond line", 2)]
    db.close()


# -- the kernel question ----------------------------------------------------------------


def _topic_card(card_id: str, topic: str, difficulty: str = "easy") -> Card:
    return Card(
        card_id, topic, difficulty, Text(card_id, card_id), (Text("a", "a"), Text("b", "b")), Text("", ""), (), "beyond"
    )


def test_a_required_topic_is_planned_even_where_the_order_of_study_leaves_it_out() -> None:
    cards = [
        _topic_card("why-1", "why"),
        _topic_card("bn-1", "batchnorm"),
        _topic_card("ln-1", "layernorm"),
        _topic_card("kern-1", "kernels", "hard"),
    ]
    assert [a.card.id for a in interview_order(cards, minutes=5, strength={})] == ["why-1", "bn-1"]
    planned = interview_order(cards, minutes=5, strength={}, must="kernels")
    assert [a.card.id for a in planned] == ["why-1", "kern-1"]  # one card fewer from the rest, easy first
    assert [a.card.id for a in interview_order(cards, minutes=1, strength={}, must="kernels")] == ["kern-1"]
    assert interview_order(cards[:3], minutes=5, strength={}, must="kernels") == interview_order(cards[:3], 5, {})


def _kernel_mock(runner, monkeypatch: pytest.MonkeyPatch, answer: str):  # type: ignore[no-untyped-def]
    """A 5-minute mock on the real bank whose clock runs out after the first question."""
    monkeypatch.setenv("NORMKATA_FAKE_CLOCK_STEP", "100")
    return invoke(runner, ["mock", "--minutes", "5"], answer)


def _asked_topics(db) -> list[str]:  # type: ignore[no-untyped-def]
    from normkata.content.bank import load_bank

    bank = load_bank()
    return [bank.card(row["card_id"]).topic for row in db.execute("SELECT card_id FROM mock_answers ORDER BY id")]


def test_no_kernel_question_before_kernels_were_studied(runner, db, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NORMKATA_QUIZZES")
    result = _kernel_mock(runner, monkeypatch, "an answer\n\n1\n")
    assert result.exit_code == 0, result.output
    assert _asked_topics(db) == ["why"]  # fundamentals first


def test_after_a_kernels_question_the_mock_asks_a_kernel_card_and_scores_it(
    runner, db, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NORMKATA_QUIZZES")
    assert invoke(runner, ["quiz", "--id", "kern-masked-lanes"], "212\n").exit_code == 0
    result = _kernel_mock(runner, monkeypatch, "eager writes every intermediate\n\n1\n")
    assert result.exit_code == 0, result.output
    assert "Time is up." in result.stdout  # the fake clock ends the mock after the first question
    assert _asked_topics(db) == ["kernels"]
    row = db.execute("SELECT card_id, points, made, rating FROM mock_answers").fetchone()
    assert (row["made"], row["rating"]) == ("[1]", 2 if row["points"] > 2 else 3)  # 1 key point of 4 or 5: Hard
    rated = db.execute("SELECT item_id, topic, rating FROM ratings").fetchone()
    assert (rated["item_id"], rated["topic"], rated["rating"]) == (row["card_id"], "kernels", row["rating"])
    # A mock on one topic asks only that topic, studied kernels or not.
    assert invoke(runner, ["mock", "--minutes", "5", "--topic", "rmsnorm"], "x\n\n1\n").exit_code == 0
    assert _asked_topics(db)[-1] == "rmsnorm"


def test_a_graded_triton_kata_counts_as_kernel_study(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from normkata.content.bank import load_bank
    from normkata.practice.mock import studied_kernels
    from normkata.record.attempts import KataLog
    from normkata.record.store import open_store
    from tests.grades import grade_result

    monkeypatch.delenv("NORMKATA_QUIZZES")
    bank, store = load_bank(), open_store()
    try:
        assert not studied_kernels(bank, store)
        KataLog(store).event("triton_rmsnorm", "start")  # opening the kata is not studying it
        KataLog(store).attempt(grade_result("rmsnorm", {"forward": "passed"}), "cpu")  # nor is another kata
        assert not studied_kernels(bank, store)
        KataLog(store).attempt(grade_result("triton_rmsnorm", {"forward": "failed"}), "cpu")
        assert studied_kernels(bank, store)
    finally:
        store.close()


def test_no_question_is_started_at_0_00_left(runner, db, monkeypatch: pytest.MonkeyPatch) -> None:
    """With under half a minute left the mock ends: "0:00 left" is no time for a follow-up."""
    from normkata.loop import mock as session

    readings = iter([0.0, 0.0, 1.0, 5 * 60 - 20.0, 5 * 60 - 20.0, 5 * 60 - 20.0, 5 * 60 - 20.0])
    monkeypatch.setattr("normkata.practice.mock.clock", lambda: next(readings, 5 * 60 - 20.0))
    result = invoke(runner, ["mock", "--minutes", "5"], "small\n\n1\n")
    assert result.exit_code == 0, result.output
    assert "Follow-up" not in result.stdout and "0:00 left" not in result.stdout
    assert "Time is up." in result.stdout
    assert session.MIN_SECONDS_TO_ASK == 30
    rows = db.execute("SELECT follow_up FROM mock_answers").fetchall()
    assert [r[0] for r in rows] == [None]


def test_the_numbered_key_points_stand_right_above_the_prompt_that_ticks_them(runner) -> None:
    result = invoke(runner, ["mock", "--minutes", "5"], "small\n\nbecause\n\n1\n")
    assert result.exit_code == 0, result.output
    debrief = result.stdout[result.stdout.index("Debrief") :]
    above = debrief[: debrief.index("Key points you made")].rstrip().splitlines()
    assert any("1. small" in line for line in above[-4:]), above[-6:]


def test_a_follow_ups_key_points_wrap_whole_at_80_columns_in_chinese() -> None:
    """The debrief's follow-up table cut Chinese key points with "…" at 80 columns (a tmux run)."""
    import io

    from rich.console import Console

    from normkata.commands.mock import _follow_up_side
    from normkata.loop.mock import Given

    point = "残差连接给梯度提供了恒等路径，深度增加时梯度仍能直接回传到前面的层，归一化则让每个子层的输入尺度保持稳定"
    card = Card(
        id="c",
        topic="t",
        difficulty="easy",
        prompt=Text("Q", "问题"),
        key_points=(Text("p", "要点"),),
        answer=Text("A", "答"),
        follow_ups=(Text("Why?", "为什么？"),),
        follow_up_points=((Text("x", point),),),
        source="doc",
    )
    shown = io.StringIO()
    Console(file=shown, width=80, color_system=None).print(
        _follow_up_side(Given(Asked(card, 0), "残差是恒等路径", 5, 1), "zh")
    )
    text = shown.getvalue()
    assert "…" not in text
    assert point in "".join(line.strip(" •") for line in text.splitlines())
