"""What grading raises when it has no verdict to give. The CLI edge (cli.py) shows it as one line.

Bad input (an unknown kata, a link submitted, `-k` matching nothing) is `normkata.errors.InputError`;
everything else that leaves a file without a verdict is a `GraderError`.
"""

from __future__ import annotations

from normkata.errors import EXIT_INPUT


class GraderError(Exception):
    """No verdict: the grader failed, was stopped, or could not vouch for its own files."""


class GraderTimedOut(GraderError):
    """No verdict in time: the grade was stopped at its deadline (a busy machine, most often)."""


class GraderDidNotStart(GraderError):
    """The grading service never said it was ready: this environment cannot run the grader."""


#: The runner's reply code for bad input (an InputError: the CLI's exit code for it) and for no
#: verdict (a GraderError).
CODE_INPUT, CODE_NO_VERDICT = EXIT_INPUT, 3
