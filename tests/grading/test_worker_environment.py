"""The learner's code sees none of the grader's environment but what Python, torch and Triton need
(launch.worker_environment): a variable set where normkata runs (a teacher's token) is invisible to
a submission that prints it into its own failure message, through `grade` (a worker spawned cold),
`grade-all` (workers forked from the service's zygote: the first student's made for the grade, each
later one's the spare forked after the previous verdict) and the Gradescope bundle's run_autograder.
The control: an allowlisted variable (TZ) is seen, HOME and TMPDIR are the grade's scratch folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from normkata.grading.launch import worker_environment

SUBMISSION = Path(__file__).parent / "fixtures" / "env" / "reads_the_environment.py"
SECRET = "hunter2-grader-token"
HOST = {
    "NORMKATA_TEST_SECRET": SECRET,
    "TZ": "Europe/Paris",
    "AWS_SECRET_ACCESS_KEY": SECRET,
    "TRITON_CACHE_DIR": "/home/teacher/.triton",
    "OMP_NUM_THREADS": "3",
}
#: What the submission must report seeing: no secret, TZ, its scratch folder, the grader's thread count.
SEEN = "secret=None tz='Europe/Paris' raw=False scratch=True triton_cache=False threads=3"

pytestmark = pytest.mark.slow


def _run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **HOST, "NORMKATA_HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-m", "normkata", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def _seen(text: str) -> set[str]:
    """What the submission said it saw, one `secret=... threads=...` per message."""
    return set(re.findall(r"secret=\S+ tz=\S+ raw=\w+ scratch=\w+ triton_cache=\w+ threads=\S+", text))


def test_the_worker_environment_is_an_allowlist() -> None:
    host = {
        **HOST,
        "PATH": "/usr/bin",
        "LC_ALL": "C.UTF-8",
        "HOME": "/home/teacher",
        "TMPDIR": "/home/teacher/tmp",
        "HTTPS_PROXY": "http://user:pw@proxy",
        "TRITON_PTXAS_PATH": "/opt/cuda/bin/ptxas",
    }
    env = worker_environment(host)
    assert env["TZ"] == "Europe/Paris" and env["PATH"] == "/usr/bin" and env["LC_ALL"] == "C.UTF-8"
    assert env["TRITON_PTXAS_PATH"] == "/opt/cuda/bin/ptxas"
    assert not {"NORMKATA_TEST_SECRET", "AWS_SECRET_ACCESS_KEY", "HOME", "TMPDIR", "HTTPS_PROXY"} & set(env)
    assert "TRITON_CACHE_DIR" not in env  # the grader's own is set in the scratch folder
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == "3"


@pytest.mark.parametrize(("asked", "threads"), [(None, "1"), ("", "1"), ("0", "1"), ("two", "1"), (" 4 ", "4")])
def test_the_grader_sets_the_thread_count(asked: str | None, threads: str) -> None:
    """OMP_NUM_THREADS wins where it is a count (normkata.threads); anything else is not passed on."""
    env = worker_environment({} if asked is None else {"OMP_NUM_THREADS": asked})
    assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == threads


def test_grade_hides_the_host_environment_from_the_submission(tmp_path: Path) -> None:
    shutil.copy(SUBMISSION, tmp_path / "rmsnorm.py")
    run = _run(["grade", "rmsnorm", "--file", "rmsnorm.py", "--json", "--timeout", "5"], tmp_path)
    assert run.returncode == 1, run.stderr[-500:]
    assert SECRET not in run.stdout + run.stderr
    messages = " ".join(case["message"] for case in json.loads(run.stdout)["cases"])
    assert _seen(messages) == {SEEN}, messages[:500]


def test_grade_all_hides_the_host_environment_from_every_submission(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    for student in ("alice", "bob", "carol"):
        shutil.copy(SUBMISSION, tmp_path / "class" / f"{student}.py")
    run = _run(["grade-all", "rmsnorm", "class", "--out", "out"], tmp_path)
    assert run.returncode in (0, 1), run.stderr[-500:]
    written = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert SECRET not in written + run.stdout + run.stderr
    assert _seen(written) == {SEEN}, written[:500]
    assert written.count(SEEN) >= 3  # every student's report


def test_the_gradescope_bundle_hides_the_host_environment(tmp_path: Path) -> None:
    """run_autograder as Gradescope runs it (tests/test_gradescope_bundle.py), with a secret in the
    environment it is given: results.json, which the student reads, holds none of it."""
    wheel = tmp_path / "normkata-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"stand-in: setup.sh is not run here, normkata comes from this environment")
    built = _run(["gradescope-bundle", "rmsnorm", "--wheel", str(wheel), "--out", "autograder.zip"], tmp_path)
    assert built.returncode == 0, built.stderr[-500:]
    root = tmp_path / "autograder"
    zipfile.ZipFile(tmp_path / "autograder.zip").extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    shutil.copy(SUBMISSION, root / "submission" / "rmsnorm.py")
    env = {
        **os.environ,
        **HOST,
        "NORMKATA_AUTOGRADER_ROOT": str(root),
        "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))),
    }
    env.pop("NORMKATA_HOME", None)  # run_autograder chooses its own
    done = subprocess.run(
        [str(root / "run_autograder")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-500:]
    results = (root / "results" / "results.json").read_text(encoding="utf-8")
    assert SECRET not in results + done.stdout + done.stderr
    outputs = " ".join(test["output"] for test in json.loads(results)["tests"])
    assert _seen(re.sub(r"\\(.)", r"\1", outputs)) == {SEEN}, outputs[:500]  # Markdown's escapes undone
