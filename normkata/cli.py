"""The `normkata` command line. Heavy imports (rich, yaml, torch) wait inside commands."""

from __future__ import annotations

from pathlib import Path

import click

from normkata import __version__
from normkata.commands.content import content
from normkata.commands.interview import interview, review
from normkata.commands.progress import progress, show_dashboard
from normkata.commands.quiz import quiz
from normkata.i18n import LANGS
from normkata.options import AppState


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--lang", type=click.Choice(LANGS), default=None, help="Language (default: NORMKATA_LANG, then the locale).")
@click.option(
    "--workspace", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Folder for kata files (default: NORMKATA_WORKSPACE, else ~/normkata-workspace).",
)
@click.version_option(__version__, prog_name="normkata")
@click.pass_context
def cli(ctx: click.Context, lang: str | None, workspace: Path | None) -> None:
    """Practise normalization layers for ML interviews: quizzes, interview cards, progress.

    Run `normkata` alone to see where you stand and what to do next.

    \b
    Examples:
      normkata quiz -n 5 --topic rmsnorm
      normkata interview --topic prenorm
      normkata review
      normkata content check
    """
    ctx.obj = AppState(lang_option=lang, workspace=workspace)
    if ctx.invoked_subcommand is None:
        show_dashboard(None)


for command in (quiz, interview, review, progress, content):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="normkata")
