"""Grade every submission of a class, several at a time, each in its own confined worker.

A submission never stops the batch: whatever goes wrong grading one (a crash, a timeout, a
grader error) becomes that submission's row with the error. A submission whose content has
not changed since the last run keeps its row and report unless `force`.
"""

from __future__ import annotations

import queue
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import click

from normkata.classroom.gradebook import Row, read_report, read_rows, write_report, write_rows
from normkata.classroom.submissions import Submission
from normkata.grading.contract import GradeResult
from normkata.katas import Kata


class Grader(Protocol):
    def __call__(self, kata_id: str, file: Path, *, device: str, timeout: float, seed: int | None,
                 lang: str) -> GradeResult: ...  # fmt: skip


@contextmanager
def job_grader() -> Iterator[Grader]:
    """The grader one parallel job uses for all its submissions: a warm grading service (torch,
    pytest and the suite loaded once), each submission still in a fresh confined worker."""
    from normkata.grading.service import GradingService

    with GradingService() as service:
        yield service.grade


@dataclass
class Outcome:
    submission: Submission
    row: Row
    result: GradeResult | None  # None: it could not be graded (row.error says why)
    reused: bool = False


def grade_all(kata: Kata, submissions: list[Submission], out: Path, *, jobs: int, force: bool, lang: str,
              timeout: float = 10.0, on_done: Callable[[Outcome], None] = lambda _: None) -> list[Outcome]:  # fmt: skip
    """Grade `submissions` with `jobs` parallel graders; the gradebook is written even after Ctrl-C."""
    out.mkdir(parents=True, exist_ok=True)
    previous = {} if force else read_rows(out)
    rows = {s.name: previous[s.name] for s in submissions if s.name in previous}
    outcomes: list[Outcome] = []

    def finish(outcome: Outcome) -> None:
        rows[outcome.submission.name] = outcome.row
        outcomes.append(outcome)
        on_done(outcome)

    todo: queue.Queue[tuple[Submission, str]] = queue.Queue()
    for submission in submissions:
        try:
            digest = submission.digest()
        except OSError as exc:
            finish(Outcome(submission, Row.failed(submission.name, "", f"{exc.strerror}: {exc.filename}"), None))
            continue
        earlier = _unchanged(out, previous.get(submission.name), digest)
        if earlier is not None:
            finish(Outcome(submission, previous[submission.name], earlier, reused=True))
        else:
            todo.put((submission, digest))
    pending = todo.qsize()
    done: queue.Queue[Outcome] = queue.Queue()
    stop = threading.Event()

    failed_to_start: list[str] = []

    def job() -> None:
        try:
            with job_grader() as grader:
                while not stop.is_set():
                    try:
                        submission, digest = todo.get_nowait()
                    except queue.Empty:
                        return
                    done.put(_grade_one(grader, kata, submission, digest, timeout, lang))
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
                write_report(out, outcome.submission.name, outcome.result)
            finish(outcome)
    finally:
        stop.set()  # after Ctrl-C: no new grades; the ones in flight were interrupted too
        write_rows(out, list(rows.values()))
    return outcomes


def _next(done: queue.Queue[Outcome], threads: list[threading.Thread]) -> Outcome | None:
    """The next finished grade, or None when every job has stopped and none is waiting.
    Waiting in short steps keeps Ctrl-C responsive."""
    while True:
        try:
            return done.get(timeout=0.5)
        except queue.Empty:
            if not any(thread.is_alive() for thread in threads) and done.empty():
                return None


def _drain(todo: queue.Queue[tuple[Submission, str]], done: queue.Queue[Outcome], error: str) -> None:
    while True:
        try:
            submission, digest = todo.get_nowait()
        except queue.Empty:
            return
        done.put(Outcome(submission, Row.failed(submission.name, digest, error), None))


def _describe(exc: Exception) -> str:
    return exc.format_message() if isinstance(exc, click.ClickException) else f"{type(exc).__name__}: {exc}"


def _unchanged(out: Path, earlier: Row | None, digest: str) -> GradeResult | None:
    """The earlier result when the submission is the same and was graded (errors are retried)."""
    if earlier is None or earlier.error or earlier.sha256 != digest:
        return None
    return read_report(out, earlier.submission)


def _grade_one(grader: Grader, kata: Kata, submission: Submission, digest: str, timeout: float,
               lang: str) -> Outcome:  # fmt: skip
    if not submission.file.is_file():
        error = f"{submission.file.name} not found in {submission.file.parent}"
        return Outcome(submission, Row.failed(submission.name, digest, error), None)
    try:
        with _private_copy(submission, kata) as file:
            result = grader(kata.id, file, device="auto", timeout=timeout, seed=None, lang=lang)
    except Exception as exc:  # one submission's failure is its row, never the batch's
        return Outcome(submission, Row.failed(submission.name, digest, _describe(exc)), None)
    result.file = str(submission.file)
    return Outcome(submission, Row.graded(submission.name, digest, result), result)


@contextmanager
def _private_copy(submission: Submission, kata: Kata) -> Iterator[Path]:
    """A file submission is graded from a folder of its own, as `<kata>.py`: beside the class's
    other files it could import a classmate's module by name. A folder is its learner's own."""
    if submission.folder:
        yield submission.file
        return
    with tempfile.TemporaryDirectory(prefix="normkata-class-") as private:
        copy = Path(private) / kata.file
        shutil.copyfile(submission.file, copy)
        yield copy
