"""Interview cards: the learner answers, sees the key points, and rates themself (FSRS)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from rich.console import Group
from rich.panel import Panel

from normkata.content.model import Card
from normkata.i18n import t
from normkata.practice.answers import normalize_typed
from normkata.practice.quiz import source_label
from normkata.practice.session import Practice, ask_each, show_item_header
from normkata.practice.srs import schedule, when
from normkata.record.store import utcnow
from normkata.ui.answer_input import flush_typed_ahead, read_answer
from normkata.ui.paragraph import Paragraph

_RATING_WORDS = {
    "1": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "a": 1,
    "again": 1,
    "h": 2,
    "hard": 2,
    "g": 3,
    "good": 3,
    "e": 4,
    "easy": 4,
}


@dataclass
class CardsResult:
    asked: int
    ratings: dict[str, int] = field(default_factory=dict)
    interrupted: bool = False


#: What `ask_card` returns for a card skipped with Enter alone: shown, not rated, not recorded.
SKIPPED = 0


def run_cards(practice: Practice, cards: list[Card]) -> CardsResult:
    ratings, interrupted = ask_each(practice, cards, ask_card)
    # Ratings stop where the session did; a skipped card was not rated.
    rated = {card: r for card, r in zip([c.id for c in cards], ratings, strict=False) if r != SKIPPED}
    return CardsResult(asked=len(cards), ratings=rated, interrupted=interrupted)


def ask_card(practice: Practice, card: Card, index: int, total: int) -> int | None:
    """Show a card, take an optional answer and a 1-4 rating, save both; None at end of input.
    Enter alone skips it, as the prompt says: the key points and the model answer are shown, and
    nothing is rated or recorded (SKIPPED)."""
    console, lang = practice.console, practice.lang
    if not practice.prompter.has_more():  # piped input is over: no question left hanging
        return None
    show_item_header(practice, "card.header", card, index, total)
    flush_typed_ahead()  # keys pressed before the question was on screen are not its answer
    response = read_answer(practice.prompter, t("card.your_answer", lang))
    if response is None:
        return None
    show_key_points(practice, card)
    console.print(Panel(Paragraph(card.answer.in_(lang)), title=t("card.model_answer", lang), title_align="left"))
    show_follow_ups(practice, card)
    console.print(f"[muted]{t('quiz.source', lang, source=source_label(card.source, lang))}[/]")
    if not response.strip():
        console.print(f"[muted]{t('card.skipped', lang)}[/]")
        return SKIPPED
    moment = utcnow()
    choices = {rating: schedule(practice.store, card.id, rating, now=moment) for rating in (1, 2, 3, 4)}
    rating = read_rating(practice, {r: review.due for r, review in choices.items()}, moment)
    if rating is None:
        return None
    state = replace(choices[rating], duration_ms=practice.elapsed_ms())
    practice.store.record_rating(practice.session_id, card.id, card.topic, response.strip(), rating, state)
    console.print(f"[muted]{t(f'rating.{rating}', lang)} · {t('card.next_due', lang, when=when(state.due, lang))}[/]")
    return rating


def show_key_points(practice: Practice, card: Card, *, numbered: bool = False) -> None:
    """The card's key points in a panel; numbered when the learner is to tick the ones they made."""
    lang = practice.lang
    points = [point.in_(lang) for point in card.key_points]
    prefixes = [f"{i}. " if numbered else "• " for i in range(1, len(points) + 1)]
    body = Group(*(Paragraph(p, prefix=prefix) for p, prefix in zip(points, prefixes, strict=True)))
    practice.console.print(
        Panel(body, title=t("card.key_points", lang), border_style="card.points", title_align="left")
    )


def show_follow_ups(practice: Practice, card: Card) -> None:
    """Each follow-up an interviewer may ask, with the key points its answer should make."""
    lang = practice.lang
    follow_ups = [follow_up.in_(lang) for follow_up in card.follow_ups]
    if not follow_ups:
        return
    practice.console.print(f"[heading]{t('card.follow_ups', lang)}[/]")
    for index, question in enumerate(follow_ups):
        practice.console.print(Paragraph(question, prefix="  ? "))
        for point in card.follow_up_key_points(index, lang):
            practice.console.print(Paragraph(point, "card.points", prefix="    • "))


def rating_prompt(lang: str, dues: dict[int, str] | None = None, moment: datetime | None = None) -> str:
    """ "How did you do? 1 Again (1 min)  2 Hard (2 min)  3 Good (2 days)  4 Easy (8 days)":
    each choice with the interval it would give, as Anki shows them before a rating."""
    if not dues:
        return t("card.rate", lang)
    choices = "  ".join(
        t("card.rate.choice", lang, r=r, name=t(f"rating.{r}", lang), interval=_interval(due, lang, moment))
        for r, due in dues.items()
    )
    return t("card.rate.with", lang, choices=choices)


def _interval(due: str, lang: str, moment: datetime | None) -> str:
    """ "in 2 days" as "2 days", "2 天后" as "2 天": the interval alone, inside a choice, counted
    from the moment the choices were computed."""
    text = when(due, lang, moment)
    return text.removeprefix("in ").removesuffix("后")


def read_rating(practice: Practice, dues: dict[int, str] | None = None, moment: datetime | None = None) -> int | None:
    """A 1-4 self-rating by one key press (a line from a pipe), asked again until readable;
    None at end of input. `dues`: each rating's next due date, shown in the prompt.

    Whatever was typed while the key points were printing is dropped first: a rating is given
    after reading them.
    """
    flush_typed_ahead()
    while True:
        raw = practice.prompter.key(rating_prompt(practice.lang, dues, moment))
        if raw is None:
            return None
        rating = _RATING_WORDS.get(normalize_typed(raw).lower())  # full-width ３ too
        if rating is not None:
            return rating
        practice.console.print(f"[warn]{t('card.rate.invalid', practice.lang)}[/]")
