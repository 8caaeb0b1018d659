"""A mistake a kata's suite can recognise and name: one type for the kata.yaml files, the shared
file (katas/shared.yaml), the grader's checks and every screen that shows one."""

from __future__ import annotations

from dataclasses import dataclass

from normkata.i18n.text import Text


@dataclass(frozen=True)
class Misconception:
    """Named by `id` in suites, records and links; worded for the learner in both languages."""

    id: str
    title: Text
    hint: Text
