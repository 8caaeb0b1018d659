"""`normkata kata`, `hint` and `solution` (`grade` is commands/grade.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.store import KataLog

from normkata.errors import InputError
from normkata.options import AppState, current_lang, lang_option


def workspace() -> Path:
    """The learner's workspace folder (--workspace, NORMKATA_WORKSPACE, else the default)."""
    from normkata.paths import workspace_dir

    state = click.get_current_context().find_object(AppState)
    return workspace_dir(state.workspace if state else None)


def open_kata_log(lang: str) -> KataLog:
    """Kata events and attempts, with a damaged store reported in `lang`."""
    from normkata.practice import report_damage
    from normkata.store import KataLog, open_store

    return KataLog(open_store(on_damage=lambda d: report_damage(d, lang)))


@click.command()
@click.argument("name", required=False)
@click.option("--force", is_flag=True, help="Overwrite your file with a fresh starter.")
@click.option("--json", "as_json", is_flag=True, help="List every kata as JSON (id, title, difficulty, minutes, "
              "topics, status, best score).")  # fmt: skip
@lang_option
def kata(name: str | None, force: bool, as_json: bool, lang: str | None) -> None:
    """List katas, or start one: write its starter and show the instructions.

    The starter goes to <workspace>/<kata>.py and is never overwritten without --force.

    \b
    Examples:
      normkata kata
      normkata kata rmsnorm
      normkata kata rmsnorm --force      # start over
      normkata kata --json               # for scripts and editors
    """
    from rich.markdown import Markdown
    from rich.table import Table

    from normkata.i18n import t
    from normkata.katas import get_kata, load_katas
    from normkata.ui import make_console

    lang = current_lang(lang)
    console = make_console()
    log = open_kata_log(lang)
    if name is None:
        katas, issues = load_katas()
        if issues:
            raise InputError(str(issues[0]))
        if as_json:
            rows = []
            for item in katas:
                status = log.status(item.id)
                rows.append({"id": item.id, "title": item.title.get(lang), "difficulty": item.difficulty,
                             "minutes": item.minutes, "topics": list(item.topics), "status": status.status,
                             "best_score": status.best_score})  # fmt: skip
            click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
            return
        table = Table(title=t("kata.list.title", lang), title_style="heading")
        for key in (
            "kata.col.kata",
            "kata.col.title",
            "kata.col.level",
            "kata.col.time",
            "kata.col.status",
            "kata.col.best",
        ):
            # Ids are what people type: never broken over two lines.
            table.add_column(t(key, lang), no_wrap=key == "kata.col.kata")
        for item in katas:
            status = log.status(item.id)
            best = f"{status.best_score:.0%}" if status.best_score is not None else "-"
            shown = t(f"kata.status.{status.status}", lang)
            if item.requires and item.missing_extras():  # kernel katas without `normkata[triton]`
                shown += f" ({t('kata.needs_extra', lang, extra=', '.join(item.requires))})"
            table.add_row(
                item.id, item.title.get(lang), item.difficulty, f"{item.minutes} min", shown, best,
            )  # fmt: skip
        console.print(table)
        return
    chosen = get_kata(name)
    folder = workspace()
    target = folder / chosen.file
    console.print(Markdown(chosen.instructions(lang)))
    if target.exists() and not force:
        console.print(f"[warn]{t('kata.exists', lang, path=target)}[/]")
    else:
        folder.mkdir(parents=True, exist_ok=True)
        target.write_text(chosen.starter.read_text(encoding="utf-8"), encoding="utf-8")
        console.print(f"[kata.pass]{t('kata.written', lang, path=target)}[/]")
    log.event(chosen.id, "started", str(target))
    console.print(f"[next]{t('kata.next', lang, kata=chosen.id)}[/]")


def _named_or_last(name: str | None, command: str, lang: str, log: KataLog) -> str:
    """NAME, else the kata worked on last (as `grade` picks it), else an InputError."""
    from normkata.i18n import t

    chosen = name or log.last_kata()
    if chosen is None:
        raise InputError(t("kata.none_yet", lang, command=command))
    return chosen


@click.command()
@click.argument("name", required=False)
@click.option("--all", "show_all", is_flag=True, help="Show every hint taken so far (at least the first).")
@click.option(
    "--level",
    type=click.IntRange(min=1),
    default=None,
    help="Show hint K again, or take it now (levels up to K count as taken).",
)
@lang_option
def hint(name: str | None, show_all: bool, level: int | None, lang: str | None) -> None:
    """Show the next hint for a kata (three levels, each more direct).

    NAME defaults to the kata you worked on last.

    \b
    Examples:
      normkata hint
      normkata hint rmsnorm
      normkata hint rmsnorm --all        # every hint taken so far
      normkata hint rmsnorm --level 1    # the first one again
    """
    from rich.markup import escape

    from normkata.i18n import t
    from normkata.katas import get_kata, take_hint
    from normkata.ui import make_console

    lang = current_lang(lang)
    log = open_kata_log(lang)
    chosen, console = get_kata(_named_or_last(name, "hint", lang, log)), make_console()
    taken = log.hints_taken(chosen.id)
    hints = chosen.hints.get(lang)
    if show_all and level is not None:
        raise InputError(t("hint.all_or_level", lang))
    if level is not None and level > len(hints):
        raise InputError(t("hint.level_range", lang, kata=chosen.id, n=len(hints)))
    if show_all or level is not None:
        levels = list(range(1, max(taken, 1) + 1)) if show_all else [level or 1]
        for new in range(taken + 1, max(levels) + 1):  # each hint is counted once, when first shown
            log.event(chosen.id, "hint", str(new))
    else:
        levels = [take_hint(chosen, log, lang)[0]]
    for shown in levels:
        key = "hint.title.last" if shown == len(hints) else "hint.title"
        console.print(f"[heading]{t(key, lang, level=shown, total=len(hints), kata=chosen.id)}[/]")
        console.print(escape(hints[shown - 1]))
    if not show_all and level is None and taken >= len(hints):
        console.print(f"[muted]{t('hint.none_left', lang, kata=chosen.id)}[/]")


@click.command()
@click.argument("name", required=False)
@click.option("--yes", is_flag=True, help="Do not ask; show it (recorded as giving up if not passed).")
@lang_option
def solution(name: str | None, yes: bool, lang: str | None) -> None:
    """Show a kata's reference solution: after a pass, or after you confirm giving up.

    NAME defaults to the kata you worked on last.

    \b
    Examples:
      normkata solution
      normkata solution layernorm --yes
    """
    from rich.syntax import Syntax

    from normkata.i18n import t
    from normkata.katas import get_kata
    from normkata.ui import make_console

    lang = current_lang(lang)
    log = open_kata_log(lang)
    chosen, console = get_kata(_named_or_last(name, "solution", lang, log)), make_console()
    from normkata.kata_loop import open_again

    # Writing a passed kata again is a review: seeing the solution then counts as Again.
    if log.status(chosen.id).status != "passed" or open_again(log.store, chosen.id):
        if not yes and not click.confirm(t("solution.confirm", lang, kata=chosen.id), default=False):
            console.print(t("solution.kept", lang))
            return
        log.event(chosen.id, "gave_up")
    reference = chosen.solution.read_text(encoding="utf-8")
    console.rule(f"[heading]{t('solution.heading', lang, kata=chosen.id, title=chosen.title.get(lang))}[/]")
    console.print(Syntax(reference, "python", line_numbers=True))
    mine = workspace() / chosen.file
    if log.status(chosen.id).status == "passed" and mine.is_file():
        _show_diff(console, mine, reference, lang)


def _show_diff(console: Console, mine: Path, reference: str, lang: str) -> None:
    """Your passing file beside the reference, as a unified diff: what they did differently."""
    import difflib

    from rich.markup import escape
    from rich.syntax import Syntax

    from normkata.i18n import t

    try:
        yours = mine.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    diff = list(difflib.unified_diff(yours.splitlines(), reference.splitlines(), fromfile=f"yours: {mine}",
                                     tofile="reference", lineterm=""))  # fmt: skip
    console.print()
    console.print(f"[heading]{escape(t('solution.diff', lang, path=mine))}[/]", soft_wrap=True)
    if not diff:
        console.print(t("solution.same", lang))
        return
    console.print(Syntax("\n".join(diff), "diff"))
