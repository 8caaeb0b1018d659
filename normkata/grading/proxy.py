"""The trusted side's handle on the worker: start it, send programs, survive its crashes."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import NoReturn, TypeVar

from normkata.grading import sandbox
from normkata.grading.contract import Cause
from normkata.grading.launch import Launcher, SpawnLauncher
from normkata.grading.messages import Confinement, Failure, Hello, LoadReply, LoadRequest, Program, Request, RunReply
from normkata.grading.protocol import MAX_MESSAGE, ChannelClosed, ChannelTimeout, MessageTooLarge, receive, send
from normkata.grading.wire import WireError, from_wire, to_wire
from normkata.i18n import Text

#: Seconds the worker may take to import torch and confine itself, before any learner code runs.
STARTUP_TIMEOUT = 180.0
#: How long a reply collected after its deadline still has to be read (it may be waiting whole in
#: the pipe, or a large one still coming in): the runner, not the learner, was late.
LATE_READ_S = 0.05
#: After this many crashes or time-outs, remaining cases are not tried again.
MAX_RESTARTS = 3
#: How much of the worker's own output (prints, tracebacks) is kept: the tail only.
OUTPUT_TAIL_BYTES = 4096
#: The part of a grade's budget kept for what follows the last case (killing the worker, the
#: cases left to report, checking the grader's files, the verdict): a tenth, at least 3 s (a
#: loaded machine is slow at that too), at most half. The cases get the rest, so the grade
#: ends within its budget.
BUDGET_RESERVE, BUDGET_RESERVE_MIN_S = 0.1, 3.0


def case_budget(budget: float) -> float:
    """The seconds of a grade's `budget` that its cases may use."""
    return budget - min(max(budget * BUDGET_RESERVE, BUDGET_RESERVE_MIN_S), budget / 2)


_Reply = TypeVar("_Reply", Hello, LoadReply, RunReply)


class SubmissionError(Exception):
    """The learner's code could not be run for this case; the message says why, in both languages."""

    def __init__(self, message: Text, cause: Cause = Cause.CRASH) -> None:
        super().__init__(message.en)
        self.message = message
        self.cause = cause

    def text(self, lang: str) -> str:
        return self.message.in_(lang)


class TimeBudgetUsed(SubmissionError):
    """The whole grade's time budget is spent: the remaining cases are not run."""


#: What a case stopped by the spent budget says.
BUDGET_USED = Text("stopped: the time budget for this grade is used up", "已停止：本次评测的时间预算已用完")


class _Tail:
    """Reads a pipe to its end in a thread, keeping only the last bytes (a flood costs nothing)."""

    def __init__(self, fd: int) -> None:
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(fd,), daemon=True)
        self.thread.start()

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as stream:
            while chunk := stream.read(65536):
                self.data = (self.data + chunk)[-OUTPUT_TAIL_BYTES:]

    def text(self) -> str:
        lines = self.data.decode("utf-8", "replace").strip().splitlines()[-3:]
        return " | ".join(line.strip()[:120] for line in lines)


class Worker:
    """One worker process, in a session of its own, and its two pipes.

    It starts unconfined and warms up, then waits for `confine`: a grading service starts its
    next worker (a spare) while the learner is still typing, so a save does not wait for it.
    """

    def __init__(self, launcher: Launcher) -> None:
        request_read, self.request_fd = os.pipe()
        os.set_blocking(self.request_fd, False)  # writes wait in select, up to a deadline
        self.reply_fd, reply_write = os.pipe()
        output_read, output_write = os.pipe()
        try:
            self.process = launcher.start(request_read, reply_write, output_write)
        finally:
            for fd in (request_read, reply_write, output_write):
                os.close(fd)
        self.output = _Tail(output_read)
        self.hello: Hello | None = None
        self.confined = False

    def alive(self) -> bool:
        return self.process.poll() is None

    def confine(self, confinement: Confinement, timeout: float) -> None:
        """Tell the worker where it is confined; it answers with Hello (`wait_ready`) once it is."""
        self._send(Request("confine", confine=confinement), timeout)
        self.confined = True

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> Hello:
        if self.hello is None:
            self.hello = self._receive(Hello, min(timeout, STARTUP_TIMEOUT))
        return self.hello

    def ask_load(self, request: LoadRequest, timeout: float) -> LoadReply:
        """Send and wait for the reply: `timeout` covers both, and the reply's decoding."""
        deadline = time.monotonic() + timeout
        self._send(Request("load", load=request), timeout)
        return self._receive(LoadReply, timeout, deadline)

    def send_run(self, program: Program, timeout: float) -> float:
        """Send `program`; the deadline by which its reply must have arrived (`receive_run`)."""
        deadline = time.monotonic() + timeout
        self._send(Request("run", program=program), timeout)
        return deadline

    def receive_run(self, timeout: float, deadline: float) -> RunReply:
        """The reply to the program sent by `send_run`. The runner may come to read it late (it
        computes the truth meanwhile): the case's time counts from the send, but a reply is
        always given LATE_READ_S from now to be read, so one that came in time is never lost."""
        return self._receive(RunReply, timeout, max(deadline, time.monotonic() + LATE_READ_S))

    def _send(self, request: Request, timeout: float) -> None:
        try:
            send(self.request_fd, to_wire(request), timeout, self.alive)
        except ChannelTimeout:  # it stopped reading its requests
            self._timed_out(timeout)
        except (ChannelClosed, OSError):
            self._died()

    def _timed_out(self, timeout: float) -> NoReturn:
        self.kill()
        raise SubmissionError(
            Text(f"timed out after {timeout:g} s (an endless loop?)", f"{timeout:g} 秒后超时（死循环？）"),
            Cause.TIMEOUT,
        )

    def _receive(self, kind: type[_Reply], timeout: float, deadline: float | None = None) -> _Reply:
        left = timeout if deadline is None else max(deadline - time.monotonic(), 0.0)
        try:
            return receive(self.reply_fd, left, self.alive, convert=lambda message: from_wire(kind, message))
        except ChannelTimeout:
            self._timed_out(timeout)
        except MessageTooLarge:
            self.kill()
            limit = MAX_MESSAGE // 1024**2
            raise SubmissionError(
                Text(
                    f"your code's process sent a reply larger than {limit} MB (a huge output?)",
                    f"运行你代码的进程发回的结果超过 {limit} MB（输出过大？）",
                )
            ) from None
        except (ChannelClosed, OSError):
            self._died()
        except (WireError, Exception) as exc:  # not a valid message: the worker is not ours any more
            self.kill()
            raise SubmissionError(
                Text(
                    f"your code's process sent something unreadable ({type(exc).__name__})",
                    f"运行你代码的进程发回了无法读取的内容（{type(exc).__name__}）",
                )
            ) from None

    def _died(self) -> NoReturn:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        self.output.thread.join(timeout=1)
        if code is not None and code < 0:
            en, zh = f"died (killed by signal {-code})", f"意外终止（被信号 {-code} 终止）"
        else:
            en, zh = f"died (exit code {code})", f"意外终止（退出码 {code}）"
        tail = self.output.text()
        died = Text(
            f"the process running your code {en}" + (f"; its last output: {tail}" if tail else ""),
            f"运行你代码的进程{zh}" + (f"；最后的输出：{tail}" if tail else ""),
        )
        raise SubmissionError(died)

    def kill(self) -> None:
        """Kill the worker and everything it started (its whole process group)."""
        sandbox.kill_process_group(self.process.pid)
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
    MAX_RESTARTS times. `budget` bounds the whole grade, whatever the per-case timeout.
    """

    def __init__(
        self,
        request: LoadRequest,
        protected: list[Path],
        timeout: float,
        budget: float,
        launcher: Launcher | None = None,
        spare: Worker | None = None,
    ) -> None:
        """`spare`: a worker the launcher started ahead, unconfined and unused (else one starts now)."""
        self.launcher = launcher or SpawnLauncher()
        self.request = request
        self.timeout = timeout
        self.deadline = time.monotonic() + case_budget(budget)
        self.restarts = 0
        self.scratch = Path(tempfile.mkdtemp(prefix="normkata-scratch-"))
        self.confinement = Confinement(str(self.scratch), str(Path(request.file).parent), [str(p) for p in protected])
        self.loaded: LoadReply | None = None
        self.hello: Hello | None = None
        self.forbidden_seen: set[str] = set()
        self.start_error = ""
        #: A program sent and not yet answered: (timeout, deadline), or why it could not be sent.
        self._pending: tuple[float, float] | SubmissionError | None = None
        # A cold worker starts importing torch now, while the runner does the same.
        fresh = spare if spare is not None and spare.alive() and not spare.confined else None
        if spare is not None and fresh is None:
            spare.kill()
        self.worker: Worker | None = self._started(fresh)

    def _started(self, worker: Worker | None = None) -> Worker | None:
        """`worker` (or a new one), told where it is confined; None when it died on the way."""
        worker = worker or Worker(self.launcher)
        try:
            worker.confine(self.confinement, min(self.timeout, STARTUP_TIMEOUT))
        except SubmissionError as exc:
            self.start_error = str(exc)
            return None
        return worker

    def _case_timeout(self, timeout: float | None = None) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeBudgetUsed(BUDGET_USED, Cause.TIMEOUT)
        return min(self.timeout if timeout is None else timeout, left)

    def load(self) -> LoadReply:
        if self.loaded is None:
            self.loaded = self._load()
        return self.loaded

    def _load(self) -> LoadReply:
        if self.worker is None:
            return LoadReply(False, failure=Failure("Crash", self.start_error, 0, "import"))
        try:
            self.hello = self.worker.wait_ready(self._case_timeout(STARTUP_TIMEOUT))
            return self.worker.ask_load(self.request, self._case_timeout())
        except SubmissionError as exc:
            self.worker.kill()
            self.worker = None
            # Cut short by the budget rather than by its own time-out: say so.
            message = BUDGET_USED.en if time.monotonic() >= self.deadline else str(exc)
            return LoadReply(False, failure=Failure("Crash", message, 0, "import"))

    def run(self, program: Program) -> RunReply:
        """The worker's reply to `program`; SubmissionError when it crashed or hung."""
        self.begin(program)
        return self.collect()

    def begin(self, program: Program) -> None:
        """Send `program` and return at once: the caller works out the expected result while the
        worker runs the learner's code (on a core of its own), then `collect`s the reply. A
        reply nobody collected (a suite that raised in between) is read and dropped first."""
        if self._pending is not None:
            with contextlib.suppress(SubmissionError):
                self.collect()
        try:
            worker = self._ready_worker()
            timeout = self._case_timeout()
            self._pending = (timeout, worker.send_run(program, timeout))
        except SubmissionError as exc:
            self._pending = exc
            self._forget_worker()

    def collect(self) -> RunReply:
        """The reply to the program `begin` sent; SubmissionError when it could not run."""
        pending, self._pending = self._pending, None
        if pending is None:
            raise RuntimeError("collect() without begin()")
        if isinstance(pending, SubmissionError):
            raise pending
        assert self.worker is not None
        try:
            reply = self.worker.receive_run(*pending)
        except SubmissionError:
            self._forget_worker()
            raise
        self.forbidden_seen.update(reply.forbidden_calls)
        return reply

    def _ready_worker(self) -> Worker:
        """The worker with the file loaded, restarted after a crash (up to MAX_RESTARTS)."""
        loaded = self.load()
        if not loaded.ok:
            raise SubmissionError(
                Text.neutral(loaded.failure.message if loaded.failure else "the file did not load"), Cause.IMPORT
            )
        if self.worker is None:
            if self.restarts >= MAX_RESTARTS:
                raise SubmissionError(
                    Text(
                        "not run: your code crashed or timed out too many times", "未运行：你的代码崩溃或超时的次数太多"
                    ),
                    Cause.NOT_RUN,
                )
            self.restarts += 1
            self.worker, self.loaded = self._started(), None
            reloaded = self.load()
            if not reloaded.ok:
                failure = reloaded.failure.message if reloaded.failure else "the file did not load"
                raise SubmissionError(Text.neutral(failure), Cause.IMPORT)
        assert self.worker is not None
        return self.worker

    def _forget_worker(self) -> None:
        """After a crash or a time-out: the next program gets a fresh worker."""
        if self.worker is not None:
            self.worker.kill()
        self.worker = None

    def close(self) -> None:
        if self.worker is not None:
            try:
                send(self.worker.request_fd, to_wire(Request("exit")), timeout=0.1)
            except (OSError, ChannelTimeout):
                pass
            self.worker.kill()
            self.worker = None
        shutil.rmtree(self.scratch, ignore_errors=True)
