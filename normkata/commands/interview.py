"""`normkata interview` and `normkata review`."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

import click

from normkata.content.model import Card, Question
from normkata.errors import EXIT_INTERRUPTED, InputError
from normkata.ui.options import current_lang, lang_option, seed_option, topic_option

if TYPE_CHECKING:
    from normkata.commands.kata_again import KataOutcome
    from normkata.content.katas import Kata
    from normkata.practice.quiz import AnswerRecord
    from normkata.practice.session import Practice


@click.command()
@topic_option
@click.option("-n", "count", type=click.IntRange(min=1), default=5, show_default=True, help="How many cards.")
@click.option("--id", "ids", multiple=True, metavar="ID", help="Practise this card (repeatable), in the order given.")
@click.option("--new", "new_only", is_flag=True, help="Only cards you have never rated.")
@seed_option
@lang_option
def interview(
    topic: str | None, count: int, ids: tuple[str, ...], new_only: bool, seed: int | None, lang: str | None
) -> None:
    """Practise interview questions: answer, compare with key points, rate yourself.

    Cards you rated Again or Hard come first, then cards never rated in the order of study
    (one per topic in turn, fundamentals first, easy before hard), then the rest. An answer
    may run over several lines: an empty line (or Ctrl-D) ends it, Enter alone skips. Each
    rating (1 Again .. 4 Easy, one key) schedules the card's next review with FSRS.

    \b
    Examples:
      normkata interview --topic prenorm
      normkata interview -n 3 --lang zh
      normkata interview --id card-why-rmsnorm
      normkata interview --topic rmsnorm --new -n 2
    """
    from normkata.content.bank import check_topic, select
    from normkata.i18n import t
    from normkata.practice.cards import run_cards
    from normkata.practice.session import open_practice

    lang = current_lang(lang)
    practice = open_practice("interview", lang)
    topic = check_topic(practice.bank, topic, lang)
    if ids:
        from normkata.content.bank import card_named

        cards = [card_named(practice.bank, item_id, practice.lang) for item_id in ids]
    else:
        pool = select(practice.bank.cards, topic=topic, seed=seed)
        if new_only:
            rated = practice.store.latest_ratings()
            pool = [c for c in pool if c.id not in rated]
        cards = _in_order(practice, pool, seed)[:count]
    if not cards:
        raise InputError(t("card.none", lang))
    result = run_cards(practice, cards)
    practice.store.end_session(practice.session_id)
    practice.console.print()
    practice.console.print(t("card.done", lang, rated=len(result.ratings)))
    if result.interrupted:
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    _closing(practice, list(result.ratings))


@click.command()
@click.option("-n", "count", type=click.IntRange(min=1), default=20, show_default=True, help="At most this many items.")
@click.option("--kata", "kata_name", default=None, metavar="NAME", help="Write this passed kata again now.")
@click.option(
    "--optimize", is_flag=True, help="Fit your own FSRS parameters from your review logs (py-fsrs's optimizer)."
)
@lang_option
def review(count: int, kata_name: str | None, optimize: bool, lang: str | None) -> None:
    """Review what is due: missed quiz questions, interview cards and katas to write again (FSRS).

    A kata that comes due is written again: your passing file is kept in the workspace's
    history/, a fresh starter takes its place, and Enter grades it on new inputs. A summary
    closes the session (also after Ctrl-C or the end of input): questions right, cards by
    rating, katas written again, and when the next item falls due.

    \b
    Examples:
      normkata review
      normkata review -n 5
      normkata review --kata rmsnorm     # write a passed kata again now
      normkata review --optimize         # fit FSRS to your own reviews
    """
    from normkata.i18n import t
    from normkata.loop.review import due_now
    from normkata.practice.session import ask_each, open_practice
    from normkata.practice.srs import when

    lang = current_lang(lang)
    if optimize:
        from normkata.practice.optimize import optimize_command

        optimize_command(lang)
        return
    if kata_name:  # its file and history folder, before a session is opened: a link is one line, nothing written
        from normkata.content.katas import get_kata
        from normkata.ui.options import workspace
        from normkata.workbench.due import check_workspace

        check_workspace(get_kata(kata_name, lang), workspace(), lang)
    practice = open_practice("review", lang)
    found = due_now(practice.bank, practice.store)  # what is due, in the order a review serves it
    deadline = found.interview_day
    if kata_name:
        items: list[Question | Card | Kata] = [_passed_kata(practice, kata_name)]
        due = 1
    else:
        due = len(found.items)
        items = found.items[:count]
    if not items:
        upcoming = practice.store.next_due()
        text = t("review.none", lang, when=when(upcoming, lang)) if upcoming else t("review.empty", lang)
        practice.console.print(text)
        practice.store.end_session(practice.session_id)
        _more_practice(practice)
        return
    header = (
        t("review.header", lang, n=len(items))
        if len(items) == due
        else t("review.header.some", lang, n=len(items), due=due)
    )
    practice.console.print(f"[heading]{header}[/]")
    outcomes: list[AnswerRecord | int | KataOutcome]
    outcomes, interrupted = ask_each(practice, items, _ask_any)
    practice.store.end_session(practice.session_id)
    reviewed = [item.id for item in items[: len(outcomes)]]
    _summary(practice, outcomes, due, interrupted, reviewed)
    if deadline is not None and reviewed:
        _on_the_day(practice, deadline, reviewed)
    if interrupted:
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    _closing(practice, reviewed)


def _on_the_day(practice: Practice, day: date, item_ids: list[str]) -> None:
    """ "Interview on 2026-06-12 (in 3 day(s)): what you reviewed is predicted at 93% on the day." """
    from normkata.advice.deadline import days_left
    from normkata.i18n import t
    from normkata.loop.review import recall_on
    from normkata.record.store import utcnow

    recall = recall_on(practice.store, day, item_ids)
    mean = sum(recall.values()) / len(recall) if recall else 0.0
    left = days_left(day, utcnow())
    when = t("deadline.left.today", practice.lang) if left <= 0 else t("deadline.left.days", practice.lang, n=left)
    line = t("review.on_the_day", practice.lang, date=day.isoformat(), left=when, recall=f"{mean:.0%}")
    practice.console.print(f"[muted]{line}[/]")


def _closing(practice: Practice, item_ids: list[str]) -> None:
    """When the items just practised come back, then the `Next:` line quiz and grade print."""
    from rich.markup import escape

    from normkata.advice.advisor import next_step_line
    from normkata.practice.srs import comes_back

    back = comes_back(practice.store, item_ids, practice.lang)
    if back:
        practice.console.print(f"[muted]{back}[/]")
    practice.console.print(f"[next]{escape(next_step_line(practice.lang))}[/]")


def _more_practice(practice: Practice) -> None:
    """Nothing is due: the advisor's step (the weakest topic, new items) instead of a dead end."""
    from normkata.advice.advisor import next_step
    from normkata.advice.standing import load_standing
    from normkata.i18n import t

    step = next_step(load_standing(practice.bank, practice.store))
    text = t("review.more", practice.lang, cmd=step.shown(practice.lang), why=step.why(practice.lang))
    practice.console.print(f"[next]{text}[/]")


def _summary(
    practice: Practice,
    outcomes: list[AnswerRecord | int | KataOutcome],
    due: int,
    interrupted: bool,
    reviewed: list[str],
) -> None:
    """What this review did, in one block: answered of due, questions right, cards by rating, what
    is still due, and when the next item is."""
    from normkata.i18n import t
    from normkata.practice.srs import due_cutoff, when
    from normkata.record.store import iso

    lang, console = practice.lang, practice.console
    from normkata.commands.kata_again import KataOutcome
    from normkata.practice.cards import SKIPPED

    answers = [o for o in outcomes if not isinstance(o, (int, KataOutcome))]
    katas = [o for o in outcomes if isinstance(o, KataOutcome)]
    ratings = [o for o in outcomes if isinstance(o, int) and o != SKIPPED]
    console.print()
    console.rule(f"[heading]{t('summary.title', lang)}[/]")
    key = "review.summary.stopped" if interrupted or len(outcomes) < due else "review.summary.done"
    console.print(t(key, lang, done=len(outcomes), due=due))
    if answers:
        console.print(t("review.summary.questions", lang, right=sum(a.correct for a in answers), n=len(answers)))
    if ratings:
        by = "  ".join(f"{t(f'rating.{r}', lang)} {ratings.count(r)}" for r in (1, 2, 3, 4) if r in ratings)
        console.print(t("review.summary.cards", lang, n=len(ratings), ratings=by))
    if katas:
        by = ", ".join(f"{k.kata} {t(f'rating.{k.rating}', lang) if k.rating else '-'}" for k in katas)
        console.print(t("loop.summary.katas", lang, n=len(katas), ratings=by))
    missed = {a.id for a in answers if not a.correct}
    missed |= {item for item, o in zip(reviewed, outcomes, strict=False) if isinstance(o, int) and o == 1}
    if missed:  # an Again comes back in a minute (one learning step)
        console.print(f"[muted]{t('review.summary.again', lang, n=len(missed))}[/]")
    cutoff = due_cutoff()
    still = [row for row in practice.store.due_items(cutoff) if row.item_id not in missed]
    if still:
        console.print(t("review.summary.still", lang, n=len(still)))
        return
    upcoming = practice.store.next_due()
    if upcoming and upcoming > iso(cutoff):
        console.print(f"[muted]{t('review.summary.next', lang, when=when(upcoming, lang))}[/]")


def _ask_any(
    practice: Practice, item: Question | Card | Kata, index: int, total: int
) -> AnswerRecord | int | KataOutcome | None:
    from normkata.practice.cards import ask_card
    from normkata.practice.quiz import ask_question

    if not isinstance(item, (Question, Card)):
        from normkata.commands.kata_again import ask_kata
        from normkata.ui.options import workspace

        return ask_kata(practice, item, workspace(), index, total)
    if isinstance(item, Question):
        if not practice.prompter.has_more():  # piped input is over: no question left hanging
            return None
        return ask_question(practice, item, index, total)
    return ask_card(practice, item, index, total)


def _passed_kata(practice: Practice, name: str) -> Kata:
    """`review --kata NAME`: a kata that has passed (a kata never passed is started with `normkata kata`)."""
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.record.attempts import KataLog

    kata = get_kata(name, practice.lang)
    if KataLog(practice.store).status(kata.id).status != "passed":
        raise InputError(t("loop.kata_not_passed", practice.lang, kata=kata.id))
    return kata


def _in_order(practice: Practice, pool: list[Card], seed: int | None) -> list[Card]:
    """Weak cards first (last rated Again or Hard), then never rated spread over the order of
    study, then those rated Good or Easy."""
    from normkata.practice.curriculum import spread
    from normkata.practice.srs import GOOD_RATING

    rated = practice.store.latest_ratings()
    ordered = spread(pool, seed)
    return sorted(ordered, key=lambda c: 1 if c.id not in rated else (0 if rated[c.id] < GOOD_RATING else 2))
