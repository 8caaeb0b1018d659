"""Readers stay tolerant of a row they cannot use: a database edited by hand with sqlite3 is
skipped row by row, said once, never a traceback.

Each case writes one kind of nonsense into one column of a real record (as `sqlite3 normkata.db`
would) and runs every command that reads it; the control is the same record untouched.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from normkata.paths import database_path
from normkata.record.attempts import KataLog
from normkata.record.store import Store, iso, utcnow
from tests.grades import grade_result
from tests.test_learning_loop import graded, prepared_record

#: Every command run against a hand-edited database: 64 s of test time, the slow tier's.
pytestmark = pytest.mark.slow

SKIPPED = "could not be used and"

#: Every command that reads the record, with the input it needs to end by itself.
READERS: list[tuple[list[str], str | None]] = [
    (["progress"], None),
    (["progress", "--json"], None),
    (["next"], None),
    (["plan", "--minutes", "60"], None),
    (["plan", "--until", (date.today() + timedelta(days=10)).isoformat()], None),  # remembered: the dated plan
    (["progress"], None),  # again, now with an interview date: the recall on the day
    (["review", "-n", "3"], ""),
    (["quiz", "--id", "rms-formula"], "1\n"),
    (["interview", "--id", "card-why-rmsnorm"], "an answer\n\n3\n"),
    (["solution", "rmsnorm", "--yes"], None),
    (["hint", "rmsnorm"], None),
    (["history"], None),
    (["history", "rmsnorm", "--diff"], None),
    (["mock", "--history"], None),
    (["grade", "rmsnorm"], None),  # the grader replaced by a pass (`fake_grader`): what a pass reads and writes
]

GOOD_CARD = {
    "card_id": 1,
    "state": 2,
    "step": None,
    "stability": 3.0,
    "difficulty": 5.0,
    "due": "2024-01-10T00:00:00+00:00",
    "last_review": "2024-01-01T00:00:00+00:00",
}

#: (case id, SQL run on the record). Each breaks what one reader parses; those in NOTED are skipped
#: and said, the others read as something harmless (a due date of "0000" is simply due).
EDITS: list[tuple[str, str]] = [
    ("card not json", "UPDATE srs SET card_json = 'not json' WHERE item_id = 'rms-formula'"),
    ("card negative stability", "UPDATE srs SET card_json = '" + json.dumps({**GOOD_CARD, "stability": -1}) + "'"),
    (
        "card nan difficulty",
        "UPDATE srs SET card_json = '" + json.dumps({**GOOD_CARD, "difficulty": float("nan")}) + "'",
    ),
    ("card naive due", "UPDATE srs SET card_json = '" + json.dumps({**GOOD_CARD, "due": "2024-01-10T00:00:00"}) + "'"),
    ("card missing keys", "UPDATE srs SET card_json = '{\"state\": 2}'"),
    ("card is a list", "UPDATE srs SET card_json = '[1, 2]'"),
    ("due 0000", "UPDATE srs SET due = '0000'"),
    ("due naive", "UPDATE srs SET due = '2024-01-01T00:00:00'"),
    (
        "parameters nan",
        "INSERT INTO fsrs_parameters (parameters, reviews, fitted_at) VALUES "
        "('[" + ", ".join(["NaN"] * 21) + "]', 600, '2024-01-01T00:00:00+00:00')",
    ),
    (
        "parameters short",
        "INSERT INTO fsrs_parameters (parameters, reviews, fitted_at) VALUES "
        "('[1, 2]', 600, '2024-01-01T00:00:00+00:00')",
    ),
    (
        "parameters text",
        "INSERT INTO fsrs_parameters (parameters, reviews, fitted_at) VALUES ('x', 600, '2024-01-01T00:00:00+00:00')",
    ),
    ("attempt cases not json", "UPDATE kata_attempts SET cases = 'x'"),
    ("attempt diagnosis not json", "UPDATE kata_attempts SET diagnosis = 'x'"),
    ("attempt diagnosis of numbers", "UPDATE kata_attempts SET diagnosis = '[1, 2]'"),
    ("attempt diagnosis id a number", "UPDATE kata_attempts SET diagnosis = '[{\"id\": 5}]'"),
    ("attempt counts not json", "UPDATE kata_attempts SET counts = 'x'"),
    ("attempt at garbage", "UPDATE kata_attempts SET at = 'x'"),
    ("attempt at naive", "UPDATE kata_attempts SET at = '2024-01-01T00:00:00'"),
    ("attempt at null-ish", "UPDATE kata_attempts SET at = ''"),
    ("attempt score text", "UPDATE kata_attempts SET score = 'lots', max_score = 'many'"),
    ("attempt huge duration", "UPDATE kata_attempts SET duration_s = 9223372036854775807"),
    ("attempt seed text", "UPDATE kata_attempts SET seed = 'x'"),
    (
        "round detail not json",
        "INSERT INTO kata_events (kata, kind, detail, at) VALUES "
        "('rmsnorm', 'review', 'x', '2024-01-01T00:00:00+00:00')",
    ),
    (
        "round detail a list",
        "INSERT INTO kata_events (kata, kind, detail, at) VALUES "
        "('rmsnorm', 'review', '[1]', '2024-01-01T00:00:00+00:00')",
    ),
    ("event at garbage", "UPDATE kata_events SET at = 'x'"),
    ("review log huge duration", "UPDATE review_logs SET duration_ms = 9223372036854775807"),
    ("review log at garbage", "UPDATE review_logs SET reviewed_at = 'x'"),
    ("review log rating 99", "UPDATE review_logs SET rating = 99, state_before = 'x'"),
    ("rating 99", "UPDATE ratings SET rating = 99"),
    ("answer correct text", "UPDATE answers SET correct = 'x'"),
    ("mock made not json", "UPDATE mock_answers SET made = 'x'"),
    ("mock made huge", "UPDATE mock_answers SET made = '[" + ", ".join(["1"] * 50) + "]'"),
    ("mock seconds text", "UPDATE mock_interviews SET seconds_used = 'x'"),
    ("mock points zero", "UPDATE mock_answers SET points = 0, made = '[0, 1]'"),
    (
        "escape sequences in ids",
        "UPDATE kata_attempts SET kata = 'rmsnorm\x1b[2J\x1b]0;owned\x07', "
        'diagnosis = \'[{"id": "x\x1b[31m", "title": "\x1b[2Jred"}]\', '
        'cases = \'{"\x1b[2Jcase": "failed"}\'',
    ),
    (
        "interview in 9999",
        "INSERT OR REPLACE INTO settings (name, value, set_at) VALUES "
        "('interview_date', '9999-12-31', '2024-01-01T00:00:00+00:00')",
    ),
    (
        "interview date not a date",
        "INSERT OR REPLACE INTO settings (name, value, set_at) VALUES "
        "('interview_date', 'soon', '2024-01-01T00:00:00+00:00')",
    ),
    (
        "minutes a day beyond a day",
        "INSERT OR REPLACE INTO settings (name, value, set_at) VALUES "
        "('minutes_per_day', '99999999999', '2024-01-01T00:00:00+00:00')",
    ),
    (
        "unknown kata due",
        "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES "
        "('kata:\x1b[2Jnope', 'kata', 'x', '" + json.dumps(GOOD_CARD) + "', '2024-01-10T00:00:00+00:00')",
    ),
    (
        "unknown item due",
        "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES "
        "('\x1b[2Jnope', 'card', 'x', '" + json.dumps(GOOD_CARD) + "', '2024-01-10T00:00:00+00:00')",
    ),
]


NOTED = {
    "card not json",
    "card negative stability",
    "card nan difficulty",
    "card naive due",
    "card missing keys",
    "card is a list",
    "parameters nan",
    "parameters short",
    "parameters text",
    "attempt diagnosis not json",
    "attempt diagnosis of numbers",
    "attempt diagnosis id a number",
    "round detail not json",
    "round detail a list",
    "mock seconds text",
    "escape sequences in ids",
    "interview in 9999",
    "interview date not a date",
    "minutes a day beyond a day",
}


@pytest.fixture(autouse=True)
def fake_grader(monkeypatch: pytest.MonkeyPatch) -> None:
    """`grade` records a pass without grading: the record's readers are what is tested."""
    from normkata.grading import client

    passed = grade_result("rmsnorm", {"forward": "passed"}, named={"rms-eps-outside-sqrt": "eps"})
    monkeypatch.setattr(client, "grade_once", lambda *args, **kwargs: passed)


@pytest.fixture
def record(tmp_path: Path) -> Iterator[Path]:
    """A record with a bit of everything, a hint taken in the kata's round, and the kata's file."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "rmsnorm.py").write_text("# mine\n", encoding="utf-8")
    store = Store(database_path())
    try:
        prepared_record(store)
        graded(store, "rmsnorm", False, 13, ("rms-eps-outside-sqrt",))
        KataLog(store).event("rmsnorm", "hint", "1")
        store._conn.execute("UPDATE srs SET due = ?", (iso(utcnow() - timedelta(days=1)),))
    finally:
        store.close()
    yield database_path()


def _run_every_reader(runner) -> list[tuple[list[str], object]]:  # type: ignore[no-untyped-def]
    from normkata.cli import cli

    outcomes = []
    for args, stdin in READERS:
        result = runner.invoke(cli, args, input=stdin)
        outcomes.append((args, result))
    return outcomes


def _problems(outcomes) -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    for args, result in outcomes:
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            import traceback

            found.append(f"{' '.join(args)}: {''.join(traceback.format_exception(result.exception))[-1500:]}")
        elif result.exit_code not in (0, 1):
            found.append(f"{' '.join(args)}: exit {result.exit_code}: {result.output[-300:]}")
        elif "\x1b[2J" in result.output or "\x1b]0" in result.output:
            found.append(f"{' '.join(args)}: an escape sequence from the record reached the terminal")
        elif result.output.count(SKIPPED) > 1:
            found.append(f"{' '.join(args)}: said more than once")
    return found


def test_control_every_reader_runs_on_the_untouched_record(record: Path, runner) -> None:  # type: ignore[no-untyped-def]
    outcomes = _run_every_reader(runner)
    assert _problems(outcomes) == []
    assert all(SKIPPED not in result.output for _args, result in outcomes)


@pytest.mark.parametrize(("case", "sql"), EDITS, ids=[case for case, _sql in EDITS])
def test_every_reader_survives_a_hand_edited_row(record: Path, runner, case: str, sql: str) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(record) as db:
        db.execute(sql)
    outcomes = _run_every_reader(runner)
    assert _problems(outcomes) == []
    said = [" ".join(args) for args, result in outcomes if SKIPPED in result.output]
    assert bool(said) == (case in NOTED), said


#: A hand-edited row, and how the note names it: the record's table and the row's id, which the
#: record's own rows carry (`.where`), so no reader above the record spells a table.
NAMED_ROWS = [
    ("mock seconds text", "mock_interviews #1: seconds_used: must be a number of seconds"),
    ("round detail not json", "kata_events #"),
    ("attempt diagnosis not json", "kata_attempts #"),
]


@pytest.mark.parametrize(("case", "named"), NAMED_ROWS, ids=[case for case, _named in NAMED_ROWS])
def test_the_note_names_the_row(record: Path, runner, case: str, named: str) -> None:  # type: ignore[no-untyped-def]
    with sqlite3.connect(record) as db:
        db.execute(dict(EDITS)[case])
    shown = " ".join(result.output for _args, result in _run_every_reader(runner))
    assert named in " ".join(shown.split()), shown[-600:]
