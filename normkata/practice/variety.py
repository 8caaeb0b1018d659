"""A short quiz spread over different facts: no two questions that teach one thing while the
bank has others to ask.

Two questions are on one fact when content says so, or when their words do:

- `katas/misconceptions.yaml` links both to the same named mistake (ln-torch-var-default and
  ln-bug-doc-var both teach torch.var's unbiased default);
- their English prompt, choices and explanation are close: TF-IDF cosine similarity of at least
  SAME_FACT, the words weighted by how rare they are in the whole bank (ln-bug-gamma-shape and
  ln-bug-stat-shape, 0.62, both swap the shapes of γ/β and of the statistics).

SAME_FACT was read off the bank (tests/test_quiz_variety.py holds the pairs it separates): the
pairs above it are one fact asked twice, the closest pair below it (0.28) two facts that share
vocabulary. The questions are taken in the order given (a seeded shuffle), each skipped while it
shares a fact with one already taken; when too few are left, the least similar fill the quiz.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from normkata.content.model import Question

#: Cosine similarity at or above which two questions count as one fact. Measured on the bank:
#: the closest pair worded alike about one fact (γ/β vs the statistics' shapes) reads 0.63; the
#: closest pairs about different facts (two gradient values, a value and a gradient) 0.31-0.36,
#: and those move as the bank grows (IDF), so the line sits between, not at their edge.
SAME_FACT = 0.45
#: Words that say nothing about a fact.
_STOP = frozenset(
    "the and for with that this are its not but from what which when one all has have each they than then into "
    "only over more does your you their there here also same would will can any use uses used like just some both "
    "other while whose where after before about because them these those out per pick apply true false".split()
)
_WORD = re.compile(r"[a-z_][a-z0-9_.]*[a-z0-9_]")


def _words(question: Question) -> list[str]:
    text = " ".join((question.prompt.en, question.explanation.en, *(c.en for c in question.choices))).lower()
    return [w for w in _WORD.findall(text) if len(w) >= 3 and w not in _STOP]


def corpus_words(corpus: Sequence[Question], files: Sequence[Path] = ()) -> dict[str, list[str]]:
    """Each question's words; kept in the content cache under the versions of the bank's `files`
    and of this module (a quiz's start need not tokenise the whole bank again)."""
    if not files:
        return {q.id: _words(q) for q in corpus}
    from normkata.content import cache
    from normkata.content.reading import file_version

    stamp = repr([(str(f), file_version(f)) for f in (*files, Path(__file__))]).encode()
    kept = cache.read_plain("words", cache.digest(stamp))
    if isinstance(kept, dict) and kept.keys() == {q.id for q in corpus}:
        return kept
    words = {q.id: _words(q) for q in corpus}
    cache.write_plain("words", cache.digest(stamp), words)
    return words


class Facts:
    """Which questions of a bank are on one fact."""

    def __init__(
        self,
        corpus: Sequence[Question],
        links: Mapping[str, Sequence[str]],
        words: Mapping[str, list[str]] | None = None,
    ) -> None:
        self._words = dict(words) if words is not None else corpus_words(corpus)
        self._documents = Counter(w for found in self._words.values() for w in set(found))
        self._total = max(1, len(corpus))
        self._vectors: dict[str, dict[str, float]] = {}  # made when first compared: a quiz compares a few
        self._mistakes: dict[str, set[str]] = {}
        for mistake, items in links.items():
            for item in items:
                self._mistakes.setdefault(item, set()).add(mistake)

    def similarity(self, a: str, b: str) -> float:
        """1 for two questions linked to one named mistake, else the cosine of their words."""
        if self._mistakes.get(a, set()) & self._mistakes.get(b, set()):
            return 1.0
        va, vb = self._vector(a), self._vector(b)
        return sum(weight * vb.get(word, 0.0) for word, weight in va.items())

    def _vector(self, item: str) -> dict[str, float]:
        if item not in self._vectors:
            counts = Counter(self._words.get(item, ()))
            self._vectors[item] = _unit(
                {w: (1 + math.log(n)) * math.log(self._total / self._documents[w]) for w, n in counts.items()}
            )
        return self._vectors[item]

    def spread(self, ordered: Iterable[Question], n: int) -> list[Question]:
        """`n` questions of `ordered`, in its order, none on a fact already asked while others are left."""
        left = list(ordered)
        chosen: list[Question] = []
        for question in list(left):
            if len(chosen) == n:
                break
            if all(self.similarity(question.id, c.id) < SAME_FACT for c in chosen):
                chosen.append(question)
                left.remove(question)
        while len(chosen) < n and left:  # the bank has no more facts: the least similar come next
            closest = min(left, key=lambda q: max(self.similarity(q.id, c.id) for c in chosen))
            chosen.append(closest)
            left.remove(closest)
        return chosen


def _unit(vector: dict[str, float]) -> dict[str, float]:
    norm = math.sqrt(sum(x * x for x in vector.values())) or 1.0
    return {word: x / norm for word, x in vector.items()}
