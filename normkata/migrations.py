"""Append-only schema migrations. Never edit one that has shipped: add the next."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = []


def migration(fn: Callable[[sqlite3.Connection], None]) -> Callable[[sqlite3.Connection], None]:
    MIGRATIONS.append(fn)
    return fn


def _execute_each(db: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: executescript would commit the caller's transaction."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    _execute_each(
        db,
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,            -- quiz | interview | review
            lang TEXT NOT NULL,
            started_at TEXT NOT NULL,
            ended_at TEXT
        );
        CREATE TABLE answers (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            item_id TEXT NOT NULL,
            topic TEXT NOT NULL,
            given TEXT NOT NULL,
            correct INTEGER NOT NULL,
            answered_at TEXT NOT NULL
        );
        CREATE INDEX answers_item ON answers(item_id);
        CREATE TABLE ratings (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            item_id TEXT NOT NULL,
            topic TEXT NOT NULL,
            response TEXT NOT NULL,
            rating INTEGER NOT NULL,       -- 1 Again, 2 Hard, 3 Good, 4 Easy (FSRS)
            rated_at TEXT NOT NULL
        );
        CREATE INDEX ratings_item ON ratings(item_id);
        CREATE TABLE srs (
            item_id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,            -- question | card
            topic TEXT NOT NULL,
            card_json TEXT NOT NULL,       -- fsrs.Card.to_json()
            due TEXT NOT NULL              -- ISO 8601, UTC
        );
        """,
    )


@migration
def m002_katas(db: sqlite3.Connection) -> None:
    _execute_each(
        db,
        """
        CREATE TABLE kata_events (
            id INTEGER PRIMARY KEY,
            kata TEXT NOT NULL,
            kind TEXT NOT NULL,            -- started | hint | gave_up
            detail TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL
        );
        CREATE TABLE kata_attempts (
            id INTEGER PRIMARY KEY,
            kata TEXT NOT NULL,
            file TEXT NOT NULL,
            passed INTEGER NOT NULL,
            score INTEGER NOT NULL,
            max_score INTEGER NOT NULL,
            counts TEXT NOT NULL,          -- JSON: passed, failed, error, skipped
            device TEXT NOT NULL,
            duration_s REAL NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX kata_attempts_kata ON kata_attempts(kata)
        """,
    )
