"""The SQLite store: migrations, transactions, a damaged file set aside, the kata log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from normkata.grading.contract import GradeResult
from normkata.record.attempts import KataLog
from normkata.record.migrations import MIGRATIONS
from normkata.record.store import Store
from tests.conftest import FIXTURES, invoke
from tests.grades import grade_result


def test_blank_database_gets_every_migration(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    applied = [r[0] for r in store._conn.execute("SELECT name FROM _migrations")]
    assert applied == [m.__name__ for m in MIGRATIONS]
    tables = {r[0] for r in store._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"sessions", "answers", "ratings", "srs"} <= tables
    store.close()
    again = Store(tmp_path / "s.db")  # reopening applies nothing twice
    assert again._conn.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == len(MIGRATIONS)
    again.close()


def test_answer_and_schedule_are_one_transaction(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    session = store.start_session("quiz", "en")
    with pytest.raises(sqlite3.IntegrityError):
        # A NULL due violates NOT NULL in srs: the answer row must be rolled back with it.
        store.record_answer(session, "q1", "t", "A", True, ("{}", None))  # type: ignore[arg-type]
    assert store._conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0
    store.record_answer(session, "q1", "t", "A", True, ("{}", "2026-01-01T00:00:00+00:00"))
    assert store._conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 1
    store.close()


def test_damaged_database_is_moved_aside_and_reported(runner, isolated_home, monkeypatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))
    isolated_home.mkdir(parents=True)
    damaged = isolated_home / "normkata.db"
    damaged.write_bytes(b"this is not a database, it is a diary" * 100)
    result = invoke(runner, ["quiz", "-n", "1", "--seed", "0"], "A\n")
    assert result.exit_code == 0
    assert "is damaged (file is not a database)" in result.stderr
    aside = list(isolated_home.glob("normkata.db.damaged-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not a database")
    fresh = sqlite3.connect(damaged)
    assert fresh.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 1
    fresh.close()


def _result(kata: str, file: str, seed: int = 1, sandbox: str = "test") -> GradeResult:
    result = grade_result(kata, score=3, max_score=3, seed=seed, file=file)
    result.sandbox = sandbox
    return result


def test_last_kata_is_the_last_thing_done_even_within_one_second(tmp_path: Path) -> None:
    """Three events for one kata, then one attempt at another, all in the same second: the attempt is last."""
    store = Store(tmp_path / "s.db")
    log = KataLog(store)
    assert log.last_kata() is None
    for kind in ("started", "hint", "hint"):
        log.event("rmsnorm", kind)
    log.attempt(_result("layernorm", "ln.py"), "cpu")
    assert log.last_kata() == "layernorm"
    log.event("rmsnorm", "hint")
    assert log.last_kata() == "rmsnorm"
    store.close()


def test_attempt_keeps_seed_and_sandbox_when_given(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    log = KataLog(store)
    log.attempt(_result("rmsnorm", "b.py", seed=1234, sandbox="bwrap"), "cpu")
    log.attempt(_result("rmsnorm", "c.py", seed=7, sandbox="partial: missing seccomp"), "cuda")
    rows = store._conn.execute("SELECT file, seed, sandbox, device FROM kata_attempts ORDER BY id").fetchall()
    assert [tuple(r) for r in rows] == [("b.py", 1234, "bwrap", "cpu"), ("c.py", 7, "partial: missing seccomp", "cuda")]
    store.close()
