"""`normkata mock`: a timed mock interview, a debrief against the key points, and a scorecard."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import click

from normkata.errors import EXIT_INTERRUPTED
from normkata.loop.mock import MIN_SECONDS_TO_ASK
from normkata.ui.options import current_lang, lang_option, topic_option

if TYPE_CHECKING:
    from rich.console import Group

    from normkata.loop.mock import Given, MockSession
    from normkata.practice.session import Practice


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
    from normkata.content.bank import check_topic
    from normkata.i18n import t
    from normkata.loop.mock import MockSession
    from normkata.practice.session import open_practice

    lang = current_lang(lang)
    if show_history:
        _history(lang)
        return
    practice = open_practice("mock", lang)
    session = MockSession(practice.bank, practice.store, practice.session_id, lang)
    session.start(minutes, check_topic(practice.bank, topic, lang))
    practice.console.print(f"[heading]{t('mock.title', lang, n=len(session.planned), minutes=minutes)}[/]")
    if session.interview_day is not None and session.days_left is not None:
        left = session.days_left
        when = t("deadline.left.today", lang) if left <= 0 else t("deadline.left.days", lang, n=left)
        line = t("mock.on_the_day", lang, date=session.interview_day.isoformat(), left=when)
        practice.console.print(f"[muted]{line}[/]")
    scored = 0
    try:
        _interview(practice, session, editor)
        used = session.finish()
        scored = _debrief(practice, session)
    except KeyboardInterrupt:
        practice.console.print()
        session.finish()
        practice.store.end_session(practice.session_id)
        practice.console.print(t("mock.stopped", lang, answered=len(session.given), scored=scored))
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    practice.store.end_session(practice.session_id)
    if used is not None and session.mock_id is not None:
        _scorecard(practice, session.mock_id, used)
    else:
        practice.console.print(t("mock.nothing", lang))
    from rich.markup import escape

    from normkata.advice.advisor import next_step_line

    practice.console.print(f"[next]{escape(next_step_line(lang))}[/]")


def _interview(practice: Practice, session: MockSession, editor: bool) -> None:
    """Ask until the questions, the time or the input run out; each answer is kept as it is given."""
    from normkata.i18n import t
    from normkata.practice.mock import clock as now
    from normkata.ui.answer_input import edit_answer, flush_typed_ahead, read_answer
    from normkata.ui.paragraph import Paragraph

    console, lang = practice.console, practice.lang
    number = 0
    while True:
        if not practice.prompter.has_more():
            return
        left = session.seconds_left()
        item = session.next_question(left)
        if item is None:
            if left < MIN_SECONDS_TO_ASK:
                console.print(f"[warn]{t('mock.time_up', lang)}[/]")
            return
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
            return
        session.answer(item, text, round(now() - began))


def _debrief(practice: Practice, session: MockSession) -> int:
    """Each answer and its follow-ups, then the numbered key points right above the prompt that
    ticks them; the ticks become the card's FSRS rating. Returns how many were scored."""
    from rich.panel import Panel

    from normkata.i18n import t
    from normkata.practice.cards import show_key_points
    from normkata.ui.paragraph import Paragraph

    console, lang = practice.console, practice.lang
    cards = session.to_score()
    if cards:
        console.print()
        console.rule(f"[heading]{t('mock.debrief', lang)}[/]")
    scored = 0
    for card in cards:
        answer = card.answer
        console.print()
        console.print(Paragraph(answer.asked.prompt(lang), "quiz.prompt"))
        said = answer.text if answer.text else t("mock.no_answer", lang)
        console.print(Panel(Paragraph(said), title=t("mock.you_said", lang), title_align="left"))
        for extra in card.follow_ups:
            console.print(_follow_up_side(extra, lang))
        points = answer.asked.key_points(lang)
        show_key_points(practice, answer.asked.card, numbered=True)  # right above the prompt that ticks them
        if answer.text:
            made = _read_ticks(practice, len(points))
            if made is None:
                return scored
        else:
            made = []
        result = session.score(card, made)
        console.print(f"[muted]{t(f'rating.{result.rating}', lang)} · {result.made}/{result.points}[/]")
        scored += 1
    return scored


def _follow_up_side(extra: Given, lang: str) -> Group:
    """A follow-up's question, its answer and the key points it should have made (shown, not
    ticked: a follow-up adds nothing to the card's score), as paragraphs that wrap at words, or
    between Chinese characters, at any width."""
    from rich.console import Group
    from rich.panel import Panel

    from normkata.i18n import t
    from normkata.ui.paragraph import Paragraph

    said = extra.text if extra.text else t("mock.no_answer", lang)
    points = extra.asked.key_points(lang)
    return Group(
        Paragraph(extra.asked.prompt(lang), "quiz.prompt", prefix="? "),
        Panel(Paragraph(said), title=t("mock.you_said", lang), title_align="left"),
        *(Paragraph(point, "card.points", prefix="  • ") for point in points),
    )


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
