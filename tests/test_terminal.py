"""Drive `normkata quiz` through a real pseudo-terminal, as a learner would."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tests.terminal import spawn_normkata

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.slow

ANSWER = {"mini-single": "B", "mini-multiple": "AC", "mini-tf": "t", "mini-numeric": "4", "mini-order": "BCA"}
WRONG = {"mini-single": "A", "mini-multiple": "B", "mini-tf": "f", "mini-numeric": "9", "mini-order": "ABC"}
ASK = r"(Your answer|True or false|Your number|The right order)[^:]*:"
PROMPT_OF = {
    "Pick B.": "mini-single",
    "Pick A and C.": "mini-multiple",
    "True?": "mini-tf",
    "Two plus two?": "mini-numeric",
    "Order 1 2 3.": "mini-order",
}


def _spawn(args: list[str], home: Path) -> pexpect.spawn:
    from tests.conftest import FIXTURES

    env = {
        **os.environ,
        "NORMKATA_HOME": str(home),
        "NORMKATA_QUIZZES": str(FIXTURES / "good"),
        "NORMKATA_LANG": "en",
        "TERM": "xterm",
        "COLUMNS": "100",
    }
    return spawn_normkata(args, env)


def test_quiz_in_a_real_terminal(isolated_home: Path) -> None:
    child = _spawn(["quiz", "-n", "5", "--seed", "1"], isolated_home)
    asked = []
    for number in range(1, 6):
        child.expect(rf"Question {number}/5")
        index = child.expect(list(PROMPT_OF))
        item = PROMPT_OF[list(PROMPT_OF)[index]]
        asked.append(item)
        child.expect(ASK)
        if number == 1:
            child.sendline("Q")  # unreadable at a terminal: asked again, nothing recorded
            child.expect("Try again")
            child.expect(ASK)
        child.sendline(WRONG[item] if number == 2 else ANSWER[item])
        child.expect(["Correct", "Not quite"])
    child.expect("Summary")
    child.expect("All")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    db = sqlite3.connect(isolated_home / "normkata.db")
    rows = db.execute("SELECT item_id, correct FROM answers ORDER BY id").fetchall()
    db.close()
    assert [r[0] for r in rows] == asked
    assert [bool(r[1]) for r in rows] == [True, False, True, True, True]


def test_ctrl_c_in_a_real_terminal(isolated_home: Path) -> None:
    child = _spawn(["quiz", "-n", "5", "--seed", "1"], isolated_home)
    child.expect("Question 1/5")
    index = child.expect(list(PROMPT_OF))
    child.expect(ASK)
    child.sendline(ANSWER[PROMPT_OF[list(PROMPT_OF)[index]]])
    child.expect("Question 2/5")
    child.sendintr()
    child.expect("Stopped early: 1 of 5 answered")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in (child.before or "")
    db = sqlite3.connect(isolated_home / "normkata.db")
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 1
    db.close()
