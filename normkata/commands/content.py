"""`normkata content check`."""

from __future__ import annotations

from pathlib import Path

import click

from normkata.errors import EXIT_INPUT
from normkata.options import current_lang, lang_option


@click.group()
def content() -> None:
    """Validate question banks and interview cards."""


@content.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@lang_option
def check(path: Path | None, lang: str | None) -> None:
    """Validate PATH (a YAML file or a folder; default: the bundled quizzes/).

    Each problem is printed as FILE:LINE: FIELD: MESSAGE; the exit code is 2 if any.

    \b
    Examples:
      normkata content check
      normkata content check quizzes/rmsnorm.yaml
    """
    from normkata.content.bank import load_bank_checked
    from normkata.i18n import t
    from normkata.paths import quizzes_dir

    lang = current_lang(lang)
    bank, issues = load_bank_checked(path or quizzes_dir())
    if issues:
        for issue in issues:
            click.echo(str(issue), err=True)
        click.echo(t("content.errors", lang, n=len(issues)), err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    click.echo(
        t("content.ok", lang, questions=len(bank.questions), cards=len(bank.cards), files=len(bank.files))
    )
