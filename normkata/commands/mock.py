"""`normkata mock`: a timed mock interview, a debrief against the key points, and a scorecard."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from normkata.errors import EXIT_INTERRUPTED, InputError
from normkata.ui.options import current_lang, lang_option, topic_option

if TYPE_CHECKING:
    from rich.table import Table

    from normkata.practice.mock import Asked
    from normkata.practice.session import Practice
    from normkata.record.mocks import MockLog


@dataclass
class Given:
    """An answer given in the mock, and its row in mock_answers."""

    asked: Asked
    text: str
    seconds: int
    row: int


@click.command()
@click.option("--minutes", type=click.IntRange(min=1), default=20, show_default=True, help="Length of the interview.")
@topic_option
@click.option("--editor", is_flag=True, help="Write each answer in $EDITOR instead of the terminal.")
@click.option("--history", "show_history", is_flag=True, help="List your past scorecards and stop.")
@lang_option
def mock(minutes: int, topic: str | None, editor: bool, show_history: bool, lang: str | None) -> None:
    """Run a timed mock interview, then score your answers against the key points.

    Cards are drawn across the order of study (fundamentals first), the ones you know least
    first once you have rated some; those that fit in --minutes are asked easy first, each
    followed by its follow-ups, and more come while time is left; the clock is shown with
    every question. An
    answer runs over several lines: an empty line (or Ctrl-D) ends it. At the debrief each
    answer stands beside its key points and you tick the ones you made: none is Again, under
    half Hard, half or more Good, all Easy, scheduled with FSRS. The scorecard is saved.

    \b
    Examples:
      normkata mock
      normkata mock --minutes 10 --topic rmsnorm
      EDITOR=nano normkata mock --editor
      normkata mock --history
    """
    from normkata.advice.standing import load_standing
    from normkata.content.bank import check_topic
    from normkata.i18n import t
    from normkata.practice.mock import KERNEL_TOPIC, clock, interview_order, questions, studied_kernels
    from normkata.practice.session import open_practice
    from normkata.record.mocks import MockLog

    lang = current_lang(lang)
    if show_history:
        _history(lang)
        return
    practice = open_practice("mock", lang)
    topic = check_topic(practice.bank, topic, lang)
    cards = [c for c in practice.bank.cards if topic is None or c.topic == topic]
    standing = load_standing(practice.bank, practice.store)
    strength = {i.id: i.strength for i in standing.items if i.kind == "card"}
    if standing.deadline is not None:  # the cards predicted lowest on the interview day come first
        from normkata.advice.dated import item_recall_on_the_day

        strength = {k: v for k, v in item_recall_on_the_day(standing, standing.deadline).items() if k in strength}
    # A mock over every topic asks one kernel question once the learner has studied kernels.
    must = KERNEL_TOPIC if topic is None and studied_kernels(practice.bank, practice.store) else None
    planned = interview_order(cards, minutes, strength, must)
    if not planned:
        raise InputError(t("card.none", lang))
    log = MockLog(practice.store)
    mock_id = log.start(practice.session_id, topic, minutes)
    practice.console.print(f"[heading]{t('mock.title', lang, n=len(planned), minutes=minutes)}[/]")
    if standing.deadline is not None:
        from normkata.advice.deadline import days_left

        left = days_left(standing.deadline.day, standing.now)
        when = t("deadline.left.today", lang) if left <= 0 else t("deadline.left.days", lang, n=left)
        line = t("mock.on_the_day", lang, date=standing.deadline.day.isoformat(), left=when)
        practice.console.print(f"[muted]{line}[/]")
    given: list[Given] = []
    scored = 0
    started = clock()
    try:
        asked = questions(cards, minutes, strength, must)
        given = _interview(practice, log, mock_id, asked, started + minutes * 60, editor)
        used = _finish(log, mock_id, given, started)
        scored = _debrief(practice, log, given)
    except KeyboardInterrupt:
        practice.console.print()
        _finish(log, mock_id, given, started)
        practice.store.end_session(practice.session_id)
        practice.console.print(t("mock.stopped", lang, answered=len(given), scored=scored))
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    practice.store.end_session(practice.session_id)
    if used is not None:
        _scorecard(practice, mock_id, used)
    else:
        practice.console.print(t("mock.nothing", lang))
    from rich.markup import escape

    from normkata.advice.advisor import next_step_line

    practice.console.print(f"[next]{escape(next_step_line(lang))}[/]")


def _finish(log: MockLog, mock_id: int, given: list[Given], started: float) -> int | None:
    """The answering time, recorded once (the scorecard and --history show this one number);
    a mock with no answer is discarded and gives None."""
    from normkata.practice.mock import clock

    if not any(g.text.strip() for g in given):
        log.discard(mock_id)
        return None
    used = min(round(clock() - started), log.minutes(mock_id) * 60)
    log.finish(mock_id, used)
    return used


def _interview(
    practice: Practice, log: MockLog, mock_id: int, asked: Iterable[Asked], deadline: float, editor: bool
) -> list[Given]:
    """Ask until the questions, the time or the input run out; each answer is saved as it is given."""
    from normkata.i18n import t
    from normkata.practice.mock import clock as now
    from normkata.ui.answer_input import edit_answer, flush_typed_ahead, read_answer
    from normkata.ui.paragraph import Paragraph

    console, lang = practice.console, practice.lang
    given: list[Given] = []
    number = 0
    for position, item in enumerate(asked, start=1):
        left = deadline - now()
        if left <= 0:
            console.print(f"[warn]{t('mock.time_up', lang)}[/]")
            break
        if not practice.prompter.has_more():
            break
        clock = t("mock.clock", lang, left=_clock(left))
        if item.follow_up is None:
            number += 1
            label = t("mock.question", lang, i=number)
        else:
            label = t("mock.follow_up", lang)
        console.print()
        console.rule(f"[heading]{label}[/]  [quiz.meta]{clock}[/]")
        console.print(Paragraph(item.prompt(lang), "quiz.prompt"))
        flush_typed_ahead()  # keys pressed before this question was on screen are not its answer
        began = now()
        if editor:
            text: str | None = edit_answer(item.prompt(lang), lang)
        else:
            text = read_answer(practice.prompter, t("mock.answer", lang, clock=clock))
        if text is None:
            break
        seconds = round(now() - began)
        row = log.answer(mock_id, position, item.card.id, item.follow_up, text, seconds, item.points)
        given.append(Given(item, text, seconds, row))
    return given


def _debrief(practice: Practice, log: MockLog, given: list[Given]) -> int:
    """Each answer beside its key points; the ticks become the card's FSRS rating. Returns how many were scored."""
    from rich.markup import escape
    from rich.table import Table

    from normkata.i18n import t
    from normkata.practice.mock import rating_for
    from normkata.practice.srs import schedule

    console, lang = practice.console, practice.lang
    if given:
        console.print()
        console.rule(f"[heading]{t('mock.debrief', lang)}[/]")
    scored = 0
    for answer in given:
        card = answer.asked.card
        if answer.asked.follow_up is not None:
            continue
        follow_ups = [g for g in given if g.asked.card.id == card.id and g.asked.follow_up is not None]
        points = [point.in_(lang) for point in card.key_points]
        side = Table(show_header=True, expand=True, title=escape(card.prompt.in_(lang)), title_style="quiz.prompt")
        side.add_column(t("mock.you_said", lang), ratio=1)
        side.add_column(t("card.key_points", lang), ratio=1, style="card.points")
        said = escape(answer.text) if answer.text else f"[muted]{t('mock.no_answer', lang)}[/]"
        side.add_row(said, "\n".join(f"{i}. {escape(p)}" for i, p in enumerate(points, start=1)))
        console.print(side)
        for extra in follow_ups:
            console.print(_follow_up_side(extra, lang))
        if answer.text:
            made = _read_ticks(practice, len(points))
            if made is None:
                return scored
        else:
            made = []
        rating = rating_for(len(made), len(points))
        review = schedule(practice.store, card.id, rating, duration_ms=answer.seconds * 1000)
        log.score(answer.row, practice.session_id, card.id, card.topic, answer.text, made, review)
        console.print(f"[muted]{t(f'rating.{rating}', lang)} · {len(made)}/{len(points)}[/]")
        scored += 1
    return scored


def _follow_up_side(extra: Given, lang: str) -> Table:
    """A follow-up's answer beside the key points it should have made (shown, not ticked: a
    follow-up adds nothing to the card's score)."""
    from rich.markup import escape
    from rich.table import Table

    from normkata.i18n import t

    side = Table(show_header=True, expand=True, title=escape(extra.asked.prompt(lang)), title_style="quiz.prompt")
    side.add_column(t("mock.you_said", lang), ratio=1)
    side.add_column(t("card.key_points", lang), ratio=1, style="card.points")
    said = escape(extra.text) if extra.text else f"[muted]{t('mock.no_answer', lang)}[/]"
    points = extra.asked.key_points(lang)
    side.add_row(said, "\n".join(f"• {escape(p)}" for p in points) if points else "[muted]-[/]")
    return side


def _read_ticks(practice: Practice, n: int) -> list[int] | None:
    """The key points the learner made, as numbers from 1 (full-width digits too); None at end of input."""
    import re
    import unicodedata

    from normkata.i18n import t
    from normkata.ui.answer_input import flush_typed_ahead

    flush_typed_ahead()  # a key typed while the debrief was printing must not tick anything
    while True:
        raw = practice.prompter.ask(t("mock.tick", practice.lang))
        if raw is None:
            return None
        text = unicodedata.normalize("NFKC", raw).strip().lower()
        if text in ("a", "all"):
            return list(range(1, n + 1))
        numbers = [int(x) for x in re.findall(r"\d+", text)]
        if re.fullmatch(r"[\d\s,]*", text) and all(1 <= x <= n for x in numbers):
            return sorted(set(numbers))
        practice.console.print(f"[warn]{t('mock.tick.invalid', practice.lang, n=n)}[/]")


def _scorecard(practice: Practice, mock_id: int, seconds: int) -> None:
    from rich.markup import escape
    from rich.table import Table

    from normkata.i18n import t
    from normkata.record.mocks import MockLog

    console, lang = practice.console, practice.lang
    rows = MockLog(practice.store).scores(mock_id)
    bank = practice.bank
    if not rows:
        console.print(t("mock.nothing", lang))
        return
    table = Table(title=t("mock.scorecard", lang), title_style="heading")
    for key in ("mock.col.question", "mock.col.points", "mock.col.rating"):
        table.add_column(t(key, lang))
    made_total = 0
    for row in rows:
        made_total += row.made or 0
        rating = t(f"rating.{row.rating}", lang) if row.rating else "-"
        card = bank.card(row.card_id)
        question = card.prompt.in_(lang) if card else row.card_id  # the question, not its id
        table.add_row(escape(question), f"{row.made}/{row.points}" if row.made is not None else "-", rating)
    console.print(table)
    points = sum(r.points for r in rows)
    share = f"{made_total / points:.0%}" if points else "-"
    console.print(t("mock.total", lang, made=made_total, points=points, share=share, used=_clock(seconds), id=mock_id))


def _history(lang: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    from normkata.grading.text import escape_name
    from normkata.i18n import t
    from normkata.record.mocks import MockLog
    from normkata.record.store import open_record
    from normkata.ui.terminal import make_console

    store = open_record(lang)
    try:
        rows = MockLog(store).history()
    finally:
        store.close()
    console = make_console()
    if not rows:
        console.print(t("mock.history.empty", lang))
        return
    table = Table(title=t("mock.history.title", lang), title_style="heading")
    table.add_column("#", justify="right")
    for key in ("mock.history.when", "mock.history.topic", "mock.history.time", "mock.history.answered"):
        table.add_column(t(key, lang))
    table.add_column(t("mock.col.points", lang), justify="right")
    for row in rows:
        points, made = row.points or 0, row.made or 0
        score = f"{made}/{points} ({made / points:.0%})" if points else "-"
        used = _clock(row.seconds_used or 0)
        topic = escape_name(str(row.topic)) if row.topic else t("mock.all_topics", lang)
        table.add_row(
            str(row.id),
            escape_name(str(row.started_at)[:16].replace("T", " ")),
            escape(topic),
            f"{used} / {row.minutes}:00",
            str(row.answered),
            score,
        )
    console.print(table)


def _clock(seconds: object) -> str:
    """Seconds as m:ss (0:00 for a value that is no number: a row edited by hand)."""
    whole = max(0, int(seconds)) if isinstance(seconds, (int, float)) and math.isfinite(seconds) else 0
    return f"{whole // 60}:{whole % 60:02d}"
