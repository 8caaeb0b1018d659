"""Every command the README and docs/ show exists: its `--help` exits 0. Only the command path is
checked (`normkata lab compare`, `normkata progress export`), not each option's spelling."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from normkata.cli import cli as main

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: `normkata` followed by words, as code shows it: in a code span or a line of a code block.
SHOWN = re.compile(r"(?<![\w/.-])normkata((?: [a-z][a-z-]*)*)")
SPAN = re.compile(r"`([^`]+)`")
#: Shown on purpose as what a learner mistypes (the did-you-mean example).
MISTYPED_ON_PURPOSE = {"normkata quizz"}


def command_path(words: list[str]) -> tuple[str, ...] | None:
    """The longest prefix of `words` that names a command: groups are followed, the words after a
    command are its arguments (a kata, a topic). None when a word where a command belongs (the
    first, or one after a group) names none: a command that does not exist (`normkata` alone, or
    followed by options, is the dashboard)."""
    path: list[str] = []
    command: click.Command = main
    context = click.Context(main, info_name="normkata")
    for word in words:
        if not isinstance(command, click.Group):
            break
        sub = command.get_command(context, word)
        if sub is None:  # after a group comes one of its commands: `progress exprot` is none
            return None
        path.append(word)
        command = sub
    return tuple(path)


def code_on(lines: list[str]) -> list[tuple[int, str]]:
    """(line number, code) for every code span and every line inside a fenced block."""
    code, fenced = [], False
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced:
            code.append((number, line))
        else:
            code += [(number, span) for span in SPAN.findall(line)]
    return code


def shown_commands() -> dict[tuple[str, ...] | None, str]:
    """Each command path shown somewhere, with the first place it is shown (file:line); a
    command that does not exist is kept under None with every place it is shown."""
    found: dict[tuple[str, ...] | None, str] = {}
    for document in DOCUMENTS:
        for number, code in code_on(document.read_text(encoding="utf-8").splitlines()):
            for match in SHOWN.finditer(code):
                if match.group(0) in MISTYPED_ON_PURPOSE:
                    continue
                where = f"{document.relative_to(ROOT)}:{number}: {match.group(0)}"
                path = command_path(match.group(1).split())
                if path is None:
                    found[None] = f"{found[None]}; {where}" if None in found else where
                else:
                    found.setdefault(path, where)
    return found


SHOWN_COMMANDS = shown_commands()


def test_the_documents_show_the_main_commands() -> None:
    """The scan itself works: the README's main commands are among what it found."""
    for path in [("quiz",), ("grade",), ("kata",), ("doctor",), ("lab", "compare"), ("progress", "export")]:
        assert path in SHOWN_COMMANDS, path


def test_a_word_that_is_no_command_stops_the_path() -> None:
    assert command_path(["lab", "compare", "--quick"]) == ("lab", "compare")
    assert command_path(["kata", "rmsnorm"]) == ("kata",)
    assert command_path(["quizz"]) is None
    assert command_path(["progress", "exprot"]) is None  # a group's misspelt command
    assert command_path(["lab", "comprae", "--quick"]) is None
    assert command_path([]) == ()


def test_no_document_shows_a_command_that_does_not_exist() -> None:
    assert None not in SHOWN_COMMANDS, SHOWN_COMMANDS.get(None)


@pytest.mark.parametrize(
    "path", sorted(p for p in SHOWN_COMMANDS if p is not None), ids=lambda p: " ".join(p) or "normkata"
)
def test_every_command_shown_exists(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=100)
    assert result.exit_code == 0, f"{SHOWN_COMMANDS[path]}: `normkata {' '.join(path)} --help`: {result.output[-300:]}"
