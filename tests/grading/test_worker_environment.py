"""The learner's code sees none of the grader's environment but what Python, torch and Triton need
(launch.WORKER_ENV_NAMES): a variable set where normkata runs (a teacher's token) is invisible to a
submission that prints it into its own failure message, through `grade` (one-off worker), through
`grade-all` (workers forked from the service's zygote) and so through the Gradescope bundle, whose
run_autograder runs `normkata grade`. The control: an allowlisted variable (TZ) is seen."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from normkata.grading.launch import worker_environment

SUBMISSION = Path(__file__).parent / "fixtures" / "env" / "reads_the_environment.py"
SECRET = "hunter2-grader-token"
HOST = {"NORMKATA_TEST_SECRET": SECRET, "TZ": "Europe/Paris", "AWS_SECRET_ACCESS_KEY": SECRET}

pytestmark = pytest.mark.slow


def _run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **HOST, "NORMKATA_HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "normkata", *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip


def _seen(text: str) -> set[str]:
    """What the submission said it saw, one `secret=... tz=... raw=...` per message."""
    return set(re.findall(r"secret=\S+ tz=\S+ raw=\w+", text))


def test_the_worker_environment_is_an_allowlist() -> None:
    env = worker_environment({**HOST, "PATH": "/usr/bin", "LC_ALL": "C.UTF-8", "HOME": "/home/teacher"})
    assert env["TZ"] == "Europe/Paris" and env["PATH"] == "/usr/bin" and env["LC_ALL"] == "C.UTF-8"
    assert not {"NORMKATA_TEST_SECRET", "AWS_SECRET_ACCESS_KEY", "HOME"} & set(env)


def test_grade_hides_the_host_environment_from_the_submission(tmp_path: Path) -> None:
    shutil.copy(SUBMISSION, tmp_path / "rmsnorm.py")
    run = _run(["grade", "rmsnorm", "--file", "rmsnorm.py", "--json", "--timeout", "5"], tmp_path)
    assert run.returncode == 1, run.stderr[-500:]
    assert SECRET not in run.stdout + run.stderr
    messages = " ".join(case["message"] for case in json.loads(run.stdout)["cases"])
    seen = _seen(messages)
    assert seen and all(s.startswith("secret=None tz='Europe/Paris' raw=False") for s in seen), messages[:500]


def test_grade_all_hides_the_host_environment_from_every_submission(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    for student in ("alice", "bob"):
        shutil.copy(SUBMISSION, tmp_path / "class" / f"{student}.py")
    run = _run(["grade-all", "rmsnorm", "class", "--out", "out"], tmp_path)
    assert run.returncode in (0, 1), run.stderr[-500:]
    written = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert SECRET not in written + run.stdout + run.stderr
    seen = _seen(written)
    assert seen and all(s.startswith("secret=None tz='Europe/Paris' raw=False") for s in seen), seen
