"""The order of study, as the bank's topic files state it: each file's `order:` (its place),
`requires:` (the topics it builds on) and `core:` (a first, diagnostic quiz asks about it).

normkata.practice.curriculum holds what is done with it; normkata.content.study_checks checks
it. A topic without `order:` (a bank file added later, a test's fixture bank) comes after every
placed one, in the bank's order.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from normkata.content.model import Bank
from normkata.content.reading import file_version


@dataclass(frozen=True)
class StudyOrder:
    order: tuple[str, ...]  # the placed topics, by their `order:`
    core: tuple[str, ...]  # the diagnostic quiz's topics, in the order of study
    requires: dict[str, tuple[str, ...]]  # topic -> the topics it builds on

    @classmethod
    def of(cls, bank: Bank) -> StudyOrder:
        placed = sorted((t for t in bank.topics.values() if t.order is not None), key=lambda t: t.order or 0)
        order = tuple(t.id for t in placed)
        return cls(
            order,
            tuple(t for t in order if bank.topics[t].core),
            {t.id: t.requires for t in bank.topics.values() if t.requires},
        )


def study_order(folder: Path | None = None) -> StudyOrder:
    """The order of the bank in `folder` (the learner's bank by default), read once per version
    of its files: every sort by the order of study asks."""
    from normkata.content.bank import bank_files
    from normkata.paths import quizzes_dir

    folder = folder or quizzes_dir()
    return _study_order(folder, tuple((f, file_version(f)) for f in bank_files(folder)))


@functools.lru_cache(maxsize=4)
def _study_order(folder: Path, _files: tuple[tuple[Path, tuple[int, ...]], ...]) -> StudyOrder:
    from normkata.content.bank import load_bank

    return StudyOrder.of(load_bank(folder))
