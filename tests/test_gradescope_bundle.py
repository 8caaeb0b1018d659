"""`normkata gradescope-bundle`: the zip Gradescope needs, and its run_autograder run on a
submission in a temporary tree laid out as Gradescope's (`source/`, `submission/`, `results/`)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import invoke
from tests.grading.test_fixtures import fixture_source


def run_autograder(root: Path) -> dict:
    """Run it as Gradescope does, with this environment's normkata on PATH instead of setup.sh's."""
    env = {
        **os.environ,
        "NORMKATA_AUTOGRADER_ROOT": str(root),
        "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))),
    }
    env.pop("NORMKATA_HOME", None)  # run_autograder chooses its own
    done = subprocess.run(
        [str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


@pytest.mark.slow  # builds the normkata wheel
def test_bundle_grades_a_submission_like_gradescope(runner, tmp_path: Path) -> None:
    bundle = tmp_path / "autograder.zip"
    result = invoke(runner, ["gradescope-bundle", "rmsnorm", "--out", str(bundle)])
    assert result.exit_code == 0, result.output
    archive = zipfile.ZipFile(bundle)
    names = archive.namelist()
    (wheel,) = [n for n in names if n.endswith(".whl")]
    assert sorted(names) == sorted(["setup.sh", "run_autograder", wheel]) and wheel.startswith("normkata-")
    for script in ("setup.sh", "run_autograder"):
        assert stat.S_IMODE(archive.getinfo(script).external_attr >> 16) == 0o755
    setup = archive.read("setup.sh").decode()
    assert "install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in setup
    assert f'install "$ROOT/source/"{wheel}' in setup
    assert setup.index("torch==2.13.0") < setup.index(wheel)  # torch first: the CPU wheel satisfies normkata

    root = tmp_path / "autograder"
    archive.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)  # zipfile does not restore modes; Gradescope does
    (root / "submission").mkdir()
    (root / "results").mkdir()

    missing = run_autograder(root)
    assert missing == {
        "score": 0.0,
        "tests": [],
        "output": "Your submission has no rmsnorm.py: upload a file with exactly that name.",
    }

    learner = fixture_source("rmsnorm", "buggy_eps_outside_sqrt")
    (root / "submission" / "rmsnorm.py").write_text(learner)
    results = run_autograder(root)
    assert results["output_format"] == "md" and results["visibility"] == "visible"
    scored = [t for t in results["tests"] if "max_score" in t]
    assert results["score"] == sum(t["score"] for t in scored) < len(scored)
    assert "rms-eps-outside-sqrt" in [m["id"] for m in results["extra_data"]["misconceptions"]]
    assert [p.name for p in (root / "submission").iterdir()] == ["rmsnorm.py"]  # graded from a copy
    assert (root / "submission" / "rmsnorm.py").read_text() == learner


def test_bundle_without_a_wheel_outside_a_checkout_is_exit_2(runner, tmp_path: Path, monkeypatch) -> None:
    from normkata.classroom import bundle

    monkeypatch.setattr(bundle, "content_root", lambda: tmp_path)
    result = invoke(runner, ["gradescope-bundle", "rmsnorm", "--out", str(tmp_path / "a.zip")])
    assert result.exit_code == 2
    assert "normkata runs from an installed wheel here: pass that wheel with --wheel FILE" in result.stderr
    not_a_wheel = tmp_path / "other.zip"
    not_a_wheel.write_bytes(b"")
    result = invoke(runner, ["gradescope-bundle", "rmsnorm", "--wheel", str(not_a_wheel)])
    assert result.exit_code == 2 and f"--wheel: {not_a_wheel} is not a normkata wheel" in result.stderr


@pytest.mark.parametrize(
    ("kata", "extras"), [("triton_rmsnorm", "[triton]"), ("triton_rmsnorm_backward", "[triton]"), ("rmsnorm", "")]
)
def test_setup_installs_the_extras_the_kata_requires(runner, tmp_path: Path, kata: str, extras: str) -> None:
    """without the triton extra in the image, every kernel-kata submission was graded
    "needs the triton extra". The wheel is installed as `normkata-….whl[triton]`, one argument to pip."""
    wheel = tmp_path / "normkata-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"stand-in: setup.sh is read, not run")
    bundle = tmp_path / "autograder.zip"
    result = invoke(runner, ["gradescope-bundle", kata, "--wheel", str(wheel), "--out", str(bundle)])
    assert result.exit_code == 0, result.output
    setup = zipfile.ZipFile(bundle).read("setup.sh").decode()
    (line,) = [x for x in setup.splitlines() if '"$ROOT/source/"' in x]
    # What pip receives, word by word, when bash runs that line (pip replaced by printf).
    echoed = subprocess.run(
        ["bash", "-c", line.replace('"$ROOT/normkata-venv/bin/pip"', "printf '%s\\n'")],
        env={"ROOT": "/autograder"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert echoed.stdout.splitlines() == ["install", f"/autograder/source/{wheel.name}{extras}"]
