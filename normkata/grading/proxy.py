"""The trusted side's handle on the worker: start it, send programs, survive its crashes."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from normkata.grading.protocol import ChannelClosed, ChannelTimeout, receive, send

#: Seconds the worker may take to import torch, before any learner code runs.
STARTUP_TIMEOUT = 180.0
#: After this many crashes or time-outs, remaining cases are not tried again.
MAX_RESTARTS = 3


class SubmissionError(Exception):
    """The learner's code could not be run for this case; the message says why."""


@dataclass
class LoadResult:
    ok: bool
    missing: list[str] = field(default_factory=list)
    global_changes: list[str] = field(default_factory=list)
    error: str = ""
    message: str = ""
    line: int = 0


class Worker:
    """One worker process and its two pipes."""

    def __init__(self) -> None:
        request_read, self.request_fd = os.pipe()
        self.reply_fd, reply_write = os.pipe()
        self.log = tempfile.TemporaryFile()
        # The worker runs in a neutral folder, so it must find normkata the way we did.
        package_parent = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": path}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "normkata.grading.worker", str(request_read), str(reply_write)],
            pass_fds=(request_read, reply_write),
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            env=env,
            cwd=tempfile.gettempdir(),
        )
        os.close(request_read)
        os.close(reply_write)
        self.hello: dict[str, Any] | None = None

    def wait_ready(self) -> dict[str, Any]:
        if self.hello is None:
            self.hello = self.ask(None, STARTUP_TIMEOUT)
        return self.hello

    def ask(self, request: dict[str, Any] | None, timeout: float) -> Any:
        try:
            if request is not None:
                send(self.request_fd, request)
            reply = receive(self.reply_fd, timeout)
        except ChannelTimeout:
            self.kill()
            raise SubmissionError(f"timed out after {timeout:g} s (an endless loop?)") from None
        except (ChannelClosed, BrokenPipeError, OSError):
            code = self.process.wait()
            self.kill()
            raise SubmissionError(
                f"the Python process running your code died (exit code {code}){self.tail()}"
            ) from None
        except Exception as exc:  # a reply that is not a valid message
            self.kill()
            raise SubmissionError(f"your code's process sent something unreadable ({type(exc).__name__})") from None
        if not isinstance(reply, dict):
            self.kill()
            raise SubmissionError("your code's process sent something unreadable")
        return reply

    def tail(self) -> str:
        try:
            self.log.seek(0)
            lines = self.log.read().decode("utf-8", "replace").strip().splitlines()[-3:]
        except (OSError, ValueError):
            return ""
        return ("; last output: " + " | ".join(line.strip()[:120] for line in lines)) if lines else ""

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for fd in (self.request_fd, self.reply_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.request_fd = self.reply_fd = -1


class Submission:
    """The learner's file, loaded in a worker; `run` executes one program against it.

    A crash or a time-out fails that case only: the next case gets a fresh worker, up to
    MAX_RESTARTS times.
    """

    def __init__(self, file: Path, classes: list[str], forbidden: list[str], protected: list[Path], timeout: float):
        self.file = file
        self.classes = classes
        self.forbidden = forbidden
        self.protected = [str(p) for p in protected]
        self.timeout = timeout
        self.restarts = 0
        self.worker: Worker | None = Worker()  # starts importing torch now, in parallel with us
        self.loaded: LoadResult | None = None
        self.torch_version = ""
        self.cuda = False
        self.forbidden_seen: set[str] = set()

    def load(self) -> LoadResult:
        if self.loaded is None:
            self.loaded = self._load()
        return self.loaded

    def _load(self) -> LoadResult:
        assert self.worker is not None
        try:
            hello = self.worker.wait_ready()
            self.torch_version, self.cuda = str(hello.get("torch", "")), bool(hello.get("cuda"))
            reply = self.worker.ask(
                {
                    "op": "load",
                    "file": str(self.file),
                    "classes": self.classes,
                    "forbidden": self.forbidden,
                    "protected": self.protected,
                },
                self.timeout,
            )
        except SubmissionError as exc:
            self.worker = None
            return LoadResult(False, error="Crash", message=str(exc))
        if not reply.get("ok"):
            return LoadResult(
                False,
                error=str(reply.get("error")),
                message=str(reply.get("message")),
                line=int(reply.get("line") or 0),
            )
        return LoadResult(True, list(reply.get("missing", [])), list(reply.get("global_changes", [])))

    def run(self, program: dict[str, Any]) -> dict[str, Any]:
        """The worker's reply to `program`; SubmissionError when it crashed or hung."""
        loaded = self.load()
        if not loaded.ok:
            raise SubmissionError(loaded.message)
        if self.worker is None:
            if self.restarts >= MAX_RESTARTS:
                raise SubmissionError("not run: your code crashed or timed out too many times")
            self.restarts += 1
            self.worker, self.loaded = Worker(), None
            if not self.load().ok:
                raise SubmissionError(self.load().message)
        assert self.worker is not None
        try:
            reply = self.worker.ask({"op": "run", "program": program}, self.timeout)
        except SubmissionError:
            self.worker = None
            raise
        self.forbidden_seen.update(str(c) for c in reply.get("forbidden_calls", []))
        return reply

    def close(self) -> None:
        if self.worker is not None:
            try:
                send(self.worker.request_fd, {"op": "exit"})
            except OSError:
                pass
            self.worker.kill()
            self.worker = None
