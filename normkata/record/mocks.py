"""Mock interviews in the progress store: each answer saved as given, its score at the debrief.

Rows come back as the dataclasses below, their values as stored: a database can be edited by
hand, and the screens that show them (normkata.commands.mock, normkata.advice.progress) read
defensively what a person could have typed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from normkata.record.store import Review, Store, iso, utcnow


@dataclass(frozen=True)
class CardScore:
    """A card of one mock, in the order asked: its key points made (None: not scored yet) of `points`."""

    card_id: str
    points: int
    made: int | None
    rating: int | None
    seconds: int


@dataclass(frozen=True)
class MockSummary:
    """One mock, with its answers counted and its key points made and asked (as stored: `topic`,
    `minutes`, `started_at` and `seconds_used` may have been edited by hand)."""

    id: int
    topic: object  # None: every topic
    minutes: object
    started_at: object
    seconds_used: object
    answered: int
    points: int | None
    made: int | None
    unscored: int | None

    @property
    def where(self) -> str:
        """The row, as a note about a value in it that cannot be used names it."""
        return f"mock_interviews #{self.id}"


class MockLog:
    """The tables `mock_interviews` and `mock_answers`."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._conn = store._conn

    def start(self, session_id: int, topic: str | None, minutes: int) -> int:
        with self._store.transaction():
            cur = self._conn.execute(
                "INSERT INTO mock_interviews (session_id, topic, minutes, started_at) VALUES (?, ?, ?, ?)",
                (session_id, topic, minutes, iso(utcnow())),
            )
        return int(cur.lastrowid or 0)

    def answer(
        self, mock_id: int, position: int, card_id: str, follow_up: int | None, text: str, seconds: int, points: int
    ) -> int:
        """An answer as given (`follow_up`: the index of the card's follow-up it answers); its row id."""
        with self._store.transaction():
            cur = self._conn.execute(
                "INSERT INTO mock_answers (mock_id, position, card_id, follow_up, answer, seconds, points) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (mock_id, position, card_id, follow_up, text, seconds, points),
            )
        return int(cur.lastrowid or 0)

    def score(
        self, answer_id: int, session_id: int, card_id: str, topic: str, text: str, made: Sequence[int], review: Review
    ) -> None:
        """The ticks and their rating, and the card's FSRS review: together or not at all."""
        with self._store.transaction():
            self._store._save_rating(session_id, card_id, topic, text, review.rating, review)
            self._conn.execute(
                "UPDATE mock_answers SET made = ?, rating = ? WHERE id = ?",
                (json.dumps(list(made)), review.rating, answer_id),
            )

    def discard(self, mock_id: int) -> None:
        """A mock with no answer is not a mock: its row goes."""
        with self._store.transaction():
            self._conn.execute("DELETE FROM mock_answers WHERE mock_id = ?", (mock_id,))
            self._conn.execute("DELETE FROM mock_interviews WHERE id = ?", (mock_id,))

    def minutes(self, mock_id: int) -> int:
        """The length the mock was planned for; 0 for a mock that is not there."""
        row = self._conn.execute("SELECT minutes FROM mock_interviews WHERE id = ?", (mock_id,)).fetchone()
        return int(row[0]) if row else 0

    def seconds_used(self, mock_id: int) -> int:
        row = self._conn.execute("SELECT seconds_used FROM mock_interviews WHERE id = ?", (mock_id,)).fetchone()
        return int(row[0] or 0) if row else 0

    def finish(self, mock_id: int, seconds_used: int) -> None:
        with self._store.transaction():
            self._conn.execute(
                "UPDATE mock_interviews SET ended_at = ?, seconds_used = ? WHERE id = ?",
                (iso(utcnow()), seconds_used, mock_id),
            )

    def scores(self, mock_id: int) -> list[CardScore]:
        """The mock's cards in the order asked (their follow-ups carry no score)."""
        rows = self._conn.execute(
            "SELECT card_id, points, made, rating, seconds FROM mock_answers WHERE mock_id = ? AND follow_up IS NULL "
            "ORDER BY id",
            (mock_id,),
        )
        return [
            CardScore(card_id, points, len(json.loads(made)) if made is not None else None, rating, seconds)
            for card_id, points, made, rating, seconds in rows
        ]

    def history(self) -> list[MockSummary]:
        """Every mock, oldest first."""
        rows = self._conn.execute(
            "SELECT m.id, m.topic, m.minutes, m.started_at, m.seconds_used, "
            "COUNT(a.id) AS answered, "
            "SUM(CASE WHEN a.follow_up IS NULL THEN a.points ELSE 0 END) AS points, "
            # `made` that is not JSON (edited by hand) counts as no point made rather than failing every reader.
            "SUM(CASE WHEN a.made IS NULL OR NOT json_valid(a.made) THEN 0 "
            "ELSE json_array_length(a.made) END) AS made, "
            "SUM(a.follow_up IS NULL AND a.made IS NULL) AS unscored "
            "FROM mock_interviews m LEFT JOIN mock_answers a ON a.mock_id = m.id GROUP BY m.id ORDER BY m.id"
        )
        return [MockSummary(*row) for row in rows]
