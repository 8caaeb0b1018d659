"""A fresh home's first evening in a real terminal: next → the diagnostic quiz → an
interview card rated with one key → a 5-minute mock on a fake clock that fills its time →
review (right answers are not due the same evening) → the dashboard shows the mock."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from normkata.content.bank import load_bank
from normkata.practice.curriculum import core_topics, diagnostic
from normkata.practice.mock import FAKE_CLOCK_ENV
from tests.terminal import spawn_normkata

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "NORMKATA_HOME": str(home), "NORMKATA_LANG": "en", "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NORMKATA_QUIZZES", None)  # the real bank
    return {**env, **extra}


def _spawn(args: list[str], home: Path, **extra: str) -> pexpect.spawn:
    return spawn_normkata(args, _env(home, **extra))


def _run(args: list[str], home: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "normkata", *args],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def _right(item_id: str) -> str:
    question = load_bank().question(item_id)
    assert question is not None and question.type in ("single", "multiple")
    answer = question.answer
    return "".join(answer) if isinstance(answer, tuple) else str(answer)


def test_a_fresh_home_first_evening(isolated_home: Path) -> None:
    home = isolated_home
    # 1. next: the diagnostic quiz, and plan starts with the same step.
    advice = json.loads(_run(["next", "--json"], home))
    assert advice["command"] == "normkata quiz -n 5"
    assert json.loads(_run(["plan", "--minutes", "45", "--json"], home))["steps"][0]["command"] == advice["command"]

    # 2. The quiz: one question per core topic; every answer right.
    expected = [q.id for q in diagnostic(load_bank().questions, 5)]
    child = _spawn(["quiz", "-n", "5"], home)
    for number, item in enumerate(expected, start=1):
        child.expect(rf"Question {number}/5")
        child.expect(r"Your answer[^:]*:")
        child.sendline(_right(item))
        child.expect("Correct")
    child.expect(r"Comes back in normkata review: 5 in \d+ days")
    child.expect("Next: ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    # 3. One interview card, rated with one key press; each choice shows its interval first.
    child = _spawn(["interview", "-n", "1"], home)
    child.expect("Card 1/1.*Why we normalize · easy")
    child.expect("Your answer")
    child.send("gradients stay in range\n\n")
    child.expect(r"1 Again \(1 min\)  2 Hard \(\d+ min\)  3 Good \(\d+ days?\)  4 Easy \(\d+ days?\)")
    child.send("3")  # no Enter
    child.expect("Good · Next review: in \\d+ days?")
    child.expect("1 card\\(s\\) rated and saved")
    child.expect("Next: ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    # 4. A 5-minute mock on a fake clock (each reading moves it 20 s): it asks until time is up.
    child = _spawn(["mock", "--minutes", "5"], home, **{FAKE_CLOCK_ENV: "20"})
    child.expect("Mock interview: 5 min")
    answers = 0
    while child.expect([r"Your answer \(\d:\d\d left\):", "Time is up"]) == 0:
        child.send(f"answer {answers}\n\n")
        answers += 1
        assert answers < 30, "the mock never ends"
    while child.expect(["Key points you made", "Scorecard"]) == 0:
        child.sendline("a")
    child.expect(r"in 5:00; saved as mock interview #1\.")
    child.expect("Next: ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    db = sqlite3.connect(home / "normkata.db")
    cards = db.execute("SELECT COUNT(*) FROM mock_answers WHERE follow_up IS NULL").fetchone()[0]
    used = db.execute("SELECT seconds_used FROM mock_interviews").fetchall()
    topics = {row[0] for row in db.execute("SELECT topic FROM ratings")}
    db.close()
    assert used == [(300,)], "one duration, the whole 5 minutes"
    assert cards >= 2, "more than one card: the mock fills its minutes"
    assert len(topics & set(core_topics())) >= 2, "cards drawn across the curriculum"

    # 5. Review: everything answered right is scheduled days ahead; more practice is offered.
    out = _run(["review"], home)
    assert "Nothing is due. Next item due: in " in out and "Next item due: now" not in out
    assert "For more practice now: normkata " in out

    # 6. The dashboard shows the mock and the time studied.
    out = " ".join(_run([], home).split())  # the dashboard wraps its lines to the terminal
    assert "Mock interviews: 1; the last one made 100% of its key points" in out
    assert "Time studied: " in out
