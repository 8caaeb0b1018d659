"""The dashboard (`normkata` alone) and `normkata progress`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from normkata.errors import InputError
from normkata.ui.options import current_lang, lang_option

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from normkata.advice.progress import Report
    from normkata.content.bank import Bank


#: Rows of the full dashboard's terminal (it fits 40 rows at 80 columns). A shorter
#: terminal gets the compact one: two topics a row, the loop in one line, no footnotes.
FULL_ROWS = 40


def show_dashboard(lang: str | None) -> None:
    """Mastery per topic in the order of study (and, with an interview date, the predicted recall
    on the day), items due, katas in one line, the learning loop and the next step: the whole of
    it in the terminal's rows (tests/test_dashboard.py holds 40 rows and 24 rows at 80 columns)."""
    import os

    from rich.markup import escape

    from normkata.advice.progress import KATA_SHARE
    from normkata.i18n import t
    from normkata.ui.paragraph import Paragraph

    lang, report, bank, console = _load(lang)
    title = t("dash.title", lang)
    if report.until is not None:
        title += t("dash.title.until", lang, date=report.until.isoformat(), left=_days(report.days_left, lang))
    rows = console.height if console.is_terminal or "LINES" in os.environ else FULL_ROWS
    if rows < FULL_ROWS:
        _compact(console, report, bank, title, lang)
        return
    console.print(_topics_table(console, report, bank, title, lang))
    console.print(Paragraph(t("dash.due", lang, n=report.due) + " · " + _katas_line(report, lang)))
    _show_loop(console, report, lang)
    studied = t(
        "dash.studied", lang, time=_duration(report.seconds_studied, lang), mock=_duration(report.seconds_mock, lang)
    )
    if report.mocks:
        share = f"{report.last_mock_share:.0%}" if report.last_mock_share is not None else "-"
        mocks = t("dash.mocks", lang, n=report.mocks, share=share)
    else:
        mocks = t("dash.mocks.none", lang)
    console.print(t("dash.studied_mocks", lang, studied=studied, mocks=mocks))
    console.print(f"[muted]{t('dash.mastery.how', lang, share=f'{KATA_SHARE:.0%}')}[/]")
    if report.until is not None:
        how = t("dash.on_the_day.how", lang, date=report.until.isoformat(), recall=f"{report.recall_on_the_day:.0%}")
        console.print(f"[muted]{escape(how)}[/]")
    _next_line(console, report, lang)


def _next_line(console: Console, report: Report, lang: str) -> None:
    from rich.markup import escape

    from normkata.i18n import t

    console.print(f"[next]{escape(t('dash.next', lang, cmd=report.next.shown(lang), why=report.next.why(lang)))}[/]")


def _topic_rows(report: Report, bank: Bank, lang: str, *, bars: bool) -> list[tuple[str, list[str]]]:
    """(title, cells) per topic in the order of study: questions, seen, cards, mastery (a bar, or
    its number alone), and with a date the predicted recall on the day."""
    from normkata.practice.curriculum import ordered

    by_id = {topic.topic: topic for topic in report.topics}
    rows = []
    for topic_id in ordered(by_id):
        topic = by_id[topic_id]
        row = [_bar(topic.mastery) if bars else f"{topic.mastery:.0%}"]
        if bars:
            row = [str(topic.questions), str(topic.seen), f"{topic.cards_rated}/{topic.cards}", *row]
        if report.until is not None:
            row.append(f"{report.topic_recall_on_the_day.get(topic.topic, 0.0):.0%}")
        rows.append((bank.topic_title(topic.topic, lang), row))
    return rows


def _topics_table(console: Console, report: Report, bank: Bank, title: str, lang: str) -> Table:
    from rich.cells import cell_len
    from rich.markup import escape

    from normkata.i18n import t

    headers = [t(key, lang) for key in ("dash.questions", "dash.seen", "dash.cards", "dash.mastery")]
    if report.until is not None:
        headers.append(t("dash.on_the_day", lang, date=report.until.strftime("%m-%d")))
    rows = _topic_rows(report, bank, lang, bars=True)
    widths = [max(cell_len(h), *(cell_len(r[i]) for _, r in rows)) for i, h in enumerate(headers)]
    table = _table(console, title, [t("dash.topic", lang)], headers, [name for name, _ in rows], widths)
    for name, row in rows:
        table.add_row(escape(name), *row)
    return table


def _table(
    console: Console,
    title: str,
    topic_headers: list[str],
    headers: list[str],
    names: list[str],
    widths: list[int] | None = None,
) -> Table:
    """A borderless table whose numbers keep their width while each topic column takes an equal
    share of what is left of the line, a title cut with an ellipsis rather than wrapped, so that
    every row is one line. `headers` repeat once per topic column."""
    from rich import box
    from rich.cells import cell_len
    from rich.markup import escape
    from rich.table import Table

    numbers = widths or [cell_len(h) for h in headers]
    groups = len(topic_headers)
    columns = groups * (len(headers) + 1)  # a cell of padding either side but at the edges, a space between
    room = (console.width - groups * sum(numbers) - 3 * columns + 3) // groups
    width = max(8, min(room, max((cell_len(n) for n in names), default=8)))
    table = Table(title=escape(title), title_style="heading", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for topic_header in topic_headers:
        table.add_column(topic_header, no_wrap=True, overflow="ellipsis", width=width)
        for header, number in zip(headers, numbers, strict=True):
            table.add_column(header, justify="right", no_wrap=True, min_width=number)
    return table


def _compact(console: Console, report: Report, bank: Bank, title: str, lang: str) -> None:
    """The dashboard for a short terminal (80x24): two topics a row with their mastery (and recall
    on the day), then due and katas, the loop in one line, and the next step."""
    from rich.cells import cell_len
    from rich.markup import escape

    from normkata.i18n import t
    from normkata.ui.paragraph import Paragraph

    headers = [t("dash.mastery", lang)]
    if report.until is not None:
        headers.append(t("dash.on_the_day", lang, date=report.until.strftime("%m-%d")))
    rows = _topic_rows(report, bank, lang, bars=False)
    widths = [max(cell_len(h), *(cell_len(r[i]) for _, r in rows)) for i, h in enumerate(headers)]
    half = (len(rows) + 1) // 2
    table = _table(console, title, [t("dash.topic", lang)] * 2, headers, [name for name, _ in rows], widths)
    right_side: list[tuple[str, list[str]] | None] = [*rows[half:], None][:half]
    for (left, left_cells), right in zip(rows[:half], right_side, strict=True):
        right_cells = [escape(right[0]), *right[1]] if right else [""] * (len(headers) + 1)
        table.add_row(escape(left), *left_cells, *right_cells)
    console.print(table)
    console.print(Paragraph(t("dash.due", lang, n=report.due) + " · " + _katas_line(report, lang)))
    if report.katas_due or report.met_this_week:
        due = ", ".join(k.kata for k in report.katas_due) or t("dash.compact.none", lang)
        open_ = sum(1 for met in report.met_this_week if met.items and not met.reviewed)
        console.print(Paragraph(t("dash.compact.loop", lang, katas=due, met=len(report.met_this_week), open=open_)))
    _next_line(console, report, lang)
    console.print(f"[muted]{t('dash.compact.more', lang, rows=FULL_ROWS)}[/]")


def _days(left: int, lang: str) -> str:
    from normkata.i18n import t

    return t("deadline.left.today", lang) if left <= 0 else t("deadline.left.days", lang, n=left)


#: Katas named in the dashboard's one line about them; `normkata kata` lists every one.
KATAS_NAMED = 3


def _katas_line(report: Report, lang: str) -> str:
    """ "Katas: 2 of 15 passed; in progress: layernorm (62%), dyt (10%)": the katas summarised."""
    from normkata.i18n import t

    passed = sum(k.status == "passed" for k in report.katas)
    line = t("dash.katas.passed", lang, passed=passed, total=len(report.katas))
    started = [k for k in report.katas if k.status == "in progress"]
    if started:
        named = [t("dash.katas.one", lang, kata=k.kata, best=f"{k.best_score or 0:.0%}") for k in started[:KATAS_NAMED]]
        more = t("dash.katas.more", lang, n=len(started) - KATAS_NAMED) if len(started) > KATAS_NAMED else ""
        line += t("dash.katas.started", lang, katas=t("list.sep", lang).join(named) + more)
    return line


def _duration(seconds: int, lang: str) -> str:
    """Seconds as "1 h 05 min" / "12 min" / "40 s" ("1 小时 05 分钟" in Chinese)."""
    from normkata.i18n import t

    minutes, hours = seconds // 60, seconds // 3600
    if hours:
        return t("dash.duration.hours", lang, hours=hours, minutes=minutes % 60)
    if minutes:
        return t("dash.duration.minutes", lang, minutes=minutes)
    return t("dash.duration.seconds", lang, seconds=seconds)


#: Misconceptions of this week named on the dashboard (the rest are counted).
MET_SHOWN = 3


def _show_loop(console: Console, report: Report, lang: str) -> None:
    """The learning loop: katas due to be written again; mistakes graded this week, by title,
    and whether the items that explain them were reviewed since."""
    from rich.markup import escape

    from normkata.i18n import t

    if not report.katas_due and not report.met_this_week and not any(k.status == "passed" for k in report.katas):
        return  # nothing in the loop yet: no empty lines for a new learner
    if report.katas_due:
        due = escape(", ".join(f"{k.kata} ({k.due[:10]})" for k in report.katas_due))
        console.print(t("dash.loop.katas_due", lang, katas=due))
    else:
        console.print(f"[muted]{t('dash.loop.katas_due.none', lang)}[/]")
    if not report.met_this_week:
        console.print(f"[muted]{t('dash.loop.met.none', lang)}[/]")
        return
    console.print(t("dash.loop.met", lang))
    for met in report.met_this_week[:MET_SHOWN]:
        if not met.items:
            state, style = t("dash.loop.no_items", lang), "muted"
        elif met.reviewed:
            state, style = t("dash.loop.reviewed", lang), "kata.pass"
        else:
            state, style = t("dash.loop.not_reviewed", lang), "warn"
        line = t("dash.loop.met.line", lang, title=met.title.in_(lang), kata=met.kata)
        console.print(f"{escape(line)}[{style}]{state}[/]")
    if len(report.met_this_week) > MET_SHOWN:
        console.print(f"[muted]  {t('dash.loop.met.more', lang, n=len(report.met_this_week) - MET_SHOWN)}[/]")


def _bar(share: float, width: int = 10) -> str:
    filled = round(share * width)
    return f"{'█' * filled}{'·' * (width - filled)} {share:4.0%}"


def _load(lang_option: str | None) -> tuple[str, Report, Bank, Console]:
    from normkata.advice.progress import build_report
    from normkata.content.bank import load_bank
    from normkata.record.store import open_record
    from normkata.ui.terminal import make_console

    lang = current_lang(lang_option)
    bank = load_bank()
    store = open_record(lang)
    try:
        report = build_report(bank, store)
    finally:
        store.close()
    return lang, report, bank, make_console()


@click.group(invoke_without_command=True)
@lang_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def progress(ctx: click.Context, lang: str | None, as_json: bool) -> None:
    """Show mastery per topic, what is due and what to do next.

    \b
    Examples:
      normkata progress
      normkata progress --json
      normkata progress export normkata-progress.json   # carry it to another machine
      normkata progress import normkata-progress.json   # merge it in (twice = once)
    """
    if ctx.invoked_subcommand is not None:
        return
    if as_json:
        lang, report, _bank, _console = _load(lang)
        click.echo(json.dumps(report.to_json(lang), ensure_ascii=False, indent=2))
    else:
        show_dashboard(lang)


@progress.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@lang_option
def export_progress(file: Path, lang: str | None) -> None:
    """Write your whole record (answers, ratings, review logs, katas, mocks) to FILE as versioned JSON."""
    from normkata.i18n import t
    from normkata.record.store import open_record
    from normkata.record.transfer import export_file

    lang = current_lang(lang)
    store = open_record(lang)
    try:
        counts = export_file(store, file)
    except OSError as exc:
        raise InputError(t("transfer.unwritable", lang, path=file, why=exc.strerror or exc)) from None
    finally:
        store.close()
    click.echo(t("transfer.exported", lang, path=file, summary=_summary(counts, lang)))


@progress.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@lang_option
def import_progress(file: Path, lang: str | None) -> None:
    """Merge a record exported on another machine: validated first, nothing added twice."""
    from normkata.i18n import t
    from normkata.record.store import open_record
    from normkata.record.transfer import TransferError, import_document, read_document

    lang = current_lang(lang)
    try:
        document = read_document(file)
    except OSError as exc:
        raise InputError(t("transfer.unreadable", lang, path=file, why=exc.strerror or exc)) from None
    except TransferError as exc:
        raise InputError(t("transfer.invalid", lang, path=file, why=exc)) from None
    store = open_record(lang)
    try:
        added = import_document(store, document)
    except TransferError as exc:
        raise InputError(t("transfer.invalid", lang, path=file, why=exc)) from None
    finally:
        store.close()
    if added.nothing:
        click.echo(t("transfer.nothing", lang, path=file))
        return
    counts = {**added.rows, "srs": added.schedules_updated, "settings": added.settings_updated}
    click.echo(t("transfer.imported", lang, path=file, summary=_summary(counts, lang)))


def _summary(counts: dict[str, int], lang: str) -> str:
    """ "quiz answers 12, card ratings 3, review schedules 9": what the rows are to the learner
    (never a table's name), those with rows, in the record's order."""
    from normkata.i18n import t

    parts = [t("transfer.count", lang, what=t(f"transfer.rows.{table}", lang), n=n) for table, n in counts.items() if n]
    return t("transfer.sep", lang).join(parts) or "0"
