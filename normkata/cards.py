"""Interview cards: the learner answers, sees the key points, and rates themself (FSRS)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Group
from rich.panel import Panel

from normkata.content.model import Card
from normkata.i18n import t
from normkata.practice import Practice, ask_each, show_item_header
from normkata.quiz.paragraph import Paragraph
from normkata.quiz.session import source_label
from normkata.srs import schedule, when

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


def run_cards(practice: Practice, cards: list[Card]) -> CardsResult:
    ratings, interrupted = ask_each(practice, cards, ask_card)
    rated = dict(zip([c.id for c in cards], ratings, strict=False))  # ratings stop where the session did
    return CardsResult(asked=len(cards), ratings=rated, interrupted=interrupted)


def ask_card(practice: Practice, card: Card, index: int, total: int) -> int | None:
    """Show a card, take an optional answer and a 1-4 rating, save both; None at end of input."""
    console, lang = practice.console, practice.lang
    show_item_header(practice, "card.header", card, index, total)
    response = practice.prompter.ask(t("card.your_answer", lang))
    if response is None:
        return None
    points = Group(*(Paragraph(p, prefix="• ") for p in card.key_points.get(lang)))
    console.print(Panel(points, title=t("card.key_points", lang), border_style="card.points", title_align="left"))
    console.print(Panel(Paragraph(card.answer.get(lang)), title=t("card.model_answer", lang), title_align="left"))
    follow_ups = card.follow_ups.get(lang)
    if follow_ups:
        console.print(f"[heading]{t('card.follow_ups', lang)}[/]")
        for question in follow_ups:
            console.print(Paragraph(question, prefix="  ? "))
    console.print(f"[muted]{t('quiz.source', lang, source=source_label(card.source, lang))}[/]")
    rating = _read_rating(practice)
    if rating is None:
        return None
    state = schedule(practice.store, card.id, rating)
    practice.store.record_rating(practice.session_id, card.id, card.topic, response.strip(), rating, state)
    console.print(f"[muted]{t(f'rating.{rating}', lang)} · {t('card.next_due', lang, when=when(state[1], lang))}[/]")
    return rating


def _read_rating(practice: Practice) -> int | None:
    while True:
        raw = practice.prompter.ask(t("card.rate", practice.lang))
        if raw is None:
            return None
        rating = _RATING_WORDS.get(raw.strip().lower())
        if rating is not None:
            return rating
        practice.console.print(f"[warn]{t('card.rate.invalid', practice.lang)}[/]")
