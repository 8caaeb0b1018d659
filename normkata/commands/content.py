"""`normkata content check`."""

from __future__ import annotations

from pathlib import Path

import click

from normkata.errors import EXIT_INPUT, InputError
from normkata.options import current_lang, lang_option


@click.group()
def content() -> None:
    """Validate question banks, interview cards and katas."""


@content.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@lang_option
def check(path: Path | None, lang: str | None) -> None:
    """Validate PATH (a YAML file or a folder; default: the bundled quizzes/ and katas/).

    Each problem is printed as FILE:LINE: FIELD: MESSAGE; the exit code is 2 if any.

    \b
    Examples:
      normkata content check
      normkata content check quizzes/rmsnorm.yaml
    """
    from normkata.content.bank import load_bank_checked
    from normkata.i18n import t
    from normkata.katas import load_katas
    from normkata.paths import quizzes_dir

    lang = current_lang(lang)
    bank, issues = load_bank_checked(path or quizzes_dir())
    katas: list = []
    if path is None:  # the bundled content: katas too
        katas, kata_issues = load_katas()
        issues = [*issues, *kata_issues]
    if issues:
        for issue in issues:
            click.echo(_issue_text(issue, lang), err=True)
        click.echo(t("content.errors", lang, n=len(issues)), err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    click.echo(t("content.ok", lang, questions=len(bank.questions), cards=len(bank.cards), files=len(bank.files)))
    if katas:
        names = ("、" if lang == "zh" else ", ").join(k.id for k in katas)
        click.echo(t("content.katas", lang, n=len(katas), names=names))


def _issue_text(issue: object, lang: str) -> str:
    """FILE:LINE: FIELD: MESSAGE, the message in the learner's language."""
    from dataclasses import replace

    from normkata.content.messages import message_in
    from normkata.content.model import ContentIssue

    if isinstance(issue, ContentIssue):
        return str(replace(issue, message=message_in(issue.message, lang)))
    return str(issue)


@content.command()
@click.option("--format", "fmt", type=click.Choice(["json", "anki"]), default="json", show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write here (required for anki); JSON goes to stdout without it.",
)
@lang_option
def export(fmt: str, out: Path | None, lang: str | None) -> None:
    """Export the bank as the learner sees it: JSON, or an Anki deck (.apkg).

    Texts are exported after normalization (Chinese typography tidied, the precision a
    numeric question asks for stated), in one language.

    \b
    Examples:
      normkata content export --format json --lang zh > bank.zh.json
      normkata content export --format anki --out normkata-en.apkg
    """
    import json

    from normkata.content.bank import load_bank
    from normkata.content.export import bank_dict, write_anki
    from normkata.i18n import t

    lang = current_lang(lang)
    bank = load_bank()
    if fmt == "anki":
        if out is None:
            raise InputError(t("export.anki_needs_out", lang))
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
