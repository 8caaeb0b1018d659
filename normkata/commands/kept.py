"""A kept grade at the terminal, the same after `grade`, watch's re-grade and `review --kata`:
the notes it set going (each with its command), the next step after a pass, the stored rows a
reader could not use (on stderr, as after any command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.loop.learner import Kept


def print_kept(console: Console, kept: Kept, lang: str, *, report: bool = True, compact: bool = False) -> None:
    """`report`: the grade report first (`compact`: watch's and review's short form)."""
    from rich.markup import escape

    from normkata.i18n import t

    if report:
        from normkata.grading.report import render, render_compact

        (render_compact if compact else render)(console, kept.result)
    for note in kept.notes:  # the kata's next review; the items that teach a named mistake
        console.print(f"[{note.style}]{escape(note.words(lang))}[/]")
    if kept.next is not None:
        step = kept.next
        console.print(f"[next]{escape(t('dash.next', lang, cmd=step.shown(lang), why=step.why(lang)))}[/]")
    say_unusable_rows(kept.warnings, lang)


def say_unusable_rows(skipped: list[str], lang: str) -> None:
    """Rows of the progress database a reader could not use (edited by hand): one line on stderr."""
    if not skipped:
        return
    import click

    from normkata.grading.text import escape_name
    from normkata.i18n import t

    click.echo(t("store.skipped", lang, n=len(skipped), first=escape_name(skipped[0])[:300]), err=True)
