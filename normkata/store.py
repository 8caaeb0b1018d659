"""The progress store: one SQLite file in the state directory.

Every answer and rating is written in its own transaction, so a killed process loses at most
the answer in flight. A damaged file is moved aside and reported, never overwritten.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from normkata.migrations import MIGRATIONS


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class DamagedDatabase:
    path: Path
    moved_to: Path
    reason: str


class Store:
    def __init__(self, path: Path, on_damage: Callable[[DamagedDatabase], None] | None = None) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = self._open(on_damage)
        self._migrate()

    # -- opening ---------------------------------------------------------------------------

    def _open(self, on_damage: Callable[[DamagedDatabase], None] | None) -> sqlite3.Connection:
        reason = _damage(self.path) if self.path.exists() else None
        if reason:
            moved = self.path.with_name(f"{self.path.name}.damaged-{utcnow():%Y%m%dT%H%M%S}")
            self.path.rename(moved)
            if on_damage:
                on_damage(DamagedDatabase(self.path, moved, reason))
        db = sqlite3.connect(self.path, isolation_level=None)  # explicit transactions below
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys = ON")
        return db

    def _migrate(self) -> None:
        self.db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = {row[0] for row in self.db.execute("SELECT name FROM _migrations")}
        for step in MIGRATIONS:
            if step.__name__ in done:
                continue
            with self.transaction():
                step(self.db)
                self.db.execute("INSERT INTO _migrations VALUES (?, ?)", (step.__name__, iso(utcnow())))

    def transaction(self) -> _Transaction:
        return _Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    # -- sessions, answers, ratings ----------------------------------------------------------

    def start_session(self, kind: str, lang: str) -> int:
        with self.transaction():
            cur = self.db.execute(
                "INSERT INTO sessions (kind, lang, started_at) VALUES (?, ?, ?)", (kind, lang, iso(utcnow()))
            )
        return int(cur.lastrowid)

    def end_session(self, session_id: int) -> None:
        with self.transaction():
            self.db.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", (iso(utcnow()), session_id))

    def record_answer(
        self, session_id: int, item_id: str, topic: str, given: str, correct: bool, srs_state: tuple[str, str]
    ) -> None:
        """The answer and the item's new schedule, together or not at all."""
        with self.transaction():
            self.db.execute(
                "INSERT INTO answers (session_id, item_id, topic, given, correct, answered_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, item_id, topic, given, int(correct), iso(utcnow())),
            )
            self._save_srs(item_id, "question", topic, srs_state)

    def record_rating(
        self,
        session_id: int,
        item_id: str,
        topic: str,
        response: str,
        rating: int,
        srs_state: tuple[str, str],
    ) -> None:
        with self.transaction():
            self.db.execute(
                "INSERT INTO ratings (session_id, item_id, topic, response, rating, rated_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, item_id, topic, response, rating, iso(utcnow())),
            )
            self._save_srs(item_id, "card", topic, srs_state)

    def _save_srs(self, item_id: str, kind: str, topic: str, srs_state: tuple[str, str]) -> None:
        card_json, due = srs_state
        self.db.execute(
            "INSERT INTO srs (item_id, kind, topic, card_json, due) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(item_id) DO UPDATE SET card_json = excluded.card_json, due = excluded.due",
            (item_id, kind, topic, card_json, due),
        )

    # -- queries -----------------------------------------------------------------------------

    def srs_card_json(self, item_id: str) -> str | None:
        row = self.db.execute("SELECT card_json FROM srs WHERE item_id = ?", (item_id,)).fetchone()
        return row[0] if row else None

    def due_items(self, before: datetime) -> list[sqlite3.Row]:
        return self.db.execute(
            "SELECT item_id, kind, topic, due FROM srs WHERE due <= ? ORDER BY due", (iso(before),)
        ).fetchall()

    def next_due(self) -> str | None:
        row = self.db.execute("SELECT MIN(due) FROM srs").fetchone()
        return row[0]

    def latest_answers(self) -> dict[str, bool]:
        """Each question's most recent answer: item id -> correct."""
        rows = self.db.execute(
            "SELECT item_id, correct FROM answers WHERE id IN (SELECT MAX(id) FROM answers GROUP BY item_id)"
        )
        return {row[0]: bool(row[1]) for row in rows}

    def latest_ratings(self) -> dict[str, int]:
        rows = self.db.execute(
            "SELECT item_id, rating FROM ratings WHERE id IN (SELECT MAX(id) FROM ratings GROUP BY item_id)"
        )
        return {row[0]: int(row[1]) for row in rows}

    def counts(self) -> dict[str, int]:
        one = lambda sql: int(self.db.execute(sql).fetchone()[0])  # noqa: E731
        return {
            "answers": one("SELECT COUNT(*) FROM answers"),
            "correct": one("SELECT COUNT(*) FROM answers WHERE correct = 1"),
            "ratings": one("SELECT COUNT(*) FROM ratings"),
            "sessions": one("SELECT COUNT(*) FROM sessions"),
        }


@dataclass(frozen=True)
class KataStatus:
    kata: str
    status: str  # not started | in progress | passed
    best_score: float | None
    attempts: int
    hints: int
    gave_up: bool


class KataLog:
    """Kata events and grading attempts, kept in the same store."""

    def __init__(self, store: Store) -> None:
        self.db = store.db
        self.store = store

    def event(self, kata: str, kind: str, detail: str = "") -> None:
        with self.store.transaction():
            self.db.execute(
                "INSERT INTO kata_events (kata, kind, detail, at) VALUES (?, ?, ?, ?)",
                (kata, kind, detail, iso(utcnow())),
            )

    def attempt(self, kata: str, file: str, result: dict, device: str) -> None:
        import json

        with self.store.transaction():
            self.db.execute(
                "INSERT INTO kata_attempts (kata, file, passed, score, max_score, counts, device, duration_s, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kata, file, int(result["passed"]), result["score"], result["max_score"],
                    json.dumps(result["counts"]), device, result["duration_s"], iso(utcnow()),
                ),
            )  # fmt: skip

    def hints_taken(self, kata: str) -> int:
        return int(
            self.db.execute("SELECT COUNT(*) FROM kata_events WHERE kata = ? AND kind = 'hint'", (kata,)).fetchone()[0]
        )

    def status(self, kata: str) -> KataStatus:
        attempts = self.db.execute(
            "SELECT COUNT(*), MAX(passed), MAX(CAST(score AS REAL) / MAX(max_score, 1)) "
            "FROM kata_attempts WHERE kata = ?",
            (kata,),
        ).fetchone()
        kinds = {row[0] for row in self.db.execute("SELECT DISTINCT kind FROM kata_events WHERE kata = ?", (kata,))}
        count, passed, best = int(attempts[0]), bool(attempts[1]), attempts[2]
        state = "passed" if passed else "in progress" if count or kinds else "not started"
        return KataStatus(kata, state, best, count, self.hints_taken(kata), "gave_up" in kinds)

    def last_kata(self) -> str | None:
        row = self.db.execute(
            "SELECT kata FROM (SELECT kata, at, id FROM kata_events UNION ALL SELECT kata, at, id FROM kata_attempts) "
            "ORDER BY at DESC, id DESC LIMIT 1"
        ).fetchone()
        return row[0] if row else None


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (Ctrl-C included)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def _damage(path: Path) -> str | None:
    """Why the file at `path` is not a usable database, or None when it is."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            result = db.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None if result == "ok" else result


def open_store(on_damage: Callable[[DamagedDatabase], None] | None = None) -> Store:
    from normkata.paths import database_path

    return Store(database_path(), on_damage)
