"""Spaced repetition with FSRS: quiz results and self-ratings become review dates and review logs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from normkata.store import Review, Store, iso, utcnow

if TYPE_CHECKING:
    from fsrs import Scheduler

#: Items due this soon count as due now, like Anki's "learn ahead limit", so that a question
#: missed a minute ago (FSRS: Again = 1 min) is offered by `normkata review` straight away,
#: while one answered right (Good = 10 min) is not.
LEARN_AHEAD = timedelta(minutes=5)

RATING_NAMES = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}

#: A card counts as known when its latest self-rating is Good or Easy.
GOOD_RATING = 3

#: Anki's default leech threshold: an item forgotten this many times after it was learnt
#: needs a new way in (read the explanation, rephrase it), not more of the same reviews.
LEECH_LAPSES = 8


def schedule(
    store: Store, item_id: str, rating: int, now: datetime | None = None, duration_ms: int | None = None,
    *, steps: bool = True,
) -> Review:
    """The item's next FSRS state after `rating` (1-4), with its review log; not saved.

    `steps=False` skips FSRS's (re)learning steps of minutes: a kata written again comes back
    in days, never in ten minutes.
    """
    from fsrs import Card, Rating

    stored = store.srs_card_json(item_id)
    card = Card.from_json(stored) if stored else Card()
    before = int(card.state)
    card, log = scheduler(store.fsrs_parameters(), steps=steps).review_card(
        card, Rating(rating), review_datetime=now or utcnow(), review_duration=duration_ms
    )
    return Review(card.to_json(), iso(card.due), rating, before, iso(log.review_datetime), duration_ms)


def scheduler(parameters: Sequence[float] | None = None, *, steps: bool = True) -> Scheduler:
    """fsrs's scheduler with the learner's fitted parameters (`review --optimize`), else its defaults."""
    from fsrs import Scheduler

    if parameters:
        return Scheduler(parameters) if steps else Scheduler(parameters, learning_steps=(), relearning_steps=())
    return Scheduler() if steps else Scheduler(learning_steps=(), relearning_steps=())


def retrievability(
    card_jsons: dict[str, str], now: datetime | None = None, parameters: Sequence[float] | None = None
) -> dict[str, float]:
    """item id -> FSRS's probability that the item is recalled at `now` (0 for one never reviewed)."""
    from fsrs import Card

    fsrs_scheduler, moment = scheduler(parameters), now or utcnow()
    return {
        item: float(fsrs_scheduler.get_card_retrievability(Card.from_json(card), moment))
        for item, card in card_jsons.items()
    }


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
