"""Grade every submission of a class, several at a time, each in its own confined worker.

A submission never stops the batch: whatever goes wrong grading one (a crash, a timeout, a
grader error, a link or an oversized file) becomes that submission's row with the error. Each
is graded from a private copy of its .py files, read without following links. A submission
whose content has not changed since the last run keeps its report, when the out folder's
manifest vouches for it, unless `force`.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.classroom.gradebook import Row
from normkata.classroom.outfolder import OutFolder
from normkata.classroom.submissions import StudentSubmission
from normkata.content.katas import Kata
from normkata.errors import InputError
from normkata.grading.contract import CASE_TIMEOUT_S, GradeResult
from normkata.grading.errors import GraderError
from normkata.grading.source import SourceError, write_snapshot
from normkata.grading.text import escape_name

if TYPE_CHECKING:
    from normkata.grading.client import Grader


@contextmanager
def job_grader() -> Iterator[Grader]:
    """The grader one parallel job uses for all its submissions: a warm runner (torch, pytest and
    the suite loaded once), each submission still in a fresh confined worker."""
    from normkata.grading.client import Grader

    with Grader() as grader:
        yield grader


@dataclass
class Outcome:
    submission: StudentSubmission
    row: Row
    result: GradeResult | None  # None: it could not be graded (row.error says why)
    reused: bool = False


def grade_all(kata: Kata, submissions: list[StudentSubmission], out: Path, *, jobs: int, force: bool, lang: str,
              timeout: float = CASE_TIMEOUT_S, on_done: Callable[[Outcome], None] = lambda _: None,
              class_folder: Path | None = None) -> list[Outcome]:  # fmt: skip
    """Grade `submissions` with `jobs` parallel graders; the gradebook is written even after Ctrl-C.
    `class_folder` (default: the folder of the first submission) is where `out` may not be."""
    folder = OutFolder.open(out, class_folder or _class_folder(submissions), force=force)
    rows: dict[str, Row] = {}
    outcomes: list[Outcome] = []

    def finish(outcome: Outcome) -> None:
        rows[outcome.submission.name] = outcome.row
        outcomes.append(outcome)
        on_done(outcome)

    todo: queue.Queue[StudentSubmission] = queue.Queue()
    try:
        for submission in submissions:
            try:
                digest = submission.snapshot().digest
            except SourceError as exc:
                finish(Outcome(submission, Row.failed(submission.name, "", str(exc)), None))
                continue
            earlier = folder.earlier(submission.name, digest)
            if earlier is not None:
                finish(Outcome(submission, Row.graded(submission.name, digest, earlier), earlier, reused=True))
            else:
                todo.put(submission)
        pending = todo.qsize()
        done: queue.Queue[Outcome] = queue.Queue()
        stop = threading.Event()

        failed_to_start: list[str] = []

        def job() -> None:
            try:
                with job_grader() as grader:
                    while not stop.is_set():
                        try:
                            submission = todo.get_nowait()
                        except queue.Empty:
                            return
                        done.put(_grade_one(grader, kata, submission, timeout, lang))
            except Exception as exc:  # this job's grader would not start: the other jobs go on
                failed_to_start.append(_describe(exc))

        threads = [threading.Thread(target=job, daemon=True) for _ in range(min(jobs, pending))]
        try:
            for thread in threads:
                thread.start()
            for _ in range(pending):
                outcome = _next(done, threads)
                if outcome is None:  # no job is left to grade what remains
                    _drain(todo, done, f"no grader could start: {failed_to_start[0]}")
                    outcome = done.get()
                if outcome.result is not None:
                    try:
                        folder.write_report(outcome.submission.name, outcome.row.sha256, outcome.result)
                    except OSError as exc:  # this report, not the batch
                        outcome.row = Row.failed(outcome.submission.name, outcome.row.sha256,
                                                 f"the report could not be written: {exc}")  # fmt: skip
                finish(outcome)
        finally:
            stop.set()  # after Ctrl-C: no new grades; the ones in flight were interrupted too
            folder.write_gradebook(list(rows.values()))
    finally:
        folder.close()
    return outcomes


def _class_folder(submissions: list[StudentSubmission]) -> Path:
    if not submissions:
        return Path(os.devnull)
    first = submissions[0]
    return first.file.parent.parent if first.folder else first.file.parent


def _next(done: queue.Queue[Outcome], threads: list[threading.Thread]) -> Outcome | None:
    """The next finished grade, or None when every job has stopped and none is waiting.
    Waiting in short steps keeps Ctrl-C responsive."""
    while True:
        try:
            return done.get(timeout=0.5)
        except queue.Empty:
            if not any(thread.is_alive() for thread in threads) and done.empty():
                return None


def _drain(todo: queue.Queue[StudentSubmission], done: queue.Queue[Outcome], error: str) -> None:
    while True:
        try:
            submission = todo.get_nowait()
        except queue.Empty:
            return
        done.put(Outcome(submission, Row.failed(submission.name, "", error), None))


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, (GraderError, InputError)) else f"{type(exc).__name__}: {exc}"


def _grade_one(grader: Grader, kata: Kata, submission: StudentSubmission, timeout: float, lang: str) -> Outcome:
    """Grade a private copy of the submission's .py files (read without following links): beside
    the class's other files it could import a classmate's module by name."""
    digest = ""
    try:
        snapshot = submission.snapshot()
        digest = snapshot.digest
        with tempfile.TemporaryDirectory(prefix="normkata-class-") as private:
            file = write_snapshot(snapshot, private, kata.file)
            result = grader.grade(kata.id, Path(file), timeout=timeout, lang=lang)
    except Exception as exc:  # one submission's failure is its row, never the batch's
        return Outcome(submission, Row.failed(submission.name, digest, _describe(exc)), None)
    result.file = escape_name(str(submission.file))
    return Outcome(submission, Row.graded(submission.name, digest, result), result)
