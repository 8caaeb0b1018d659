"""The sandbox policy that lets a confined worker start exactly its allowed programs (on a GPU:
Triton's ptxas, which compiling a kernel runs) and nothing else.

A fresh Python confines itself with `Policy(executables=(env,))` and tries: the allowed program
(started as subprocess starts programs: vfork, then exec), another program, a fork, and the
allowed program starting another one (the child holds the same rules). `env` stands in for
ptxas: both are dynamically linked executables outside every readable folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from normkata.grading import sandbox

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox confines Linux processes")

PROBE = textwrap.dedent(
    r"""
    import errno, json, os, subprocess, sys
    from pathlib import Path

    from normkata.grading import sandbox

    allowed, other, scratch = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    level = sandbox.confine(sandbox.Policy(scratch=scratch, executables=(allowed,) if allowed.name else ()))
    results = {"level": level.describe(), "active": list(level.active)}

    def attempt(name, action):
        try:
            results[name] = f"ran {action()!r}"
        except OSError as exc:
            results[name] = f"blocked {errno.errorcode.get(exc.errno, exc.errno)}"

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return pid

    attempt("allowed", lambda: subprocess.run([str(allowed)], capture_output=True).returncode)
    attempt("other", lambda: subprocess.run([str(other), "ok"], capture_output=True).returncode)
    attempt("allowed starts other", lambda: subprocess.run([str(allowed), str(other), "ok"],
                                                           capture_output=True).returncode)
    attempt("fork", fork)
    attempt("exec in place of itself", lambda: os.execv(str(other), [str(other)]))
    print(json.dumps(results))
    """
)


def _confined(tmp_path: Path, allowed: str) -> dict:
    other = shutil.which("echo")
    assert other is not None
    done = subprocess.run(
        [sys.executable, "-c", PROBE, allowed, other, str(tmp_path / "scratch")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def _needs_full_confinement() -> None:
    if sandbox.landlock_abi() < 1 or not sandbox.seccomp_available():
        pytest.skip("needs Landlock and seccomp (the confinement these rules refine)")


def test_the_allowed_program_runs_and_nothing_else(tmp_path: Path) -> None:
    _needs_full_confinement()
    env = shutil.which("env")
    assert env is not None
    result = _confined(tmp_path, env)
    assert result["level"] == "full"
    assert "system calls (seccomp), spawning only the allowed programs" in result["active"]
    assert result["allowed"] == "ran 0"  # started as subprocess starts programs: vfork, exec
    assert result["other"] == "blocked EACCES"  # Landlock: not executable
    assert result["allowed starts other"] == "ran 126"  # env's own exec of echo is refused: it holds the same rules
    assert result["fork"] == "blocked EPERM"  # seccomp: a copy of the process is still forbidden
    assert result["exec in place of itself"] == "blocked EACCES"


def test_without_executables_nothing_starts(tmp_path: Path) -> None:
    _needs_full_confinement()
    result = _confined(tmp_path, "")
    assert result["level"] == "full"
    assert "system calls (seccomp)" in result["active"]
    assert result["allowed"].startswith("blocked") and result["other"].startswith("blocked")
    assert result["fork"] == "blocked EPERM"


def test_a_dynamic_programs_loader_is_executable_too(tmp_path: Path) -> None:
    env = Path(shutil.which("env") or "/usr/bin/env").resolve()
    loader = sandbox.elf_interpreter(env)
    assert loader is not None and loader.is_file() and "ld-" in loader.name
    assert sandbox.executable_files([env, env]) == (env, loader)
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    assert sandbox.elf_interpreter(script) is None  # not an ELF file
    assert sandbox.executable_files([tmp_path / "missing"]) == ()
