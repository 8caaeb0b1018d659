"""The progress store under faults: SIGKILL mid-quiz, commands racing, hot journals, locks, damage.

Most of these run normkata as a real subprocess: what is checked is what a learner would see.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from normkata.record import store as store_module
from normkata.record.migrations import MIGRATIONS
from normkata.record.store import Store
from tests.conftest import invoke
from tests.faultkit import (
    FEEDBACK,
    REPO,
    answers_in,
    assert_clean,
    command,
    environment,
    run,
    set_aside,
    write_bank,
)

KILLS = 40
QUESTIONS = 8


def _quiz_then_kill(env: dict[str, str], rng: random.Random, seed: int) -> int:
    """Start a quiz with every answer piped, SIGKILL it at a random point; return the feedback lines seen.

    The kill lands after a random number of acknowledged answers plus a random few ms (so
    inside a write, between writes, or at the summary), or at a random moment of start-up
    (imports, opening the store, migrating).
    """
    proc = subprocess.Popen(
        command("quiz", "-n", str(QUESTIONS), "--seed", str(seed)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=REPO,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"A\n" * QUESTIONS)
    proc.stdin.flush()
    target, seen, output = rng.randint(0, QUESTIONS), 0, b""
    if target == 0:
        time.sleep(rng.uniform(0.0, 0.3))
    while seen < target:
        line = proc.stdout.readline()
        if not line:
            break
        output += line
        seen += bool(FEEDBACK.match(line.decode("utf-8", "replace")))
    time.sleep(rng.uniform(0.0, 0.004))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    output += proc.stdout.read()  # what it printed before dying, still in the pipe
    proc.stdin.close()
    proc.stdout.close()
    return len(FEEDBACK.findall(output.decode("utf-8", "replace")))


def test_sigkill_at_any_point_of_a_quiz_loses_no_acknowledged_answer(tmp_path: Path) -> None:
    rng = random.Random(20261122)
    bank = write_bank(tmp_path / "bank")
    homes: list[tuple[Path, int]] = []
    for kill in range(KILLS):
        if kill % 10 == 0:  # a fresh home now and then: kills during the first migration too
            homes.append((tmp_path / f"home-{kill}", 0))
        home, saved = homes[-1]
        acknowledged = _quiz_then_kill(environment(home, bank), rng, seed=kill)
        database = home / "normkata.db"
        now = answers_in(database) if database.exists() else 0
        # Every answer whose feedback was printed is there; at most the one in flight besides.
        assert saved + acknowledged <= now <= saved + acknowledged + 1, (kill, saved, acknowledged, now)
        assert set_aside(home) == [], f"kill {kill}: something was moved aside"
        homes[-1] = (home, now)
    home, saved = homes[-1]
    result = run(["progress", "--json"], environment(home, bank))
    assert_clean(result, "progress after the kills")
    assert json.loads(result.stdout)["totals"]["answers"] == saved
    assert result.stderr == b""


def test_commands_started_together_on_a_fresh_home(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank")
    home = tmp_path / "home"
    env = environment(home, bank)
    quizzes = [
        subprocess.Popen(
            command("quiz", "-n", "2", "--seed", str(i)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=REPO,
        )
        for i in range(5)
    ]
    readers = [
        subprocess.Popen(
            command(*args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO
        )
        for args in (["progress", "--json"], [], ["kata"], ["review"], ["progress"])
    ]
    outcomes = [(p, *p.communicate(b"A\nB\n" if p in quizzes else None, timeout=60)) for p in quizzes + readers]
    for proc, out, err in outcomes:
        assert proc.returncode == 0, (proc.args, out[-500:], err[-2000:])
        assert b"Traceback" not in err and b"damaged" not in err, err
    database = home / "normkata.db"
    assert answers_in(database) == 10
    db = sqlite3.connect(database)
    applied = [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY name")]
    assert applied == sorted(m.__name__ for m in MIGRATIONS)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    assert set_aside(home) == []


_HOT_JOURNAL = """
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size = 1")  # spill to the file: the journal becomes hot
db.execute("BEGIN")
for i in range(400):
    db.execute("INSERT INTO answers (session_id, item_id, topic, given, correct, answered_at) "
               "VALUES (1, ?, 't', ?, 0, 'now')", (f"x{i}", "x" * 500))
os.kill(os.getpid(), signal.SIGKILL)
"""


def _old_database(path: Path, answers: int) -> None:
    """A database as the first releases left it: rollback journal, the first two migrations, some answers."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for step in MIGRATIONS[:2]:
        step(db)
        db.execute("INSERT INTO _migrations VALUES (?, 'then')", (step.__name__,))
    db.execute("INSERT INTO sessions (kind, lang, started_at) VALUES ('quiz', 'en', 'then')")
    for i in range(answers):
        db.execute(
            "INSERT INTO answers (session_id, item_id, topic, given, correct, answered_at) "
            "VALUES (1, ?, 't', 'A', 1, 'then')",
            (f"q{i}",),
        )
    db.close()


def test_a_hot_journal_is_rolled_back_not_called_damage(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    database = home / "normkata.db"
    _old_database(database, answers=3)
    subprocess.run([sys.executable, "-c", _HOT_JOURNAL, str(database)], check=False, timeout=60)
    journal = home / "normkata.db-journal"
    assert journal.exists() and journal.stat().st_size > 0, "the kill should leave a hot journal"
    result = run(["progress", "--json"], environment(home, write_bank(tmp_path / "bank")))
    assert_clean(result, "progress over a hot journal")
    assert result.returncode == 0 and result.stderr == b""
    assert json.loads(result.stdout)["totals"]["answers"] == 3  # the uncommitted 400 are gone, the 3 stay
    assert set_aside(home) == []


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.2)


def test_a_writer_holding_the_lock_is_reported_as_a_lock(
    runner, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, short_busy_timeout: None, tmp_path: Path
) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(write_bank(tmp_path / "bank")))
    assert invoke(runner, ["quiz", "-n", "1"], "A\n").exit_code == 0
    holder = sqlite3.connect(isolated_home / "normkata.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # in WAL mode: blocks writers, not readers
    try:
        dashboard = invoke(runner, [])
        assert dashboard.exit_code == 0, dashboard.output  # readers never wait for the writer
        quiz = invoke(runner, ["quiz", "-n", "1"], "A\n")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert quiz.exit_code == 2
    assert "is locked by another program" in quiz.stderr and "damaged" not in quiz.stderr
    assert len(quiz.stderr.strip().splitlines()) == 1
    assert set_aside(isolated_home) == [] and answers_in(isolated_home / "normkata.db") == 1


def test_a_lock_on_an_old_database_moves_nothing(
    runner, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, short_busy_timeout: None, tmp_path: Path
) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(write_bank(tmp_path / "bank")))
    isolated_home.mkdir()
    _old_database(isolated_home / "normkata.db", answers=2)
    holder = sqlite3.connect(isolated_home / "normkata.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # rollback journal: even readers are shut out
    try:
        result = invoke(runner, ["progress", "--json"])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 2 and "is locked by another program" in result.stderr
    assert set_aside(isolated_home) == []
    assert answers_in(isolated_home / "normkata.db") == 2  # and, the lock gone, it upgrades fine


def test_full_database_stops_the_quiz_with_one_line_and_keeps_what_was_saved(
    runner, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """SQLITE_FULL mid-quiz (a page limit stands in for the disk): the real error, not "cannot rollback"."""
    monkeypatch.setenv("NORMKATA_QUIZZES", str(write_bank(tmp_path / "bank", questions=40)))
    real_migrate = store_module.migrate

    def capped(db: sqlite3.Connection) -> None:
        real_migrate(db)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")  # full as soon as a table needs a new page

    monkeypatch.setattr(store_module, "migrate", capped)
    result = invoke(runner, ["quiz", "-n", "40", "--seed", "1"], "A\n" * 40)
    assert result.exit_code == 2, result.output
    assert "is full (database or disk is full)" in result.stderr
    assert "rollback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    acknowledged = len(FEEDBACK.findall(result.stdout))
    assert 0 < acknowledged < 40
    monkeypatch.setattr(store_module, "migrate", real_migrate)
    assert answers_in(isolated_home / "normkata.db") == acknowledged
    assert set_aside(isolated_home) == []


def test_a_folder_in_the_databases_place_is_reported_and_left_alone(runner, isolated_home: Path) -> None:
    (isolated_home / "normkata.db").mkdir(parents=True)
    result = invoke(runner, [])
    assert result.exit_code == 2
    assert "is a folder, not a database" in result.stderr
    assert (isolated_home / "normkata.db").is_dir() and set_aside(isolated_home) == []


def test_damage_found_by_the_integrity_check_travels_with_its_wal(runner, isolated_home: Path, tmp_path) -> None:
    isolated_home.mkdir()
    (isolated_home / "normkata.db").write_bytes(b"not a database at all " * 300)
    (isolated_home / "normkata.db-wal").write_bytes(b"stale wal")
    result = invoke(runner, ["progress", "--json"])
    assert result.exit_code == 0
    assert "is damaged (file is not a database)" in result.stderr
    aside = {p.name.rsplit(".damaged-", 1)[1].partition("-")[2] for p in set_aside(isolated_home)}
    assert {"", "wal"} <= aside  # the database and its WAL, under one name
    assert [p.read_bytes() for p in set_aside(isolated_home) if p.name.endswith("-wal")] == [b"stale wal"]
    assert json.loads(result.stdout)["totals"]["answers"] == 0


def test_damage_found_mid_command_is_confirmed_then_set_aside(runner, isolated_home: Path, tmp_path) -> None:
    """A healthy header over broken table pages: the query fails, quick_check agrees, the file is moved."""
    store = Store(isolated_home / "normkata.db")
    session = store.start_session("quiz", "en")
    for i in range(300):
        store.record_answer(session, f"q{i}", "t", "A" * 200, True, ("{}", "2026-01-01T00:00:00+00:00"))
    store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = store._conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'answers'").fetchone()[0]
    page = store._conn.execute("PRAGMA page_size").fetchone()[0]
    store.close()
    with open(isolated_home / "normkata.db", "r+b") as raw:
        raw.seek((root - 1) * page)
        raw.write(b"\xff" * page)
    result = invoke(runner, ["progress", "--json"])
    assert result.exit_code == 2
    assert "is damaged" in result.stderr and "run the command again" in result.stderr
    assert len([p for p in set_aside(isolated_home) if not p.name.endswith(("-wal", "-shm"))]) == 1
    again = invoke(runner, ["progress", "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["totals"]["answers"] == 0


def test_a_healthy_file_is_never_called_damaged(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    store.close()
    assert store_module.integrity_problem(tmp_path / "s.db") is None
    error = sqlite3.DatabaseError("database disk image is malformed")
    error.sqlite_errorcode = 11
    assert store_module.confirmed_damage(error, tmp_path / "s.db") is None
    assert set_aside(tmp_path) == [] and (tmp_path / "s.db").is_file()
