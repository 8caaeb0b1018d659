"""When does fitting a learner's own FSRS parameters help? Held-out log loss, fitted vs defaults.

A synthetic learner (tests/fsrs_learner.py) forgets by FSRS with its own "true" parameters;
normkata schedules it with the defaults (one 1-minute learning step), and it reviews when an
item falls due, a little late at times. An optimizer (`--optimizer rs`: fsrs-rs-python, what
`review --optimize` runs; `py`: py-fsrs's torch Optimizer, `pip install "fsrs[optimizer]"`) is
fitted on the learner's first reviews (75% of the countable ones, by time) with a given
mini-batch size; both parameter sets
then predict the reviews that came after (what `review --optimize` can see) and 2000 reviews of
the same learner on other items (the truth it cannot). Prints, per (learner, reviews, batch),
over several seeds: the held-out log losses, how many fits each gate keeps and what the kept
ones gain on the 2000, what the true parameters would gain, and the seconds a fit takes.

    python benchmarks/fsrs_fit.py                     # the table in docs/learners.md
    python benchmarks/fsrs_fit.py --reviews 100 --batch 64 --seeds 3 --optimizer py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
from normkata.practice.optimize import Logged, Prediction, countable_reviews, fit, held_out_split, predict  # noqa: E402
from tests.fsrs_learner import learner_parameters, synthetic_history  # noqa: E402


def fit_py(history: dict[str, list[Logged]], batch: int) -> list[float]:
    """py-fsrs 6's Optimizer (torch, pandas, tqdm) on every review log, in mini-batches of `batch`:
    what `review --optimize` ran before fsrs-rs."""
    from fsrs import Optimizer, Rating, ReviewLog, optimizer

    ids = {item: number for number, item in enumerate(sorted(history), start=1)}
    logs = [
        ReviewLog(card_id=ids[r.item], rating=Rating(r.rating), review_datetime=r.at, review_duration=r.duration_ms)
        for reviews in history.values()
        for r in reviews
    ]
    # The batch size is a module setting of py-fsrs 6 (512; below one batch it returns the defaults).
    saved = optimizer.mini_batch_size
    optimizer.mini_batch_size = max(1, min(batch, countable_reviews(history)))
    try:
        return [float(value) for value in Optimizer(logs).compute_optimal_parameters()]
    finally:
        optimizer.mini_batch_size = saved


def surely_better(before: Prediction, after: Prediction, sure: float = 1.645) -> bool:
    """A stricter gate than review --optimize's, measured beside it: the review-by-review
    improvement at least `sure` standard errors above 0 (one-sided 5%)."""
    gains = [b - a for b, a in zip(before.losses, after.losses, strict=True)]
    if len(gains) < 2:
        return False
    mean = statistics.mean(gains)
    spread = statistics.stdev(gains)
    return mean > 0 and (spread == 0 or mean / (spread / len(gains) ** 0.5) >= sure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learner", action="append", choices=("fast", "default"))
    parser.add_argument("--reviews", type=int, action="append")
    parser.add_argument("--batch", type=int, action="append")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--optimizer", choices=("rs", "py"), default="rs")
    args = parser.parse_args()
    print(f"optimizer: {'fsrs-rs-python' if args.optimizer == 'rs' else 'py-fsrs (torch)'}")
    print("held: the learner's later reviews (a quarter), log loss; future: 2000 reviews of other items, the")
    print("truth no gate sees. kept: the fit beat the defaults on held (plain: a lower mean, what review")
    print("--optimize asks; sure: by 1.645 standard errors); gain: future log loss of the defaults minus the fit's.")
    print(
        f"{'learner':<8} {'reviews':>7} {'batch':>5} {'held def':>8} {'held fit':>8} {'plain':>5} {'gain':>7} "
        f"{'sure':>5} {'gain':>7} {'all':>7} {'oracle':>7} {'fit s':>6}"
    )
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
                    fitted = fit(train, batch=batch) if args.optimizer == "rs" else fit_py(train, batch)
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
                print(
                    f"{kind:<8} {reviews:>7} {batch:>5} {mean(held_def):8.4f} {mean(held_fit):8.4f} "
                    f"{len(plain):>2}/{args.seeds:<2} {mean(plain) if plain else 0:7.4f} "
                    f"{len(sure):>2}/{args.seeds:<2} {mean(sure) if sure else 0:7.4f} {mean(gains):7.4f} "
                    f"{oracle:7.4f} {statistics.median(seconds):6.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
