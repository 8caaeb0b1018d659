"""`Learner`: one learner's loop over their workspace and record, for any door.

Each call opens the progress store and closes it again: the MCP server calls from worker
threads and the notebook from its kernel, and a SQLite connection belongs to one thread.
Grading goes through `grade`, a function with `Grader.grade`'s signature: a runner of its own
per grade (the command line) or a warm grading service (watch, MCP, the notebook).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.errors import InputError
from normkata.i18n import t

if TYPE_CHECKING:
    from normkata.advice.advisor import Step
    from normkata.advice.dated import DatedStep
    from normkata.advice.progress import Report
    from normkata.content.bank import Bank
    from normkata.content.katas import Kata
    from normkata.content.model import Card, Question
    from normkata.grading.client import Grader
    from normkata.grading.contract import GradeResult
    from normkata.record.attempts import Hint, KataStatus
    from normkata.record.store import Store
    from normkata.workbench.due import Note
    from normkata.workbench.workflow import NamedHint, Passed, Started, Workbench

#: How a file is graded: `Grader.grade`'s signature (tests hand in their session's service).
GradeFunction = Callable[..., "GradeResult"]


@dataclass(frozen=True)
class Kept:
    """A grade and what keeping it set going: the lines to show (notes, each with its action),
    the next step after a pass of the whole suite, and the stored rows a reader could not use."""

    result: GradeResult
    notes: list[Note]
    next: Step | DatedStep | None
    warnings: list[str]
    recorded: bool

    def to_json(self, lang: str) -> dict[str, object]:
        """`normkata grade --json`'s object, then what the loop adds (every door's `grade` result)."""
        return {
            **self.result.to_json(),
            "recorded": self.recorded,
            "notes": [note.to_json() for note in self.notes],
            "next": None if self.next is None else {**self.next.action.to_json(), "why": self.next.why(lang)},
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class Instructions:
    kata: Kata
    file: Path
    text: str
    started: Started | None = None  # when the starter was written (or kept) now


@dataclass(frozen=True)
class Solution:
    kata: Kata
    reference: str
    gave_up: bool
    mine: Path
    diff: str | None  # None: no passing file of the learner's to compare (or unreadable)


@dataclass(frozen=True)
class Checked:
    question: Question
    correct: bool
    given: str
    expected: str
    comes_back: str


@dataclass(frozen=True)
class Rated:
    card: Card
    rating: int
    due: str  # ISO: when it comes back


@dataclass(frozen=True)
class Due:
    """What is due now: items by id and kind, and katas to write again."""

    items: list[tuple[str, str, str]]  # (id, kind, due ISO)
    katas: list[tuple[str, str]]  # (kata id, due ISO)
    warnings: list[str] = field(default_factory=list)


class Learner:
    """The loop for one learner, workspace and language."""

    def __init__(self, workspace: Path, lang: str, grade: GradeFunction | None = None, *, warm: bool = False) -> None:
        """`grade`: how files are graded; None: `warm` starts a grading service of its own at the
        first grade (kept until `close`), else each grade has a runner of its own."""
        self.workspace, self.lang = workspace, lang
        self._grade, self._warm = grade, warm
        self._grader: Grader | None = None
        self._session: int | None = None  # the quiz and card session answers are saved in
        self._served: dict[str, float] = {}  # question id -> when it was asked (time.monotonic)
        self._lock = threading.Lock()

    # -- katas -------------------------------------------------------------------------------------

    def katas(self, *, strict: bool = True) -> list[tuple[Kata, KataStatus]]:
        with self.bench() as bench:
            return bench.statuses(strict=strict)

    def kata(self, name: str) -> Kata:
        from normkata.content.katas import get_kata

        return get_kata(name, self.lang)

    def instructions(self, name: str) -> Instructions:
        chosen = self.kata(name)
        return Instructions(chosen, self.workspace / chosen.file, chosen.instructions(self.lang))

    def start(self, name: str, *, force: bool = False) -> Instructions:
        """The starter in the workspace (never over the learner's file without `force`), counted as started."""
        with self.bench() as bench:
            chosen = self.kata(name)
            started = bench.start(chosen, force)
        return Instructions(chosen, started.file, chosen.instructions(self.lang), started)

    def following(self, name: str) -> Instructions:
        """The kata after `name` in the catalog's order, started (its starter written when the learner
        has none): its instructions to read. Nothing is graded and no attempt recorded."""
        with self.bench() as bench:
            current = self.kata(name)
            kata, started = bench.next_kata(current)
        return Instructions(kata, self.workspace / kata.file, kata.instructions(self.lang), started)

    def learner_source(self, name: str) -> str:
        """The learner's own file of `name`, as text (a link, a special or an oversized file is refused)."""
        from normkata.grading.source import read_source

        with self.bench() as bench:
            chosen = self.kata(name)
            path = bench.file(chosen)
            if not path.is_symlink() and not path.exists():
                raise InputError(bench.no_file(path, chosen))
        return read_source(path).decode("utf-8", errors="replace")

    # -- grading -----------------------------------------------------------------------------------

    def cases(self, kata: str) -> list[tuple[str, str]]:
        """(category, case name) for every case of the kata's hidden suite (`grade --list`)."""
        from normkata.grading import client

        return client.list_cases(kata, self.lang)

    def grade(
        self,
        name: str | None,
        file: Path | None = None,
        *,
        seed: int | None = None,
        select: tuple[str, ...] = (),
        device: str = "auto",
        timeout: float | None = None,
    ) -> Kept:
        """Grade the learner's file of kata `name` (or `file`) and keep the result as `grade` does:
        a run of some cases (`select`) is not recorded."""
        from normkata.grading.source import check_source

        with self.bench() as bench:
            chosen = bench.gradeable(name)
            target = bench.learner_file(chosen, file)
            check_source(target)  # a link, a special or an oversized file: one line, nothing run
            return self._grade_and_keep(bench, chosen, target, seed=seed, select=select, device=device, timeout=timeout)

    def grade_file(
        self, kata: Kata, file: Path, *, seed: int | None = None, device: str = "auto", timeout: float | None = None
    ) -> Kept:
        """Grade a file already chosen (watch's, review's) and keep the result."""
        with self.bench() as bench:
            return self._grade_and_keep(bench, kata, file, seed=seed, select=(), device=device, timeout=timeout)

    def _grade_and_keep(
        self,
        bench: Workbench,
        kata: Kata,
        file: Path,
        *,
        seed: int | None,
        select: tuple[str, ...],
        device: str,
        timeout: float | None,
    ) -> Kept:
        from normkata.grading.contract import CASE_TIMEOUT_S
        from normkata.record.values import take_skipped

        result = self._grading()(
            kata.id,
            file,
            device=device,
            timeout=CASE_TIMEOUT_S if timeout is None else timeout,
            seed=seed,
            lang=self.lang,
            select=list(select),
        )
        whole = not select  # a run of some cases says nothing about the kata as a whole
        notes = bench.record(result, device) if whole else []
        step = self._next_step(bench.log.store) if whole and result.passed else None
        return Kept(result, notes, step, take_skipped(), whole)

    def _grading(self) -> GradeFunction:
        if self._grade is not None:
            return self._grade
        if not self._warm:
            from normkata.grading import client

            return client.grade_once
        with self._lock:
            if self._grader is None:
                from normkata.grading.client import Grader

                self._grader = Grader()
            return self._grader.grade

    def sharing(self, workspace: Path, lang: str) -> Learner:
        """The same learner's loop over `workspace` in `lang`, grading through this one's service
        (the notebook: `--lang zh` on one cell, or a workspace changed between cells); itself when
        both are this one's. Closing it stops nothing: the service stays this one's."""
        if (workspace, lang) == (self.workspace, self.lang):
            return self
        return Learner(workspace, lang, lambda *args, **options: self._grading()(*args, **options))

    def warm_up(self) -> bool:
        """Start the grading service now (watch, the notebook's first cell); False when none is
        started here (a grading function was handed in, or grades are one-off) or it was running."""
        if self._grade is not None or not self._warm:
            return False
        with self._lock:
            fresh = self._grader is None
            if self._grader is None:
                from normkata.grading.client import Grader

                self._grader = Grader()
            grader = self._grader
        grader.start()
        return fresh

    # -- hints, the solution, giving up ------------------------------------------------------------

    def hint(
        self, name: str | None, *, every: bool = False, level: int | None = None
    ) -> tuple[Kata, list[Hint | NamedHint] | Passed, bool]:
        """The hint for the mistake the last grade named first, else the next levelled one, counted as
        taken (`every`, `level`: as `normkata hint`); after a pass, that it passed. True with them when
        every levelled hint had been taken already."""
        with self.bench() as bench:
            chosen = bench.kata(name, "hint")
            shown, none_left = bench.hints(chosen, every=every, level=level)
        return chosen, shown, none_left

    def solution_open(self, name: str | None) -> bool:
        with self.bench() as bench:
            return bench.solution_open(bench.kata(name, "solution"))

    def solution(self, name: str | None, *, give_up: bool = False) -> Solution:
        """The reference once the kata passed; before, an InputError unless the learner gives up (recorded)."""
        with self.bench() as bench:
            chosen = bench.kata(name, "solution")
            gave_up = False
            if not bench.solution_open(chosen):
                if not give_up:
                    raise InputError(t("solution.closed", self.lang, kata=chosen.id))
                bench.give_up(chosen)
                gave_up = True
            reference = chosen.solution.read_text(encoding="utf-8")
            mine = bench.file(chosen)
            diff = None
            if bench.passed(chosen) and mine.is_file():
                from normkata.workbench.showing import solution_diff

                lines = solution_diff(mine, reference, self.lang)  # never through a link
                diff = None if lines is None else "\n".join(lines)
        return Solution(chosen, reference, gave_up, mine, diff)

    # -- where the learner stands and what comes next ----------------------------------------------

    def next_step(self) -> Step | DatedStep:
        with self.store() as store:
            return self._next_step(store)

    def _next_step(self, store: Store) -> Step | DatedStep:
        from normkata.advice.advisor import next_for
        from normkata.advice.standing import load_standing
        from normkata.content.bank import load_bank

        return next_for(load_standing(load_bank(), store))

    def plan(self, minutes: int | None = None) -> dict[str, object]:
        """`plan --json`'s object: toward the interview date when one is set (today's part of it
        within `minutes`), else `minutes` in one sitting (20 by default)."""
        from normkata.advice.advisor import plan_json
        from normkata.advice.standing import load_standing
        from normkata.content.bank import load_bank

        with self.store() as store:
            standing = load_standing(load_bank(), store)
        return plan_json(standing, minutes, self.lang)

    def standing(self) -> tuple[Bank, Report]:
        from normkata.advice.progress import build_report
        from normkata.content.bank import load_bank

        bank = load_bank()
        with self.store() as store:
            return bank, build_report(bank, store)

    def due(self) -> Due:
        """What is due now, in the order `review` serves it: questions and cards, then katas to write again."""
        from normkata.content.bank import load_bank
        from normkata.content.katas import Kata
        from normkata.content.model import Question
        from normkata.loop.review import due_now
        from normkata.record.values import take_skipped

        with self.store() as store:
            found = due_now(load_bank(), store)
        items = [
            (item.id, "question" if isinstance(item, Question) else "card", found.due.get(item.id, ""))
            for item in found.items
            if not isinstance(item, Kata)
        ]
        katas = [(item.id, found.due.get(item.id, "")) for item in found.items if isinstance(item, Kata)]
        return Due(items, katas, take_skipped())

    # -- the quiz and the cards --------------------------------------------------------------------

    def quiz_question(self, topic: str | None = None, item: str | None = None) -> tuple[Bank, Question]:
        """A question as `quiz --topic T -n 1` (or `--id`) draws it; its answer is not shown."""
        from normkata.content.bank import check_topic, load_bank, question_named, select

        bank = load_bank()
        if item is not None:
            question = question_named(bank, item, self.lang)
        else:
            drawn = select(bank.questions, topic=check_topic(bank, topic, self.lang), count=1)
            if not drawn:
                raise InputError(t("quiz.none", self.lang))
            question = drawn[0]
        with self._lock:
            self._served[question.id] = time.monotonic()
        return bank, question

    def check_answer(self, item: str, answer: str) -> Checked:
        """Mark the learner's answer and save it with the question's next review, as the quiz does."""
        from normkata.content.bank import load_bank, question_named
        from normkata.practice.answers import UnreadableAnswer, expected_text
        from normkata.practice.quiz import answer_prompt, mark, save_answer, short_note
        from normkata.practice.srs import comes_back

        lang = self.lang
        question = question_named(load_bank(), item, lang)
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
        with self.store() as store:
            save_answer(store, self._practice_session(store), question, marked.given, marked.correct, duration_ms)
            back = comes_back(store, [question.id], lang)
        return Checked(question, marked.correct, marked.given, expected_text(question, lang), back)

    def interview_card(self, topic: str | None = None, item: str | None = None) -> tuple[Bank, Card]:
        """A card as `interview --topic T -n 1` (or `--id`) draws it: due or weakest first."""
        from normkata.content.bank import card_named, check_topic, load_bank, select

        bank = load_bank()
        if item is not None:
            card = card_named(bank, item, self.lang)
        else:
            drawn = select(bank.cards, topic=check_topic(bank, topic, self.lang), count=1)
            if not drawn:
                raise InputError(t("card.none", self.lang))
            card = drawn[0]
        with self._lock:
            self._served[card.id] = time.monotonic()
        return bank, card

    def rate_card(self, item: str, rating: int, answer: str = "") -> Rated:
        """The learner's self-rating of a card (1 Again .. 4 Easy), scheduled by FSRS as `interview` does."""
        from dataclasses import replace

        from normkata.content.bank import card_named, load_bank
        from normkata.practice.srs import schedule

        card = card_named(load_bank(), item, self.lang)
        if rating not in (1, 2, 3, 4):
            raise InputError(t("agent.rating.range", self.lang, value=rating))
        with self._lock:
            served = self._served.pop(card.id, None)
        duration_ms = None if served is None else round((time.monotonic() - served) * 1000)
        with self.store() as store:
            state = replace(schedule(store, card.id, rating), duration_ms=duration_ms)
            store.record_rating(self._practice_session(store), card.id, card.topic, answer.strip(), rating, state)
        return Rated(card, rating, state.due)

    def _practice_session(self, store: Store) -> int:
        with self._lock:
            if self._session is None:
                self._session = store.start_session("quiz", self.lang)
            return self._session

    # -- the store, the end ------------------------------------------------------------------------

    @contextmanager
    def bench(self) -> Iterator[Workbench]:
        from normkata.workbench.workflow import Workbench

        bench = Workbench.open(self.workspace, self.lang)
        try:
            yield bench
        finally:
            bench.log.store.close()

    @contextmanager
    def store(self) -> Iterator[Store]:
        from normkata.record.store import open_record

        store = open_record(self.lang)
        try:
            yield store
        finally:
            store.close()

    def close(self) -> None:
        """Stop the grading service and end the practice session, if either was started."""
        grader, self._grader = self._grader, None
        if grader is not None:
            grader.close()
        session, self._session = self._session, None
        if session is not None:
            with self.store() as store:
                store.end_session(session)

    def __enter__(self) -> Learner:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
