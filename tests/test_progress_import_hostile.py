"""`progress import` of a file someone else wrote: every field is checked for meaning before
anything is written.

Each attack is our own: a real export of a prepared record with one field made hostile. It must
be refused with exit 2 and one line naming the field, the learner's record unchanged row for
row; the control, the same export without the trick, imports.
"""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from normkata.record.attempts import KataLog
from normkata.record.store import Store, iso, utcnow
from normkata.record.transfer import MAX_FILE_BYTES, export_document, import_document
from tests.conftest import invoke
from tests.grades import grade_result
from tests.test_learning_loop import prepared_record

Document = dict[str, Any]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Document:
    """A desktop's whole record, exported: answers, ratings, review logs, a kata passed, a mistake
    named, a mock, and a fit of FSRS parameters (fsrs's defaults, so that they are valid)."""
    from fsrs import Scheduler

    desktop = Store(tmp_path_factory.mktemp("desktop") / "normkata.db")
    try:
        prepared_record(desktop)
        with desktop.transaction():
            desktop._conn.execute(
                "INSERT INTO fsrs_parameters (parameters, reviews, retention_before, retention_after, recalled, "
                "fitted_at) VALUES (?, 600, 0.8, 0.85, 0.84, ?)",
                (json.dumps(list(Scheduler().parameters)), iso(utcnow())),
            )
            desktop._conn.execute("UPDATE mock_answers SET made = '[0, 2]', rating = 3")
        desktop.set_setting("interview_date", (utcnow() + timedelta(days=30)).date().isoformat())
        return export_document(desktop)
    finally:
        desktop.close()


@pytest.fixture
def laptop(isolated_home: Path) -> Iterator[Store]:
    """The learner's own record on this machine, which a refused file must leave as it was."""
    store = Store(isolated_home / "normkata.db")
    session = store.start_session("quiz", "en")
    from normkata.practice.srs import schedule

    store.record_answer(session, "rms-bug-keepdim", "rmsnorm", "A", False, schedule(store, "rms-bug-keepdim", 1))
    yield store
    store.close()


def rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, read through a connection of its own."""
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {table: db.execute(f"SELECT * FROM {table}").fetchall() for table in tables}


def write(path: Path, document: Document) -> Path:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def srs_index(document: Document, item: str) -> int:
    return next(i for i, row in enumerate(document["tables"]["srs"]) if row["item_id"] == item)


def event_index(document: Document, kind: str) -> int:
    return next(i for i, row in enumerate(document["tables"]["kata_events"]) if row["kind"] == kind)


def card_edit(item: str, **changes: object) -> Callable[[Document], None]:
    def edit(document: Document) -> None:
        row = document["tables"]["srs"][srs_index(document, item)]
        row["card_json"] = json.dumps({**json.loads(row["card_json"]), **changes})

    return edit


def set_field(table: str, column: str, value: object, index: int = 0) -> Callable[[Document], None]:
    def edit(document: Document) -> None:
        document["tables"][table][index][column] = value

    return edit


def add_setting(name: str, value: str) -> Callable[[Document], None]:
    def edit(document: Document) -> None:
        set_at = document["tables"]["settings"][0]["set_at"]
        document["tables"]["settings"].append({"name": name, "value": value, "set_at": set_at})

    return edit


def set_review_detail(value: str) -> Callable[[Document], None]:
    def edit(document: Document) -> None:
        document["tables"]["kata_events"][event_index(document, "review")]["detail"] = value

    return edit


def add_review_event(document: Document) -> None:
    """A kata written again: a 'review' event naming the last attempt before its round."""
    attempts = document["tables"]["kata_attempts"]
    events = document["tables"]["kata_events"]
    events.append(
        {
            "id": max(e["id"] for e in events) + 1,
            "kata": "rmsnorm",
            "kind": "review",
            "detail": json.dumps({"after_attempt": attempts[-1]["id"]}),
            "at": attempts[-1]["at"],
        }
    )


FUTURE = "2999-01-01T00:00:00+00:00"
NAN_PARAMETERS = "[" + ", ".join(["NaN"] * 21) + "]"

#: (attack, how the export is made hostile, what the refusal names). Field paths index from 0.
ATTACKS: list[tuple[str, Callable[[Document], None], str]] = [
    ("counts not JSON", set_field("kata_attempts", "counts", "{passed: 3"), "kata_attempts[0].counts: is not JSON"),
    (
        "cases not an object",
        set_field("kata_attempts", "cases", "[1, 2]"),
        "kata_attempts[0].cases: must be an object of case id -> status",
    ),
    (
        "case status unknown",
        set_field("kata_attempts", "cases", '{"forward": "won"}'),
        "kata_attempts[0].cases: must map a case id to one of passed, failed, error, skipped",
    ),
    (
        "setting set in the future",
        set_field("settings", "set_at", FUTURE),
        "settings[0].set_at: is later than now",
    ),
    (
        "setting name not an id",
        set_field("settings", "name", "Interview Date; DROP"),
        "settings[0].name: must be an id",
    ),
    ("setting value too long", set_field("settings", "value", "9" * 201), "settings[0].value: must be at most 200"),
    # Settings the readers would reject: each is held to its own rule (record/fields.SETTINGS) at the door.
    *[
        (
            f"interview date {value}",
            set_field("settings", "value", value),
            f"settings[0].value: {why}, got {json.dumps(value)} (interview_date)",
        )
        for value, why in (
            ("2999-01-01", "must be at most 366 days ahead"),
            ("2026-13-45", "must be a date (YYYY-MM-DD)"),
            ("tomorrow", "must be a date (YYYY-MM-DD)"),
            ("20271207", "must be a date (YYYY-MM-DD)"),
        )
    ],
    *[
        (
            f"minutes a day {value}",
            add_setting("minutes_per_day", value),
            f"settings[1].value: must be 5 to 720, got {json.dumps(value)} (minutes_per_day)",
        )
        for value in ("-1", "1e9", "NaN", "0", "721")
    ],
    *[
        (
            f"target recall {value}",
            add_setting("target_recall", value),
            f"settings[1].value: must be 0.7 to 0.97, got {json.dumps(value)} (target_recall)",
        )
        for value in ("NaN", "0.5", "1", "1e9", "high")
    ],
    (
        "an unknown setting",
        add_setting("theme", "dark"),
        'settings[1].name: must be one of interview_date, minutes_per_day, target_recall, got "theme"',
    ),
    (
        "diagnosis not JSON",
        set_field("kata_attempts", "diagnosis", "rms-eps"),
        "kata_attempts[0].diagnosis: is not JSON",
    ),
    (
        "diagnosis nested deep",
        set_field("kata_attempts", "diagnosis", "[" * 6 + "]" * 6),
        "kata_attempts[0].diagnosis: nests arrays or objects deeper than 4 levels",
    ),
    (
        "FSRS parameters NaN",
        set_field("fsrs_parameters", "parameters", NAN_PARAMETERS),
        "fsrs_parameters[0].parameters[0]: must be a finite number from -1e+06 to 1e+06, got NaN",
    ),
    (
        "FSRS parameters too few",
        set_field("fsrs_parameters", "parameters", "[0.2, 1.2]"),
        "fsrs_parameters[0].parameters: must be a JSON list of 21 numbers",
    ),
    (
        "FSRS parameters out of fsrs's bounds",
        set_field("fsrs_parameters", "parameters", json.dumps([100.0] * 21)),
        "fsrs_parameters[0].parameters: parameters[4] = 100.0 is out of bounds: (1.0, 10.0)",
    ),
    (
        "negative stability",
        card_edit("rms-formula", stability=-1),
        "srs[{rms-formula}].card_json.stability: must be a positive finite number from 0.001 to 100000, got -1",
    ),
    (
        "NaN difficulty",
        card_edit("rms-formula", difficulty=float("nan")),
        "srs[{rms-formula}].card_json.difficulty: must be a finite number from 1 to 10, got NaN",
    ),
    (
        "reviewed card without stability",
        card_edit("rms-formula", state=2, stability=None, difficulty=None),
        "srs[{rms-formula}].card_json.stability: must be a positive finite number",
    ),
    (
        "card state unknown",
        card_edit("rms-formula", state=7),
        "srs[{rms-formula}].card_json.state: must be a whole number from 1 to 3",
    ),
    ("card not a card", card_edit("rms-formula", card_id="x"), "srs[{rms-formula}].card_json.card_id"),
    (
        "schedule reviewed in 2999",
        card_edit("rms-formula", last_review=FUTURE),
        "srs[{rms-formula}].card_json.last_review: is later than now",
    ),
    (
        "due 0000",
        set_field("srs", "due", "0000"),
        'srs[0].due: must be an ISO 8601 time with its time zone, got "0000"',
    ),
    (
        "naive timestamp",
        set_field("answers", "answered_at", "2025-01-01T10:00:00"),
        "answers[0].answered_at: must say its time zone (as +00:00)",
    ),
    (
        "before 2000",
        set_field("sessions", "started_at", "1970-01-01T00:00:00+00:00"),
        "sessions[0].started_at: must not be before 2000",
    ),
    ("answered in 2999", set_field("answers", "answered_at", FUTURE), "answers[0].answered_at: is later than now"),
    (
        "duration of 2**63-1",
        set_field("review_logs", "duration_ms", 2**63 - 1),
        "review_logs[0].duration_ms: must be a whole number from 0 to 31622400000, got 9223372036854775807",
    ),
    (
        "grading duration infinite",
        set_field("kata_attempts", "duration_s", float("inf")),
        "kata_attempts[0].duration_s: must be a finite number",
    ),
    (
        "score of 2**70",
        set_field("kata_attempts", "score", 2**70),
        "kata_attempts[0].score: must be a whole number from 0 to 10000, got 1180591620717411303424",
    ),
    (
        "score above the maximum",
        set_field("kata_attempts", "score", 99),
        "kata_attempts[0].score: must not exceed max_score",
    ),
    ("score NaN", set_field("kata_attempts", "score", float("nan")), "kata_attempts[0].score: must be a whole number"),
    ("rating 9", set_field("ratings", "rating", 9), "ratings[0].rating: must be a whole number from 1 to 4, got 9"),
    ("mock answer made not JSON", set_field("mock_answers", "made", "0, 2"), "mock_answers[0].made: is not JSON"),
    (
        "mock answer ticks a point it lacks",
        set_field("mock_answers", "made", "[0, 7]"),
        "mock_answers[0].made: ticks key point 7 of 3",
    ),
    (
        "round detail not a number",
        set_review_detail('{"after_attempt": "last"}'),
        "kata_events[{review}].detail.after_attempt: must be a whole number",
    ),
    ("round detail not JSON", set_review_detail("after 2"), "kata_events[{review}].detail: is not JSON"),
    (
        "round names no attempt",
        set_review_detail('{"after_attempt": 999}'),
        "kata_events[{review}].detail.after_attempt: 999 is not in kata_attempts",
    ),
    (
        "hint level text",
        lambda d: d["tables"]["kata_events"].append(
            {"id": 99, "kata": "rmsnorm", "kind": "hint", "detail": "all", "at": iso(utcnow())}
        ),
        "kata_events[{hint}].detail: must be the hint's level",
    ),
    (
        "escape sequence in an id",
        set_field("answers", "item_id", "rms\x1b[2Jformula"),
        "answers[0].item_id: must be an id (lowercase letters, digits, '_', '.', '-'), got \"rms\\u001b[2Jformula\"",
    ),
    (
        "answer of 100 000 characters",
        set_field("answers", "given", "B" * 100_000),
        "answers[0].given: must be at most 65536 characters, got 100000",
    ),
    (
        "kind unknown",
        set_field("sessions", "kind", "exam"),
        "sessions[0].kind: must be one of quiz, interview, review, mock",
    ),
    ("schedule kind against its id", set_field("srs", "kind", "kata"), "srs[0].kind: must be 'kata' exactly"),
    ("unknown column", set_field("answers", "extra", 1), 'answers[0]: unknown column "extra"'),
    ("a row that is a list", lambda d: d["tables"]["answers"].append([1, 2]), "answers[2]: must be an object"),
    (
        "the same id twice",
        lambda d: d["tables"]["sessions"].append(dict(d["tables"]["sessions"][0])),
        "sessions[2]: the id 1 twice",
    ),
    ("unknown top-level field", lambda d: d.update(signed_by="teacher"), 'unknown field "signed_by"'),
    ("exported in 2999", lambda d: d.update(exported_at=FUTURE), "exported_at: is later than now"),
    (
        "100 000 nested arrays",
        set_field("answers", "given", "@@NESTED100000@@"),
        "nests arrays or objects deeper than 8 levels",
    ),
]


def write_hostile(path: Path, document: Document) -> Path:
    """The document as a file; a value "@@NESTED<n>@@" becomes n nested arrays (json.dumps would recurse)."""
    text = json.dumps(document, ensure_ascii=False)
    if "@@NESTED" in text:
        depth = int(text.split("@@NESTED")[1].split("@@")[0])
        text = text.replace(f'"@@NESTED{depth}@@"', "[" * depth + "]" * depth)
    path.write_text(text, encoding="utf-8")
    return path


def expected_text(document: Document, why: str) -> str:
    """`why` with its row placeholders ({rms-formula}, {review}, {hint}) as indexes in `document`."""
    places = {
        "{rms-formula}": lambda: srs_index(document, "rms-formula"),
        "{review}": lambda: event_index(document, "review"),
        "{hint}": lambda: event_index(document, "hint"),
    }
    for placeholder, index in places.items():
        if placeholder in why:
            why = why.replace(placeholder, str(index()))
    return why


@pytest.mark.parametrize(("attack", "edit", "why"), ATTACKS, ids=[a for a, _e, _w in ATTACKS])
def test_a_hostile_field_is_refused_naming_it_and_nothing_changes(
    exported: Document, laptop: Store, runner, tmp_path: Path, attack: str, edit: Callable[[Document], None], why: str
) -> None:  # type: ignore[no-untyped-def]
    document = copy.deepcopy(exported)
    add_review_event(document)
    edit(document)
    before = rows(laptop.path)
    path = write_hostile(tmp_path / "progress.json", document)
    result = invoke(runner, ["progress", "import", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}: {expected_text(document, why)}" in result.stderr
    assert "Nothing was imported" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert "\x1b" not in result.output
    assert rows(laptop.path) == before


def test_control_the_same_export_without_a_trick_imports(
    exported: Document, laptop: Store, runner, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    document = copy.deepcopy(exported)
    add_review_event(document)
    result = invoke(runner, ["progress", "import", str(write(tmp_path / "progress.json", document))])
    assert result.exit_code == 0, result.output
    after = rows(laptop.path)
    assert len(after["answers"]) == 3 and len(after["fsrs_parameters"]) == 1
    assert [row[-1] for row in after["kata_attempts"]] == [1, 1]  # both marked imported
    assert [row[0] for row in after["settings"]] == ["interview_date"]  # the interview date came along
    assert "settings 1" in result.stdout
    for command in (["progress"], ["next"], ["plan", "--minutes", "30"], ["history"], ["review", "-n", "2"]):
        shown = invoke(runner, command, stdin="")
        assert shown.exit_code == 0, (command, shown.output)


# -- the file as a whole ------------------------------------------------------------------------------


def test_a_file_over_the_limit_is_refused_by_its_size_before_it_is_read(laptop: Store, runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "progress.json"
    with path.open("wb") as stream:
        stream.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used, and reading it would take a while
    before = rows(laptop.path)
    started = time.perf_counter()
    result = invoke(runner, ["progress", "import", str(path)])
    assert time.perf_counter() - started < 5
    assert result.exit_code == 2
    assert f"{path}: larger than 64 MiB ({MAX_FILE_BYTES + 1} bytes)" in result.stderr
    assert rows(laptop.path) == before


def test_a_fifo_is_refused_without_waiting_for_a_writer(laptop: Store, runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "progress.json"
    os.mkfifo(path)
    outcome: dict[str, Any] = {}
    worker = threading.Thread(
        target=lambda: outcome.update(result=invoke(runner, ["progress", "import", str(path)])), daemon=True
    )
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader, then fail
        with open(path, "w"):  # noqa: PTH123
            pass
        pytest.fail("progress import waited on a FIFO")
    assert outcome["result"].exit_code == 2
    assert "not a regular file" in outcome["result"].stderr


def test_bytes_that_are_not_utf8_are_named(laptop: Store, runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "progress.json"
    path.write_bytes(b'{"format": "normkata-progress\xff"}')
    result = invoke(runner, ["progress", "import", str(path)])
    assert result.exit_code == 2 and "not UTF-8 (byte 29)" in result.stderr


# -- the merge: the file's clock proves nothing by itself ---------------------------------------------


def _laptop_reviewed(laptop: Store, minutes_ago: int) -> str:
    """The laptop reviews rms-formula itself, `minutes_ago`; its card as saved."""
    from normkata.practice.srs import schedule

    session = laptop.start_session("quiz", "en")
    review = schedule(laptop, "rms-formula", 3, now=utcnow() - timedelta(minutes=minutes_ago))
    laptop.record_answer(session, "rms-formula", "rmsnorm", "B", True, review)
    return review.card_json


def _file_card(document: Document, minutes_ago: int, *, with_log: bool) -> str:
    """The file's schedule for rms-formula, claiming a review `minutes_ago`; with its review log entry
    or not. The file's other reviews are moved two hours back, before any the laptop makes here."""
    from fsrs import Card, Rating

    from normkata.practice.srs import scheduler

    for log in document["tables"]["review_logs"]:
        log["reviewed_at"] = iso(utcnow() - timedelta(hours=2))

    moment = utcnow() - timedelta(minutes=minutes_ago)
    card, _log = scheduler().review_card(Card(), Rating.Easy, review_datetime=moment)
    row = document["tables"]["srs"][srs_index(document, "rms-formula")]
    row.update(card_json=card.to_json(), due=iso(card.due))
    logs = document["tables"]["review_logs"]
    if with_log:
        logs.append(
            {
                "id": max(r["id"] for r in logs) + 1,
                "item_id": "rms-formula",
                "kind": "question",
                "topic": "rmsnorm",
                "rating": 4,
                "state_before": 1,
                "reviewed_at": iso(moment),
                "duration_ms": 1000,
            }
        )
    return str(row["card_json"])


def _card_here(laptop: Store) -> str:
    return str(laptop._conn.execute("SELECT card_json FROM srs WHERE item_id = 'rms-formula'").fetchone()[0])


def test_a_later_schedule_without_a_later_review_in_the_file_keeps_the_local_one(
    exported: Document, laptop: Store
) -> None:
    local = _laptop_reviewed(laptop, minutes_ago=30)
    document = copy.deepcopy(exported)
    _file_card(document, minutes_ago=5, with_log=False)  # "reviewed later", and nothing in its log says so
    import_document(laptop, document)
    assert _card_here(laptop) == local


def test_a_card_claiming_more_than_its_log_keeps_the_local_one(exported: Document, laptop: Store) -> None:
    local = _laptop_reviewed(laptop, minutes_ago=30)
    document = copy.deepcopy(exported)
    card = _file_card(document, minutes_ago=5, with_log=False)
    document["tables"]["review_logs"].append(
        {
            "id": 999,
            "item_id": "rms-formula",
            "kind": "question",
            "topic": "rmsnorm",
            "rating": 3,
            "state_before": 1,
            "reviewed_at": iso(utcnow() - timedelta(minutes=20)),
            "duration_ms": 1000,
        }
    )
    assert json.loads(card)["last_review"] > document["tables"]["review_logs"][-1]["reviewed_at"]
    import_document(laptop, document)
    assert _card_here(laptop) == local


def test_control_a_later_review_in_the_file_log_replaces_the_local_schedule(exported: Document, laptop: Store) -> None:
    _laptop_reviewed(laptop, minutes_ago=30)
    document = copy.deepcopy(exported)
    card = _file_card(document, minutes_ago=5, with_log=True)
    added = import_document(laptop, document)
    assert _card_here(laptop) == card and added.schedules_updated >= 1
    assert import_document(laptop, document).nothing  # twice = once: the same log proves nothing new


def test_an_earlier_review_in_the_file_does_not_replace_a_later_local_one(exported: Document, laptop: Store) -> None:
    local = _laptop_reviewed(laptop, minutes_ago=1)
    document = copy.deepcopy(exported)
    _file_card(document, minutes_ago=50, with_log=True)
    import_document(laptop, document)
    assert _card_here(laptop) == local


# -- what an import cannot do ---------------------------------------------------------------------------


def test_an_imported_pass_never_opens_the_solution(exported: Document, runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = write(tmp_path / "progress.json", exported)
    assert invoke(runner, ["progress", "import", str(path)]).exit_code == 0
    assert "passed" in invoke(runner, ["kata", "--json"]).stdout  # it counts on the dashboard
    result = invoke(runner, ["solution", "rmsnorm"], stdin="n\n")
    assert "Solution not shown" in result.stdout and "class RMSNorm" not in result.stdout


def test_control_a_pass_graded_here_opens_it(runner) -> None:  # type: ignore[no-untyped-def]
    store = Store(Path(os.environ["NORMKATA_HOME"]) / "normkata.db")
    try:
        KataLog(store).attempt(grade_result("rmsnorm", {"forward": "passed"}), "cpu")
    finally:
        store.close()
    result = invoke(runner, ["solution", "rmsnorm"], stdin="n\n")
    assert result.exit_code == 0 and "class RMSNorm" in result.stdout and "Solution not shown" not in result.stdout


def test_an_imported_pass_does_not_end_a_round_of_writing_it_again(exported: Document, runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Passed here once, then written again: a pass carried in after the round began is no pass in it."""
    store = Store(Path(os.environ["NORMKATA_HOME"]) / "normkata.db")
    try:
        KataLog(store).attempt(grade_result("rmsnorm", {"forward": "passed"}), "cpu")
        KataLog(store).event("rmsnorm", "review", json.dumps({"after_attempt": 1}))
    finally:
        store.close()
    document = copy.deepcopy(exported)
    for attempt in document["tables"]["kata_attempts"]:
        attempt["seed"] += 100  # not the attempt already here
    assert invoke(runner, ["progress", "import", str(write(tmp_path / "p.json", document))]).exit_code == 0
    result = invoke(runner, ["solution", "rmsnorm"], stdin="n\n")
    assert "Solution not shown" in result.stdout


def test_texts_from_a_file_reach_the_terminal_escaped(
    exported: Document, runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """A title is free text: an escape sequence in it is data, shown as `\\x1b`, never obeyed."""
    document = copy.deepcopy(exported)
    document["tables"]["kata_attempts"][0]["diagnosis"] = json.dumps(
        [{"id": "not-a-suite-misconception", "title": "\x1b]0;owned\x07\x1b[2Jcleared [bold]as typed[/bold]"}]
    )
    document["tables"]["kata_attempts"][0]["cases"] = json.dumps({"\x1b[31mred": "failed"})
    assert invoke(runner, ["progress", "import", str(write(tmp_path / "p.json", document))]).exit_code == 0
    for command in (["history"], ["history", "rmsnorm", "--diff"], ["progress"], ["next"]):
        result = invoke(runner, command)
        assert result.exit_code == 0 and "\x1b" not in result.output, command
    monkeypatch.setenv("COLUMNS", "400")  # the title on one line of the table
    shown = invoke(runner, ["history"]).stdout
    assert "\\x1b]0;owned" in shown and "[bold]as typed[/bold]" in shown  # markup shown as typed, not obeyed


# -- re-import is linear ----------------------------------------------------------------------------------


def test_importing_the_same_file_again_costs_no_statement_per_row(tmp_path: Path) -> None:
    """The second import of 2 000 sessions finds every row through one dictionary per table: a
    handful of statements, not one lookup (a table scan) per row as before."""
    from normkata.record.migrations import MIGRATIONS

    start = utcnow() - timedelta(days=30)
    stamps = [iso(start + timedelta(minutes=i)) for i in range(2000)]
    document = {
        "format": "normkata-progress",
        "version": 1,
        "schema": [m.__name__ for m in MIGRATIONS],
        "tables": {
            "sessions": [
                {"id": i + 1, "kind": "quiz", "lang": "en", "started_at": at, "ended_at": at}
                for i, at in enumerate(stamps)
            ],
            "answers": [
                {
                    "id": i + 1,
                    "session_id": i + 1,
                    "item_id": "rms-formula",
                    "topic": "rmsnorm",
                    "given": "B",
                    "correct": 1,
                    "answered_at": at,
                }
                for i, at in enumerate(stamps)
            ],
        },
    }
    store = Store(tmp_path / "normkata.db")
    try:
        first = import_document(store, document)
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        second = import_document(store, document)
        store._conn.set_trace_callback(None)
    finally:
        store.close()
    assert first.rows["sessions"] == 2000 and first.rows["answers"] == 2000
    assert second.nothing
    assert len(statements) < 60, statements[:80]


# -- the rules are the schema's -----------------------------------------------------------------------------


def test_every_column_of_every_table_imported_has_a_rule(tmp_path: Path) -> None:
    """A migration that adds a column adds its rule (record/fields.py); a NOT NULL column without a
    default is never optional in a file."""
    from normkata.grading.source import MAX_SOURCE_BYTES
    from normkata.record.fields import COLUMNS, SOURCE_CHARS
    from normkata.record.transfer import KEYED, TABLES

    store = Store(tmp_path / "normkata.db")
    try:
        assert set(COLUMNS) == {*TABLES, *KEYED}
        for table, rules in COLUMNS.items():
            columns = store._conn.execute(f"PRAGMA table_info({table})").fetchall()
            assert set(rules) == {c["name"] for c in columns}, table
            for column in columns:
                if column["notnull"] and column["dflt_value"] is None:
                    assert not rules[column["name"]].nullable, (table, column["name"])
    finally:
        store.close()
    assert SOURCE_CHARS == MAX_SOURCE_BYTES  # a kept file is one the grader could read


# -- settings: merged by name, the later one winning -----------------------------------------------


def _import_setting(laptop: Store, exported: Document, runner, tmp_path: Path, minutes_ago: int) -> Any:  # type: ignore[no-untyped-def]
    document = copy.deepcopy(exported)
    (setting,) = document["tables"]["settings"]
    setting.update(value="2027-01-15", set_at=iso(utcnow() - timedelta(minutes=minutes_ago)))
    return invoke(runner, ["progress", "import", str(write(tmp_path / "progress.json", document))])


def test_a_setting_made_later_here_is_kept(exported: Document, laptop: Store, runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    laptop.set_setting("interview_date", "2027-02-01")  # now: later than the file's, set ten minutes ago
    assert _import_setting(laptop, exported, runner, tmp_path, 10).exit_code == 0
    assert laptop.setting("interview_date") == "2027-02-01"


def test_a_setting_made_later_in_the_file_is_taken(exported: Document, laptop: Store, runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with laptop.transaction():  # set an hour ago here; the file's ten minutes ago
        laptop._conn.execute(
            "INSERT INTO settings (name, value, set_at) VALUES ('interview_date', '2027-02-01', ?)",
            (iso(utcnow() - timedelta(hours=1)),),
        )
    assert _import_setting(laptop, exported, runner, tmp_path, 10).exit_code == 0
    assert laptop.setting("interview_date") == "2027-01-15"
    again = _import_setting(laptop, exported, runner, tmp_path, 10)  # the same file twice: nothing new
    assert again.exit_code == 0 and "settings" not in again.stdout


def test_a_setting_forgotten_here_later_stays_forgotten(
    exported: Document, laptop: Store, runner, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """`plan --until none` after the export: the older file's date does not come back."""
    laptop.set_setting("interview_date", None)
    assert _import_setting(laptop, exported, runner, tmp_path, 10).exit_code == 0
    assert laptop.setting("interview_date") is None


def test_a_setting_forgotten_later_in_the_file_is_forgotten_here(
    exported: Document, laptop: Store, runner, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    with laptop.transaction():
        laptop._conn.execute(
            "INSERT INTO settings (name, value, set_at) VALUES ('interview_date', '2027-02-01', ?)",
            (iso(utcnow() - timedelta(hours=1)),),
        )
    document = copy.deepcopy(exported)
    document["tables"]["settings"][0].update(value="", set_at=iso(utcnow() - timedelta(minutes=10)))
    result = invoke(runner, ["progress", "import", str(write(tmp_path / "progress.json", document))])
    assert result.exit_code == 0, result.output
    assert laptop.setting("interview_date") is None


def test_a_version_1_file_from_before_settings_imports(
    exported: Document, laptop: Store, runner, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    document = copy.deepcopy(exported)
    assert document["version"] == 2
    document["version"] = 1
    del document["tables"]["settings"]
    result = invoke(runner, ["progress", "import", str(write(tmp_path / "progress.json", document))])
    assert result.exit_code == 0, result.output
    assert laptop.setting("interview_date") is None


def test_settings_the_readers_use_import_and_are_read(
    exported: Document, laptop: Store, runner, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    from normkata.advice.deadline import load

    document = copy.deepcopy(exported)
    add_setting("minutes_per_day", "45")(document)
    result = invoke(runner, ["progress", "import", str(write(tmp_path / "progress.json", document))])
    assert result.exit_code == 0, result.output
    deadline = load(laptop)
    assert deadline is not None and deadline.minutes_per_day == 45
    assert deadline.day.isoformat() == document["tables"]["settings"][0]["value"]
