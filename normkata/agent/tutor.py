"""What each tool of `normkata mcp` does, without the protocol: the learner's loop
(normkata.loop.learner), the same calls every door makes, worded for an assistant.

Each tool answers a `Reply`: `data` for the assistant's program (the protocol's structured
content) and `text` for people, in the learner's language. Suggestions name tools and their
arguments, never shell commands (normkata/agent/vocabulary.py). Bad input and refusals are
InputErrors of one line naming the tool's argument; arguments are bounded as the command line
bounds its options (a seed the record can keep, a short echo of what was given).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from normkata.actions import Action, speaking, spoken
from normkata.agent.vocabulary import Tools
from normkata.errors import InputError
from normkata.i18n import t
from normkata.record.values import INT64_MAX

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.advice.advisor import Step
    from normkata.advice.dated import DatedStep
    from normkata.grading.contract import GradeResult
    from normkata.loop.learner import GradeFunction

R = TypeVar("R")

#: Columns of the text a report is rendered to (what `grade` prints, without colour).
TEXT_WIDTH = 100
#: How much of an argument an error repeats: enough to recognise it, never a pasted file.
ECHO_CHARS = 60
#: The largest text argument taken (an answer, a topic, an id).
MAX_TEXT_CHARS = 4000
#: Seeds the record keeps (SQLite's signed 64-bit integers): `grade --seed` takes the same range.
MAX_SEED = INT64_MAX


def in_tool_words(method: Callable[..., R]) -> Callable[..., R]:
    """A tool of the Tutor: it runs in the MCP door's words (errors name tool arguments, suggestions name tools)."""

    @functools.wraps(method)
    def speaking_tools(self: Tutor, *args: Any, **kwargs: Any) -> R:
        with speaking(self.words):
            answer = method(self, *args, **kwargs)
        return with_unusable_rows(answer, self.lang)  # type: ignore[return-value]

    return speaking_tools


def with_unusable_rows(answer: object, lang: str) -> object:
    """A reply with the stored rows its call could not use (a database edited by hand): said to the
    assistant with the reply, as the command line says them after a command."""
    from normkata.record.values import take_skipped

    skipped = take_skipped()
    if not skipped or not isinstance(answer, Reply):
        return answer
    warnings = [*answer.data.get("warnings", []), *skipped]
    said = t("store.skipped", lang, n=len(skipped), first=echo(skipped[0]))
    return Reply({**answer.data, "warnings": warnings}, f"{answer.text}\n{said}")


@dataclass(frozen=True)
class Reply:
    """A tool's answer: `data` for programs (structured content), `text` for people."""

    data: dict[str, Any]
    text: str


class Tutor:
    """The learner's loop (normkata.loop.learner) for one assistant, worded for it: every tool's
    reply names tools and their arguments, never a shell command."""

    def __init__(self, workspace: Path, lang: str, grade: GradeFunction | None = None) -> None:
        """`grade`: how files are graded; by default a warm grading service of the loop's own
        (the one `watch` uses: each file in a fresh confined worker), started at the first grade."""
        from normkata.loop.learner import Learner

        self.workspace, self.lang = workspace, lang
        self.learner = Learner(workspace, lang, grade, warm=True)
        self.words = Tools()

    # -- katas -------------------------------------------------------------------------------------

    @in_tool_words
    def list_katas(self) -> Reply:
        rows, lines = [], []
        for kata, status in self.learner.katas(strict=True):
            title = kata.title.in_(self.lang)
            needs = kata.missing_extras() if kata.requires else []
            rows.append(
                {
                    "id": kata.id,
                    "title": title,
                    "difficulty": kata.difficulty,
                    "minutes": kata.minutes,
                    "topics": list(kata.topics),
                    "status": status.status,
                    "best_score": status.best_score,
                    "needs": needs,
                }
            )
            state = t(f"kata.status.{status.status}", self.lang)
            if status.best_score is not None:
                state += f", {t('kata.col.best', self.lang)} {status.best_score:.0%}"
            if needs:
                state += f", {t('kata.needs_extra', self.lang, extra=', '.join(needs))}"
            lines.append(f"{kata.id}: {title} ({state})")
        return Reply({"katas": rows}, "\n".join(lines))

    @in_tool_words
    def instructions(self, kata: str) -> Reply:
        shown = self.learner.instructions(check_id(kata, "kata", self.lang))
        data = {
            "kata": shown.kata.id,
            "title": shown.kata.title.in_(self.lang),
            "file": str(shown.file),
            "instructions": shown.text,
        }
        return Reply(data, f"{shown.text.rstrip()}\n\n{t('agent.kata.file', self.lang, path=shown.file)}")

    @in_tool_words
    def start_kata(self, kata: str) -> Reply:
        """The starter in the workspace, never over the learner's file (no `force` here)."""
        shown = self.learner.start(check_id(kata, "kata", self.lang))
        started = shown.started
        assert started is not None
        said = t("kata.written" if started.written else "agent.kata.kept", self.lang, path=started.file)
        lines = [said]
        if started.guide:
            lines.append(t("agent.agents_md.written", self.lang, path=started.guide))
        data = {
            "kata": shown.kata.id,
            "file": str(started.file),
            "written": started.written,
            "agents_md": str(started.guide) if started.guide else None,
            "instructions": shown.text,
        }
        return Reply(data, "\n".join(lines) + "\n\n" + shown.text.rstrip())

    @in_tool_words
    def learner_file(self, kata: str) -> str:
        """The learner's own file of `kata`, as text (a link, a special or an oversized file is not read)."""
        return self.learner.learner_source(check_id(kata, "kata", self.lang))

    # -- grading -----------------------------------------------------------------------------------

    @in_tool_words
    def grade(self, kata: str | None = None, file: str | None = None, seed: int | None = None) -> Reply:
        """`normkata grade [KATA] [--file FILE] [--seed N]`: the same request, result and record."""
        from normkata.grading.contract import Status

        name = None if kata is None else check_id(kata, "kata", self.lang)
        path = None if file is None else checked_file(file, self.lang)
        kept = self.learner.grade(name, path, seed=check_seed(seed, self.lang))
        result = kept.result
        failing = [c for c in result.cases if c.status in (Status.FAILED, Status.ERROR)]
        notes = [
            {"text": note.words(self.lang), "action": None if note.action is None else self.words.step(note.action)}
            for note in kept.notes
        ]
        data = {
            **kept.to_json(self.lang),
            "notes": notes,
            "next": None if kept.next is None else self._step(kept.next),
            "mistakes": [
                {"id": d.id, "title": d.title, "hint": d.hint, "cases": d.cases}
                for d in sorted(result.diagnosis, key=lambda d: -d.cases)
            ],
            "failing_cases": [
                {
                    "name": c.name,
                    "category": c.category.value,
                    "status": c.status.value,
                    "message": c.message,
                    "mistake": c.diagnosis,
                }
                for c in failing
            ],
        }
        next_line = None
        if kept.next is not None:
            next_line = t(
                "agent.next", self.lang, step=spoken(kept.next.action, self.lang), why=kept.next.why(self.lang)
            )
        lines = [note.words(self.lang) for note in kept.notes]
        return Reply(data, _report_text(result, lines, next_line, kept.warnings, self.lang))

    # -- hints and the solution --------------------------------------------------------------------

    @in_tool_words
    def hint(self, kata: str | None = None) -> Reply:
        """What `normkata hint` gives: the hint for the mistake the last grade named first, else the
        next levelled hint, counted as taken; after a pass, that it passed (no hint taken)."""
        from normkata.workbench.workflow import NamedHint, Passed

        name = None if kata is None else check_id(kata, "kata", self.lang)
        chosen, shown, _none_left = self.learner.hint(name)
        if isinstance(shown, Passed):
            solution = spoken(Action.of("solution", kata=chosen.id), self.lang)
            text = t("hint.passed", self.lang, kata=chosen.id, solution=solution)
            return Reply({"kata": chosen.id, "passed": True, "hint": None}, text)
        (taken,) = shown
        lines = [taken.heading(chosen.id, self.lang), taken.text]
        if isinstance(taken, NamedHint):
            again = spoken(Action.of("hint", kata=chosen.id), self.lang)
            lines.append(t("hint.named.more", self.lang, call=again))
            data = {
                "kata": chosen.id,
                "misconception": taken.misconception,
                "title": taken.title,
                "hint": taken.text,
                "last": False,
            }
            return Reply(data, "\n".join(lines))
        last = taken.level == taken.total
        if last:
            lines.append(t("agent.hint.last", self.lang, kata=chosen.id))
        data = {"kata": chosen.id, "level": taken.level, "total": taken.total, "hint": taken.text, "last": last}
        return Reply(data, "\n".join(lines))

    @in_tool_words
    def solution(self, kata: str | None = None, give_up: bool = False) -> Reply:
        """The reference once the kata passed; before, refused unless the learner gives up (recorded)."""
        name = None if kata is None else check_id(kata, "kata", self.lang)
        if not self.learner.solution_open(name) and not give_up:
            chosen = self.learner.kata(name) if name else None
            raise InputError(t("agent.solution.refused", self.lang, kata=chosen.id if chosen else name or ""))
        shown = self.learner.solution(name, give_up=give_up)
        title = shown.kata.title.in_(self.lang)
        lines = [t("agent.solution.gave_up", self.lang, kata=shown.kata.id)] if shown.gave_up else []
        lines.append(t("solution.heading", self.lang, kata=shown.kata.id, title=title))
        lines.append(f"```python\n{shown.reference.rstrip()}\n```")
        if shown.diff is not None:
            lines.append(t("solution.diff", self.lang, path=shown.mine))
            lines.append(f"```diff\n{shown.diff}\n```" if shown.diff else t("solution.same", self.lang))
        data = {
            "kata": shown.kata.id,
            "title": title,
            "solution": shown.reference,
            "gave_up": shown.gave_up,
            "diff": shown.diff,
        }
        return Reply(data, "\n".join(lines))

    # -- the quiz and the cards --------------------------------------------------------------------

    @in_tool_words
    def quiz_question(self, topic: str | None = None, id: str | None = None) -> Reply:
        """A question as `normkata quiz --topic T -n 1` (or `--id`) draws it, without its answer."""
        from normkata.content.model import letter
        from normkata.practice.answers import precision_hint
        from normkata.practice.quiz import answer_prompt

        bank, question = self.learner.quiz_question(
            None if topic is None else check_text(topic, "topic", self.lang),
            None if id is None else check_id(id, "id", self.lang),
        )
        lang = self.lang
        choices = [(letter(i), choice.in_(lang)) for i, choice in enumerate(question.choices)]
        if question.type == "true_false":
            choices = [("A", t("quiz.true", lang)), ("B", t("quiz.false", lang))]
        precision, answer_format = precision_hint(question, lang), answer_prompt(question, lang)
        data = {
            "id": question.id,
            "topic": question.topic,
            "topic_title": bank.topic_title(question.topic, lang),
            "difficulty": question.difficulty,
            "type": question.type,
            "prompt": question.prompt.in_(lang),
            "choices": [{"letter": key, "text": text} for key, text in choices],
            "precision": precision or None,
            "answer_format": answer_format,
        }
        lines = [question.prompt.in_(lang), *(f"{key}) {text}" for key, text in choices)]
        lines += [precision] if precision else []
        lines.append(f"{answer_format} (id: {question.id})")
        return Reply(data, "\n".join(lines))

    @in_tool_words
    def check_answer(self, id: str, answer: str) -> Reply:
        """Mark the learner's answer and save it with the question's next review, as the quiz does."""
        from normkata.practice.quiz import source_label

        lang = self.lang
        checked = self.learner.check_answer(check_id(id, "id", lang), check_text(answer, "answer", lang))
        question = checked.question
        said = (
            f"✓ {t('quiz.correct', lang)}" if checked.correct else f"✗ {t('quiz.wrong', lang, answer=checked.expected)}"
        )
        source = source_label(question.source, lang)
        explanation = question.explanation.in_(lang)
        data = {
            "id": question.id,
            "correct": checked.correct,
            "given": checked.given,
            "expected": checked.expected,
            "explanation": explanation,
            "source": source,
            "comes_back": checked.comes_back or None,
        }
        lines = [
            said,
            explanation,
            t("quiz.source", lang, source=source),
            *([checked.comes_back] if checked.comes_back else []),
        ]
        return Reply(data, "\n".join(lines))

    @in_tool_words
    def interview_card(self, topic: str | None = None, id: str | None = None) -> Reply:
        """A card's prompt and its follow-ups' questions, without the key points or the model answer."""
        bank, card = self.learner.interview_card(
            None if topic is None else check_text(topic, "topic", self.lang),
            None if id is None else check_id(id, "id", self.lang),
        )
        lang = self.lang
        data = {
            "id": card.id,
            "topic": card.topic,
            "topic_title": bank.topic_title(card.topic, lang),
            "difficulty": card.difficulty,
            "prompt": card.prompt.in_(lang),
        }
        text = f"{card.prompt.in_(lang)}\n{t('agent.card.rate', lang, id=card.id)}"
        return Reply(data, text)

    @in_tool_words
    def rate_card(self, id: str, rating: int, answer: str = "") -> Reply:
        """The learner's self-rating, scheduled by FSRS as `interview` does; then the key points and
        the model answer to compare with."""
        from normkata.practice.quiz import source_label
        from normkata.practice.srs import when

        lang = self.lang
        rated = self.learner.rate_card(
            check_id(id, "id", lang), check_rating(rating, lang), check_text(answer, "answer", lang, empty=True)
        )
        card = rated.card
        points = [point.in_(lang) for point in card.key_points]
        data = {
            "id": card.id,
            "rating": rated.rating,
            "due": rated.due,
            "key_points": points,
            "model_answer": card.answer.in_(lang),
            "source": source_label(card.source, lang),
        }
        lines = [
            f"{t(f'rating.{rated.rating}', lang)} · {t('card.next_due', lang, when=when(rated.due, lang))}",
            t("card.key_points", lang),
            *(f"- {point}" for point in points),
            t("card.model_answer", lang),
            card.answer.in_(lang),
        ]
        return Reply(data, "\n".join(lines))

    # -- where the learner stands and what comes next ----------------------------------------------

    @in_tool_words
    def standing(self) -> Reply:
        """`normkata progress --json`, and in words: mastery per topic, what is due, the next step."""
        bank, report = self.learner.standing()
        lang = self.lang
        lines = [
            t("agent.standing.topic", lang, topic=bank.topic_title(p.topic, lang), mastery=p.mastery)
            for p in report.topics
        ]
        passed = sum(k.status == "passed" for k in report.katas)
        lines.append(t("agent.standing.totals", lang, due=report.due, passed=passed, katas=len(report.katas)))
        lines.append(t("agent.next", lang, step=spoken(report.next.action, lang), why=report.next.why(lang)))
        data = report.to_json(lang)
        data["next"] = self._step(report.next)
        data.pop("next_why", None)
        return Reply(data, "\n".join(lines))

    @in_tool_words
    def next_step(self) -> Reply:
        """The one most useful next step, as a tool to call and why."""
        step = self.learner.next_step()
        data = self._step(step)
        return Reply(data, t("agent.next", self.lang, step=spoken(step.action, self.lang), why=step.why(self.lang)))

    @in_tool_words
    def plan(self, minutes: int | None = None) -> Reply:
        """`plan --json`'s object (toward the interview date when one is set), each step a tool to call."""
        lang = self.lang
        made = _for_tools(self.learner.plan(check_minutes(minutes, lang)), self.words)
        lines: list[str] = []
        for day in made.get("days", [made]):
            if "date" in day:
                lines.append(str(day["date"]))
            for step in day["steps"]:
                lines.append(f"- {step['say']} · {step['minutes']} min · {step['why']}")
        return Reply(made, "\n".join(lines) or t("agent.plan.empty", lang))

    @in_tool_words
    def due(self) -> Reply:
        """What is due now: questions and cards (by id, kind and due time) and katas to write again."""
        found = self.learner.due()
        data = {
            "items": [{"id": i, "kind": kind, "due": due} for i, kind, due in found.items],
            "katas": [{"kata": kata, "due": due} for kata, due in found.katas],
            "warnings": found.warnings,
        }
        lines = [f"{kind} {i}" for i, kind, _due in found.items] + [f"kata {kata}" for kata, _due in found.katas]
        return Reply(data, "\n".join(lines) if lines else t("agent.due.none", self.lang))

    def _step(self, step: Step | DatedStep) -> dict[str, object]:
        return {
            **self.words.step(step.action),
            "say": spoken(step.action, self.lang),
            "minutes": step.minutes,
            "why": step.why(self.lang),
        }

    # -- the end -----------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the grading service and end the practice session, if either was started."""
        self.learner.close()


def echo(value: object) -> str:
    """What an error repeats of an argument: its start, marked when cut."""
    text = str(value)
    return text if len(text) <= ECHO_CHARS else text[: ECHO_CHARS - 1] + "…"


def check_text(value: object, name: str, lang: str, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise InputError(t("agent.arg.type", lang, arg=name, kind="text", value=echo(value)))
    if len(value) > MAX_TEXT_CHARS:
        raise InputError(t("agent.arg.long", lang, arg=name, n=MAX_TEXT_CHARS, value=echo(value)))
    if not empty and not value.strip() and name != "answer":
        raise InputError(t("agent.arg.empty", lang, arg=name))
    return value


def check_id(value: object, name: str, lang: str) -> str:
    """A kata or item id: short text (an unknown one is said by the loop, with close names)."""
    text = check_text(value, name, lang)
    if len(text) > 100:
        raise InputError(t("agent.arg.long", lang, arg=name, n=100, value=echo(text)))
    return text


def check_seed(value: object, lang: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise InputError(t("agent.arg.seed", lang, arg="seed", high=MAX_SEED, value=echo(value)))
    return value


def check_rating(value: object, lang: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in (1, 2, 3, 4):
        raise InputError(t("agent.rating.range", lang, value=echo(value)))
    return value


def check_minutes(value: object, lang: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 24 * 60:
        raise InputError(t("agent.arg.minutes", lang, arg="minutes", value=echo(value)))
    return value


def check_flag(value: object, name: str, lang: str) -> bool:
    """A boolean argument, strictly: "yes" or 1 is not true."""
    if not isinstance(value, bool):
        raise InputError(t("agent.arg.type", lang, arg=name, kind="true or false", value=echo(value)))
    return value


def checked_file(value: object, lang: str) -> Path:
    """The `file` argument as a path (normkata.files refuses a link, a special file and a file of
    procfs or sysfs when the loop opens it: procfs reports /proc/self/environ as 0 bytes)."""
    return Path(check_text(value, "file", lang)).expanduser()


def _for_tools(value: Any, words: Tools) -> Any:
    """A `plan --json` object with each step's command as the tool to call (`tool`, `arguments`)."""
    if isinstance(value, dict):
        if "action" in value and "arguments" in value:
            arguments = {k: tuple(v) if isinstance(v, list) else v for k, v in value["arguments"].items()}
            action = Action.of(str(value["action"]), **arguments)
            kept = {k: v for k, v in value.items() if k not in ("command", "action", "arguments")}
            return {**words.step(action), "say": words.action(action, "en"), **kept}
        return {k: _for_tools(v, words) for k, v in value.items()}
    if isinstance(value, list):
        return [_for_tools(v, words) for v in value]
    return value


def _report_text(result: GradeResult, notes: list[str], next_line: str | None, warnings: list[str], lang: str) -> str:
    """What `normkata grade` prints for `result`, without colour: the report, the notes, the next
    step, and the stored rows that could not be used."""
    from rich.markup import escape

    from normkata.grading import report

    console = _plain_console()
    report.render(console, result)
    for note in notes:
        console.print(escape(note))
    if next_line:
        console.print(escape(next_line))
    if warnings:
        console.print(escape(t("store.skipped", lang, n=len(warnings), first=echo(warnings[0]))))
    file = console.file
    assert isinstance(file, StringIO)
    return file.getvalue().rstrip()


def _plain_console() -> Console:
    """A console writing to a string in the terminal's theme, without colour: never to stdout,
    which is the protocol's."""
    from rich.console import Console
    from rich.theme import Theme

    from normkata.ui.terminal import THEME

    return Console(
        file=StringIO(), width=TEXT_WIDTH, theme=Theme(THEME), color_system=None, highlight=False, force_terminal=False
    )
