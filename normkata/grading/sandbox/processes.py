"""The runner's side: the worker's process group, and no descendant left after a grade.

Where seccomp is missing, the worker runs in a session and process group of its own
(`spawn_worker`), `kill_process_group` ends that group, and the runner, a child subreaper after
`harden_runner()`, adopts anything that left the group, so `kill_descendants()` still finds it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from normkata.grading.sandbox.kernel import PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, load_libc, prctl


def harden_runner() -> None:
    """For the trusted runner: not dumpable, and the adopter of orphaned descendants.

    PR_SET_DUMPABLE 0 makes /proc/<runner>/mem and ptrace unusable by same-uid processes (the
    worker) even if confinement is partial. PR_SET_CHILD_SUBREAPER makes the runner adopt any
    grandchild that outlives its parent, so `kill_descendants()` can find it. Never raises.
    """
    libc = load_libc()
    if libc is None:
        return
    for option in (PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER):
        with contextlib.suppress(OSError):
            prctl(libc, option, 0 if option == PR_SET_DUMPABLE else 1)


def spawn_worker(
    argv: Sequence[str],
    *,
    pass_fds: Sequence[int] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    stdout: int | IO[Any] | None = subprocess.DEVNULL,
    stderr: int | IO[Any] | None = subprocess.DEVNULL,
) -> subprocess.Popen[bytes]:
    """Start the worker in a session and process group of its own (pgid == its pid).

    No terminal, no stdin, no inherited descriptors but `pass_fds`: a detached grandchild can
    hold only what the worker had, and `kill_process_group(process.pid)` reaches all of them.
    """
    return subprocess.Popen(
        list(argv),
        pass_fds=tuple(pass_fds),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        close_fds=True,
        start_new_session=True,
    )


def kill_process_group(pgid: int) -> None:
    """SIGKILL every process in the group (the worker's pid after `spawn_worker`). Never raises."""
    if pgid <= 1 or not hasattr(os, "killpg"):
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            # "pid (comm) state ppid ...": comm may contain spaces and parentheses.
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) >= 2 and fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def child_pids() -> list[int]:
    """This process's live children (Linux; elsewhere [])."""
    return _children_map().get(os.getpid(), [])


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid`, children first (Linux: read from /proc; elsewhere [])."""
    children = _children_map()
    found: list[int] = []
    stack = list(children.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(children.get(child, []))
    return found


def kill_descendants(exclude: Iterable[int] = ()) -> list[int]:
    """SIGKILL every live descendant of this process except `exclude`; returns their pids.

    Run it after the worker's own Popen has been waited for: with `harden_runner()` in force,
    processes that left the worker's group (setsid, double fork) were adopted by this process
    and are found here. Zombies are reaped when they are our children and not excluded.
    Linux only (reads /proc); elsewhere returns [].
    """
    if not Path("/proc/self/stat").exists():
        return []
    skip = set(exclude)
    found = [pid for pid in descendants(os.getpid()) if pid not in skip]
    for pid in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    for pid in found:
        # Reap our own children (adopted ones included); others' children are theirs to reap.
        while time.monotonic() < deadline:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] != 0:
                    break
            except ChildProcessError:
                break
            time.sleep(0.01)
    return found
