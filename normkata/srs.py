"""Spaced repetition with FSRS: quiz results and self-ratings become review dates."""

from __future__ import annotations

from datetime import datetime, timedelta

from normkata.store import Store, iso, utcnow

#: Items due this soon count as due now, like Anki's "learn ahead limit", so that a question
#: missed a minute ago (FSRS: Again = 1 min) is offered by `normkata review` straight away,
#: while one answered right (Good = 10 min) is not.
LEARN_AHEAD = timedelta(minutes=5)

RATING_NAMES = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}


def schedule(store: Store, item_id: str, rating: int, now: datetime | None = None) -> tuple[str, str]:
    """The item's next FSRS state after `rating` (1-4), as (card_json, due_iso); not saved."""
    from fsrs import Card, Rating, Scheduler

    stored = store.srs_card_json(item_id)
    card = Card.from_json(stored) if stored else Card()
    card, _log = Scheduler().review_card(card, Rating(rating), review_datetime=now or utcnow())
    return card.to_json(), iso(card.due)


def quiz_rating(correct: bool) -> int:
    """A quiz result as an FSRS rating: right is Good, wrong is Again."""
    return 3 if correct else 1


def due_cutoff(now: datetime | None = None) -> datetime:
    return (now or utcnow()) + LEARN_AHEAD


def when(due_iso: str, lang: str, now: datetime | None = None) -> str:
    """A due date as the learner thinks of it: "now", "in 10 min", "in 3 days"."""
    delta = datetime.fromisoformat(due_iso) - (now or utcnow())
    minutes = delta.total_seconds() / 60
    if minutes < 1:
        return "now" if lang == "en" else "现在"
    for size, en, zh in ((60 * 24, "day", "天"), (60, "hour", "小时"), (1, "min", "分钟")):
        if minutes >= size:
            count = round(minutes / size)
            if lang == "zh":
                return f"{count} {zh}后"
            return f"in {count} {en}{'s' if count > 1 and en != 'min' else ''}"
    raise AssertionError("unreachable")
