"""`normkata grade`: one grade of one file, by a runner of its own."""

from __future__ import annotations

import json
from pathlib import Path

import click

from normkata.commands.grading_options import device_option, timeout_option, visibility_option
from normkata.grading.formats import FORMATS
from normkata.record.values import INT64_MAX
from normkata.ui.options import current_lang, lang_option, workspace


@click.command()
@click.argument("name", required=False)
@click.option(
    "--file",
    "file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Grade this file instead of the workspace's.",
)
@device_option()
@timeout_option
@click.option(
    "--seed",
    type=click.IntRange(min=0, max=INT64_MAX),  # what the record keeps: a seed past it would be graded, then lost
    default=None,
    help="Draw the inputs from this seed (default: a fresh one, shown in the result).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(tuple(FORMATS)),
    default=None,
    help="Also write results.json (Gradescope, exercism v3 or PrairieLearn) or junit.xml.",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where --format writes (default: results.json / junit.xml here).",
)
@visibility_option("With --format gradescope: when students see the tests' results.")
@click.option("--list", "list_only", is_flag=True, help="List the suite's cases by category (not their inputs).")
@click.option(
    "-k",
    "select",
    multiple=True,
    metavar="PATTERN",
    help="Run only the cases whose name contains PATTERN (repeatable; such runs are not recorded).",
)
@click.option("--all", "every_failure", is_flag=True, help="Show every failing case, not one per root cause.")
@lang_option
def grade(
    name: str | None,
    file: Path | None,
    device: str,
    timeout: float,
    seed: int | None,
    as_json: bool,
    fmt: str | None,
    output: Path | None,
    visibility: str,
    list_only: bool,
    select: tuple[str, ...],
    every_failure: bool,
    lang: str | None,
) -> None:
    """Grade a kata with its hidden test suite.

    Exit code 0 when every case passed, 1 when any failed or errored, 2 on bad input.
    NAME defaults to the kata you worked on last; the file to <workspace>/<kata>.py.

    \b
    Examples:
      normkata grade
      normkata grade layernorm --file my_layernorm.py
      normkata grade rmsnorm --json --seed 7      # the same inputs as a run with seed 7
      normkata grade batchnorm --format gradescope --output results.json
      normkata grade rmsnorm --list               # the cases, by category
      normkata grade rmsnorm -k fp16 -k eps       # only the matching cases
      normkata grade layernorm --all              # every failing case
    """
    lang = current_lang(lang)
    if list_only and name is not None:  # data (katas/<id>/cases.yaml): no grader, no record opened
        from normkata.content.case_list import read_case_list

        listing = read_case_list(name)
        if listing is not None:
            labelled = [(category.in_(lang), [case.in_(lang) for case in cases]) for category, cases in listing]
            _print_case_list(name, labelled, lang)
            return
    from normkata.commands.kept import print_kept
    from normkata.grading import formats, report
    from normkata.i18n import t
    from normkata.loop.learner import Learner
    from normkata.ui.terminal import make_console

    learner = Learner(workspace(), lang)
    with learner.bench() as bench:
        chosen = bench.gradeable(name)
    if list_only:
        from normkata.grading.contract import Category

        by_category: dict[str, list[str]] = {}
        for category, case in learner.cases(chosen.id):
            by_category.setdefault(Category(category).label(lang), []).append(case)
        _print_case_list(chosen.id, list(by_category.items()), lang)
        return
    console = make_console(quiet=as_json)
    with console.status(t("grade.running", lang, kata=chosen.id)):
        kept = learner.grade(chosen.id, file, seed=seed, select=select, device=device, timeout=timeout)
    result = kept.result
    shown = result.to_json()
    if fmt:
        path = output or Path(FORMATS[fmt].file)
        formats.write(fmt, path, result, visibility=visibility)
        console.print(f"[muted]{t('grade.written', lang, path=path)}[/]")
    if as_json:
        click.echo(json.dumps(shown, ensure_ascii=False, indent=2))
    else:
        report.render(console, result, every_failure=every_failure)
    print_kept(console, kept, lang, report=False)
    raise click.exceptions.Exit(0 if result.passed else 1)


def _print_case_list(kata_id: str, listing: list[tuple[str, list[str]]], lang: str) -> None:
    """Each category (its label in `lang`) and the names of its cases."""
    from rich.markup import escape

    from normkata.i18n import t
    from normkata.ui.terminal import make_console

    console = make_console()
    console.print(f"[heading]{escape(t('grade.list.title', lang, kata=kata_id))}[/]")
    for label, names in listing:
        console.print(f"[next]{escape(label)}[/]{escape(t('grade.list.count', lang, n=len(names)))}")
        for name in names:
            console.print(f"  {escape(name)}")
