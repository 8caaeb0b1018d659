"""The one client of the trusted runner (normkata.grading.runner): `grade`, `watch`, `grade-all`,
`doctor` and the tests all grade through a `Grader`.

A Grader holds a conversation with a runner process over its standard streams: one JSON line
each way per request (`RunnerRequest`, `RunnerReply`, through `normkata.grading.wire`); the
verdict arrives on a pipe, never in a file. `grade_once` is a one-off `normkata grade`: a runner
of its own for one request, its worker spawned cold (the runner imports torch while the worker
does). A warm Grader is the grading service: its runner imports everything and starts a zygote
once, then grades file after file, each in a fresh confined worker. One Grader grades one file at
a time: start several for parallel grading.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, TypedDict

from normkata.errors import InputError
from normkata.grading.contract import GradeRequest, GradeResult, RunnerReply, RunnerRequest
from normkata.grading.errors import CODE_INPUT, GraderDidNotStart, GraderError, GraderTimedOut
from normkata.grading.launch import PACKAGE_PARENT, python_call, runner_environment
from normkata.grading.wire import from_wire, to_wire

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: Seconds a warm runner may take to import torch and pytest and start its zygote.
START_TIMEOUT = 120.0
#: The longest reply line read: a GradeResult is far smaller.
_MAX_REPLY_CHARS = 32 * 1024 * 1024


class GradeOptions(TypedDict, total=False):
    """`GradeRequest`'s optional fields, by name (its defaults apply to those left out)."""

    device: str
    timeout: float
    seed: int | None
    lang: str
    budget: float | None
    select: list[str]


def grade_once(kata: str, file: Path, **options: Unpack[GradeOptions]) -> GradeResult:
    """`normkata grade`: one request to a runner of its own, which then exits."""
    with Grader(warm=False) as grader:
        return grader.grade(kata, file, **options)


def list_cases(kata: str, lang: str = "en") -> list[tuple[str, str]]:
    """(category, case name) for every case of a kata's hidden suite (`grade --list`): from the
    kata's cases.yaml, else (a kata without one) collected by a runner of its own."""
    from normkata.content.case_list import case_names

    listed = case_names(kata, lang)
    return listed if listed is not None else collect_cases(kata, lang)


def collect_cases(kata: str, lang: str = "en") -> list[tuple[str, str]]:
    """(category, case name) for every case, as the suite's own collection finds them."""
    with Grader(warm=False) as grader:
        return grader.list_cases(kata, lang)


class Grader:
    """A runner process and the conversation with it; `grade` sends one file and returns the verdict."""

    def __init__(
        self, *, warm: bool = True, package_parent: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        """`warm`: a long conversation (start the zygote first); else workers are spawned cold.
        `package_parent`: where the runner imports normkata from (default: where we did);
        `env`: variables set for it on top of ours (NORMKATA_HOME, say)."""
        self.warm = warm
        self.package_parent = package_parent or PACKAGE_PARENT
        self.extra_env = dict(env or {})
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._errors: IO[bytes] | None = None

    def __enter__(self) -> Grader:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The runner's process id while it runs (its helpers and workers are its descendants)."""
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def start(self) -> None:
        """Start the runner (a no-op while it runs); a warm one is ready when this returns."""
        if self._process is not None and self._process.poll() is None:
            return
        env = {**runner_environment(self.package_parent), **self.extra_env}
        self._errors = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            python_call("normkata.grading.runner", "serve"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            env=env,
            cwd=self.package_parent,  # never the caller's folder (launch.ISOLATION_FLAGS)
            text=True,
            encoding="utf-8",
            # A long-lived runner is ours to stop (Ctrl-C in the terminal is the watch's to handle);
            # a one-off one stops with the command, as any child of it.
            start_new_session=self.warm,
        )
        if self.warm and not self._exchange(RunnerRequest("warm"), START_TIMEOUT, starting=True).ready:
            raise GraderDidNotStart(f"the grading service did not start: {self._stderr_tail()}")

    def grade(self, kata: str, file: Path, **options: Unpack[GradeOptions]) -> GradeResult:
        """Grade `file` as `normkata grade` would; a dead or stuck runner is restarted next time."""
        # Absolute, not resolved: a link is refused by the runner, never swapped for its target.
        request = GradeRequest(kata, os.path.abspath(file), **options)
        reply = self._ask(RunnerRequest("grade", request), request.ceiling)
        if reply.result is None:
            raise GraderError(_UNREADABLE)
        return reply.result

    def list_cases(self, kata: str, lang: str = "en") -> list[tuple[str, str]]:
        request = GradeRequest(kata, "", lang=lang)
        return self._ask(RunnerRequest("list", request), request.ceiling).cases

    def processes(self) -> list[int]:
        """The runner's own processes that outlive a grade (zygote, resource tracker, spare worker):
        any other descendant of the runner after a grade is one the grade left behind."""
        return self._ask(RunnerRequest("processes"), START_TIMEOUT).pids

    def _ask(self, asked: RunnerRequest, timeout: float) -> RunnerReply:
        with self._lock:
            self.start()
            return self._exchange(asked, timeout)

    def _exchange(self, asked: RunnerRequest, timeout: float, *, starting: bool = False) -> RunnerReply:
        """Send one request and read its reply; bad input is an InputError, anything else that
        leaves no answer a GraderError, after which the runner is stopped (the next request starts
        a fresh one)."""
        assert self._process is not None and self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(to_wire(asked)) + "\n")
            self._process.stdin.flush()
            line = self._read_line(timeout)
        except BrokenPipeError:
            line = ""
        if not line:
            if starting:
                return RunnerReply()
            message = self._stderr_tail()
            self.close()
            raise GraderError(f"the grader failed: {message}")
        try:
            reply = from_wire(RunnerReply, json.loads(line))
        except (ValueError, TypeError):  # WireError is a ValueError
            self.close()
            raise GraderError(_UNREADABLE) from None
        if reply.code == CODE_INPUT:
            raise InputError(reply.error)
        if reply.code:
            self.close()
            raise GraderError(f"the grader failed: {reply.error}")
        return reply

    def _read_line(self, timeout: float) -> str:
        """The next line, or "" when the runner closed its output or died; stopped at `timeout`."""
        assert self._process is not None and self._process.stdout is not None
        stream = self._process.stdout
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([stream], [], [], min(1.0, max(0.0, deadline - time.monotonic())))
            if ready:
                line = stream.readline(_MAX_REPLY_CHARS)
                return line if line.endswith("\n") else ""
            if self._process.poll() is not None:
                return ""
        self.close()
        raise GraderTimedOut(f"grading took longer than {timeout:g} s and was stopped")

    def _stderr_tail(self) -> str:
        if self._errors is None:
            return "no output"
        self._errors.seek(0)
        lines = self._errors.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def close(self) -> None:
        """End the conversation: the runner exits at the end of its input, or is killed after 5 s."""
        process, self._process = self._process, None
        if process is not None:
            if process.stdin is not None:
                try:
                    process.stdin.close()
                except OSError:
                    pass
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                if self.warm:  # its own process group: the zygote and the helpers go with it
                    os.killpg(process.pid, signal.SIGKILL)
                else:
                    process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None


_UNREADABLE = "the grader's result could not be read"
