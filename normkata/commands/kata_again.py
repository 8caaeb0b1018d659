"""`review`'s kata step: a passed kata that FSRS says is due, written again from a fresh starter.

Enter grades it (on a seed no earlier grade used), h gives the next hint (the named mistake's
first, as everywhere), s leaves it for now. Grading, keeping and hints are the learner's loop
(normkata.loop.learner); this module only prompts and presents.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from normkata.content.katas import Kata
    from normkata.practice.session import Practice


@dataclass(frozen=True)
class KataOutcome:
    """What writing a kata again in `review` came to: its rating, or None when left unfinished."""

    kata: str
    rating: int | None


def ask_kata(practice: Practice, kata: Kata, workspace: Path, index: int, total: int) -> KataOutcome | None:
    """Write the kata again in `review`: fresh starter, Enter grades (new seed), h hint, s leave it."""
    from rich.markup import escape

    from normkata.commands.kept import print_kept
    from normkata.i18n import t
    from normkata.loop.learner import Learner
    from normkata.workbench.due import fresh_seed, item_id, keep_and_restart
    from normkata.workbench.workflow import Passed

    lang, console = practice.lang, practice.console
    learner = Learner(workspace, lang)
    console.print()
    header = t("loop.kata_header", lang, i=index, n=total)
    console.rule(f"[heading]{header}[/]  [quiz.meta]{escape(kata.title.in_(lang))}[/]")
    target = keep_and_restart(practice.store, kata, workspace, lang)
    console.print(t("loop.kata_again", lang, path=target, kata=kata.id))
    while True:
        raw = practice.prompter.ask(t("loop.kata_prompt", lang))
        if raw is None:
            return None
        choice = raw.strip().lower()
        if choice == "s":
            console.print(f"[muted]{t('loop.kata_left', lang, kata=kata.id)}[/]")
            return KataOutcome(kata.id, None)
        if choice == "h":
            _kata, shown, _none_left = learner.hint(kata.id)
            for hint in [] if isinstance(shown, Passed) else shown:
                console.print(f"[heading]{escape(hint.heading(kata.id, lang))}[/]")
                console.print(escape(hint.text))
            continue
        kept = learner.grade_file(kata, target, seed=fresh_seed(practice.store, kata.id))
        print_kept(console, kept, lang, compact=True)
        if kept.result.passed:
            review = practice.store.srs_card_json(item_id(kata.id))
            rating = practice.store.last_rating(item_id(kata.id)) if review else None
            return KataOutcome(kata.id, rating)
