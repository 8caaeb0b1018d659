"""`normkata content check`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from normkata.errors import EXIT_INPUT
from normkata.ui.options import current_lang, lang_option

if TYPE_CHECKING:
    from normkata.content.katas import Kata


@click.group()
def content() -> None:
    """Validate question banks, interview cards and katas."""


@content.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--deep",
    is_flag=True,
    help="Also grade every kata's reference (must pass), starter (must fail) and fixtures (minutes).",
)
@click.option("--kata", "only", multiple=True, help="With --deep: only these katas (repeatable).")
@lang_option
def check(path: Path | None, deep: bool, only: tuple[str, ...], lang: str | None) -> None:
    """Validate PATH (a YAML file or a folder; default: the bundled quizzes/ and katas/).

    Each problem is printed as FILE:LINE: FIELD: MESSAGE; the exit code is 2 if any. With
    --deep, every reference must pass its suite, every starter must fail it, every fixture
    must get its expected verdict and every misconception must be named for some fixture.

    \b
    Examples:
      normkata content check
      normkata content check quizzes/rmsnorm.yaml
      normkata content check --deep --kata rmsnorm
    """
    from normkata.content.bank import load_bank_checked
    from normkata.content.katas import load_katas
    from normkata.i18n import t
    from normkata.paths import quizzes_dir

    lang = current_lang(lang)
    bank, issues = load_bank_checked(path or quizzes_dir())
    katas: list = []
    unlinked: list[str] = []
    if path is None:  # the bundled content: katas, and the links from misconceptions to the items that teach them
        from normkata.content.names import load_shared
        from normkata.content.study_checks import check_homes
        from normkata.workbench.lessons import check_links

        _shared, shared_issues = load_shared()
        katas, kata_issues = load_katas()
        link_issues, unlinked = check_links(bank, katas)
        issues = [*issues, *shared_issues, *kata_issues, *check_homes(bank, katas), *link_issues]
    if issues:
        for issue in issues:
            click.echo(_issue_text(issue, lang), err=True)
        click.echo(t("content.errors", lang, n=len(issues)), err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    click.echo(t("content.ok", lang, questions=len(bank.questions), cards=len(bank.cards), files=len(bank.files)))
    if katas:
        names = t("content.katas.sep", lang).join(k.id for k in katas)
        click.echo(t("content.katas", lang, n=len(katas), names=names))
    if unlinked:  # reported, not an error: a new misconception may wait for its question
        click.echo(t("content.links.unlinked", lang, n=len(unlinked), ids=", ".join(unlinked)))
    if deep:
        _deep([k for k in katas if not only or k.id in only], lang)


def _deep(katas: list[Kata], lang: str) -> None:
    """Grade references, starters and fixtures with a progress bar; exit 2 on any problem."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from normkata.grading.selfcheck import deep_check, planned_grades
    from normkata.i18n import t

    for kata in [k for k in katas if k.requires and k.missing_extras()]:  # kernel katas without their extra
        click.echo(t("grade.needs_extra", lang, kata=kata.id, package=kata.missing_extras()[0]), err=True)
        katas = [k for k in katas if k is not kata]
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task(t("content.deep.running", lang), total=planned_grades(katas))
        problems, had_fixtures = deep_check(katas, lambda what: progress.update(task, advance=1, description=what))
    if not had_fixtures:
        click.echo(t("content.deep.no_fixtures", lang), err=True)
    if problems:
        for problem in problems:
            click.echo(str(problem), err=True)
        click.echo(t("content.errors", lang, n=len(problems)), err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    click.echo(t("content.deep.ok", lang, n=len(katas)))


def _issue_text(issue: object, lang: str) -> str:
    """FILE:LINE: FIELD: MESSAGE, the message in the learner's language."""
    from normkata.content.model import ContentIssue

    if isinstance(issue, ContentIssue):
        return issue.text(lang)
    return str(issue)


@content.command()
@click.option("--format", "fmt", type=click.Choice(["json", "anki"]), default="json", show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write here (anki: default normkata-LANG.apkg in this folder); JSON goes to stdout without it.",
)
@lang_option
def export(fmt: str, out: Path | None, lang: str | None) -> None:
    """Export the bank as the learner sees it: JSON, or an Anki deck (.apkg).

    Texts are exported after normalization (Chinese typography tidied, the precision a
    numeric question asks for stated), in one language.

    \b
    Examples:
      normkata content export --format json --lang zh > bank.zh.json
      normkata content export --format anki              # writes normkata-en.apkg here
    """
    import json

    from normkata.content.bank import load_bank
    from normkata.i18n import t
    from normkata.practice.export import bank_dict, write_anki

    lang = current_lang(lang)
    bank = load_bank()
    if fmt == "anki":
        out = out or Path(f"normkata-{lang}.apkg")  # a deck is a file: named for its language
        write_anki(bank, lang, out)
    else:
        text = json.dumps(bank_dict(bank, lang), ensure_ascii=False, indent=2) + "\n"
        if out is None:
            click.echo(text, nl=False)
            return
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    summary = t("export.written", lang, questions=len(bank.questions), cards=len(bank.cards), language=lang, path=out)
    click.echo(summary, err=True)
