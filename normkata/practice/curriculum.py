"""The order of study: fundamentals before derivations and inference tricks.

Every topic of the bank has a place in `ORDER` and the topics it builds on in `REQUIRES`. The
advisor (`next`, `plan`), `interview`, `mock` and the diagnostic quiz follow this order on a
fresh or thin record; once the learner's answers show a weakness, the weakness comes first.

A topic the order does not name (a bank file added later, a test's fixture bank) comes after
every named one, in the bank's order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

#: Topic ids in the order they are studied. tests/test_curriculum.py checks that it names every
#: topic of the bank and that each topic comes after everything it requires.
ORDER: tuple[str, ...] = (
    "why",  # what normalization is for: the picture everything else hangs on
    "batchnorm",
    "layernorm",
    "rmsnorm",
    "prenorm",  # where the norm sits in a Transformer block
    "placement",  # where current models put it: sandwich norms, OLMo 2's output norm, DeepNorm
    "normfree",  # Dynamic Tanh: an element-wise replacement for the norm
    "ngpt",  # the normalized Transformer, in brief
    "groupnorm",
    "precision",  # fp16 / bf16: why the statistic is taken in float32
    "backward",  # derivations by hand, once the forward passes are known
    "cost",
    "statistics",  # Welford and Chan: the running statistics behind BatchNorm
    "qknorm",
    "inference",  # fused add + RMSNorm in inference engines
    "kernels",  # the fused norm kernel in Triton: masks, strides, float32 accumulation
)

#: The topics a first, diagnostic quiz spreads over: one question each, easy first.
CORE: tuple[str, ...] = ("why", "batchnorm", "layernorm", "rmsnorm", "prenorm")

#: topic -> the topics it builds on.
REQUIRES: dict[str, tuple[str, ...]] = {
    "batchnorm": ("why",),
    "layernorm": ("why",),
    "rmsnorm": ("layernorm",),
    "prenorm": ("layernorm", "rmsnorm"),
    "groupnorm": ("batchnorm", "layernorm"),
    "precision": ("rmsnorm",),
    "backward": ("batchnorm", "layernorm", "rmsnorm"),
    "cost": ("layernorm", "rmsnorm"),
    "statistics": ("batchnorm",),
    "qknorm": ("rmsnorm", "prenorm"),
    "inference": ("rmsnorm", "prenorm", "precision"),
    "placement": ("prenorm",),
    "normfree": ("layernorm", "rmsnorm", "prenorm"),
    "ngpt": ("rmsnorm", "prenorm"),
    "kernels": ("rmsnorm", "precision", "backward", "cost"),
}


def rank(topic: str, known: Sequence[str] = ()) -> int:
    """A topic's place in the order of study; unnamed topics after every named one, in `known`'s order."""
    if topic in ORDER:
        return ORDER.index(topic)
    return len(ORDER) + (list(known).index(topic) if topic in known else len(known))


def ordered(topics: Iterable[str]) -> list[str]:
    """`topics` in the order of study."""
    given = list(topics)
    return sorted(given, key=lambda topic: rank(topic, given))


#: kata id -> the topic it is studied with, where that is not the last of its topics in the
#: order of study (rmsnorm's kata also covers precision, but belongs with RMSNorm itself).
KATA_HOME: dict[str, str] = {
    "rmsnorm": "rmsnorm",
    "layernorm": "layernorm",
    "batchnorm": "batchnorm",
    "prenorm": "prenorm",
    "groupnorm": "groupnorm",
    "rmsnorm_backward": "backward",
    "layernorm_backward": "backward",
    "batchnorm_backward": "backward",
    "welford": "statistics",
    "qknorm_attention": "qknorm",
    "fused_add_rmsnorm": "inference",
}


def kata_home(kata: str, topics: Sequence[str], known: Sequence[str] = ()) -> str | None:
    """The topic a kata is offered with: KATA_HOME, else the last of its topics in the order."""
    if kata in KATA_HOME:
        return KATA_HOME[kata]
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
    core = [i for i in items if i.topic in CORE]
    first = spread([i for i in core if i.difficulty != "hard"], seed) or spread(items, seed)
    chosen = first[: min(n, len(CORE))]
    rest = [i for i in spread(items, seed) if i not in chosen]
    return (chosen + rest)[:n]
