"""The grading service: a warm runner that grades one file after another.

`watch`, `grade-all` and the project's own tests grade many files; starting a runner for each
costs an interpreter, torch and pytest every time. A `GradingService` starts the trusted
runner (`python -m normkata.grading.server`) once and sends it one request per grade over a
pipe; each submission still runs in a fresh confined worker, and the verdict is the same
`GradeResult` a one-off `normkata grade` prints. One service grades one file at a time: start
several for parallel grading.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import IO

import click

from normkata.errors import EXIT_INPUT, InputError
from normkata.grading.contract import GradeResult
from normkata.grading.launch import PACKAGE_PARENT, python_module, runner_environment
from normkata.grading.runner import BUDGET_CASES, BUDGET_CEILING_S, GradeRequest

#: Seconds the server may take to import torch and pytest and start its zygote.
START_TIMEOUT = 120.0


class GradingService:
    """A long-lived runner process; `grade` sends it one file and returns the verdict."""

    def __init__(self, *, package_parent: Path | None = None, env: dict[str, str] | None = None) -> None:
        """`package_parent`: where the server imports normkata from (default: where we did);
        `env`: variables set for it on top of ours (NORMKATA_HOME, say)."""
        self.package_parent = package_parent or PACKAGE_PARENT
        self.extra_env = dict(env or {})
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._errors: IO[bytes] | None = None

    def __enter__(self) -> GradingService:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def start(self) -> None:
        """Start the server and wait until it is warm (a no-op when it is running)."""
        if self._process is not None and self._process.poll() is None:
            return
        env = {**runner_environment(self.package_parent), **self.extra_env}
        self._errors = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            python_module("normkata.grading.server"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            env=env,
            cwd=self.package_parent,  # never the caller's folder (launch.ISOLATION_FLAGS)
            text=True,
            encoding="utf-8",
            start_new_session=True,  # Ctrl-C in the terminal is ours to handle, not the server's
        )
        reply = self._read_line(START_TIMEOUT)
        if reply.get("ready") is not True:
            raise click.ClickException(f"the grading service did not start: {self._stderr_tail()}")

    def grade(self, kata_id: str, file: Path, *, device: str = "auto", timeout: float = 10.0, seed: int | None = None,
              lang: str = "en", select: list[str] | None = None,
              budget: float | None = None) -> GradeResult:  # fmt: skip
        """Grade `file` as `normkata grade` would; a dead or stuck server is restarted next time.
        `budget`: seconds for the whole grade (default: the runner's, from `timeout`)."""
        # Absolute, not resolved: a link is refused by the runner, never swapped for its target.
        request = GradeRequest(kata_id, os.path.abspath(file), device, timeout, seed, lang, budget, list(select or []))
        ceiling = (budget or min(BUDGET_CEILING_S, 60 + BUDGET_CASES * timeout)) + 60
        with self._lock:
            self.start()
            assert self._process is not None and self._process.stdin is not None
            try:
                self._process.stdin.write(json.dumps(asdict(request)) + "\n")
                self._process.stdin.flush()
                reply = self._read_line(ceiling)
            except BrokenPipeError:
                reply = {}
            result = reply.get("result")
            if isinstance(result, dict):
                try:
                    return GradeResult.from_json(result)
                except (ValueError, KeyError, TypeError):
                    raise click.ClickException("the grader's result could not be read") from None
            if reply.get("code") == EXIT_INPUT:
                raise InputError(str(reply.get("error")))
            message = reply.get("error") or self._stderr_tail()
            self.close()  # whatever state it is in, the next grade gets a fresh one
            raise click.ClickException(f"the grader failed: {message}")

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs (its helpers and workers are its descendants)."""
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def _read_line(self, timeout: float) -> dict[str, object]:
        assert self._process is not None and self._process.stdout is not None
        stream = self._process.stdout
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([stream], [], [], min(1.0, max(0.0, deadline - time.monotonic())))
            if ready:
                line = stream.readline()
                if not line:
                    return {}
                try:
                    parsed = json.loads(line)
                except ValueError:
                    return {}
                return parsed if isinstance(parsed, dict) else {}
            if self._process.poll() is not None:
                return {}
        self.close()
        raise click.ClickException(f"grading took longer than {timeout:g} s and was stopped")

    def _stderr_tail(self) -> str:
        if self._errors is None:
            return "no output"
        self._errors.seek(0)
        lines = self._errors.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def close(self) -> None:
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
                os.killpg(process.pid, 9)
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None
