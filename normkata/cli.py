"""The `normkata` command line.

Start-up is kept close to bare click: subcommands are imported only when they run, and
their one-line help for `normkata --help` is listed here, so neither rich, yaml nor torch
is loaded to print help.
"""

from __future__ import annotations

import importlib

import click

from normkata import __version__

#: name -> (module:function, one-line help shown by `normkata --help`). A test checks that
#: each line matches the command's own docstring.
COMMANDS: dict[str, tuple[str, str]] = {
    "quiz": ("normkata.commands.quiz:quiz", "Answer quiz questions with instant feedback."),
    "interview": (
        "normkata.commands.interview:interview",
        "Practise interview questions: answer, compare with key points, rate yourself.",
    ),
    "review": (
        "normkata.commands.interview:review",
        "Review what is due: missed quiz questions and interview cards, scheduled by FSRS.",
    ),
    "progress": (
        "normkata.commands.progress:progress",
        "Show mastery per topic, what is due and what to do next.",
    ),
    "kata": ("normkata.commands.kata:kata", "List katas, or start one: write its starter and show the instructions."),
    "hint": ("normkata.commands.kata:hint", "Show the next hint for a kata (three levels, each more direct)."),
    "solution": (
        "normkata.commands.kata:solution",
        "Show a kata's reference solution: after a pass, or after you confirm giving up.",
    ),
    "grade": ("normkata.commands.kata:grade", "Grade a kata with its hidden test suite."),
    "lab": ("normkata.commands.lab:lab", "Run the source documents' experiments and see the phenomena."),
    "bench": (
        "normkata.commands.lab:bench",
        "Time RMSNorm vs LayerNorm: torch's ops, the references and your kata files.",
    ),
    "content": ("normkata.commands.content:content", "Validate question banks, interview cards and katas."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, attribute = COMMANDS[cmd_name][0].split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, short) for name, (_target, short) in COMMANDS.items()])


@click.group(cls=LazyGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--lang",
    type=click.Choice(("en", "zh")),
    default=None,
    help="Language (default: NORMKATA_LANG, then the locale).",
)
@click.option(
    "--workspace",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder for kata files (default: NORMKATA_WORKSPACE, else ~/normkata-workspace).",
)
@click.version_option(__version__, prog_name="normkata")
@click.pass_context
def cli(ctx: click.Context, lang: str | None, workspace: str | None) -> None:
    """Practise normalization layers for ML interviews: quizzes, interview cards, progress.

    Run `normkata` alone to see where you stand and what to do next.

    \b
    Examples:
      normkata quiz -n 5 --topic rmsnorm
      normkata interview --topic prenorm
      normkata review
      normkata content check
    """
    from normkata.options import AppState

    ctx.obj = AppState(lang_option=lang, workspace=workspace)
    if ctx.invoked_subcommand is None:
        from normkata.commands.progress import show_dashboard

        show_dashboard(None)


def main() -> None:
    cli(prog_name="normkata")
