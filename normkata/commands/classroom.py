"""`normkata grade-all` and `normkata gradescope-bundle`: grading a class."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from normkata.errors import InputError
from normkata.ui.options import current_lang, lang_option

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.classroom.batch import Outcome


def _default_jobs() -> int:
    """One grade per core: a grade is CPU-bound (a runner and a worker busy in torch), so more only queue."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@click.command("grade-all")
@click.argument("kata_name", metavar="KATA")
@click.argument("folder", metavar="DIR", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Submissions graded at once (default: the number of CPU cores).")  # fmt: skip
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for gradebook.csv and the reports (default: ./grades-KATA).")  # fmt: skip
@click.option("--pattern", default="*", show_default=True,
              help="Only the entries of DIR whose name matches this glob.")  # fmt: skip
@click.option("--force", is_flag=True, help="Grade again what is unchanged since the last run.")
@lang_option
def grade_all(kata_name: str, folder: Path, jobs: int | None, out: Path | None, pattern: str, force: bool,
              lang: str | None) -> None:  # fmt: skip
    """Grade a class: every submission in DIR, in parallel, into a gradebook.

    A submission is a .py file in DIR or a folder in DIR holding the kata's file
    (DIR/alice/rmsnorm.py). --out gets gradebook.csv and one JSON report per submission
    (what `normkata grade --json` prints). Exit code 0 when every submission passed, 1 when
    any did not or could not be graded, 2 on bad input.

    \b
    Examples:
      normkata grade-all rmsnorm submissions/
      normkata grade-all rmsnorm submissions/ --out grades --jobs 2 --pattern 'team-*'
    """
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from normkata.classroom.batch import grade_all as run_batch
    from normkata.classroom.gradebook import GRADEBOOK, REPORTS
    from normkata.classroom.submissions import find_submissions
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    kata = get_kata(kata_name, lang)
    out = out or Path(f"grades-{kata.id}")
    submissions = find_submissions(folder, kata.file, pattern, skip=out)
    if not submissions:
        raise InputError(t("classroom.none", lang, dir=folder, pattern=pattern, file=kata.file))
    jobs = jobs or _default_jobs()
    console = make_console()
    started = time.perf_counter()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(t("classroom.running", lang, kata=kata.id), total=len(submissions))

        def advance(outcome: Outcome) -> None:
            # Names are escaped already (no control character reaches the terminal); markup too.
            progress.update(task, advance=1, description=escape(outcome.submission.name))

        outcomes = run_batch(kata, submissions, out, jobs=jobs, force=force, lang=lang, on_done=advance,
                             class_folder=folder)  # fmt: skip
    _summary(console, outcomes, kata.id, time.perf_counter() - started, min(jobs, len(submissions)), lang)
    console.print(f"[muted]{t('classroom.written', lang, gradebook=out / GRADEBOOK, reports=out / REPORTS)}[/]")
    raise click.exceptions.Exit(0 if all(o.result is not None and o.result.passed for o in outcomes) else 1)


def _summary(console: Console, outcomes: list[Outcome], kata: str, seconds: float, jobs: int, lang: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    from normkata.classroom.gradebook import common_misconceptions
    from normkata.i18n import t

    results = [o.result for o in outcomes if o.result is not None]
    passed = sum(r.passed for r in results)
    errors = [o for o in outcomes if o.result is None]
    line = t("classroom.summary", lang, kata=kata, n=len(outcomes), seconds=seconds, jobs=jobs, passed=passed,
             failed=len(results) - passed, errors=len(errors))  # fmt: skip
    console.print(f"[heading]{escape(line)}[/]")
    reused = sum(o.reused for o in outcomes)
    if reused:
        console.print(f"[muted]{t('classroom.reused', lang, n=reused)}[/]")
    possible = sum(r.max_score for r in results)
    if possible:
        console.print(t("classroom.mean", lang, percent=sum(r.score for r in results) / possible))
    common = common_misconceptions(results)
    if common:
        table = Table(title=t("classroom.common", lang), title_style="heading", show_edge=False)
        for key in ("classroom.col.mistake", "classroom.col.id", "classroom.col.submissions"):
            table.add_column(t(key, lang), justify="right" if key.endswith("submissions") else "left")
        for key, title, count in common:
            table.add_row(escape(title), key, str(count))
        console.print(table)
    for outcome in errors:
        message = t("classroom.error", lang, name=outcome.submission.name, error=outcome.row.error)
        console.print(f"[warn]{escape(message)}[/]")


@click.command("gradescope-bundle")
@click.argument("kata_name", metavar="KATA")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("autograder.zip"),
              show_default=True, help="The zip to write.")  # fmt: skip
@click.option("--wheel", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="The normkata wheel to bundle (default: built from this source checkout).")  # fmt: skip
@lang_option
def gradescope_bundle(kata_name: str, out: Path, wheel: Path | None, lang: str | None) -> None:
    """Build a Gradescope autograder (setup.sh, run_autograder, the normkata wheel) for a kata.

    Students upload <kata>.py; each submission is graded in its own container and reported
    in the --lang language.

    \b
    Example:
      normkata gradescope-bundle rmsnorm --out rmsnorm-autograder.zip
    """
    from normkata.classroom.bundle import build_bundle
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    path = build_bundle(get_kata(kata_name, lang), out, wheel=wheel, lang=lang)
    make_console().print(t("classroom.bundle.written", lang, path=path))
