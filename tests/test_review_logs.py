"""FSRS review logs: carried over from older databases, written with every answer and rating."""

from __future__ import annotations

from pathlib import Path

from normkata.practice.srs import schedule
from normkata.record.migrations import MIGRATIONS
from normkata.record.store import Store
from tests.test_migrations import _old_database


def test_older_answers_and_ratings_become_review_logs(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    before_logs = [step.__name__ for step in MIGRATIONS].index("m005_review_logs")
    rows = _old_database(path, applied=before_logs)  # two answers (correct = 1, 2) and two ratings (1, 2)
    store = Store(path)
    logs = store._conn.execute(
        "SELECT item_id, kind, rating, state_before, reviewed_at, duration_ms FROM review_logs ORDER BY id"
    ).fetchall()
    store.close()
    answers, ratings = rows["answers"], rows["ratings"]
    # In time order (answers before ratings at a tie); a true `correct` is Good, never a duration or state.
    assert [tuple(r) for r in logs] == [
        (answers[0][2], "question", 3, None, answers[0][6], None),
        (ratings[0][2], "card", ratings[0][5], None, ratings[0][6], None),
        (answers[1][2], "question", 3, None, answers[1][6], None),
        (ratings[1][2], "card", ratings[1][5], None, ratings[1][6], None),
    ]


def test_each_review_is_logged_with_its_state_and_duration(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    session = store.start_session("quiz", "en")
    for correct in (False, True):
        review = schedule(store, "q1", 3 if correct else 1, duration_ms=1234)
        store.record_answer(session, "q1", "t", "A", correct, review)
    store.record_answer(session, "q2", "t", "A", True, ("{}", "2026-01-01T00:00:00+00:00"))  # no review: no log
    logs = store._conn.execute(
        "SELECT item_id, rating, state_before, duration_ms FROM review_logs ORDER BY id"
    ).fetchall()
    store.close()
    assert [tuple(r) for r in logs] == [("q1", 1, 1, 1234), ("q1", 3, 1, 1234)]  # both in Learning (fsrs State 1)
