"""A mock interview: which cards, in what order, and how ticks become a rating (kept by normkata.record.mocks).

Cards are drawn across the order of study (normkata.practice.curriculum: one card per topic in turn,
fundamentals first, easy before hard), weakest first once ratings show a weakness; those whose
estimated time fits are asked first, easy before hard, each card's follow-ups right after it,
and more cards follow while minutes are left. Once the record shows kernel study (a question of the
kernels topic answered or one of its cards rated, or a Triton kata graded), a mock over every topic
also plans one kernels card (a memory-traffic count, a fusion, a reduction's determinism), as ML
systems interviews ask. At the debrief the learner ticks the key points they made; the share becomes
an FSRS rating: none → Again, under half → Hard, half or more → Good, all → Easy.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from normkata.content.model import DIFFICULTIES, Card

if TYPE_CHECKING:
    from normkata.content.bank import Bank
    from normkata.record.store import Store

#: Estimated seconds to answer a card aloud, and each of its follow-ups.
CARD_SECONDS, FOLLOW_UP_SECONDS = 150, 60
#: The topic of the kernel question, and the extra that marks a kata as a kernel (Triton) kata.
KERNEL_TOPIC, KERNEL_EXTRA = "kernels", "triton"


@dataclass(frozen=True)
class Asked:
    """One question of the mock: a card, or one of its follow-ups."""

    card: Card
    follow_up: int | None = None  # index into the card's follow-ups

    def prompt(self, lang: str) -> str:
        if self.follow_up is None:
            return self.card.prompt.in_(lang)
        return self.card.follow_ups[self.follow_up].in_(lang)

    def key_points(self, lang: str) -> tuple[str, ...]:
        """What the answer should make: the card's key points, or its follow-up's."""
        if self.follow_up is None:
            return tuple(point.in_(lang) for point in self.card.key_points)
        return self.card.follow_up_key_points(self.follow_up, lang)

    @property
    def points(self) -> int:
        """Key points scored: a follow-up's are shown at the debrief but not ticked."""
        return len(self.card.key_points) if self.follow_up is None else 0


#: Set by tests only: each reading of the mock's clock moves it on by this many seconds, so a
#: test in a real terminal can run a 5-minute mock in a second.
FAKE_CLOCK_ENV = "NORMKATA_FAKE_CLOCK_STEP"
_ticks = 0


def clock() -> float:
    """time.monotonic, or a clock that moves FAKE_CLOCK_ENV seconds at each reading (tests)."""
    global _ticks
    step = os.environ.get(FAKE_CLOCK_ENV)
    if not step:
        return time.monotonic()
    _ticks += 1
    return time.monotonic() + _ticks * float(step)


def _cost(card: Card) -> int:
    return CARD_SECONDS + FOLLOW_UP_SECONDS * len(card.follow_ups)


def card_order(cards: list[Card], strength: dict[str, float], seed: int | None = None) -> list[Card]:
    """Every card, drawn across the order of study, weakest first (strength breaks the spread)."""
    from normkata.practice.curriculum import spread

    return sorted(spread(cards, seed), key=lambda c: strength.get(c.id, 0.0))


def studied_kernels(bank: Bank, store: Store) -> bool:
    """Whether the record shows kernel study: a question of the kernels topic answered, one of its
    cards rated, or a kata that needs Triton graded at least once."""
    from normkata.content.katas import load_katas
    from normkata.record.attempts import KataLog

    kernel_items = {q.id for q in bank.questions if q.topic == KERNEL_TOPIC}
    kernel_items |= {c.id for c in bank.cards if c.topic == KERNEL_TOPIC}
    if kernel_items & (store.latest_answers().keys() | store.latest_ratings().keys()):
        return True
    log = KataLog(store)
    return any(log.status(kata.id).attempts for kata in load_katas()[0] if KERNEL_EXTRA in kata.requires)


def interview_order(
    cards: list[Card], minutes: int, strength: dict[str, float], must: str | None = None
) -> list[Asked]:
    """The questions planned for a mock of `minutes`: at least one card, then as many as fit.
    `must`: a topic whose weakest card is planned first, wherever the order of study puts it."""
    chosen: list[Card] = []
    budget = minutes * 60
    for card in _with_first(card_order(cards, strength), must):
        if chosen and _cost(card) > budget:
            continue
        chosen.append(card)
        budget -= _cost(card)
    chosen.sort(key=lambda c: DIFFICULTIES.index(c.difficulty))
    return _asked(chosen)


def _asked(cards: list[Card]) -> list[Asked]:
    return [Asked(card, index) for card in cards for index in (None, *range(len(card.follow_ups)))]


def _with_first(ordered: list[Card], topic: str | None) -> list[Card]:
    """`ordered`, with its first card of `topic` (if any) moved to the front."""
    first = next((card for card in ordered if card.topic == topic), None) if topic else None
    return ordered if first is None else [first, *(card for card in ordered if card is not first)]


def questions(cards: list[Card], minutes: int, strength: dict[str, float], must: str | None = None) -> Iterator[Asked]:
    """The planned questions, then the other cards in order, each with its follow-ups: the mock
    stops at its deadline, not when the plan runs out."""
    planned = interview_order(cards, minutes, strength, must)
    yield from planned
    asked = {a.card.id for a in planned}
    yield from _asked([c for c in card_order(cards, strength) if c.id not in asked])


def rating_for(made: int, points: int) -> int:
    """Key points made out of `points` as an FSRS rating (1 Again .. 4 Easy)."""
    if made <= 0 or points <= 0:
        return 1
    if made == points:
        return 4
    return 3 if 2 * made >= points else 2
