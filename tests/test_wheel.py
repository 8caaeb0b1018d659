"""The built wheel carries quizzes/, katas/ and solutions/ and finds them from anywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = dist.glob("normkata-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "normkata/_content/quizzes/rmsnorm.yaml" in names
    assert any(n.startswith("normkata/_content/katas/") for n in names)
    assert any(n.startswith("normkata/_content/solutions/") for n in names)
    assert "normkata/data/tinyshakespeare.txt.gz" in names
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        text=True,
    )
    return target


def _run(site: Path, cwd: Path, home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    # Dependencies come from this environment; normkata itself only from the installed wheel.
    env = {**os.environ, "PYTHONPATH": str(site), "NORMKATA_HOME": str(home)}
    env.pop("NORMKATA_QUIZZES", None)
    return subprocess.run(
        [sys.executable, "-m", "normkata", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_wheel_runs_from_another_directory(installed_wheel: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [sys.executable, "-c", "import normkata.paths as p; print(p.content_root())"],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(installed_wheel)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()) == installed_wheel / "normkata" / "_content"
    check = _run(installed_wheel, elsewhere, tmp_path / "home", "content", "check")
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("OK: ")
    quiz = _run(
        installed_wheel,
        elsewhere,
        tmp_path / "home",
        "quiz",
        "-n",
        "3",
        "--seed",
        "1",
        "--json",
        stdin="A\nB\nA\n",
    )
    assert quiz.returncode == 0, quiz.stderr
    assert json.loads(quiz.stdout)["answered"] == 3
    lab = _run(
        installed_wheel, elsewhere, tmp_path / "home", "lab", "compare", "--quick", "--steps", "3", "--lr", "1e-3"
    )
    assert lab.returncode == 0, lab.stderr
    assert "Pre-LN + RMSNorm" in lab.stdout
