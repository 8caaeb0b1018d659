"""When does fitting a learner's own FSRS parameters help? Held-out log loss, fitted vs defaults.

A synthetic learner forgets by FSRS with its own "true" parameters; normkata schedules it with
the defaults (one 1-minute learning step), and it reviews when an item falls due, a little late
at times. py-fsrs's Optimizer is fitted on the learner's first reviews (75% of the countable
ones, by time) with a given mini-batch size, and both parameter sets then predict the reviews
that came after. Prints, per (learner, reviews, batch): the held-out log loss of the defaults
and of the fit, and the seconds the fit took.

    python benchmarks/fsrs_fit.py                     # the table in docs/learners.md
    python benchmarks/fsrs_fit.py --reviews 100 --batch 64 --seeds 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import datetime, timedelta, timezone

from normkata.practice.optimize import Logged, countable_reviews, fit, held_out_split, predict, surely_better

#: A learner who forgets faster than FSRS's defaults assume (initial stabilities a third, slower growth).
FAST_FORGETTER = (0.03, 0.15, 0.4, 1.5)


def learner_parameters(kind: str) -> list[float]:
    from fsrs.scheduler import DEFAULT_PARAMETERS

    parameters = list(DEFAULT_PARAMETERS)
    if kind == "fast":
        parameters[:4] = FAST_FORGETTER
        parameters[8] = DEFAULT_PARAMETERS[8] * 0.5  # stability grows more slowly after a recall
    return parameters


def synthetic_history(kind: str, countable: int, seed: int) -> dict[str, list[Logged]]:
    """Items reviewed as normkata schedules them until `countable` reviews on a later day exist."""
    from fsrs import Card, Rating

    from normkata.practice.srs import scheduler

    rng = random.Random(seed)
    truth = scheduler(learner_parameters(kind))
    schedule = scheduler(None)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learner", action="append", choices=("fast", "default"))
    parser.add_argument("--reviews", type=int, action="append")
    parser.add_argument("--batch", type=int, action="append")
    parser.add_argument("--seeds", type=int, default=8)
    args = parser.parse_args()
    print("held: the learner's later reviews (a quarter), log loss; future: 2000 reviews of other items, the")
    print("truth no gate sees. kept: the fit beat the defaults on held (plain: lower mean; sure: by 1.645")
    print("standard errors, what review --optimize asks); gain: future log loss of the defaults minus the fit's.")
    print(f"{'learner':<8} {'reviews':>7} {'batch':>5} {'held def':>8} {'held fit':>8} {'plain':>5} {'gain':>7} "
          f"{'sure':>5} {'gain':>7} {'all':>7} {'oracle':>7} {'fit s':>6}")  # fmt: skip
    for kind in args.learner or ["fast", "default"]:
        future = synthetic_history(kind, 2000, seed=10_000)
        oracle = predict(future, None).log_loss - predict(future, learner_parameters(kind)).log_loss
        for reviews in args.reviews or [50, 100, 200, 400]:
            for batch in args.batch or [16, 32, 64]:
                held_def, held_fit, plain, sure, gains, seconds = [], [], [], [], [], []
                for seed in range(args.seeds):
                    history = synthetic_history(kind, reviews, seed)
                    train, since = held_out_split(history)
                    started = time.perf_counter()
                    fitted = fit(train, batch=batch)
                    seconds.append(time.perf_counter() - started)
                    before, after = predict(history, None, since), predict(history, fitted, since)
                    held_def.append(before.log_loss)
                    held_fit.append(after.log_loss)
                    gain = predict(future, None).log_loss - predict(future, fitted).log_loss
                    gains.append(gain)
                    if after.log_loss < before.log_loss:
                        plain.append(gain)
                    if surely_better(before, after):
                        sure.append(gain)
                mean = statistics.mean
                print(f"{kind:<8} {reviews:>7} {batch:>5} {mean(held_def):8.4f} {mean(held_fit):8.4f} "
                      f"{len(plain):>2}/{args.seeds:<2} {mean(plain) if plain else 0:7.4f} "
                      f"{len(sure):>2}/{args.seeds:<2} {mean(sure) if sure else 0:7.4f} {mean(gains):7.4f} "
                      f"{oracle:7.4f} {statistics.median(seconds):6.1f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
