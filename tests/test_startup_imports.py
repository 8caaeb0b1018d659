"""The CLI answers these commands without importing torch, nor the optional MCP SDK (checked in a
fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from normkata.cli import cli
try:
    cli.main(args=sys.argv[1:], prog_name="normkata", standalone_mode=False)
finally:
    sys.stdout.flush()
    sys.stderr.write("TORCH-LOADED=%s\\n" % ("torch" in sys.modules))
    sys.stderr.write("MCP-LOADED=%s\\n" % ("mcp" in sys.modules))
"""


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["--help"], ""),
        ([], ""),
        (["quiz", "-n", "2", "--seed", "1"], "A\nB\n"),
        (["quiz", "-n", "2", "--json"], "A\nB\n"),
        (["interview", "-n", "1"], "answer\n3\n"),
        (["review"], "A\n"),
        (["progress", "--json"], ""),
        (["next", "--json"], ""),
        (["plan", "--minutes", "30"], ""),
        (["mock", "--minutes", "3"], "an answer\n\n\n1\n"),
        (["mock", "--history"], ""),
        (["history"], ""),
        (["content", "check"], ""),
        (["kata"], ""),
        (["lab", "--help"], ""),
        (["bench", "--help"], ""),
        (["kata", "rmsnorm"], ""),
        (["hint", "rmsnorm"], ""),
        (["solution", "rmsnorm", "--yes"], ""),
        (["mcp", "--help"], ""),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_command_does_not_import_torch(args: list[str], stdin: str) -> None:
    run = subprocess.run([sys.executable, "-c", PROBE, *args], input=stdin, capture_output=True, text=True, timeout=60)
    assert "TORCH-LOADED=False" in run.stderr, run.stderr
    assert "MCP-LOADED=False" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr, run.stderr


def test_lazy_help_lines_match_the_commands() -> None:
    import click

    from normkata.cli import COMMANDS, cli

    ctx = click.Context(cli)
    for name, (_target, short) in COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command is not None
        assert command.get_short_help_str(limit=200) == short, name


FIRST_QUESTION_PROBE = """
import sys
import normkata.practice.quiz as quiz

def first_question(*args, **kwargs):
    sys.stderr.write("LOADED=%s\\n" % ",".join(sorted(sys.modules)))
    raise SystemExit(0)

quiz._show_question = first_question
from normkata.cli import cli
cli.main(args=["quiz", "-n", "1"], prog_name="normkata")
"""


def test_the_first_question_needs_no_yaml_parser_once_the_content_is_cached(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A second quiz reads the bank and the misconception links from the content cache: no YAML
    parser, no kata record, no grading module is imported before its first question."""
    env = {"NORMKATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", FIRST_QUESTION_PROBE], input="", capture_output=True, env=env, timeout=60)
    run = subprocess.run(
        [sys.executable, "-c", FIRST_QUESTION_PROBE], input="", capture_output=True, text=True, env=env, timeout=60
    )
    loaded = set(run.stderr.split("LOADED=")[1].split()[0].split(","))
    assert not loaded & {"yaml", "normkata.content.yamlnodes", "normkata.record.attempts", "normkata.grading.text"}
    assert not any(name.startswith(("normkata.workbench", "normkata.advice", "normkata.grading")) for name in loaded)
