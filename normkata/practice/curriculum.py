"""The order of study: fundamentals before derivations and inference tricks.

The order itself is data: each topic file of the bank states its place (`order:`), the topics
it builds on (`requires:`) and whether the diagnostic quiz asks about it (`core:`), and each
kata its home topic (kata.yaml's `home:`); normkata.content.study reads and checks them. Here is
what is done with it. The advisor (`next`, `plan`), `interview`, `mock` and the diagnostic quiz
follow this order on a fresh or thin record; once the learner's answers show a weakness, the
weakness comes first.

A topic the order does not name (a bank file added later, a test's fixture bank) comes after
every named one, in the bank's order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from normkata.content.study import study_order


def rank(topic: str, known: Sequence[str] = ()) -> int:
    """A topic's place in the order of study; unnamed topics after every named one, in `known`'s order."""
    order = study_order().order
    if topic in order:
        return order.index(topic)
    return len(order) + (list(known).index(topic) if topic in known else len(known))


def ordered(topics: Iterable[str]) -> list[str]:
    """`topics` in the order of study."""
    given = list(topics)
    return sorted(given, key=lambda topic: rank(topic, given))


def core_topics() -> tuple[str, ...]:
    """The topics a first, diagnostic quiz spreads over: one question each, easy first."""
    return study_order().core


def kata_home(home: str | None, topics: Sequence[str], known: Sequence[str] = ()) -> str | None:
    """The topic a kata is offered with: its kata.yaml's `home`, else the last of its topics in the order."""
    if home is not None:
        return home
    return max(topics, key=lambda topic: rank(topic, known), default=None)


class _Drawn(Protocol):
    @property
    def topic(self) -> str: ...

    @property
    def difficulty(self) -> str: ...


Drawn = TypeVar("Drawn", bound=_Drawn)


def spread(items: Sequence[Drawn], seed: int | None = None) -> list[Drawn]:
    """Items taken in turn from each topic in the order of study: each topic's first (easiest)
    item, then each topic's second, and so on. `seed` shuffles items of one topic and one
    difficulty; without it the bank's order is kept."""
    import random

    from normkata.content.model import DIFFICULTIES

    known = list(dict.fromkeys(i.topic for i in items))
    by_topic: dict[str, list[Drawn]] = {}
    for item in items:
        by_topic.setdefault(item.topic, []).append(item)
    for topic, group in by_topic.items():
        if seed is not None:
            random.Random(f"{seed}:{topic}").shuffle(group)
        group.sort(key=lambda i: DIFFICULTIES.index(i.difficulty) if i.difficulty in DIFFICULTIES else 1)
    topics = sorted(by_topic, key=lambda topic: rank(topic, known))
    out: list[Drawn] = []
    for turn in range(max((len(g) for g in by_topic.values()), default=0)):
        out.extend(by_topic[topic][turn] for topic in topics if turn < len(by_topic[topic]))
    return out


def diagnostic(items: Sequence[Drawn], n: int, seed: int | None = None) -> list[Drawn]:
    """A first quiz of `n` questions spread over the core topics, easy first; past one question
    per core topic, the spread goes on over every topic in the order of study."""
    topics = core_topics()
    core = [i for i in items if i.topic in topics]
    first = spread([i for i in core if i.difficulty != "hard"], seed) or spread(items, seed)
    chosen = first[: min(n, len(topics))]
    rest = [i for i in spread(items, seed) if i not in chosen]
    return (chosen + rest)[:n]
