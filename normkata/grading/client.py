"""Run the trusted grading runner in a process of its own and read its verdict."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import click

from normkata.errors import EXIT_INPUT, InputError
from normkata.grading.contract import GradeResult
from normkata.grading.launch import PACKAGE_PARENT, python_module, runner_environment
from normkata.grading.runner import BUDGET_CASES, BUDGET_CEILING_S

#: The most a runner may print: a GradeResult is far smaller.
_MAX_RESULT_BYTES = 32 * 1024 * 1024


def run_grader(kata_id: str, file: Path, *, device: str = "auto", timeout: float = 10.0, seed: int | None = None,
               lang: str = "en", select: list[str] | None = None) -> GradeResult:  # fmt: skip
    """Run the trusted runner in its own process; its verdict arrives on a pipe, never a file."""
    # Absolute, not resolved: a link is refused by the runner, never swapped for its target.
    command = [kata_id, os.path.abspath(file), "--device", device, "--timeout", str(timeout), "--lang", lang]
    if seed is not None:
        command += ["--seed", str(seed)]
    for pattern in select or []:
        command += ["-k", pattern]
    out = _run_runner(command, ceiling=min(BUDGET_CEILING_S, 60 + BUDGET_CASES * timeout) + 120)
    try:
        return GradeResult.from_json(json.loads(out))
    except (ValueError, KeyError, TypeError):
        raise click.ClickException("the grader's result could not be read") from None


def list_cases(kata_id: str, lang: str = "en") -> list[tuple[str, str]]:
    """(category, case name) for every case of a kata's hidden suite (`grade --list`)."""
    out = _run_runner([kata_id, "--list", "--lang", lang], ceiling=180)
    try:
        return [(str(category), str(name)) for category, name in json.loads(out)]
    except (ValueError, TypeError):
        raise click.ClickException("the grader's case list could not be read") from None


def _run_runner(arguments: list[str], *, ceiling: float) -> bytes:
    """The runner's standard output; its exit code 2 becomes an InputError, others a ClickException."""
    command = [*python_module("normkata.grading.runner"), *arguments]
    env = runner_environment()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL, env=env,
                                   cwd=PACKAGE_PARENT)  # never the caller's folder (launch.ISOLATION_FLAGS)
        assert process.stdout is not None
        try:
            out, _ = process.communicate(timeout=ceiling)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise click.ClickException(f"grading took longer than {ceiling:g} s and was stopped") from None
        errors.seek(0)
        stderr = errors.read(65536).decode("utf-8", "replace").strip()
    if process.returncode == EXIT_INPUT:
        raise InputError(stderr.splitlines()[-1] if stderr else "bad input")
    if process.returncode != 0 or not out or len(out) > _MAX_RESULT_BYTES:
        tail = stderr.splitlines()[-1:] or ["no output"]
        raise click.ClickException(f"the grader failed: {tail[0]}")
    return out
