"""`normkata next` and `normkata plan`: what to do now, with the minutes left, or every day to the interview."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from normkata.advice.deadline import MINUTES_PER_DAY, TARGET_RECALL
from normkata.errors import InputError
from normkata.ui.options import current_lang, lang_option

if TYPE_CHECKING:
    from datetime import date

    from rich.console import Console

    from normkata.advice.dated import DatedPlan, DatedStep
    from normkata.advice.standing import Standing
    from normkata.clock import Clock
    from normkata.record.store import Store


def _open(lang: str) -> Store:
    from normkata.record.store import open_record

    return open_record(lang)


def _standing(store: Store, clock: Clock) -> Standing:
    from normkata.advice.standing import load_standing
    from normkata.content.bank import load_bank

    return load_standing(load_bank(), store, clock)


@click.command("next")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"command", "action", "arguments", "why"} (and "until": the interview date, when one is set).',
)
@lang_option
def next_command(as_json: bool, lang: str | None) -> None:
    """Show the single most useful next step, and why.

    With an interview date (`normkata plan --until DATE`): today's first step of the plan toward
    it, the item predicted lowest on the day first. Without one, in this order: a leech (an item
    forgotten 8 times after it was learnt), a mistake a grade named, the reviews FSRS says are
    due, a kata you started, your weakest topic, a kata not started, a mock interview.

    \b
    Examples:
      normkata next
      normkata next --json
    """
    from rich.markup import escape

    from normkata.advice.advisor import next_for
    from normkata.clock import current
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    store = _open(lang)
    try:
        standing = _standing(store, current())
    finally:
        store.close()
    step = next_for(standing)
    if as_json:
        shown: dict[str, object] = {"command": step.shown(lang), **step.action.to_json(), "why": step.why(lang)}
        if standing.deadline is not None:
            shown["until"] = standing.deadline.day.isoformat()
        click.echo(json.dumps(shown, ensure_ascii=False))
        return
    make_console().print(f"[next]{escape(t('dash.next', lang, cmd=step.shown(lang), why=step.why(lang)))}[/]")


@click.command()
@click.option(
    "--minutes",
    type=click.IntRange(min=1),
    default=None,
    help="Minutes for one sitting now, at least 1 (with an interview date: today's minutes).",
)
@click.option(
    "--until",
    "until",
    metavar="DATE",
    default=None,
    help="Plan every day to your interview on DATE (YYYY-MM-DD); remembered. `--until none` forgets it.",
)
@click.option(
    "--minutes-per-day",
    type=click.IntRange(*MINUTES_PER_DAY),
    default=None,
    help="Minutes each day toward the interview (default: your habit of the last two weeks, else 45).",
)
@click.option(
    "--target-recall",
    type=click.FloatRange(*TARGET_RECALL),
    default=None,
    help="Recall on the day at or above which an item is left alone, 0.7 to 0.97 (default 0.90); remembered.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"until", "days": [{"date", "minutes", "steps"}]}; with --minutes {"steps": [...]}.',
)
@lang_option
def plan(
    minutes: int | None,
    until: str | None,
    minutes_per_day: int | None,
    target_recall: float | None,
    as_json: bool,
    lang: str | None,
) -> None:
    """Plan the minutes left before an interview, or every day to it: quiz, cards and katas mixed.

    --until DATE plans each day from today to the eve of the interview, each within its minutes,
    from FSRS's predicted recall of every question, card, kata and named mistake ON THE DAY:
    what would be forgotten by then is reviewed before it, what is solid is left alone, new
    material is spread over the days so it can be reviewed, every core topic and the core katas
    (RMSNorm and the Pre-Norm block first) come before the last day, and the last evening is a
    mock. The date is remembered (bare `plan`, `next`, `review`, `mock` and the dashboard use
    it), and so are --minutes-per-day and --target-recall (what is predicted at or above it on
    the day is left alone; default 0.90).

    --minutes N plans one sitting: the steps add up to at most N (a step that does not fit is
    shortened or left out). With a date: today's part of the plan toward it, with N minutes
    today. Without one: leeches, named mistakes, due reviews, katas started, then your topics
    weakest first by the number each step shows.

    \b
    Examples:
      normkata plan --until 2026-06-12
      normkata plan --until 2026-06-12 --minutes-per-day 60 --json
      normkata plan                      # the remembered date's plan
      normkata plan --minutes 45         # one sitting
      normkata plan --until none         # forget the date
    """
    from normkata.advice import deadline as deadlines
    from normkata.clock import current
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    console = make_console()
    clock = current()
    store = _open(lang)
    try:
        remembered = deadlines.load(store, clock)
        if until is not None:
            try:
                day = deadlines.parse_until(until, clock.now(), clock)
            except deadlines.BadDate as bad:
                raise InputError(t(bad.key, lang, **bad.fields)) from None
            if day is None:
                deadlines.remember(store, None)
                console.print(t("deadline.forgotten" if remembered else "deadline.none_to_forget", lang))
                if minutes is None:
                    return
            else:
                deadlines.remember(store, deadlines.Deadline(day, minutes_per_day), target=target_recall)
                if not as_json:
                    console.print(f"[muted]{t('deadline.set', lang, date=day.isoformat())}[/]")
        elif minutes_per_day is not None or target_recall is not None:
            if remembered is None:
                option = "minutes-per-day" if minutes_per_day is not None else "target-recall"
                raise InputError(t("deadline.needs_date", lang, option=option))
            deadlines.remember(store, deadlines.Deadline(remembered.day, minutes_per_day), target=target_recall)
        standing = _standing(store, clock)
    finally:
        store.close()
    if standing.deadline is None:
        if minutes is None:
            raise InputError(t("deadline.needs", lang))
        _one_sitting(console, standing, minutes, as_json, lang)
    elif minutes is not None:
        _today(console, standing, minutes, as_json, lang)
    else:
        _every_day(console, standing, as_json, lang)


def _one_sitting(console: Console, standing: Standing, minutes: int, as_json: bool, lang: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    from normkata.advice.advisor import plan as make_plan
    from normkata.i18n import t

    steps = make_plan(standing, minutes)
    if as_json:
        click.echo(json.dumps({"steps": [s.to_json(lang) for s in steps]}, ensure_ascii=False, indent=2))
        return
    if not steps:
        console.print(t("plan.nothing", lang, minutes=minutes))
        return
    table = Table(title=t("plan.title", lang, minutes=minutes), title_style="heading")
    table.add_column("#", justify="right")
    table.add_column(t("plan.col.command", lang), style="next", no_wrap=True)
    table.add_column(t("plan.col.minutes", lang), justify="right")
    table.add_column(t("plan.col.why", lang), no_wrap=True)
    for number, step in enumerate(steps, start=1):
        table.add_row(str(number), step.shown(lang), str(step.minutes), escape(step.why(lang)))
    if console.measure(table, options=console.options.update_width(10_000)).maximum <= console.width:
        console.print(table)
    else:  # each step on two lines: a table squeezed into 80 columns wraps a reason into six rows, or cuts it
        from normkata.ui.paragraph import Paragraph

        console.print(Paragraph(t("plan.title", lang, minutes=minutes), "heading"))
        for number, step in enumerate(steps, start=1):
            console.print(Paragraph(step.shown(lang), "next", prefix=f"{number:>2}. "))
            meta = t("plan.step", lang, minutes=step.minutes, why=step.why(lang))
            console.print(Paragraph(meta, "muted", prefix="    "))
    console.print(t("plan.total", lang, used=sum(s.minutes for s in steps), minutes=minutes))


def _today(console: Console, standing: Standing, minutes: int, as_json: bool, lang: str) -> None:
    """`plan --minutes N` with an interview date: today's part of the plan toward it, within N."""
    from normkata.advice.dated import dated_plan
    from normkata.i18n import t

    assert standing.deadline is not None
    if as_json:
        from normkata.advice.advisor import plan_json

        click.echo(json.dumps(plan_json(standing, minutes, lang), ensure_ascii=False, indent=2))
        return
    made = dated_plan(standing, standing.deadline, today_minutes=minutes)
    first = made.days[0]
    _title(console, made, standing.clock, lang)
    console.print(t("deadline.today_part", lang, date=made.until.isoformat(), minutes=minutes))
    if not first.steps:
        console.print(t("plan.nothing", lang, minutes=minutes))
        return
    _steps_table(console, first.steps, lang)
    console.print(t("plan.total", lang, used=first.planned, minutes=minutes))


def _every_day(console: Console, standing: Standing, as_json: bool, lang: str) -> None:
    from rich.markup import escape

    from normkata.advice.dated import dated_plan
    from normkata.i18n import t

    assert standing.deadline is not None
    made = dated_plan(standing, standing.deadline)
    if as_json:
        click.echo(json.dumps(made.to_json(lang), ensure_ascii=False, indent=2))
        return
    _title(console, made, standing.clock, lang)
    first = standing.clock.day_of(standing.now)
    target = f"{made.target:.0%}"
    for day in made.days:
        heading = t(
            "deadline.day",
            lang,
            weekday=_weekday(day.day.weekday(), lang),
            date=day.day.isoformat(),
            today=t("deadline.day.today", lang) if day.day == first else "",
            planned=day.planned,
            minutes=day.minutes,
        )
        console.print()
        console.print(f"[heading]{escape(heading)}[/]")
        if day.steps:
            _steps_table(console, day.steps, lang)
        elif day.day == first:
            console.print(f"[muted]{t('deadline.day.empty', lang)}[/]")
        else:
            console.print(f"[muted]{t('deadline.day.empty.later', lang, target=target)}[/]")
    console.print()
    console.print(
        t(
            "deadline.summary",
            lang,
            date=made.until.isoformat(),
            now=f"{made.recall_now:.0%}",
            planned=f"{made.recall_planned:.0%}",
            solid=made.left_alone,
            target=target,
        )
    )
    if made.left_over:
        console.print(f"[warn]{t('deadline.left_over', lang, n=made.left_over, target=target)}[/]")
    if made.new_left:
        console.print(f"[muted]{t('deadline.new_left', lang, n=made.new_left)}[/]")


def _title(console: Console, made: DatedPlan, clock: Clock, lang: str) -> None:
    from rich.markup import escape

    line = deadline_line(made.until, made.minutes_per_day, made.minutes_from, lang, clock)
    console.print(f"[heading]{escape(line)}[/]")


def deadline_line(until: date, minutes: int, source: str, lang: str, clock: Clock) -> str:
    """ "Interview on 2026-06-12 (in 3 day(s)): 45 min a day (the default; ...)"."""
    from normkata.advice.deadline import days_left
    from normkata.i18n import t

    left = days_left(until, clock.now(), clock)
    when = t("deadline.left.today", lang) if left <= 0 else t("deadline.left.days", lang, n=left)
    return t(
        "deadline.title",
        lang,
        date=until.isoformat(),
        left=when,
        minutes=minutes,
        source=t(f"deadline.source.{source}", lang),
    )


def _steps_table(console: Console, steps: list[DatedStep], lang: str) -> None:
    """Each step on two lines, so that 80 columns hold it: the command, then its minutes, the
    predicted recall on the day of what it covers, and why."""
    from normkata.i18n import t
    from normkata.ui.paragraph import Paragraph

    for number, step in enumerate(steps, start=1):
        console.print(Paragraph(step.shown(lang), "next", prefix=f"{number:>2}. "))
        meta = t("deadline.step", lang, minutes=step.minutes, recall=f"{step.predicted_recall:.0%}", why=step.why(lang))
        console.print(Paragraph(meta, "muted", prefix="    "))


def _weekday(number: int, lang: str) -> str:
    """Monday (0) to Sunday (6), abbreviated."""
    from normkata.i18n import t

    return t(f"deadline.weekday.{number}", lang)
