"""One quiz session: ask, mark, explain, save, and sum up per topic."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from rich.markup import escape
from rich.table import Table

from normkata.content.model import SOURCES, Question, letter
from normkata.i18n import t
from normkata.practice import Practice, ask_each, show_item_header
from normkata.quiz.answers import (
    UnreadableAnswer,
    expected_text,
    is_correct,
    letters_for,
    parse_answer,
    precision_hint,
)
from normkata.quiz.paragraph import Paragraph
from normkata.srs import quiz_rating, schedule


@dataclass(frozen=True)
class AnswerRecord:
    id: str
    topic: str
    given: str
    correct: bool
    expected: str


@dataclass
class QuizResult:
    asked: int
    records: list[AnswerRecord] = field(default_factory=list)
    interrupted: bool = False

    @property
    def complete(self) -> bool:
        return len(self.records) == self.asked

    def by_topic(self) -> OrderedDict[str, tuple[int, int]]:
        """topic -> (correct, answered), in the order topics were first met."""
        totals: OrderedDict[str, tuple[int, int]] = OrderedDict()
        for rec in self.records:
            right, seen = totals.get(rec.topic, (0, 0))
            totals[rec.topic] = (right + rec.correct, seen + 1)
        return totals

    def to_json(self) -> dict:
        correct = sum(r.correct for r in self.records)
        return {
            "asked": self.asked,
            "answered": len(self.records),
            "correct": correct,
            "score": round(correct / len(self.records), 4) if self.records else 0.0,
            "complete": self.complete,
            "interrupted": self.interrupted,
            "topics": {k: {"correct": c, "answered": n} for k, (c, n) in self.by_topic().items()},
            "answers": [r.__dict__ for r in self.records],
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
        raw = practice.prompter.ask(_prompt(question, lang))
        if raw is None:
            return None
        if not raw.strip():
            value, given, correct = None, "", False
            break
        try:
            value = parse_answer(question, raw)
        except UnreadableAnswer as why:
            if practice.prompter.interactive:
                console.print(f"[warn]{escape(t('quiz.invalid', lang, why=why.text(lang)))}[/]")
                continue
            console.print(f"[warn]{escape(t('quiz.invalid.recorded', lang, why=why.text(lang)))}[/]")
            value, given, correct = None, raw.strip(), False
            break
        given, correct = _stored(question, value), is_correct(question, value)
        break
    practice.store.record_answer(
        practice.session_id,
        question.id,
        question.topic,
        given,
        correct,
        schedule(practice.store, question.id, quiz_rating(correct), duration_ms=practice.elapsed_ms()),
    )
    _show_feedback(practice, question, value, correct, skipped=not raw.strip())
    return AnswerRecord(question.id, question.topic, given, correct, _stored(question, question.answer))


def _stored(question: Question, value: object) -> str:
    """An answer as saved in the database and the JSON summary."""
    if question.type == "true_false":
        return "true" if value else "false"
    if question.type == "numeric":
        return f"{value:.12g}"
    return "".join(value) if isinstance(value, tuple) else str(value)


def _prompt(question: Question, lang: str) -> str:
    letters = letters_for(question)
    span = f"{letters[0]}-{letters[-1]}" if letters else ""
    example = letters[::-1] if letters else ""
    return t(f"quiz.prompt.{question.type}", lang, letters=span, example=example)


def _show_question(practice: Practice, question: Question, index: int, total: int) -> None:
    console, lang = practice.console, practice.lang
    show_item_header(practice, "quiz.header", question, index, total)
    hint = precision_hint(question, lang)
    if hint:
        console.print(f"[muted]{escape(hint)}[/]")
    for i, choice in enumerate(question.choices):
        console.print(Paragraph(choice.get(lang), prefix=f"  {letter(i)}) ", prefix_style="quiz.choice"))
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
    console.print(Paragraph(question.explanation.get(lang), "quiz.explain"))
    console.print(f"[muted]{t('quiz.source', lang, source=source_label(question.source, lang))}[/]")


def source_label(source: str, lang: str) -> str:
    """The title of the document an item comes from (described in docs/sources.md)."""
    en, zh = SOURCES[source]
    return zh if lang == "zh" else en


def render_summary(practice: Practice, result: QuizResult) -> None:
    console, lang = practice.console, practice.lang
    table = Table(title=t("summary.title", lang), title_style="heading")
    table.add_column(t("summary.topic", lang))
    for key in ("summary.correct", "summary.total", "summary.score"):
        table.add_column(t(key, lang), justify="right")
    for topic, (right, seen) in result.by_topic().items():
        table.add_row(practice.bank.topic_title(topic, lang), str(right), str(seen), f"{right / seen:.0%}")
    right = sum(r.correct for r in result.records)
    seen = len(result.records)
    table.add_section()
    table.add_row(t("summary.all", lang), str(right), str(seen), f"{right / seen:.0%}" if seen else "-")
    console.print()
    console.print(table)
    if not result.complete:
        console.print(f"[warn]{t('summary.stopped', lang, answered=seen, asked=result.asked)}[/]")
    if right < seen:
        console.print(f"[muted]{t('summary.review', lang)}[/]")
