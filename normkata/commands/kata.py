"""`normkata kata`, `hint` and `solution` (`grade` is commands/grade.py): options, rendering, prompts."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from normkata.ui.options import current_lang, lang_option, workspace

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from normkata.content.katas import Kata
    from normkata.record.attempts import KataStatus


@click.command()
@click.argument("name", required=False)
@click.option("--force", is_flag=True, help="Overwrite your file with a fresh starter.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="List every kata as JSON (id, title, difficulty, minutes, topics, status, best score).",
)
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

    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.ui.terminal import make_console
    from normkata.workbench.workflow import Workbench

    lang = current_lang(lang)
    console = make_console()
    bench = Workbench.open(workspace(), lang)
    if name is None:
        statuses = bench.statuses(strict=True)
        if as_json:
            rows = []
            for item, status in statuses:
                rows.append(
                    {
                        "id": item.id,
                        "title": item.title.in_(lang),
                        "difficulty": item.difficulty,
                        "minutes": item.minutes,
                        "topics": list(item.topics),
                        "status": status.status,
                        "best_score": status.best_score,
                    }
                )
            click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
            return
        console.print(_kata_table(console, statuses, lang))
        return
    chosen = get_kata(name, lang)
    console.print(Markdown(chosen.instructions(lang)))
    started = bench.start(chosen, force)
    if started.written:
        console.print(f"[kata.pass]{t('kata.written', lang, path=started.file)}[/]")
        if started.guide:
            console.print(f"[muted]{t('agent.agents_md.written', lang, path=started.guide)}[/]")
    else:
        console.print(f"[warn]{t('kata.exists', lang, path=started.file)}[/]")
    console.print(f"[next]{t('kata.next', lang, kata=chosen.id)}[/]")


def _kata_table(console: Console, statuses: list[tuple[Kata, KataStatus]], lang: str) -> Table:
    """Every kata with its status: the whole table where it fits, else one line per kata (the
    title last, shortened with an ellipsis) under one header line, so that 16 katas take 17 rows
    of an 80-column terminal, not 68."""
    from rich.table import Table

    from normkata.i18n import t

    def rows(short: bool) -> list[tuple[str, ...]]:
        made: list[tuple[str, ...]] = []
        for item, status in statuses:
            best = f"{status.best_score:.0%}" if status.best_score is not None else "-"
            shown = t(f"kata.status.{status.status}", lang)
            extra = ", ".join(item.requires)
            if item.requires and item.missing_extras():  # kernel katas without `normkata[triton]`
                if not short:
                    shown += t("kata.needs_extra.paren", lang, text=t("kata.needs_extra", lang, extra=extra))
                elif status.status == "not started":
                    shown = t("kata.needs_extra.short", lang, extra=extra)
            made.append((item.id, item.title.in_(lang), item.difficulty, f"{item.minutes} min", shown, best))
        return made

    keys = ("kata.col.kata", "kata.col.title", "kata.col.level", "kata.col.time", "kata.col.status", "kata.col.best")
    full = Table(title=t("kata.list.title", lang), title_style="heading")
    for key in keys:
        full.add_column(t(key, lang), no_wrap=True)
    for row in rows(short=False):
        full.add_row(*row)
    if console.measure(full, options=console.options.update_width(10_000)).maximum <= console.width:
        return full
    # The header is the one line above the katas: no box, no rule under it.
    line = Table(box=None, pad_edge=False, header_style="heading", expand=True)
    for key in (*keys[:1], *keys[2:], keys[1]):  # ids are what people type: never broken or cut
        line.add_column(t(key, lang), no_wrap=True, overflow="ellipsis", ratio=1 if key == "kata.col.title" else None)
    for kata_id, title, *rest in rows(short=True):
        line.add_row(kata_id, *rest, title)
    return line


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

    NAME defaults to the kata you worked on last. After a grade that named a mistake, the first
    hint is that mistake's; after a pass, it says the kata is passed (--level still shows one).

    \b
    Examples:
      normkata hint
      normkata hint rmsnorm
      normkata hint rmsnorm --all        # every hint taken so far
      normkata hint rmsnorm --level 1    # the first one again
    """
    from rich.markup import escape

    from normkata.actions import Action, spoken
    from normkata.i18n import t
    from normkata.loop.learner import Learner
    from normkata.ui.terminal import make_console
    from normkata.workbench.workflow import NamedHint, Passed

    lang = current_lang(lang)
    chosen, shown, none_left = Learner(workspace(), lang).hint(name, every=show_all, level=level)
    console = make_console()
    if isinstance(shown, Passed):
        solution = spoken(Action.of("solution", kata=chosen.id), lang)
        console.print(f"[kata.pass]{escape(t('hint.passed', lang, kata=chosen.id, solution=solution))}[/]")
        console.print(f"[muted]{escape(t('hint.passed.level', lang, kata=chosen.id))}[/]")
        return
    for hint_ in shown:
        console.print(f"[heading]{escape(hint_.heading(chosen.id, lang))}[/]")
        console.print(escape(hint_.text))
        if isinstance(hint_, NamedHint):
            call = spoken(Action.of("hint", kata=chosen.id), lang)
            console.print(f"[muted]{escape(t('hint.named.more', lang, call=call))}[/]")
    if none_left:
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
    from normkata.i18n import t
    from normkata.loop.learner import Learner
    from normkata.ui.paragraph import for_prompt
    from normkata.ui.terminal import make_console
    from normkata.workbench.showing import show_solution

    lang = current_lang(lang)
    learner, console = Learner(workspace(), lang), make_console()
    with learner.bench() as bench:
        chosen = bench.kata(name, "solution")
    give_up = not learner.solution_open(chosen.id)  # opening it now is giving up (in a review: rated Again)
    asked = for_prompt(t("solution.confirm", lang, kata=chosen.id), console.width)
    if give_up and not yes and not click.confirm(asked, default=False):
        console.print(t("solution.kept", lang))
        return
    learner.solution(chosen.id, give_up=give_up)
    with learner.bench() as bench:
        show_solution(console, bench, chosen, lang)
