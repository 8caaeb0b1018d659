"""What each tool of `normkata mcp` does, without the protocol: the same calls as the commands.

`list_katas`, `instructions` and `start_kata` are `normkata kata`'s; `grade` is `normkata grade`'s
request through the grading client, its report and its record (`Workbench.record`); `hint` and
`solution` are `normkata hint` and `normkata solution` (the same rule, and giving up recorded the
same way); `quiz_question` draws as `normkata quiz` does and `check_answer` marks and saves as it
does; `standing` is `normkata progress --json` with the advisor's next step.

Each tool answers a `Reply`: `data` for the assistant's program (the protocol's structured
content) and `text` for people, in the learner's language. Bad input and refusals are InputErrors
(one line), as at the command line. Every call opens the progress store and closes it again: the
protocol's calls run on worker threads, and a SQLite connection belongs to one.
"""

from __future__ import annotations

import difflib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING, Any

from normkata.errors import InputError
from normkata.i18n import t

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.content.bank import Bank
    from normkata.content.katas import Kata
    from normkata.content.model import Question
    from normkata.grading.client import Grader
    from normkata.grading.contract import GradeResult
    from normkata.record.store import Store
    from normkata.workbench.workflow import Workbench

#: Columns of the text a report is rendered to (what `grade` prints, without colour).
TEXT_WIDTH = 100

#: How a file is graded: `Grader.grade`'s signature (tests hand in their session's service).
GradeFunction = Callable[..., "GradeResult"]


@dataclass(frozen=True)
class Reply:
    """A tool's answer: `data` for programs (structured content), `text` for people."""

    data: dict[str, Any]
    text: str


class Tutor:
    """The learner's katas, grades, hints, solutions, quiz and standing, for one assistant."""

    def __init__(self, workspace: Path, lang: str, grade: GradeFunction | None = None) -> None:
        """`grade`: how files are graded; by default a warm Grader of its own (the grading service
        `watch` uses: each file in a fresh confined worker), started at the first grade."""
        self.workspace, self.lang = workspace, lang
        self._grade = grade
        self._grader: Grader | None = None
        self._session: int | None = None  # the quiz session answers are saved in, started at the first
        self._served: dict[str, float] = {}  # question id -> when it was asked (time.monotonic)
        self._lock = threading.Lock()

    # -- katas -------------------------------------------------------------------------------------

    def list_katas(self) -> Reply:
        with self._bench() as bench:
            statuses = bench.statuses(strict=True)
        rows, lines = [], []
        for kata, status in statuses:
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

    def instructions(self, kata: str) -> Reply:
        chosen = self._kata(kata)
        text, file = chosen.instructions(self.lang), self.workspace / chosen.file
        data = {"kata": chosen.id, "title": chosen.title.in_(self.lang), "file": str(file), "instructions": text}
        return Reply(data, f"{text.rstrip()}\n\n{t('agent.kata.file', self.lang, path=file)}")

    def start_kata(self, kata: str) -> Reply:
        """The starter in the workspace, never over the learner's file (no `--force` here)."""
        with self._bench() as bench:
            chosen = self._kata(kata)
            started = bench.start(chosen)
        said = t("kata.written" if started.written else "agent.kata.kept", self.lang, path=started.file)
        lines = [said]
        if started.guide:
            lines.append(t("agent.agents_md.written", self.lang, path=started.guide))
        text = chosen.instructions(self.lang)
        data = {
            "kata": chosen.id,
            "file": str(started.file),
            "written": started.written,
            "agents_md": str(started.guide) if started.guide else None,
            "instructions": text,
        }
        return Reply(data, "\n".join(lines) + "\n\n" + text.rstrip())

    def learner_file(self, kata: str) -> str:
        """The learner's own file of `kata`, as text (a link or a special file is not read)."""
        from normkata.grading.source import check_source

        chosen = self._kata(kata)
        path = self.workspace / chosen.file
        if not path.is_symlink() and not path.exists():
            raise InputError(t("grade.no_file", self.lang, path=path, kata=chosen.id))
        check_source(path)
        return path.read_text(encoding="utf-8", errors="replace")

    # -- grading -----------------------------------------------------------------------------------

    def grade(self, kata: str | None = None, file: str | None = None, seed: int | None = None) -> Reply:
        """`normkata grade [KATA] [--file FILE] [--seed N]`: the same request, report and record."""
        from normkata.grading.contract import CASE_TIMEOUT_S, GradeRequest, Status
        from normkata.grading.source import check_source

        device = GradeRequest.device
        with self._bench() as bench:
            chosen = bench.gradeable(kata)
            target = bench.learner_file(chosen, Path(file).expanduser() if file else None)
            check_source(target)
            result = self._grading()(
                chosen.id, target, device=device, timeout=CASE_TIMEOUT_S, seed=seed, lang=self.lang, select=[]
            )
            notes = bench.record(result, device)
        next_line = None
        if result.passed:
            from normkata.advice.advisor import next_step_line

            next_line = next_step_line(self.lang)
        failing = [c for c in result.cases if c.status in (Status.FAILED, Status.ERROR)]
        data = {
            "kata": result.kata,
            "file": result.file,
            "passed": result.passed,
            "score": result.score,
            "max_score": result.max_score,
            "counts": result.counts,
            "seed": result.seed,
            "sandbox": result.sandbox,
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
            "notes": [note.text for note in notes],
            "next": next_line,
        }
        return Reply(data, _report_text(result, [note.text for note in notes], next_line))

    def _grading(self) -> GradeFunction:
        if self._grade is not None:
            return self._grade
        with self._lock:
            if self._grader is None:
                from normkata.grading.client import Grader

                self._grader = Grader()
            return self._grader.grade

    # -- hints and the solution --------------------------------------------------------------------

    def hint(self, kata: str | None = None) -> Reply:
        """What `normkata hint` gives: the hint for the mistake the last grade named first, else the
        next levelled hint, counted as taken; after a pass, that it passed (no hint taken)."""
        from normkata.workbench.workflow import NamedHint, Passed

        with self._bench() as bench:
            chosen = bench.kata(kata, "hint")
            shown, none_left = bench.hints(chosen)
        if isinstance(shown, Passed):
            text = t("hint.passed", self.lang, kata=chosen.id)
            return Reply({"kata": chosen.id, "passed": True, "hint": None}, text)
        (taken,) = shown
        lines = [taken.heading(chosen.id, self.lang), taken.text]
        if isinstance(taken, NamedHint):
            lines.append(t("hint.named.more", self.lang, kata=chosen.id))
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

    def solution(self, kata: str | None = None, give_up: bool = False) -> Reply:
        """The reference once the kata passed; before, refused unless the learner gives up (recorded)."""
        with self._bench() as bench:
            chosen = bench.kata(kata, "solution")
            gave_up = False
            if not bench.solution_open(chosen):
                if not give_up:
                    raise InputError(t("agent.solution.refused", self.lang, kata=chosen.id))
                bench.give_up(chosen)
                gave_up = True
            reference = chosen.solution.read_text(encoding="utf-8")
            mine = bench.file(chosen)
            diff = _diff(mine, reference) if bench.passed(chosen) and mine.is_file() else None
        title = chosen.title.in_(self.lang)
        lines = [t("agent.solution.gave_up", self.lang, kata=chosen.id)] if gave_up else []
        lines.append(t("solution.heading", self.lang, kata=chosen.id, title=title))
        lines.append(f"```python\n{reference.rstrip()}\n```")
        if diff is not None:
            lines.append(t("solution.diff", self.lang, path=mine))
            lines.append(f"```diff\n{diff}\n```" if diff else t("solution.same", self.lang))
        data = {"kata": chosen.id, "title": title, "solution": reference, "gave_up": gave_up, "diff": diff}
        return Reply(data, "\n".join(lines))

    # -- the quiz ----------------------------------------------------------------------------------

    def quiz_question(self, topic: str | None = None, id: str | None = None) -> Reply:
        """A question as `normkata quiz --topic T -n 1` (or `--id`) draws it, without its answer."""
        from normkata.content.bank import check_topic, load_bank, select
        from normkata.content.model import letter
        from normkata.practice.answers import precision_hint
        from normkata.practice.quiz import answer_prompt

        bank = load_bank()
        if id is not None:
            question = _question(bank, id, self.lang)
        else:
            drawn = select(bank.questions, topic=check_topic(bank, topic, self.lang), count=1)
            if not drawn:
                raise InputError(t("quiz.none", self.lang))
            question = drawn[0]
        with self._lock:
            self._served[question.id] = time.monotonic()
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

    def check_answer(self, id: str, answer: str) -> Reply:
        """Mark the learner's answer and save it with the question's next review, as the quiz does."""
        from normkata.content.bank import load_bank
        from normkata.practice.answers import UnreadableAnswer, expected_text
        from normkata.practice.quiz import answer_prompt, mark, save_answer, short_note, source_label
        from normkata.practice.srs import comes_back

        lang = self.lang
        question = _question(load_bank(), id, lang)
        if not answer.strip():
            raise InputError(t("agent.answer.empty", lang, format=answer_prompt(question, lang)))
        try:
            marked = mark(question, answer)
        except UnreadableAnswer as why:
            raise InputError(t("quiz.invalid", lang, why=why.text(lang))) from None
        if marked.short is not None:  # right as far as it goes: not saved, as the quiz lets them try again
            raise InputError(short_note(question, answer, marked.short, lang) + t("quiz.short.again", lang))
        with self._lock:
            served = self._served.pop(question.id, None)
        duration_ms = None if served is None else round((time.monotonic() - served) * 1000)
        with self._store() as store:
            save_answer(store, self._quiz_session(store), question, marked.given, marked.correct, duration_ms)
            back = comes_back(store, [question.id], lang)
        expected = expected_text(question, lang)
        said = f"✓ {t('quiz.correct', lang)}" if marked.correct else f"✗ {t('quiz.wrong', lang, answer=expected)}"
        source = source_label(question.source, lang)
        explanation = question.explanation.in_(lang)
        data = {
            "id": question.id,
            "correct": marked.correct,
            "given": marked.given,
            "expected": expected,
            "explanation": explanation,
            "source": source,
            "comes_back": back or None,
        }
        lines = [said, explanation, t("quiz.source", lang, source=source), *([back] if back else [])]
        return Reply(data, "\n".join(lines))

    def _quiz_session(self, store: Store) -> int:
        with self._lock:
            if self._session is None:
                self._session = store.start_session("quiz", self.lang)
            return self._session

    # -- where the learner stands ------------------------------------------------------------------

    def standing(self) -> Reply:
        """`normkata progress --json`, and in words: mastery per topic, what is due, the next step."""
        from normkata.advice.progress import build_report
        from normkata.content.bank import load_bank

        bank = load_bank()
        with self._store() as store:
            report = build_report(bank, store)
        lang = self.lang
        lines = [
            t("agent.standing.topic", lang, topic=bank.topic_title(p.topic, lang), mastery=p.mastery)
            for p in report.topics
        ]
        passed = sum(k.status == "passed" for k in report.katas)
        lines.append(t("agent.standing.totals", lang, due=report.due, passed=passed, katas=len(report.katas)))
        lines.append(t("dash.next", lang, cmd=report.next.shown(lang), why=report.next.why(lang)))
        return Reply(report.to_json(lang), "\n".join(lines))

    # -- the store, the end ------------------------------------------------------------------------

    @contextmanager
    def _bench(self) -> Iterator[Workbench]:
        from normkata.workbench.workflow import Workbench

        bench = Workbench.open(self.workspace, self.lang)
        try:
            yield bench
        finally:
            bench.log.store.close()

    @contextmanager
    def _store(self) -> Iterator[Store]:
        from normkata.record.store import open_record

        store = open_record(self.lang)
        try:
            yield store
        finally:
            store.close()

    def _kata(self, name: str) -> Kata:
        from normkata.content.katas import get_kata

        return get_kata(name, self.lang)

    def close(self) -> None:
        """Stop the grading service and end the quiz session, if either was started."""
        grader, self._grader = self._grader, None
        if grader is not None:
            grader.close()
        session, self._session = self._session, None
        if session is not None:
            with self._store() as store:
                store.end_session(session)


def _question(bank: Bank, item_id: str, lang: str) -> Question:
    """The question called `item_id`, or an InputError that suggests close ids."""
    from normkata.ui.names import did_you_mean

    question = bank.question(item_id)
    if question is None:
        hint = did_you_mean(item_id, [q.id for q in bank.questions], lang)
        raise InputError(t("agent.question.unknown", lang, id=item_id, hint=hint))
    return question


def _report_text(result: GradeResult, notes: list[str], next_line: str | None) -> str:
    """What `normkata grade` prints for `result`, without colour: the report, the notes, the next step."""
    from rich.markup import escape

    from normkata.grading import report

    console = _plain_console()
    report.render(console, result)
    for note in notes:
        console.print(escape(note))
    if next_line:
        console.print(escape(next_line))
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


def _diff(mine: Path, reference: str) -> str | None:
    """The learner's file against the reference (- theirs, + reference), as `solution` shows it."""
    try:
        theirs = mine.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = difflib.unified_diff(
        theirs.splitlines(), reference.splitlines(), fromfile=f"yours: {mine}", tofile="reference", lineterm=""
    )
    return "\n".join(lines)
