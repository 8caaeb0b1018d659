"""The `normkata` command line.

Start-up is kept close to bare click: subcommands are imported only when they run, and
their one-line help for `normkata --help` is listed here, so neither rich, yaml nor torch
is loaded to print help.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys

import click

from normkata import __version__
from normkata.ui.groups import SuggestingGroup

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
        "Review what is due: missed quiz questions, interview cards and katas to write again (FSRS).",
    ),
    "progress": (
        "normkata.commands.progress:progress",
        "Show mastery per topic, what is due and what to do next.",
    ),
    "next": ("normkata.commands.advice:next_command", "Show the single most useful next step, and why."),
    "plan": (
        "normkata.commands.advice:plan",
        "Plan the minutes left before an interview, or every day to it: quiz, cards and katas mixed.",
    ),
    "mock": (
        "normkata.commands.mock:mock",
        "Run a timed mock interview, then score your answers against the key points.",
    ),
    "history": (
        "normkata.commands.history:history",
        "List kata attempts: time, score, seed and the misconceptions named.",
    ),
    "kata": ("normkata.commands.kata:kata", "List katas, or start one: write its starter and show the instructions."),
    "hint": ("normkata.commands.kata:hint", "Show the next hint for a kata (three levels, each more direct)."),
    "solution": (
        "normkata.commands.kata:solution",
        "Show a kata's reference solution: after a pass, or after you confirm giving up.",
    ),
    "grade": ("normkata.commands.grade:grade", "Grade a kata with its hidden test suite."),
    "watch": ("normkata.commands.watch:watch", "Re-grade a kata every time you save it."),
    "grade-all": (
        "normkata.commands.classroom:grade_all",
        "Grade a class: every submission in DIR, in parallel, into a gradebook.",
    ),
    "gradebook": (
        "normkata.commands.classroom:gradebook",
        "Merge the shards of a class's gradebook, or export it for Canvas or Moodle.",
    ),
    "gradescope-bundle": (
        "normkata.commands.classroom:gradescope_bundle",
        "Build a Gradescope autograder (setup.sh, run_autograder, the normkata wheel) for a kata.",
    ),
    "prairielearn-bundle": (
        "normkata.commands.classroom:prairielearn_bundle",
        "Write a PrairieLearn question for a kata: info.json, question.html, the grader's entry point.",
    ),
    "lab": ("normkata.commands.lab:lab", "Run the source documents' experiments and see the phenomena."),
    "bench": (
        "normkata.commands.lab:bench",
        "Time RMSNorm vs LayerNorm: torch's ops, the references and your kata files.",
    ),
    "mcp": (
        "normkata.commands.mcp:mcp_server",
        "Serve katas, grading, hints and the quiz to a coding assistant (MCP on stdio).",
    ),
    "content": ("normkata.commands.content:content", "Validate question banks, interview cards and katas."),
    "doctor": (
        "normkata.commands.doctor:doctor",
        "Check this installation: torch, the sandbox, progress files, the terminal, grading.",
    ),
}


class LazyGroup(SuggestingGroup):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, attribute = COMMANDS[cmd_name][0].split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; a database or file-system failure becomes one line and exit 2."""
        try:
            return super().invoke(ctx)
        except Exception as exc:
            one_line = _one_line_error(exc)
            if one_line is None:
                raise
            raise one_line from None
        finally:
            _report_skipped_rows()

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
    """Practise normalization layers for ML interviews: quizzes, interview cards, mock
    interviews, code katas graded by hidden test suites, and labs.

    Run `normkata` alone to see where you stand, or `normkata next` for what to do now: on a
    fresh record a short diagnostic quiz, then the topics in their order of study.

    \b
    Examples:
      normkata next
      normkata quiz -n 5 --topic rmsnorm
      normkata interview --topic prenorm
      normkata mock --minutes 20
      normkata review
      normkata kata rmsnorm     # write the starter, show the instructions
      normkata grade rmsnorm    # grade it with the hidden suite (or: normkata watch)
      normkata lab vanishing
    """
    from normkata.ui.options import AppState

    ctx.obj = AppState(lang_option=lang, workspace=workspace)
    if ctx.invoked_subcommand is None:
        from normkata.commands.progress import show_dashboard

        show_dashboard(None)


class OneLineError(click.ClickException):
    """A domain error as the learner reads it: `Error: <one line>` on stderr, exit code 2."""

    exit_code = 2

    def format_message(self) -> str:
        from normkata.ui.terminal import unquoted

        return unquoted(self.message)  # a command it names, without the backticks that mark it


def _one_line_error(exc: Exception) -> click.ClickException | None:
    """What the learner should read instead of a traceback, or None for errors click handles.

    Bad input (InputError, the store's StoreError among them), a grader without a verdict
    (GraderError), a database or file-system failure. The record and the grader's errors are looked
    up rather than imported: `normkata --help` loads neither.
    """
    from normkata.errors import InputError

    record = sys.modules.get("normkata.record.store")
    grader_errors = sys.modules.get("normkata.grading.errors")
    if isinstance(exc, InputError) or (grader_errors is not None and isinstance(exc, grader_errors.GraderError)):
        said = getattr(exc, "in_", None)  # worded where it is shown (normkata.files.Refused): in the reader's language
        if callable(said):
            from normkata.ui.options import safe_lang

            return OneLineError(said(safe_lang()))
        return OneLineError(str(exc))
    if record is not None and record.is_database_error(exc):  # no database error without the record loaded
        from normkata.ui.options import safe_lang

        return OneLineError(str(record.explain(exc, lang=safe_lang())))
    if isinstance(exc, OSError) and exc.errno != errno.EPIPE:  # click itself quiets a closed pipe
        where = f"{exc.filename}: " if exc.filename else ""
        return OneLineError(f"{where}{exc.strerror or exc}")
    return None


def _report_skipped_rows() -> None:
    """Rows of the progress database a reader could not use (edited by hand): said once, after the command."""
    values = sys.modules.get("normkata.record.values")
    skipped = values.take_skipped() if values is not None else []
    if skipped:
        from normkata.commands.kept import say_unusable_rows
        from normkata.ui.options import safe_lang

        say_unusable_rows(skipped, safe_lang())


def _harden_streams() -> None:
    """Make the standard streams safe whatever the terminal or the shell did to them.

    A closed descriptor (`<&-`) becomes /dev/null, so input simply ends and nothing else
    (a database) is handed descriptor 0-2. Output the encoding cannot show (a C, Latin-1 or
    GB2312 locale) is replaced rather than raising, and undecodable input bytes too.
    """
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        if getattr(sys, name) is None:
            with_fd = os.open(os.devnull, os.O_RDONLY if mode == "r" else os.O_WRONLY)
            if with_fd != fd:
                os.dup2(with_fd, fd)
                os.close(with_fd)
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")


def main() -> None:
    _harden_streams()
    cli(prog_name="normkata")
