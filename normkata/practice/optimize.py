"""`normkata review --optimize`: fit the learner's own FSRS parameters with py-fsrs's Optimizer.

py-fsrs 6's `Optimizer.compute_optimal_parameters` trains on mini-batches of 512 reviews and
gives back the default parameters unchanged when there are fewer than 512 "Review-state"
reviews: a review on a later day than the item's previous one (same-day reviews carry no
forgetting to learn from), counting at most the first 64 reviews of each item. That is the
minimum here too, counted the same way, so the learner hears how many more are needed
instead of getting the defaults back in silence. (Its `compute_optimal_retention` also asks
for 512 review logs.) The optimizer needs torch, pandas and tqdm (`fsrs[optimizer]`); torch is
imported only here, never by the rest of the CLI.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from normkata.record.store import Store, iso, utcnow

#: py-fsrs 6: `mini_batch_size = 512`; below it compute_optimal_parameters returns the defaults.
MIN_REVIEWS = 512
#: py-fsrs 6: `max_seq_len = 64`, only the first 64 reviews of each card are used.
MAX_PER_ITEM = 64


@dataclass(frozen=True)
class Logged:
    item: str
    rating: int
    at: datetime
    duration_ms: int | None


def review_history(store: Store) -> dict[str, list[Logged]]:
    """item id -> its reviews, oldest first."""
    history: dict[str, list[Logged]] = {}
    rows = store.db.execute(
        "SELECT item_id, rating, reviewed_at, duration_ms FROM review_logs ORDER BY reviewed_at, id"
    )
    for row in rows:
        moment = datetime.fromisoformat(row["reviewed_at"])
        history.setdefault(row["item_id"], []).append(Logged(row["item_id"], int(row["rating"]), moment,
                                                             row["duration_ms"]))  # fmt: skip
    return history


def countable_reviews(history: dict[str, list[Logged]]) -> int:
    """Reviews the optimizer learns from: a day or more after the item's previous review (first 64 per item)."""
    count = 0
    for reviews in history.values():
        reviews = reviews[:MAX_PER_ITEM]
        count += sum((b.at - a.at).days > 0 for a, b in zip(reviews, reviews[1:], strict=False))
    return count


@dataclass(frozen=True)
class Prediction:
    reviews: int
    predicted: float  # mean predicted recall at those reviews
    recalled: float  # the share actually recalled (any rating but Again)
    log_loss: float


def predict(history: dict[str, list[Logged]], parameters: Sequence[float] | None) -> Prediction:
    """Replay every item's reviews under `parameters`: FSRS's predicted recall at each countable review."""
    from fsrs import Card, Rating

    from normkata.practice.srs import scheduler

    fsrs_scheduler = scheduler(parameters)
    probabilities, outcomes = [], []
    for reviews in history.values():
        card = Card(due=reviews[0].at)
        for review in reviews[:MAX_PER_ITEM]:
            if card.last_review is not None and (review.at - card.last_review).days > 0:
                probabilities.append(float(fsrs_scheduler.get_card_retrievability(card, review.at)))
                outcomes.append(0.0 if review.rating == 1 else 1.0)
            card, _ = fsrs_scheduler.review_card(card, Rating(review.rating), review_datetime=review.at)
    if not probabilities:
        return Prediction(0, 0.0, 0.0, 0.0)
    eps = 1e-6
    loss = -sum(y * math.log(max(p, eps)) + (1 - y) * math.log(max(1 - p, eps))
                for p, y in zip(probabilities, outcomes, strict=True)) / len(outcomes)  # fmt: skip
    return Prediction(len(outcomes), sum(probabilities) / len(probabilities), sum(outcomes) / len(outcomes), loss)


class OptimizerMissing(Exception):
    """py-fsrs's optimizer cannot run here (fsrs[optimizer] is not installed)."""


def fit(history: dict[str, list[Logged]]) -> list[float]:
    """py-fsrs's Optimizer on every review log (one integer card id per item)."""
    from fsrs import Rating, ReviewLog

    try:
        from fsrs import Optimizer

        ids = {item: number for number, item in enumerate(sorted(history), start=1)}
        logs = [ReviewLog(card_id=ids[r.item], rating=Rating(r.rating), review_datetime=r.at,
                          review_duration=r.duration_ms)
                for reviews in history.values() for r in reviews]  # fmt: skip
        optimizer = Optimizer(logs)
    except ImportError as exc:
        raise OptimizerMissing(str(exc).splitlines()[0]) from None
    return [float(value) for value in optimizer.compute_optimal_parameters()]


@dataclass(frozen=True)
class Fitted:
    parameters: list[float]
    before: Prediction
    after: Prediction


def optimize(store: Store) -> Fitted | int:
    """Fit and save the learner's parameters; or, below the minimum, how many more reviews are needed."""
    history = review_history(store)
    have = countable_reviews(history)
    if have < MIN_REVIEWS:
        return MIN_REVIEWS - have
    parameters = fit(history)
    before, after = predict(history, None), predict(history, parameters)
    with store.transaction():
        store.db.execute(
            "INSERT INTO fsrs_parameters (parameters, reviews, retention_before, retention_after, recalled, fitted_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (json.dumps(parameters), sum(len(r) for r in history.values()), before.predicted, after.predicted,
             after.recalled, iso(utcnow())),
        )  # fmt: skip
    return Fitted(parameters, before, after)


def optimize_command(lang: str) -> None:
    """What `normkata review --optimize` prints."""
    from normkata.errors import InputError
    from normkata.i18n import t
    from normkata.practice.session import report_damage
    from normkata.record.store import open_store
    from normkata.ui.terminal import make_console

    console = make_console()
    store = open_store(on_damage=lambda d: report_damage(d, lang))
    try:
        history = review_history(store)
        have = countable_reviews(history)
        if have < MIN_REVIEWS:
            console.print(t("optimize.too_few", lang, need=MIN_REVIEWS, have=have, more=MIN_REVIEWS - have))
            return
        try:
            with console.status(t("optimize.fitting", lang, n=have)):
                outcome = optimize(store)
        except OptimizerMissing as exc:
            raise InputError(t("optimize.missing", lang, why=exc)) from None
    finally:
        store.close()
    assert not isinstance(outcome, int)  # the minimum was checked above
    before, after = outcome.before, outcome.after
    console.print(t("optimize.result", lang, n=after.reviews, recalled=f"{after.recalled:.1%}",
                    before=f"{before.predicted:.1%}", after=f"{after.predicted:.1%}",
                    loss_before=f"{before.log_loss:.4f}", loss_after=f"{after.log_loss:.4f}"))  # fmt: skip
    console.print(t("optimize.saved", lang))
