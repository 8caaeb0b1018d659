"""Grade every submission of a class (or of one shard of it), several at a time, each in its own
confined worker.

A submission never stops the batch: whatever goes wrong grading one (a crash, a timeout, a
grader error, a link or an oversized file) becomes that submission's row with the error. Each
is graded from a private copy of its .py files, read without following links, with the
class's settings (one seed for everyone when the teacher gives one). A submission whose content
has not changed since the last run keeps its grade, when the out folder's manifest vouches for
it, unless `force`.

Every row is graded out of the suite's max_score. A file that never imported reached one case
only; its row is given the score of that file out of what the suite holds on this machine,
measured once by grading the reference solution (SuiteMax), so a syntax error reads 0/45
beside 37/45, not 0/1.
"""

from __future__ import annotations

import os
import queue
import re
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.classroom.gradebook import Row, Settings, report_names, report_text
from normkata.classroom.markdown import markdown_report
from normkata.classroom.outfolder import OutFolder
from normkata.classroom.page import write_pages
from normkata.classroom.reasons import read_back, reason_of, stopped_at_import
from normkata.classroom.shards import WHOLE_CLASS, Shard
from normkata.classroom.signed import Manifest, SignedRow, seal
from normkata.classroom.submissions import StudentSubmission
from normkata.content.katas import Kata
from normkata.errors import InputError
from normkata.files import Refused
from normkata.grading.contract import GradeResult, Verdict
from normkata.grading.errors import GraderError
from normkata.grading.source import snapshot_file, write_snapshot
from normkata.grading.text import escape_name
from normkata.i18n import t

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
    kinds: list[str] = field(default_factory=list)  # what the summary counts (normkata.classroom.reasons)


class SuiteMax:
    """The suite's max_score on this machine, with these settings: what the reference solution
    scores, graded once, and only when a row needs it (a file that did not import, a submission
    that could not be graded). Kept in the out folder's manifest for the next run."""

    def __init__(self, kata: Kata, settings: Settings, known: int | None) -> None:
        self.kata, self.settings, self.value = kata, settings, known
        self.wanted = threading.Event()
        self._lock = threading.Lock()
        self._tried = known is not None

    def measure(self, grader: Grader) -> int | None:
        """The value, grading the reference with `grader` the first time it is asked for."""
        with self._lock:
            if not self._tried:
                self._tried = True
                try:
                    snapshot = snapshot_file(self.kata.solution)
                    with tempfile.TemporaryDirectory(prefix="normkata-class-") as private:
                        file = write_snapshot(snapshot, private, self.kata.file)
                        result = grader.grade(
                            self.kata.id,
                            Path(file),
                            timeout=self.settings.timeout,
                            lang=self.settings.lang,
                            seed=self.settings.seed,
                            device=self.settings.device,
                        )
                    self.value = Verdict.weighted(result.cases, self.settings.per_category)[1]
                except Exception:  # no max is known: such rows keep their own
                    self.value = None
            return self.value


def grade_all(
    kata: Kata,
    submissions: list[StudentSubmission],
    out: Path,
    *,
    jobs: int,
    force: bool,
    settings: Settings,
    shard: Shard = WHOLE_CLASS,
    on_done: Callable[[Outcome], None] = lambda _: None,
    class_folder: Path | None = None,
    run: str = "",
    results: tuple[str, ...] = (),
) -> list[Outcome]:
    """Grade the submissions of `shard` (all of them by default) with `jobs` parallel graders. The
    gradebook and its signed manifest are written even after Ctrl-C. `submissions` is the whole
    class: report names and the shard's manifest (the listing of every submission's content, the
    class run's id `run`) are decided from all of it. `class_folder` (default: the folder of the
    first submission) is where `out` may not be. `results`: formats of normkata.grading.formats
    written for every graded submission too (`prairielearn/<report>/results.json`)."""
    reports = report_names(s.name for s in submissions)
    mine = [s for s in submissions if shard.holds(s.name)]
    folder = OutFolder.open(
        out, class_folder or _class_folder(submissions), force=force, settings=settings, shard=shard
    )
    read = {s.name: _content_digest(s) for s in submissions}  # each read once, before any grade
    listing = {name: found if isinstance(found, str) else "" for name, found in read.items()}
    suite = SuiteMax(kata, settings, folder.suite_max)
    outcomes: list[Outcome] = []

    def finish(outcome: Outcome) -> None:
        outcomes.append(outcome)
        if outcome.result is not None and outcome.row.report:
            try:
                _write_results(folder, outcome, results, settings)
            except OSError as exc:  # this submission's file, not the batch
                error = f"the results file could not be written: {exc}"
                outcome.row, outcome.kinds = _failed(outcome.submission, outcome.row.sha256, error, settings), []
        on_done(outcome)

    todo: queue.Queue[StudentSubmission] = queue.Queue()
    try:
        for submission in mine:
            digest = read[submission.name]
            if isinstance(digest, Refused):
                suite.wanted.set()
                finish(Outcome(submission, _failed(submission, "", str(digest), settings), None))
                continue
            earlier = folder.earlier(submission.name, digest, reports[submission.name])
            if earlier is not None and earlier.row.note == submission.note:
                result = read_back(earlier.result, earlier.kinds)
                finish(Outcome(submission, earlier.row, result, reused=True, kinds=earlier.kinds))
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
                            break
                        done.put(_grade_one(grader, kata, submission, settings, reports[submission.name], suite))
                    if suite.wanted.is_set() and not stop.is_set():
                        suite.measure(grader)
            except Exception as exc:  # this job's grader would not start: the other jobs go on
                failed_to_start.append(_describe(exc))

        threads = [threading.Thread(target=job, daemon=True) for _ in range(min(jobs, pending))]
        try:
            for thread in threads:
                thread.start()
            for _ in range(pending):
                outcome = _next(done, threads)
                if outcome is None:  # no job is left to grade what remains
                    why = failed_to_start[0] if failed_to_start else "its grading job stopped"
                    _drain(todo, done, f"no grader could start: {why}", settings)
                    outcome = done.get()
                if outcome.result is not None:
                    try:
                        _write_reports(folder, outcome, settings.lang)
                    except OSError as exc:  # this report, not the batch
                        outcome.row = _failed(
                            outcome.submission, outcome.row.sha256, f"the report could not be written: {exc}", settings
                        )
                        outcome.kinds = []
                finish(outcome)
            for thread in threads:
                thread.join()
        finally:
            stop.set()  # after Ctrl-C: no new grades; the ones in flight were interrupted too
            _write_gradebook(
                folder,
                outcomes,
                suite,
                Manifest(settings, shard, run or "unnamed", listing, len(mine), [], {}),
            )
            write_pages(folder, kata.id, [(o.row, o.result, o.kinds) for o in outcomes], settings.lang)
    finally:
        folder.close()
    return outcomes


def _content_digest(submission: StudentSubmission) -> str | Refused:
    """The sha256 of what would be graded of `submission` now, or why it cannot be read."""
    try:
        return submission.snapshot().digest
    except Refused as exc:
        return exc


def _write_reports(folder: OutFolder, outcome: Outcome, lang: str) -> None:
    assert outcome.result is not None
    data = report_text(outcome.result).encode("utf-8")
    markdown = markdown_report(outcome.row, outcome.result, lang).encode("utf-8")
    folder.write_report(outcome.row, outcome.kinds, data, markdown)


def _write_results(folder: OutFolder, outcome: Outcome, results: tuple[str, ...], settings: Settings) -> None:
    assert outcome.result is not None
    folder.write_results(outcome.row.report, outcome.result, results, settings.per_category)


def _write_gradebook(folder: OutFolder, outcomes: list[Outcome], suite: SuiteMax, manifest: Manifest) -> None:
    """gradebook.csv, the rerun manifest and the signed manifest of this shard's rows."""
    if suite.value is not None:
        for outcome in outcomes:
            if outcome.result is None:  # not graded: out of the suite's max like every other row
                outcome.row.max_score = suite.value
    folder.suite_max = suite.value
    manifest.rows = [SignedRow(o.row, o.kinds) for o in outcomes]
    seal(folder, manifest)


def _failed(submission: StudentSubmission, digest: str, error: str, settings: Settings) -> Row:
    row = Row.failed(
        submission.name, digest, error, reason=t("classroom.not_graded", settings.lang), seed=settings.seed
    )
    row.note = submission.note
    return row


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


def _drain(todo: queue.Queue[StudentSubmission], done: queue.Queue[Outcome], error: str, settings: Settings) -> None:
    while True:
        try:
            submission = todo.get_nowait()
        except queue.Empty:
            return
        done.put(Outcome(submission, _failed(submission, "", error, settings), None))


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, (GraderError, InputError)) else f"{type(exc).__name__}: {exc}"


def _point_home(result: GradeResult, graded: str, private: str, submission: StudentSubmission) -> None:
    """Messages that point into the private copy (`/tmp/normkata-class-x1y2/rmsnorm.py:16`) point
    to the submission's own file instead: the teacher's path, and the same report on every run."""
    own = escape_name(str(submission.file))
    folder = escape_name(str(submission.file.parent)) + os.sep if submission.folder else None
    # The runner names the file it imported by its base name ("SYNTAX ERROR in rmsnorm.py line
    # 5"): the private copy's, which for a single-file submission is not the student's (alice.py).
    copy_name = re.compile(rf"\b(in ){re.escape(os.path.basename(graded))}( line \d)")
    for case in result.cases:
        case.message = case.message.replace(graded, own)
        if folder is not None:
            case.message = case.message.replace(private + os.sep, folder)
        else:
            case.message = copy_name.sub(
                lambda m: m.group(1) + escape_name(submission.file.name) + m.group(2), case.message
            )
    result.file = own


def _grade_one(
    grader: Grader, kata: Kata, submission: StudentSubmission, settings: Settings, report: str, suite: SuiteMax
) -> Outcome:
    """Grade a private copy of the submission's .py files (read without following links): beside
    the class's other files it could import a classmate's module by name."""
    digest = ""
    try:
        snapshot = submission.snapshot()
        digest = snapshot.digest
        with tempfile.TemporaryDirectory(prefix="normkata-class-") as private:
            file = write_snapshot(snapshot, private, kata.file)
            result = grader.grade(
                kata.id,
                Path(file),
                timeout=settings.timeout,
                lang=settings.lang,
                seed=settings.seed,
                device=settings.device,
            )
    except Exception as exc:  # one submission's failure is its row, never the batch's
        suite.wanted.set()
        return Outcome(submission, _failed(submission, digest, _describe(exc), settings), None)
    _point_home(result, file, private, submission)
    reason = reason_of(result, snapshot.files, kata, settings.lang)
    row = Row.graded(submission.name, digest, result, reason.text, settings.per_category)
    row.report, row.note = report, submission.note
    if stopped_at_import(result):
        measured = suite.measure(grader)
        row.max_score = measured if measured is not None else row.max_score
    return Outcome(submission, row, result, kinds=reason.kinds)
