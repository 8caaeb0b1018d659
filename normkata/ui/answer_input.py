"""Reading a spoken-style answer, and keeping typed-ahead keys away from the next prompt.

An interview answer runs over several lines: it ends at an empty line or Ctrl-D, or is written
in $EDITOR. A terminal queues whatever was typed or pasted before a prompt appeared (the rest of
a pasted answer, a `3` typed while the key points were printing); `flush_typed_ahead` drops it
before a prompt the learner must read first. A pipe has no such queue: its lines are answers.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from typing import TYPE_CHECKING, TextIO

from normkata.i18n import t

if TYPE_CHECKING:
    from normkata.ui.terminal import Prompter

#: Lines after the first are asked with this mark, so a transcript shows where an answer runs.
CONTINUATION = "[muted]  … [/]"


def read_answer(prompter: Prompter, prompt: str) -> str | None:
    """Lines until an empty line or end of input, joined; "" when the first line is empty (a skip).

    None when input ended before anything was typed: the session is over. Ctrl-D after some
    lines ends only this answer (a terminal can still be read from afterwards).
    """
    line = prompter.ask(prompt)
    if line is None:
        return None
    lines: list[str] = []
    while line is not None and line.strip():
        lines.append(line.rstrip())
        line = prompter.read(CONTINUATION)
    return "\n".join(lines)


def edit_answer(question: str, lang: str) -> str:
    """An answer written in $EDITOR (click picks vi, or notepad, when it is unset); "" if not saved.

    The question heads the file as comment lines, which are dropped with every other `#` line.
    """
    import click

    header = "".join(f"# {line}\n" for line in [*question.splitlines(), t("answer.editor_help", lang)])
    text = click.edit("\n\n" + header, extension=".md", require_save=True) or ""
    return "\n".join(line for line in text.splitlines() if not line.startswith("#")).strip()


def flush_typed_ahead(stream: TextIO | None = None) -> None:
    """Drop input the terminal holds that was typed before this point (no-op on a pipe or a file)."""
    stream = stream if stream is not None else sys.stdin
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):
        return
    if not os.isatty(fd):
        return
    try:
        import termios
    except ImportError:  # Windows has no termios: nothing to flush this way
        return
    with suppress(termios.error, OSError):
        termios.tcflush(fd, termios.TCIFLUSH)
