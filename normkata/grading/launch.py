"""How the runner starts a worker process: spawned cold, or forked from a warm zygote.

A cold `normkata grade` spawns one worker (`python -m normkata.grading.worker`), which imports
torch while the runner does the same. The grading service grades many files in a row, and
importing torch costs about a second of CPU per process, so it starts a *zygote* once: a
forkserver (multiprocessing's) that has imported torch and the worker's modules but has run
no torch operation, and forks each worker from it in tens of milliseconds.

Why not fork the service itself: a process that has run torch operations has OpenMP and
intra-op thread pools, and children forked from it can hang. The zygote never runs an
operation; each forked worker warms up (and so creates its own pools) after the fork.

Either way the worker is a fresh process that has run no learner code, confines itself before
importing the learner's file, and leads a session (process group) of its own.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import subprocess
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Protocol

from normkata.threads import THREADS

#: What the zygote imports before it forks anything: everything a worker needs before it runs.
#: torch imports symbolic_shapes (and sympy) lazily, on the first backward given a gradient:
#: 0.4 s that each worker would pay again.
ZYGOTE_PRELOAD = [
    "normkata.grading.worker.zygote",
    "torch",
    "torch.fx.experimental.symbolic_shapes",
    "normkata.grading.worker.serve",
]


def interprets_triton() -> bool:
    """The `triton` extra is installed and kernels will not be compiled (normkata.grading.messages
    .compiles_on_gpu: compiled only on a GPU with NORMKATA_SANDBOX=off)."""
    gpu_unconfined = os.environ.get("NORMKATA_SANDBOX") == "off" and os.path.exists("/dev/nvidiactl")
    return importlib.util.find_spec("triton") is not None and not gpu_unconfined


def triton_guard() -> str:
    """For `normkata doctor`: Triton's version, and whether the worker's bounds guard can run on it
    (imports triton, patches nothing). Asked here: the launcher is the one door to the worker."""
    from normkata.grading.worker.kernels import describe

    return describe()


#: Then the zygote imports Triton too (0.5 s that each kernel kata's worker would pay), with
#: TRITON_INTERPRET=1 already set (worker_environment): triton.language's own @jit functions
#: (tl.sum, ...) are made at import, interpreted or compiled by what the variable says then.
if interprets_triton():
    ZYGOTE_PRELOAD.append("triton.runtime.interpreter")


class WorkerProcess(Protocol):
    """The part of `subprocess.Popen` the runner uses, whichever way the worker started."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


class Launcher(Protocol):
    #: Processes of the launcher's own (the zygote) that the clean-up after a grade must spare.
    helpers: frozenset[int]

    def start(self, request_read: int, reply_write: int, output_write: int) -> WorkerProcess: ...


#: The folder this normkata is imported from: child processes must import the same one.
PACKAGE_PARENT = Path(__file__).resolve().parents[2]

#: Every Python the grader starts ignores the current folder and the user's site-packages: a
#: class folder graded from inside holds students' `pytest.py` or `torch.py`, which `python -m`
#: would import first, before any confinement. `-P` (3.11+) keeps the current folder off
#: sys.path; `-I` would also drop PYTHONPATH, through which children find this normkata. Children
#: also start in PACKAGE_PARENT (trusted: it is where normkata comes from), so a relative entry
#: of PYTHONPATH, or Python 3.10 without -P, finds nothing of the caller's folder.
ISOLATION_FLAGS = ("-s", "-P") if sys.version_info >= (3, 11) else ("-s",)


def python_module(module: str) -> list[str]:
    """The command that runs `module` in an isolated interpreter (see ISOLATION_FLAGS)."""
    return [sys.executable, *ISOLATION_FLAGS, "-m", module]


def python_call(module: str, function: str) -> list[str]:
    """The command that calls `module.function()` in an isolated interpreter. Unlike `-m`, it
    leaves `__main__` without a module name, so a worker forked by the zygote does not import
    `module` again as `__mp_main__` (multiprocessing does that for a `-m` parent: for the
    runner, normkata.content and YAML; a warm grade took 40-55 ms more CPU, docs/grading.md)."""
    return [sys.executable, *ISOLATION_FLAGS, "-c", f"import {module}; {module}.{function}()"]


def runner_environment(package_parent: Path = PACKAGE_PARENT) -> dict[str, str]:
    """For a runner process (one-off or the service): normkata from `package_parent`, and pytest
    with no entry-point plugin that a submission could have dropped into site-packages."""
    path = os.pathsep.join(p for p in (str(package_parent), os.environ.get("PYTHONPATH", "")) if p)
    # PYTHONSAFEPATH and PYTHONNOUSERSITE: what ISOLATION_FLAGS say, for every grandchild too.
    return {
        **os.environ,
        "PYTHONPATH": path,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONSAFEPATH": "1",
        "PYTHONNOUSERSITE": "1",
    }


#: The worker's environment, decided here and nowhere else. The learner's code runs in the worker
#: and can print what it sees into its own failure message, which reaches its report (and, in a
#: class, the Gradescope output the student reads): a teacher's token, cloud credentials, CA paths
#: or proxy settings in the grader's environment must not be there to see. So a worker starts
#: from nothing but:
#:
#: - these variables of the grader's environment, which Python, torch, CUDA, the maths libraries
#:   and Triton's compiler read (where to find programs and libraries, the locale, the time zone,
#:   which GPUs, OpenBLAS's hardware hints), and the grader's own switch for the sandbox;
WORKER_ENV_NAMES = frozenset(
    {
        "PATH",
        "LANG",
        "LANGUAGE",
        "TZ",
        "NORMKATA_SANDBOX",
        "CUDA_VISIBLE_DEVICES",
        "CUDA_DEVICE_ORDER",
        "CUDA_HOME",
        "LD_LIBRARY_PATH",
        "OPENBLAS_CORETYPE",
        "OPENBLAS_L2_SIZE",
        "TRITON_PTXAS_PATH",
        "TRITON_LIBCUDA_PATH",
    }
)
WORKER_ENV_PREFIXES = ("LC_",)
#: - the thread count of the maths libraries, set by the grader: OMP_NUM_THREADS of the grader's
#:   environment where it is a whole number of at least 1 (it wins, normkata.threads), else the
#:   count measured best for grading; every library gets the same;
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: - how Python finds normkata and torch (PYTHONPATH: ours, then the grader's) and runs isolated,
#:   pytest without plugins, and TRITON_INTERPRET=1 where kernels are interpreted (its cache and
#:   home are put in the scratch folder by normkata.grading.worker.kernels when the worker is confined);
#: - HOME and TMPDIR: the grade's scratch folder, set by the worker when it learns where it is
#:   confined (contract.SCRATCH_VARIABLES: a spare worker starts before its grade is known).


def worker_environment(host: dict[str, str] | None = None) -> dict[str, str]:
    """The worker's whole environment (the list above): the allowlisted part of `host` (this
    process's), and what the grader sets."""
    host = dict(os.environ) if host is None else host
    env = {
        name: value for name, value in host.items() if name in WORKER_ENV_NAMES or name.startswith(WORKER_ENV_PREFIXES)
    }
    asked = host.get("OMP_NUM_THREADS", "").strip()
    threads = asked if asked.isdigit() and int(asked) >= 1 else str(THREADS["grading"])
    env.update(dict.fromkeys(THREAD_VARIABLES, threads))
    path = os.pathsep.join(p for p in (str(PACKAGE_PARENT), host.get("PYTHONPATH", "")) if p)
    env.update(
        {
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": path,
            "PYTHONNOUSERSITE": "1",
            "PYTHONSAFEPATH": "1",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
    )
    if interprets_triton():
        env["TRITON_INTERPRET"] = "1"
    return env


class SpawnLauncher:
    """A new interpreter per worker: what a one-off grade uses."""

    helpers: frozenset[int] = frozenset()

    def start(self, request_read: int, reply_write: int, output_write: int) -> WorkerProcess:
        return subprocess.Popen(
            [*python_module("normkata.grading.worker"), str(request_read), str(reply_write)],
            pass_fds=(request_read, reply_write),
            stdin=subprocess.DEVNULL,
            stdout=output_write,
            stderr=output_write,
            env=worker_environment(),
            cwd=PACKAGE_PARENT,  # trusted, as for the runner; the worker moves to its scratch folder when confined
            start_new_session=True,  # one process group: killed whole at the end
        )


class _Forked:
    """A worker forked by the zygote, seen through Popen's interface."""

    def __init__(self, process: multiprocessing.process.BaseProcess) -> None:
        self.process = process

    @property
    def pid(self) -> int:
        assert self.process.pid is not None
        return self.process.pid

    def poll(self) -> int | None:
        return None if self.process.is_alive() else self.process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self.process.join(timeout)
        if self.process.exitcode is None:
            raise subprocess.TimeoutExpired("normkata worker", timeout or 0.0)
        return self.process.exitcode

    def kill(self) -> None:
        if self.process.exitcode is None:
            self.process.kill()


class ZygoteLauncher:
    """Forks workers from a zygote that has imported torch and the worker, and nothing more."""

    def __init__(self) -> None:
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(ZYGOTE_PRELOAD)
        from multiprocessing import forkserver

        from normkata.grading.sandbox import child_pids

        before = set(child_pids())
        # The zygote inherits this process's environment when it starts, once, and every worker
        # inherits the zygote's: it starts with the workers' environment alone, this one's is kept.
        host = dict(os.environ)
        os.environ.clear()
        os.environ.update(worker_environment(host))
        try:
            forkserver.ensure_running()
        finally:  # the runner keeps its own, with the grader's settings as before (TRITON_INTERPRET, ...)
            os.environ.update(host)
            os.environ.update(worker_environment(host))
        self.helpers = frozenset(set(child_pids()) - before)  # the zygote and its resource tracker

    def start(self, request_read: int, reply_write: int, output_write: int) -> WorkerProcess:
        from normkata.grading.worker.serve import forked_main

        # Connections are how multiprocessing hands descriptors to the zygote; these wrap copies.
        pipes = [Connection(os.dup(fd)) for fd in (request_read, reply_write, output_write)]
        process = self.context.Process(
            target=forked_main,
            args=tuple(pipes),
            name="normkata-worker",
            daemon=False,
        )
        process.start()  # the worker has its own copies now; the caller closes the originals
        for pipe in pipes:
            pipe.close()
        return _Forked(process)
