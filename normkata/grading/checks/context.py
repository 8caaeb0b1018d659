"""The run's settings, the one process-wide state of the checks: seed, language, learner file.

The runner sets them (`configure`) before the suite is collected; inputs draw from the seed,
messages are worded in the language and point into the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class RunContext:
    seed: int = 0
    lang: str = "en"
    file: str = ""  # the learner's file, as messages point into it (`rmsnorm.py:12`)


RUN = RunContext()


def configure(seed: int, lang: str, file: str = "") -> None:
    """Set the run's seed, language and learner file before the suite is collected."""
    RUN.seed, RUN.lang, RUN.file = seed, lang, file


def say(en: str, zh: str, **values: Any) -> str:
    """A message for the learner, in the run's language."""
    return (zh if RUN.lang == "zh" else en).format(**values)


def lang() -> str:
    return RUN.lang
