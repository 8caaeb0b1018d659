"""The dashboard (`normkata` alone) and `normkata progress`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from normkata.options import current_lang, lang_option

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.content.bank import Bank
    from normkata.progress import Report


def show_dashboard(lang: str | None) -> None:
    """Mastery per topic (and how it is computed), items due, katas passed and the suggested next step."""
    from rich.table import Table

    from normkata.i18n import t
    from normkata.progress import KATA_SHARE

    lang, report, bank, console = _load(lang)
    table = Table(title=t("dash.title", lang), title_style="heading")
    table.add_column(t("dash.topic", lang))
    for key in ("dash.questions", "dash.seen", "dash.cards", "dash.mastery"):
        table.add_column(t(key, lang), justify="right")
    for topic in report.topics:
        table.add_row(
            bank.topic_title(topic.topic, lang),
            str(topic.questions),
            str(topic.seen),
            f"{topic.cards_rated}/{topic.cards}",
            _bar(topic.mastery),
        )
    console.print(table)
    console.print(t("dash.due", lang, n=report.due))
    if report.katas:
        katas = Table(title=t("kata.list.title", lang), title_style="heading")
        for key in ("kata.col.kata", "kata.col.status", "kata.col.best"):
            katas.add_column(t(key, lang))
        for k in report.katas:
            best = f"{k.best_score:.0%}" if k.best_score is not None else "-"
            katas.add_row(k.kata, t(f"kata.status.{k.status}", lang), best)
        console.print(katas)
        passed = sum(k.status == "passed" for k in report.katas)
        console.print(t("dash.katas.passed", lang, passed=passed, total=len(report.katas)))
    else:
        console.print(t("dash.katas", lang, status=t("dash.katas.none", lang)))
    console.print(t("dash.studied", lang, time=_duration(report.seconds_studied, lang),
                    mock=_duration(report.seconds_mock, lang)))  # fmt: skip
    if report.mocks:
        share = f"{report.last_mock_share:.0%}" if report.last_mock_share is not None else "-"
        console.print(t("dash.mocks", lang, n=report.mocks, share=share))
    else:
        console.print(t("dash.mocks.none", lang))
    console.print(f"[muted]{t('dash.mastery.how', lang, share=f'{KATA_SHARE:.0%}')}[/]")
    console.print(f"[next]{t('dash.next', lang, cmd=report.next.shown(lang), why=report.next.why(lang))}[/]")


def _duration(seconds: int, lang: str) -> str:
    """Seconds as "1 h 05 min" / "12 min" / "40 s" ("1 小时 05 分钟" in Chinese)."""
    minutes, hours = seconds // 60, seconds // 3600
    if lang == "zh":
        if hours:
            return f"{hours} 小时 {minutes % 60:02d} 分钟"
        return f"{minutes} 分钟" if minutes else f"{seconds} 秒"
    if hours:
        return f"{hours} h {minutes % 60:02d} min"
    return f"{minutes} min" if minutes else f"{seconds} s"


def _bar(share: float, width: int = 10) -> str:
    filled = round(share * width)
    return f"{'█' * filled}{'·' * (width - filled)} {share:4.0%}"


def _load(lang_option: str | None) -> tuple[str, Report, Bank, Console]:
    from normkata.content.bank import load_bank
    from normkata.practice import report_damage
    from normkata.progress import build_report
    from normkata.store import open_store
    from normkata.ui import make_console

    lang = current_lang(lang_option)
    bank = load_bank()
    store = open_store(on_damage=lambda d: report_damage(d, lang))
    try:
        report = build_report(bank, store)
    finally:
        store.close()
    return lang, report, bank, make_console()


@click.command()
@lang_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def progress(lang: str | None, as_json: bool) -> None:
    """Show mastery per topic, what is due and what to do next.

    \b
    Examples:
      normkata progress
      normkata progress --json
    """
    if as_json:
        lang, report, _bank, _console = _load(lang)
        click.echo(json.dumps(report.to_json(lang), ensure_ascii=False, indent=2))
    else:
        show_dashboard(lang)
