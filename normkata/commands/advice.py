"""`normkata next` and `normkata plan`: what to do now, and with the minutes left."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from normkata.ui.options import current_lang, lang_option

if TYPE_CHECKING:
    from normkata.advice.standing import Standing


def _standing(lang: str) -> Standing:
    from normkata.advice.standing import load_standing
    from normkata.content.bank import load_bank
    from normkata.practice.session import report_damage
    from normkata.record.store import open_store

    bank = load_bank()
    store = open_store(on_damage=lambda d: report_damage(d, lang))
    try:
        return load_standing(bank, store)
    finally:
        store.close()


@click.command("next")
@click.option("--json", "as_json", is_flag=True, help='Print {"command": ..., "why": ...}.')
@lang_option
def next_command(as_json: bool, lang: str | None) -> None:
    """Show the single most useful next step, and why.

    In this order: a leech (an item forgotten 8 times after it was learnt), the reviews FSRS
    says are due, a kata you started, your weakest topic, a kata not started, a mock interview.

    \b
    Examples:
      normkata next
      normkata next --json
    """
    from normkata.advice.advisor import next_step
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    step = next_step(_standing(lang))
    if as_json:
        click.echo(json.dumps({"command": step.shown(lang), "why": step.why(lang)}, ensure_ascii=False))
        return
    make_console().print(f"[next]{t('dash.next', lang, cmd=step.shown(lang), why=step.why(lang))}[/]")


@click.command()
@click.option(
    "--minutes", type=click.IntRange(min=1), required=True, help="Minutes left before the interview (at least 1)."
)
@click.option("--json", "as_json", is_flag=True, help='Print {"steps": [{"command", "minutes", "why"}]}.')
@lang_option
def plan(minutes: int, as_json: bool, lang: str | None) -> None:
    """Plan the minutes left before an interview: weakest first, quiz, cards and katas mixed.

    Each step has its command and its minutes, and they add up to at most --minutes. Weakness
    comes from your answers, FSRS's recall estimate and your kata results; a step that does not
    fit is shortened (fewer questions or cards) or left out.

    \b
    Examples:
      normkata plan --minutes 45
      normkata plan --minutes 20 --json
    """
    from rich.table import Table

    from normkata.advice.advisor import plan as make_plan
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    steps = make_plan(_standing(lang), minutes)
    if as_json:
        click.echo(json.dumps({"steps": [s.to_json(lang) for s in steps]}, ensure_ascii=False, indent=2))
        return
    console = make_console()
    if not steps:
        console.print(t("plan.nothing", lang, minutes=minutes))
        return
    table = Table(title=t("plan.title", lang, minutes=minutes), title_style="heading")
    table.add_column("#", justify="right")
    table.add_column(t("plan.col.command", lang), style="next", no_wrap=True)
    table.add_column(t("plan.col.minutes", lang), justify="right")
    table.add_column(t("plan.col.why", lang))
    for number, step in enumerate(steps, start=1):
        table.add_row(str(number), step.shown(lang), str(step.minutes), step.why(lang))
    console.print(table)
    console.print(t("plan.total", lang, used=sum(s.minutes for s in steps), minutes=minutes))
