"""`normkata history`: kata attempts, and what changed since the last pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from normkata.errors import InputError
from normkata.ui.options import current_lang, lang_option

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.record.attempts import Attempt, Diff


@click.command()
@click.argument("name", required=False)
@click.option("--diff", "show_diff", is_flag=True, help="What changed since the last pass (NAME: the last kata).")
@lang_option
def history(name: str | None, show_diff: bool, lang: str | None) -> None:
    """List kata attempts: time, score, seed and the misconceptions named.

    With --diff, the last attempt is compared with the last pass before it (or, before any
    pass, with the attempt before it): the cases newly failing and newly passing. Rerun an
    attempt with `normkata grade NAME --seed SEED`.

    \b
    Examples:
      normkata history
      normkata history rmsnorm
      normkata history rmsnorm --diff
    """
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.record.attempts import KataLog
    from normkata.record.store import open_record
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    store = open_record(lang)
    try:
        log = KataLog(store)
        if name is None and show_diff:
            name = log.last_kata()
            if name is None:
                raise InputError(t("history.diff.needs_kata", lang))
        kata = get_kata(name, lang).id if name else None
        attempts = log.attempts(kata)
    finally:
        store.close()
    console = make_console()
    if not attempts:
        console.print(t("history.empty", lang))
        return
    if show_diff:
        _show_diff(console, attempts, lang)
    else:
        _show_list(console, attempts, lang)


def _show_list(console: Console, attempts: list[Attempt], lang: str) -> None:
    from rich.table import Table

    from normkata.i18n import t

    table = Table(title=t("history.title", lang), title_style="heading")
    table.add_column("#", justify="right")
    for key in ("history.col.kata", "history.col.when", "history.col.score", "history.col.seed"):
        table.add_column(t(key, lang), justify="right" if key == "history.col.seed" else "left")
    table.add_column(t("history.col.misconceptions", lang))
    for a in attempts:
        score = _shown(f"{a.score}/{a.max_score}")
        score = f"[kata.pass]{score} ✓[/]" if a.passed else score
        seed = "-" if a.seed is None else str(a.seed)
        table.add_row(str(a.id), _shown(a.kata), _when(a), score, seed, _shown(", ".join(a.titles(lang))) or "-")
    console.print(table)


def _show_diff(console: Console, attempts: list[Attempt], lang: str) -> None:
    from normkata.i18n import t
    from normkata.record.attempts import base_for, diff

    latest = attempts[-1]
    found = base_for(attempts)
    if found is None:
        console.print(t("history.diff.one", lang, kata=_shown(latest.kata)))
        return
    base, base_passed = found
    changes: Diff | None = diff(latest, base, base_passed)
    # The latest attempt's own verdict: "no pass yet" beside a pass would contradict its score.
    verdict = "passed" if latest.passed else "not_passed" if base_passed else "no_pass"
    fields = {
        "kata": _shown(latest.kata),
        "id": latest.id,
        "when": _when(latest),
        "score": _shown(f"{latest.score}/{latest.max_score}"),
        "base": base.id,
        "base_when": _when(base),
        "base_score": _shown(f"{base.score}/{base.max_score}"),
        "verdict": t(f"history.diff.verdict.{verdict}", lang),
    }
    key = "history.diff.against_pass" if base_passed else "history.diff.against_previous"
    console.print(t(key, lang, **fields), soft_wrap=True)
    if changes is None:
        console.print(t("history.diff.unknown", lang, id=base.id if base.cases is None else latest.id))
        return
    if changes.newly_failing:
        console.print(f"[kata.fail]{t('history.diff.failing', lang, n=len(changes.newly_failing))}[/]")
        for case, status in changes.newly_failing:
            shown = t(f"history.status.{status}", lang)
            console.print(f"  ✗ {_shown(latest.case(case, lang))} ({shown})", soft_wrap=True)
    if changes.newly_passing:
        console.print(f"[kata.pass]{t('history.diff.passing', lang, n=len(changes.newly_passing))}[/]")
        for case in changes.newly_passing:
            console.print(f"  ✓ {_shown(latest.case(case, lang))}", soft_wrap=True)
    if not changes.newly_failing and not changes.newly_passing:
        console.print(t("history.diff.same", lang))
    if changes.still_failing:
        console.print(t("history.diff.still", lang, n=changes.still_failing))
    if changes.named_now:
        names = ", ".join(m.shown(latest.kata, lang) for m in changes.named_now)
        console.print(t("history.diff.named_now", lang, names=_shown(names)), soft_wrap=True)
    if changes.no_longer_named:
        names = ", ".join(m.shown(latest.kata, lang) for m in changes.no_longer_named)
        console.print(t("history.diff.no_longer", lang, names=_shown(names)), soft_wrap=True)


def _when(attempt: Attempt) -> str:
    return _shown(str(attempt.at)[:16].replace("T", " "))


def _shown(text: str) -> str:
    """Text from the record as the terminal may show it: control characters escaped as the grader
    escapes its own texts, markup escaped (a kata named `[bold]` is shown as typed)."""
    from rich.markup import escape

    from normkata.grading.text import escape_name

    return escape(escape_name(text))
