"""The run's settings, the one process-wide state of the checks: seed, language, learner file.

`RUN` is the runner's per-grade setting, not a way to find the language: the runner sets it
(`configure`) from each grade request's `lang` before the suite is collected, and everything
below the runner that words a message for this grade reads it here. Inputs draw from the seed,
messages are worded in the language (`say`, over `normkata.i18n.Text`) and point into the file.
Code outside a grade takes the language as an argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from normkata.i18n import Text


@dataclass
class RunContext:
    seed: int = 0
    lang: str = "en"
    file: str = ""  # the learner's file, as messages point into it (`rmsnorm.py:12`)


RUN = RunContext()


def configure(seed: int, lang: str, file: str = "") -> None:
    """Set the run's seed, language and learner file before the suite is collected."""
    RUN.seed, RUN.lang, RUN.file = seed, lang, file


def say_text(text: Text, **values: Any) -> str:
    """`text` in the grade's language, its `{fields}` filled in with `values`."""
    return text.format(RUN.lang, **values)


def say(en: str, zh: str, **values: Any) -> str:
    """A message for the learner in the grade's language: `Text(en, zh)`, formatted."""
    return say_text(Text(en, zh), **values)


def lang() -> str:
    return RUN.lang
