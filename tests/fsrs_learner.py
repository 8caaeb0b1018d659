"""A synthetic learner for `review --optimize`: it forgets by FSRS with its own parameters while
normkata schedules it with the defaults (one 1-minute learning step), and reviews when an item
falls due, a little late at times. benchmarks/fsrs_fit.py measures fits on it; the tests write
its reviews into a store."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from normkata.practice.optimize import Logged, countable_reviews
from normkata.record.store import Store, iso

#: A learner who forgets faster than FSRS's defaults assume: a third of the initial stabilities
#: and half the growth after a recall. On its reviews the defaults predict 90% recall where it
#: recalls 79%.
FAST_FORGETTER = (0.03, 0.15, 0.4, 1.5)


def learner_parameters(kind: str) -> list[float]:
    """`fast`: FAST_FORGETTER; `default`: FSRS's defaults."""
    from fsrs.scheduler import DEFAULT_PARAMETERS

    parameters = list(DEFAULT_PARAMETERS)
    if kind == "fast":
        parameters[:4] = FAST_FORGETTER
        parameters[8] = DEFAULT_PARAMETERS[8] * 0.5
    return parameters


def synthetic_history(kind: str, countable: int, seed: int) -> dict[str, list[Logged]]:
    """Items reviewed as normkata schedules them until `countable` reviews on a later day exist."""
    from fsrs import Card, Rating

    from normkata.practice.srs import scheduler

    rng = random.Random(seed)
    # No fuzz: py-fsrs draws it from the global `random`, and the same seed must give the same learner.
    truth, schedule = scheduler(learner_parameters(kind), fuzz=False), scheduler(None, fuzz=False)
    history: dict[str, list[Logged]] = {}
    start = datetime(2026, 1, 1, 19, tzinfo=timezone.utc)
    item = 0
    while countable_reviews(history) < countable:
        name = f"item-{item}"
        at = start + timedelta(hours=item % 24, days=item // 6)
        card, true_card = Card(due=at), Card(due=at)
        reviews: list[Logged] = []
        for _ in range(rng.randint(3, 7)):
            recalled = true_card.last_review is None or rng.random() < truth.get_card_retrievability(true_card, at)
            rating = Rating.Good if recalled else Rating.Again
            if recalled and rng.random() < 0.15:
                rating = Rating.Hard if rng.random() < 0.5 else Rating.Easy
            reviews.append(Logged(name, int(rating), at, 5000))
            card, _ = schedule.review_card(card, rating, review_datetime=at)
            true_card, _ = truth.review_card(true_card, rating, review_datetime=at)
            at = max(card.due, at + timedelta(minutes=1)) + timedelta(hours=rng.choice((0, 0, 2, 20, 44)))
        history[name] = reviews
        item += 1
    return history


def write_history(store: Store, history: dict[str, list[Logged]]) -> None:
    with store.transaction():
        for reviews in history.values():
            for review in reviews:
                store._conn.execute(
                    "INSERT INTO review_logs (item_id, kind, topic, rating, state_before, reviewed_at, duration_ms) "
                    "VALUES (?, 'card', 't', ?, NULL, ?, ?)",
                    (review.item, review.rating, iso(review.at), review.duration_ms),
                )
