"""Domain errors. They carry their own exit code; the CLI edge (cli.py) turns them into one line.

Plain exceptions, not the command-line library's: the trusted grading runner raises them too,
and imports nothing of the command line.
"""

from __future__ import annotations

#: Exit code for bad input (a usage error, a broken file), the code of a command-line usage error.
EXIT_INPUT = 2
#: Exit code after Ctrl-C, as a shell reports SIGINT.
EXIT_INTERRUPTED = 130


class InputError(Exception):
    """Bad input from the user or a content file: one line, exit code 2."""

    exit_code = EXIT_INPUT


#: `--device cuda` where torch sees no GPU (grade, doctor, labs): bad input, one line.
CUDA_MISSING = "--device cuda: CUDA is not available on this machine"
