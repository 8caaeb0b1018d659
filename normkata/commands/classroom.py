"""`normkata grade-all` and `normkata gradescope-bundle`: grading a class."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from normkata.classroom.lms import LMS
from normkata.commands.grading_options import device_option, timeout_option, visibility_option
from normkata.errors import InputError
from normkata.grading.formats import FORMATS
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
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Submissions graded at once (default: the number of CPU cores).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for gradebook.csv and the reports (default: ./grades-KATA).",
)
@click.option("--pattern", default="*", show_default=True, help="Only the entries of DIR whose name matches this glob.")
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Grade the whole class on the inputs of this seed (default: a fresh draw per submission, "
    "recorded in its row).",
)
@click.option(
    "--shard",
    default=None,
    metavar="K/N|auto",
    help="Grade only shard K of N (split by a hash of each name); auto reads Slurm, Kubernetes or "
    "NORMKATA_SHARD_INDEX/NORMKATA_SHARD_COUNT.",
)
@click.option(
    "--run",
    "run_id",
    default=None,
    metavar="ID",
    help="The class run's id, the same for every shard (e.g. the date): gradebook merge refuses shards "
    "of different runs (default: the engine's job id with --shard auto, else a fresh one).",
)
@click.option(
    "--format",
    "results",
    multiple=True,
    type=click.Choice(tuple(FORMATS)),
    help="Also write this platform's results file for every submission: OUT/FORMAT/<report>/results.json "
    "(junit.xml for junit; repeatable).",
)
@click.option(
    "--weights",
    multiple=True,
    metavar="CATEGORY=POINTS,...",
    help="Points per case of a category (e.g. low-precision=3); others stay 1 a case. Signed with the "
    "settings and applied to every score written.",
)
@timeout_option
@device_option()
@click.option(
    "--force",
    is_flag=True,
    help="Grade again what is unchanged since the last run, and replace what --out holds (another gradebook).",
)
@lang_option
def grade_all(
    kata_name: str,
    folder: Path,
    jobs: int | None,
    out: Path | None,
    pattern: str,
    seed: int | None,
    shard: str | None,
    run_id: str | None,
    timeout: float,
    results: tuple[str, ...],
    weights: tuple[str, ...],
    device: str,
    force: bool,
    lang: str | None,
) -> None:
    """Grade a class: every submission in DIR, in parallel, into a gradebook.

    A submission is a .py file in DIR or a folder in DIR holding the kata's file
    (DIR/alice/rmsnorm.py); every other entry is named in a note. --out gets gradebook.csv (a
    reason in every failing row), a JSON and a Markdown report per submission, and
    gradebook.signed.json, which `normkata gradebook merge` checks when the class is graded in
    shards (give every shard one --run). A folder that holds another gradebook is refused
    unless --force. Exit code 0 when every submission passed, 1 when any did not or could not
    be graded, 2 on bad input.

    \b
    Examples:
      normkata grade-all rmsnorm submissions/
      normkata grade-all rmsnorm submissions/ --out grades --jobs 2 --pattern 'team-*'
      normkata grade-all rmsnorm submissions/ --seed 7 --shard 2/3 --run 2026-12-07 --out grades-2
      normkata grade-all rmsnorm submissions/ --format prairielearn
      normkata grade-all rmsnorm submissions/ --weights low-precision=3,gradients=2
      normkata gradebook merge grades-1 grades-2 grades-3 --out grades
    """
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from normkata.classroom.batch import grade_all as run_batch
    from normkata.classroom.gradebook import GRADEBOOK, REPORTS, Settings, parse_weights
    from normkata.classroom.shards import WHOLE_CLASS, class_run, parse_shard
    from normkata.classroom.submissions import find_submissions
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    kata = get_kata(kata_name, lang)
    part = parse_shard(shard, os.environ) if shard is not None else WHOLE_CLASS
    run = class_run(run_id, part, os.environ)
    out = out or Path(f"grades-{kata.id}")
    listing = find_submissions(folder, kata.file, pattern, skip=out, lang=lang)
    submissions = listing.submissions
    if not submissions:
        raise InputError(t("classroom.none", lang, dir=folder, pattern=pattern, file=kata.file))
    mine = sum(part.holds(s.name) for s in submissions)
    jobs = jobs or _default_jobs()
    console = make_console()
    for why, names in listing.left_out.items():
        shown = ", ".join(names[:5])
        if len(names) > 5:
            shown = t("classroom.left.more", lang, names=shown, n=len(names) - 5)
        console.print(f"[muted]{escape(t(why, lang, n=len(names), pattern=pattern, names=shown))}[/]")
    if part.count > 1:
        console.print(f"[muted]{escape(t('classroom.shard', lang, shard=part, n=mine, total=len(submissions)))}[/]")
    settings = Settings(kata.id, lang, seed, timeout, device, parse_weights(weights))
    started = time.perf_counter()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(t("classroom.running", lang, kata=kata.id), total=mine)

        def advance(outcome: Outcome) -> None:
            # Names are escaped already (no control character reaches the terminal); markup too.
            progress.update(task, advance=1, description=escape(outcome.submission.name))

        outcomes = run_batch(
            kata,
            submissions,
            out,
            jobs=jobs,
            force=force,
            settings=settings,
            shard=part,
            on_done=advance,
            class_folder=folder,
            run=run,
            results=tuple(dict.fromkeys(results)),
        )
    _summary(console, outcomes, kata.id, time.perf_counter() - started, max(1, min(jobs, mine)), lang)
    console.print(f"[muted]{t('classroom.written', lang, gradebook=out / GRADEBOOK, reports=out / REPORTS)}[/]")
    raise click.exceptions.Exit(0 if all(o.row.passed for o in outcomes) else 1)


def _summary(console: Console, outcomes: list[Outcome], kata: str, seconds: float, jobs: int, lang: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    from normkata.classroom.reasons import common_reasons
    from normkata.i18n import t

    rows = [o.row for o in outcomes]
    graded = [r for r in rows if r.passed is not None]
    passed = sum(bool(r.passed) for r in graded)
    errors = [o for o in outcomes if o.row.passed is None]
    line = t(
        "classroom.summary",
        lang,
        kata=kata,
        n=len(outcomes),
        seconds=seconds,
        jobs=jobs,
        passed=passed,
        failed=len(graded) - passed,
        errors=len(errors),
    )
    console.print(f"[heading]{escape(line)}[/]")
    reused = sum(o.reused for o in outcomes)
    if reused:
        console.print(f"[muted]{t('classroom.reused', lang, n=reused)}[/]")
    possible = sum(r.max_score or 0 for r in graded)
    if possible:
        console.print(t("classroom.mean", lang, percent=sum(r.score or 0 for r in graded) / possible))
    common = common_reasons([(o.kinds, o.result) for o in outcomes], lang)
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


@click.group("gradebook")
def gradebook() -> None:
    """Merge the shards of a class's gradebook, or export it for Canvas or Moodle.

    \b
    Examples:
      normkata gradebook merge grades-1 grades-2 grades-3 --out grades
      normkata gradebook export grades --lms canvas --out canvas.csv
    """


@gradebook.command("merge")
@click.argument("shards", metavar="OUT...", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for the merged gradebook.csv, reports and signed manifest.",
)
@click.option("--force", is_flag=True, help="Replace what --out holds (a finished gradebook).")
@click.option(
    "--format",
    "results",
    multiple=True,
    type=click.Choice(tuple(FORMATS)),
    help="Also write this platform's results file for every graded submission, as grade-all --format does "
    "(repeatable).",
)
@lang_option
def merge_command(shards: tuple[Path, ...], out: Path, force: bool, results: tuple[str, ...], lang: str | None) -> None:
    """Join the out folders of a class's shards into one gradebook, after checking each signature.

    Every shard 1..N must be there exactly once, complete, signed with this machine's grading
    key (NORMKATA_HOME/grade-all.key), of one class run (--run) read from the same files, and
    graded with the same kata, seed, timeout, device and language; anything else is refused with
    one line (exit code 2) and nothing is written. An --out that holds anything is refused
    unless --force.

    \b
    Example:
      normkata gradebook merge grades/shard-* --out grades/class
    """
    from normkata.classroom.merge import merge
    from normkata.i18n import t
    from normkata.i18n.worded import Worded
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    real_out = os.path.realpath(out)
    for shard in shards:
        if os.path.realpath(shard) == real_out:
            raise Worded("classroom.refuse.out_is_shard", out=out)
    merged = merge(list(shards), out, force=force, results=tuple(dict.fromkeys(results)))
    make_console().print(
        t("classroom.merged", lang, shards=len(shards), kata=merged.settings.kata, n=len(merged.rows), out=out)
    )


@gradebook.command("export")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--lms", type=click.Choice(tuple(LMS)), required=True, help="The LMS whose import reads it.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The CSV to write.")
@click.option(
    "--assignment",
    default=None,
    help="The grade column's title: the assignment's name in the LMS (default: normkata KATA).",
)
@click.option(
    "--points",
    type=float,
    default=None,
    help="Scale scores to this many points, a finite number above 0 (default: the score out of the suite's cases).",
)
@lang_option
def export_command(
    folder: Path, lms: str, out: Path, assignment: str | None, points: float | None, lang: str | None
) -> None:
    """Write a graded class as the CSV that Canvas's or Moodle's grade import reads.

    DIR is an out folder of grade-all or of gradebook merge; its signed manifest is checked
    first. Rows are matched to students by submission name (Canvas: SIS Login ID; Moodle: the
    field you map "Username" to). Submissions that could not be graded are left blank.

    \b
    Examples:
      normkata gradebook export grades --lms canvas --out canvas.csv --assignment "RMSNorm kata"
      normkata gradebook export grades --lms moodle --out moodle.csv --points 10
    """
    from normkata.classroom.lms import write_export
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    graded, blank = write_export(folder, lms, out, assignment, points)
    make_console().print(t("classroom.exported", lang, path=out, n=graded, lms=lms.capitalize(), blank=blank))


@click.command("gradescope-bundle")
@click.argument("kata_name", metavar="KATA")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("autograder.zip"),
    show_default=True,
    help="The zip to write.",
)
@click.option(
    "--wheel",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The normkata wheel to bundle (default: built from this source checkout).",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Grade every submission on the inputs of this seed (default: a fresh draw each, recorded).",
)
@visibility_option("When students see the tests' results (Gradescope's own setting).")
@lang_option
def gradescope_bundle(
    kata_name: str, out: Path, wheel: Path | None, seed: int | None, visibility: str, lang: str | None
) -> None:
    """Build a Gradescope autograder (setup.sh, run_autograder, the normkata wheel) for a kata.

    Students upload <kata>.py; each submission is graded in its own container and reported
    in the --lang language.

    \b
    Examples:
      normkata gradescope-bundle rmsnorm --out rmsnorm-autograder.zip
      normkata gradescope-bundle rmsnorm --seed 7 --visibility after_due_date
    """
    from normkata.classroom.bundle import build_bundle
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    path = build_bundle(get_kata(kata_name, lang), out, wheel=wheel, lang=lang, seed=seed, visibility=visibility)
    make_console().print(t("classroom.bundle.written", lang, path=path))


@click.command("prairielearn-bundle")
@click.argument("kata_name", metavar="KATA")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The question folder to write (default: ./normkata-KATA), new or empty.",
)
@click.option(
    "--image",
    required=True,
    help="The grader image info.json names, as PrairieLearn pulls it (e.g. yourorg/normkata-grader:1); "
    "built from the folder's image/.",
)
@click.option(
    "--wheel",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The normkata wheel for the image (default: built from this source checkout).",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Grade every submission on the inputs of this seed (default: a fresh draw each, recorded).",
)
@lang_option
def prairielearn_bundle(
    kata_name: str, out: Path | None, image: str, wheel: Path | None, seed: int | None, lang: str | None
) -> None:
    """Write a PrairieLearn question for a kata: info.json, question.html, the grader's entry point.

    The entry point (tests/run.sh) grades the uploaded <kata>.py with `normkata grade --format
    prairielearn`; image/ holds the Dockerfile and wheel of the grader image --image names.

    \b
    Examples:
      normkata prairielearn-bundle rmsnorm --image yourorg/normkata-grader:1
      normkata prairielearn-bundle rmsnorm --image yourorg/normkata-grader:1 --seed 7 --out questions/rmsnorm
    """
    from normkata.classroom.prairielearn import build_question
    from normkata.content.katas import get_kata
    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    lang = current_lang(lang)
    kata = get_kata(kata_name, lang)
    path = build_question(kata, out or Path(f"normkata-{kata.id}"), image=image, wheel=wheel, lang=lang, seed=seed)
    make_console().print(t("classroom.question.written", lang, path=path, image=image))
