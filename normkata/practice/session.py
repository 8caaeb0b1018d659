"""What every practice session needs: the bank, the store, the terminal, the language."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from normkata.i18n import t

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.content.bank import Bank
    from normkata.content.model import Card, Question
    from normkata.record.store import Store
    from normkata.ui.terminal import Prompter


Item = TypeVar("Item")
Outcome = TypeVar("Outcome")


@dataclass
class Practice:
    bank: Bank
    store: Store
    console: Console
    prompter: Prompter
    lang: str
    session_id: int
    #: When the current item was shown (time.monotonic): a review's duration starts here.
    shown_at: float = 0.0

    def elapsed_ms(self) -> int:
        """Milliseconds since the current item was shown, kept in its FSRS review log."""
        return round((time.monotonic() - self.shown_at) * 1000)


def open_practice(kind: str, lang: str, *, quiet: bool = False) -> Practice:
    """Load the bank and the store, start a session row; reports a damaged database on stderr."""
    from normkata.content.bank import load_bank
    from normkata.record.store import open_record
    from normkata.ui.terminal import Prompter, make_console

    bank = load_bank()
    console = make_console(quiet=quiet)
    store = open_record(lang)
    session_id = store.start_session(kind, lang)
    return Practice(bank, store, console, Prompter(console, lang), lang, session_id)


def show_item_header(practice: Practice, label_key: str, item: Question | Card, index: int, total: int) -> None:
    """The rule above a question or card: "Question 2/5  RMSNorm · medium", then its prompt."""
    from rich.markup import escape

    lang = practice.lang
    label = t(label_key, lang, i=index, n=total)
    topic = escape(practice.bank.topic_title(item.topic, lang))
    practice.console.print()
    difficulty = t(f"difficulty.{item.difficulty}", lang)
    practice.console.rule(f"[heading]{label}[/]  [quiz.meta]{topic} · {difficulty}[/]")
    from normkata.ui.paragraph import Paragraph

    practice.console.print(Paragraph(item.prompt.in_(lang), "quiz.prompt"))
    practice.shown_at = time.monotonic()


def ask_each(
    practice: Practice,
    items: Sequence[Item],
    ask: Callable[[Practice, Item, int, int], Outcome | None],
) -> tuple[list[Outcome], bool]:
    """Ask each item in turn until the end, end of input (`ask` returns None) or Ctrl-C.

    Returns the outcomes so far and whether Ctrl-C stopped the session; `ask` saves each
    answer itself, so nothing given before the interruption is lost.
    """
    outcomes: list[Outcome] = []
    try:
        for index, item in enumerate(items, start=1):
            outcome = ask(practice, item, index, len(items))
            if outcome is None:
                break
            outcomes.append(outcome)
    except KeyboardInterrupt:
        practice.console.print()
        return outcomes, True
    return outcomes, False
