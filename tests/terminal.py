"""`normkata` in a real pseudo-terminal (pexpect), started as a shell at a terminal starts it."""

from __future__ import annotations

import signal
import sys
from typing import Any


def _signals_as_a_shell_leaves_them() -> None:
    """Ctrl-C's and Ctrl-\\'s signals at their defaults, unblocked. A test run started in the
    background (`pytest &` in a script, a CI step behind `nohup`) has them ignored, and a child
    inherits that: Python then installs no Ctrl-C handler and the session cannot be stopped."""
    for number in (signal.SIGINT, signal.SIGQUIT):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGQUIT})


def spawn_normkata(args: list[str], env: dict[str, str], *, timeout: float = 30) -> Any:
    """`python -m normkata ARGS` in a 40x100 terminal; the pexpect child."""
    import pexpect

    return pexpect.spawn(
        sys.executable,
        ["-m", "normkata", *args],
        env=env,
        encoding="utf-8",
        timeout=timeout,
        dimensions=(40, 100),
        preexec_fn=_signals_as_a_shell_leaves_them,
    )
