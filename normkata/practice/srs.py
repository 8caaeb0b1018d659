"""Spaced repetition with FSRS: quiz results and self-ratings become review dates and review logs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from normkata.record.store import Review, Store, iso, utcnow
from normkata.record.values import BadValue, moment, shown, skip, stored_card

if TYPE_CHECKING:
    from fsrs import Scheduler

#: Items due this soon count as due now, like Anki's "learn ahead limit", so that a question
#: missed a minute ago (FSRS: Again = 1 min) is offered by `normkata review` straight away.
LEARN_AHEAD = timedelta(minutes=5)

#: One learning step instead of FSRS's default two (1 min, 10 min): an item missed comes back
#: in a minute, and one answered right the first time graduates to days (Good: 2 days, Easy:
#: 8) instead of coming back ten minutes later, the same evening, as an item to review.
#: Measured before: 25 minutes after a 17-question quiz with 13 right, review
#: served 11 of those 13 again.
LEARNING_STEPS = (timedelta(minutes=1),)


#: A card counts as known when its latest self-rating is Good or Easy.
GOOD_RATING = 3

#: Anki's default leech threshold: an item forgotten this many times after it was learnt
#: needs a new way in (read the explanation, rephrase it), not more of the same reviews.
LEECH_LAPSES = 8


def schedule(
    store: Store,
    item_id: str,
    rating: int,
    now: datetime | None = None,
    duration_ms: int | None = None,
    *,
    steps: bool = True,
) -> Review:
    """The item's next FSRS state after `rating` (1-4), with its review log; not saved.

    `steps=False` skips FSRS's (re)learning steps of minutes: a kata written again comes back
    in days, never in ten minutes.
    """
    from fsrs import Card, Rating

    stored = store.srs_card_json(item_id)
    # A schedule nobody can use (a database edited by hand) starts over, as a first review would.
    card = (stored_card(stored, f"srs {item_id}") if stored else None) or Card()
    before = int(card.state)
    card, log = scheduler(store.fsrs_parameters(), steps=steps).review_card(
        card, Rating(rating), review_datetime=now or utcnow(), review_duration=duration_ms
    )
    return Review(card.to_json(), iso(card.due), rating, before, iso(log.review_datetime), duration_ms)


def scheduler(parameters: Sequence[float] | None = None, *, steps: bool = True, fuzz: bool = True) -> Scheduler:
    """normkata's FSRS scheduler: the learner's fitted parameters (`review --optimize`) or fsrs's
    defaults, with LEARNING_STEPS (or, `steps=False`, none: katas come back in days). `fuzz=False`:
    no random spread of intervals, for a plan that simulates reviews ahead (advice/dated.py)."""
    from fsrs import Scheduler

    options: dict = {"learning_steps": LEARNING_STEPS if steps else ()}
    if not steps:
        options["relearning_steps"] = ()
    if not fuzz:
        options["enable_fuzzing"] = False
    if parameters:
        return Scheduler(parameters, **options)
    return Scheduler(**options)


def retrievability(
    card_jsons: dict[str, str], now: datetime | None = None, parameters: Sequence[float] | None = None
) -> dict[str, float]:
    """item id -> FSRS's probability that the item is recalled at `now` (0 for one never reviewed);
    an item whose card cannot be used is left out (noted once)."""
    fsrs_scheduler, at = scheduler(parameters), now or utcnow()
    recall = {}
    for item, text in card_jsons.items():
        card = stored_card(text, f"srs {item}")
        if card is not None:
            recall[item] = float(fsrs_scheduler.get_card_retrievability(card, at))
    return recall


def quiz_rating(correct: bool) -> int:
    """A quiz result as an FSRS rating: right is Good, wrong is Again."""
    return 3 if correct else 1


def due_cutoff(now: datetime | None = None) -> datetime:
    return (now or utcnow()) + LEARN_AHEAD


def when(due_iso: str, lang: str, now: datetime | None = None) -> str:
    """A due date as the learner thinks of it: "now", "in 10 min", "in 3 days" ("now" for one that
    cannot be read: a row edited by hand, noted)."""
    from normkata.i18n import t

    try:
        delta = moment(due_iso, ahead=None) - (now or utcnow())
    except BadValue as exc:
        skip(f"srs due {shown(due_iso)}", exc)
        delta = timedelta(0)
    minutes = delta.total_seconds() / 60
    if delta.total_seconds() < 30:
        return t("when.now", lang)
    for size, unit in ((60 * 24, "day"), (60, "hour"), (1, "min")):
        if minutes >= 0.99 * size or size == 1:  # 23 h 59.9 min is "in 1 day", not "in 24 hours"
            count = max(1, round(minutes / size))
            return t(f"when.{unit}.{'many' if count > 1 else 'one'}", lang, count=count)
    raise AssertionError("unreachable")


def comes_back(store: Store, item_ids: list[str], lang: str, now: datetime | None = None) -> str:
    """When the items just practised are due again, grouped: "2 now, 13 in 2 days"; "" for none."""
    from normkata.i18n import t

    wanted = set(item_ids)
    dues = sorted(row.due for row in store.srs_states() if row.item_id in wanted)
    if not dues:
        return ""
    cutoff = iso(due_cutoff(now))
    groups: dict[str, int] = {}
    for due in dues:
        label = when(due, lang, now) if due > cutoff else when(iso(now or utcnow()), lang, now)
        groups[label] = groups.get(label, 0) + 1
    joined = t("list.sep", lang).join(t("back.group", lang, n=n, when=label) for label, n in groups.items())
    from normkata.actions import Action, spoken

    return t("back.line", lang, groups=joined, review=spoken(Action.of("review"), lang))
