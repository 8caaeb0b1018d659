"""`normkata` alone and `normkata progress`."""

from __future__ import annotations

import json
import re

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
    invoke(runner, ["interview"], "\n4\n")
    report = json.loads(invoke(runner, ["progress", "--json"]).stdout)
    assert report["topics"][0]["mastery"] == 1.0
    text = invoke(runner, ["progress"]).stdout
    assert "██████████ 100%" in text and "1/1" in text


def test_dashboard_in_chinese(runner) -> None:
    result = invoke(runner, ["--lang", "zh"])
    assert "normkata：你的进度" in result.stdout and "已通过的编程练习：0/" in result.stdout
