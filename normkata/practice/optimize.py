"""`normkata review --optimize`: fit the learner's own FSRS parameters, and keep them only when they
predict the learner's later reviews better than the defaults.

The fit is FSRS's own Rust optimizer (the `optimizer` extra, fsrs-rs-python: a 1.5 MB wheel, no
torch), chosen over py-fsrs's torch Optimizer by benchmarks/fsrs_fit.py (docs/learners.md: a fit
in milliseconds instead of seconds plus torch's import, and kept fits that gain more); it returns
FSRS 6's 21 parameters, which py-fsrs's Scheduler takes. It learns from reviews on a later day
than the item's previous one (same-day reviews carry no forgetting to learn from), the first
MAX_PER_ITEM of each item, in mini-batches of BATCH (its own 512 would make a learner with two
weeks of practice, a hundred such reviews, wait for months). Instead of a size the fit answers
an honest question: the reviews are split by time, the earlier TRAIN_SHARE fitted and the later
ones held out, and the fitted parameters are kept only when their log loss on the held-out
reviews beats the defaults'. The same benchmark measures where that starts to help (MIN_REVIEWS).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from normkata.record.store import Store

#: Countable reviews below which no fit is tried. benchmarks/fsrs_fit.py (docs/learners.md has
#: the table): at 50 fsrs-rs gives the defaults back (py-fsrs's kept fits hurt a learner who
#: forgets as the defaults assume: future log loss +0.012); from 100 most kept fits help a
#: learner who forgets faster (future log loss -0.036 to -0.045).
MIN_REVIEWS = 100
#: Only the first 64 reviews of each item are learnt from (py-fsrs 6's `max_seq_len`, kept).
MAX_PER_ITEM = 64
#: Mini-batch size handed to the optimizer (its own is 512). benchmarks/fsrs_fit.py: 16, 32 and
#: 64 fit alike from 100 reviews; 32 is under the 75 reviews a 100-review record trains on.
BATCH = 32
#: The earlier share of the countable reviews, by time, that the fit learns from; the rest is held out.
TRAIN_SHARE = 0.75


@dataclass(frozen=True)
class Logged:
    item: str
    rating: int
    at: datetime
    duration_ms: int | None


def review_history(store: Store) -> dict[str, list[Logged]]:
    """item id -> its reviews, oldest first."""
    history: dict[str, list[Logged]] = {}
    for row in store.review_logs():
        moment = datetime.fromisoformat(row.reviewed_at)
        history.setdefault(row.item_id, []).append(Logged(row.item_id, int(row.rating), moment, row.duration_ms))
    return history


def _countable_times(history: dict[str, list[Logged]]) -> list[datetime]:
    """When each review the optimizer learns from happened: a day or more after the item's previous one."""
    times = []
    for reviews in history.values():
        reviews = reviews[:MAX_PER_ITEM]
        times += [b.at for a, b in zip(reviews, reviews[1:], strict=False) if (b.at - a.at).days > 0]
    return sorted(times)


def countable_reviews(history: dict[str, list[Logged]]) -> int:
    """Reviews the optimizer learns from: a day or more after the item's previous review (first 64 per item)."""
    return len(_countable_times(history))


def held_out_split(history: dict[str, list[Logged]]) -> tuple[dict[str, list[Logged]], datetime]:
    """The reviews to fit on (everything before the moment the last 1 - TRAIN_SHARE of the
    countable reviews begins), and that moment: later reviews are held out."""
    times = _countable_times(history)
    since = times[min(len(times) - 1, math.floor(len(times) * TRAIN_SHARE))]
    train = {item: [r for r in reviews if r.at < since] for item, reviews in history.items()}
    return {item: reviews for item, reviews in train.items() if reviews}, since


@dataclass(frozen=True)
class Prediction:
    reviews: int
    predicted: float  # mean predicted recall at those reviews
    recalled: float  # the share actually recalled (any rating but Again)
    log_loss: float
    #: Each review's log loss, in the order replayed (the same order for any parameters).
    losses: tuple[float, ...] = ()


def predict(
    history: dict[str, list[Logged]], parameters: Sequence[float] | None, since: datetime | None = None
) -> Prediction:
    """Replay every item's reviews under `parameters`: FSRS's predicted recall at each countable
    review (from `since` on, when given: the earlier ones only build the item's state)."""
    from fsrs import Card, Rating

    from normkata.practice.srs import scheduler

    fsrs_scheduler = scheduler(parameters)
    probabilities, outcomes = [], []
    for reviews in history.values():
        card = Card(due=reviews[0].at)
        for review in reviews[:MAX_PER_ITEM]:
            if card.last_review is not None and (review.at - card.last_review).days > 0:
                if since is None or review.at >= since:
                    probabilities.append(float(fsrs_scheduler.get_card_retrievability(card, review.at)))
                    outcomes.append(0.0 if review.rating == 1 else 1.0)
            card, _ = fsrs_scheduler.review_card(card, Rating(review.rating), review_datetime=review.at)
    if not probabilities:
        return Prediction(0, 0.0, 0.0, 0.0)
    eps = 1e-6
    losses = tuple(
        -(y * math.log(max(p, eps)) + (1 - y) * math.log(max(1 - p, eps)))
        for p, y in zip(probabilities, outcomes, strict=True)
    )
    return Prediction(
        len(outcomes),
        sum(probabilities) / len(probabilities),
        sum(outcomes) / len(outcomes),
        sum(losses) / len(losses),
        losses,
    )


class OptimizerMissing(Exception):
    """The optimizer cannot run here (the `optimizer` extra, fsrs-rs-python, is not installed)."""


def training_items(history: dict[str, list[Logged]]) -> tuple[list[list[tuple[int, int]]], list[int]]:
    """What fsrs-rs learns from: for each countable review, the item's reviews up to it as
    (rating, days since the previous review; 0 for the first), and the item's number."""
    ids = {item: number for number, item in enumerate(sorted(history), start=1)}
    sequences, owners = [], []
    for item, reviews in history.items():
        reviews = reviews[:MAX_PER_ITEM]
        steps = [(reviews[0].rating, 0)]
        for before, review in zip(reviews, reviews[1:], strict=False):
            steps.append((review.rating, max(0, (review.at - before.at).days)))
            if steps[-1][1] > 0:  # a review on a later day: something to learn from
                sequences.append(list(steps))
                owners.append(ids[item])
    return sequences, owners


def fit(history: dict[str, list[Logged]], batch: int = BATCH) -> list[float]:
    """fsrs-rs's optimizer (the `optimizer` extra, fsrs-rs-python: Rust, no torch) on every
    countable review, in mini-batches of `batch`."""
    try:
        from fsrs_rs_python import DEFAULT_PARAMETERS, FSRS, FSRSItem, FSRSReview, TrainingConfig
    except ImportError as exc:
        raise OptimizerMissing(str(exc).splitlines()[0]) from None
    sequences, owners = training_items(history)
    items = [FSRSItem([FSRSReview(rating, days) for rating, days in steps]) for steps in sequences]
    config = TrainingConfig(batch_size=max(1, min(batch, len(items))))
    fitted = FSRS(DEFAULT_PARAMETERS).compute_parameters(items, card_ids=owners, training_config=config)
    return [float(value) for value in fitted]


@dataclass(frozen=True)
class Fitted:
    parameters: list[float]
    train: int  # countable reviews fitted on
    before: Prediction  # the defaults on the held-out reviews
    after: Prediction  # the fitted parameters on the same reviews

    @property
    def better(self) -> bool:
        """Whether the fitted parameters predict the held-out reviews better (lower log loss)."""
        return self.after.log_loss < self.before.log_loss


def optimize(store: Store) -> Fitted | int:
    """Fit on the earlier reviews, test on the later ones, and save the parameters when they
    predict those better than the defaults; below the minimum, how many more reviews are needed."""
    history = review_history(store)
    have = countable_reviews(history)
    if have < MIN_REVIEWS:
        return MIN_REVIEWS - have
    train, since = held_out_split(history)
    parameters = fit(train)
    outcome = Fitted(
        parameters, countable_reviews(train), predict(history, None, since), predict(history, parameters, since)
    )
    if outcome.better:
        reviews = sum(len(r) for r in train.values())
        store.save_fsrs_parameters(
            parameters, reviews, outcome.before.predicted, outcome.after.predicted, outcome.after.recalled
        )
    return outcome


def optimize_command(lang: str) -> None:
    """What `normkata review --optimize` prints."""
    from normkata.errors import InputError
    from normkata.i18n import t
    from normkata.record.store import open_record
    from normkata.ui.terminal import make_console

    console = make_console()
    store = open_record(lang)
    try:
        have = countable_reviews(review_history(store))
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
    console.print(
        t(
            "optimize.result",
            lang,
            train=outcome.train,
            n=after.reviews,
            recalled=f"{after.recalled:.1%}",
            before=f"{before.predicted:.1%}",
            after=f"{after.predicted:.1%}",
            loss_before=f"{before.log_loss:.4f}",
            loss_after=f"{after.log_loss:.4f}",
        )
    )
    console.print(t("optimize.saved" if outcome.better else "optimize.kept_defaults", lang))
