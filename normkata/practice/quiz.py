"""One quiz session: ask, mark, explain, save, and sum up per topic."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from rich.markup import escape

from normkata.content.model import SOURCES, Question, letter
from normkata.i18n import t
from normkata.practice.answers import (
    UnreadableAnswer,
    expected_text,
    is_correct,
    letters_for,
    parse_answer,
    precision_hint,
    short_of_precision,
)
from normkata.practice.session import Practice, ask_each, show_item_header
from normkata.practice.srs import quiz_rating, schedule
from normkata.ui.paragraph import Paragraph

if TYPE_CHECKING:
    from normkata.record.store import Store


# The small records are NamedTuples: a third of a frozen dataclass's creation cost, paid by
# every quiz before its first question.
class AnswerRecord(NamedTuple):
    id: str
    topic: str
    given: str
    correct: bool
    expected: str
    #: Enter without an answer: saved as wrong (FSRS: Again), counted apart from answers.
    skipped: bool = False


class TopicTotals(NamedTuple):
    correct: int = 0
    answered: int = 0
    skipped: int = 0

    @property
    def shown(self) -> int:
        return self.answered + self.skipped

    def add(self, record: AnswerRecord) -> TopicTotals:
        return TopicTotals(
            self.correct + record.correct,
            self.answered + (not record.skipped),
            self.skipped + record.skipped,
        )


@dataclass
class QuizResult:
    asked: int
    records: list[AnswerRecord] = field(default_factory=list)
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return len(self.records) == self.asked

    def by_topic(self) -> OrderedDict[str, TopicTotals]:
        """topic -> its totals, in the order topics were first met."""
        totals: OrderedDict[str, TopicTotals] = OrderedDict()
        for rec in self.records:
            totals[rec.topic] = totals.get(rec.topic, TopicTotals()).add(rec)
        return totals

    def totals(self) -> TopicTotals:
        total = TopicTotals()
        for rec in self.records:
            total = total.add(rec)
        return total

    def to_json(self) -> dict:
        """`answered` counts answers given, `skipped` the questions passed with Enter; the
        score is correct over both (a skip is not an escape from the score)."""
        total = self.totals()
        return {
            "asked": self.asked,
            "answered": total.answered,
            "skipped": total.skipped,
            "correct": total.correct,
            "score": round(total.correct / total.shown, 4) if total.shown else 0.0,
            "complete": self.complete,
            "interrupted": self.interrupted,
            "topics": {
                k: {"correct": v.correct, "answered": v.answered, "skipped": v.skipped}
                for k, v in self.by_topic().items()
            },
            "answers": [r._asdict() for r in self.records],
        }


def run_quiz(practice: Practice, questions: list[Question]) -> QuizResult:
    """Ask each question in turn until the end, EOF or Ctrl-C; every answer is saved at once."""
    records, interrupted = ask_each(practice, questions, ask_question)
    return QuizResult(asked=len(questions), records=records, interrupted=interrupted)


def ask_question(practice: Practice, question: Question, index: int, total: int) -> AnswerRecord | None:
    """Show one question, read and mark the answer, save it; None at end of input."""
    console, lang = practice.console, practice.lang
    _show_question(practice, question, index, total)
    while True:
        raw = practice.prompter.ask(answer_prompt(question, lang))
        if raw is None:
            return None
        if not raw.strip():
            value, given, correct = None, "", False
            break
        try:
            value, given, correct, short = mark(question, raw)
        except UnreadableAnswer as why:
            if practice.prompter.interactive:
                console.print(f"[warn]{escape(t('quiz.invalid', lang, why=why.text(lang)))}[/]")
                continue
            console.print(f"[warn]{escape(t('quiz.invalid.recorded', lang, why=why.text(lang)))}[/]")
            value, given, correct = None, raw.strip(), False
            break
        if short is not None:
            note = short_note(question, raw, short, lang)
            if practice.prompter.interactive:  # right as far as it goes: say so, and let them try again
                console.print(f"[warn]{escape(note + t('quiz.short.again', lang))}[/]")
                continue
            console.print(f"[warn]{escape(note)}[/]")
        break
    save_answer(practice.store, practice.session_id, question, given, correct, practice.elapsed_ms())
    skipped = not raw.strip()
    _show_feedback(practice, question, value, correct, skipped=skipped)
    return AnswerRecord(question.id, question.topic, given, correct, _stored(question, question.answer), skipped)


class Marked(NamedTuple):
    value: object
    given: str  # as saved
    correct: bool
    #: The digits a wrong number was typed to when it is right that far but the question asks for more.
    short: int | None


def mark(question: Question, raw: str) -> Marked:
    """A typed answer read and marked (UnreadableAnswer when it is no answer of the question's type)."""
    value = parse_answer(question, raw)
    correct = is_correct(question, value)
    short = None if correct else short_of_precision(question, raw, value)
    return Marked(value, _stored(question, value), correct, short)


def short_note(question: Question, raw: str, short: int, lang: str) -> str:
    """The note for a number right as far as it was typed (`quiz.short.*`): fewer digits than asked."""
    kind, asked = question.precision or ("decimals", 0)
    return t(f"quiz.short.{kind}", lang, typed=raw.strip(), n=short, asked=asked)


def save_answer(
    store: Store, session_id: int, question: Question, given: str, correct: bool, duration_ms: int | None
) -> None:
    """The answer and the question's next FSRS review, saved together."""
    review = schedule(store, question.id, quiz_rating(correct), duration_ms=duration_ms)
    store.record_answer(session_id, question.id, question.topic, given, correct, review)


def _stored(question: Question, value: object) -> str:
    """An answer as saved in the database and the JSON summary."""
    if question.type == "true_false":
        return "true" if value else "false"
    if question.type == "numeric":
        return f"{value:.12g}"
    return "".join(value) if isinstance(value, tuple) else str(value)


def answer_prompt(question: Question, lang: str) -> str:
    """The prompt names every form parse_answer reads: letters and their numbers."""
    letters = letters_for(question)
    span = f"{letters[0]}-{letters[-1]}" if letters else ""
    numbers = f"1-{len(letters)}" if letters else ""
    example = letters[::-1] if letters else ""
    return t(f"quiz.prompt.{question.type}", lang, letters=span, numbers=numbers, example=example)


def _show_question(practice: Practice, question: Question, index: int, total: int) -> None:
    console, lang = practice.console, practice.lang
    show_item_header(practice, "quiz.header", question, index, total)
    hint = precision_hint(question, lang)
    if hint:
        console.print(f"[muted]{escape(hint)}[/]")
    for i, choice in enumerate(question.choices):
        console.print(Paragraph(choice.in_(lang), prefix=f"  {letter(i)}) ", prefix_style="quiz.choice"))
    if question.type == "true_false":
        console.print(f"  [quiz.choice]A)[/] {t('quiz.true', lang)}   [quiz.choice]B)[/] {t('quiz.false', lang)}")


def _show_feedback(practice: Practice, question: Question, value: object, correct: bool, *, skipped: bool) -> None:
    console, lang = practice.console, practice.lang
    expected = expected_text(question, lang)
    if correct:
        console.print(f"[quiz.correct]✓ {t('quiz.correct', lang)}[/]")
    else:
        key = "quiz.skipped" if skipped else "quiz.wrong"
        console.print(Paragraph(t(key, lang, answer=expected), "quiz.wrong", prefix="✗ ", prefix_style="quiz.wrong"))
    console.print(Paragraph(question.explanation.in_(lang), "quiz.explain"))
    console.print(f"[muted]{t('quiz.source', lang, source=source_label(question.source, lang))}[/]")


def source_label(source: str, lang: str) -> str:
    """The title of the document an item comes from (described in docs/sources.md)."""
    return SOURCES[source].in_(lang)


def render_summary(practice: Practice, result: QuizResult) -> None:
    from rich.table import Table  # not needed to reach the first question

    console, lang = practice.console, practice.lang
    table = Table(title=t("summary.title", lang), title_style="heading")
    table.add_column(t("summary.topic", lang))
    for key in ("summary.correct", "summary.total", "summary.skipped", "summary.score"):
        table.add_column(t(key, lang), justify="right")

    def row(name: str, totals: TopicTotals) -> None:
        score = f"{totals.correct / totals.shown:.0%}" if totals.shown else "-"
        table.add_row(name, str(totals.correct), str(totals.answered), str(totals.skipped), score)

    for topic, totals in result.by_topic().items():
        row(practice.bank.topic_title(topic, lang), totals)
    total = result.totals()
    table.add_section()
    row(t("summary.all", lang), total)
    console.print()
    console.print(table)
    if not result.complete:
        key = "summary.stopped.skipped" if total.skipped else "summary.stopped"
        console.print(f"[warn]{t(key, lang, answered=total.answered, skips=total.skipped, asked=result.asked)}[/]")
    from normkata.practice.srs import comes_back

    back = comes_back(practice.store, [rec.id for rec in result.records], lang)
    if back:
        console.print(f"[muted]{back}[/]")
