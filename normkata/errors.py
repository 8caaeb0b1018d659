"""Domain errors. They carry their own exit code; the CLI edge turns them into one line."""

from __future__ import annotations

import click

#: Exit code for bad input (a usage error, a broken file), as click uses for usage errors.
EXIT_INPUT = 2
#: Exit code after Ctrl-C, as a shell reports SIGINT.
EXIT_INTERRUPTED = 130


class InputError(click.ClickException):
    """Bad input from the user or a content file: one line, exit code 2."""

    exit_code = EXIT_INPUT

    def format_message(self) -> str:
        return self.message
