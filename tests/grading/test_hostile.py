"""Hostile submissions (hostile_v2/: a wrong RMSNorm plus one trick each) against the real grader.

Each is graded with `normkata grade --file` from a throwaway copy of the package and its
content, as a learner's file is, with a progress database, a workspace holding another kata
and a results.json in the current folder. Every one must end as a failure within the budget,
leave no process behind and change no file outside its scratch folder: not the installation,
not site-packages, not the workspace, not the database beyond the attempt it records.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from normkata.paths import content_root
from tests.conftest import Database

HERE = Path(__file__).parent / "hostile_v2"
HOSTILE = sorted(p for p in HERE.glob("*.py") if p.read_text(encoding="utf-8").startswith("# expect: fail"))
#: The whole command, torch start-up included: the grade's own budget is far below it.
CEILING_S = 240

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """normkata and its content, copied: a tampering trick could only ever change this copy."""
    root = tmp_path_factory.mktemp("install")
    package = Path(__file__).resolve().parents[2] / "normkata"
    shutil.copytree(package, root / "normkata", ignore=shutil.ignore_patterns("__pycache__", "_content"))
    for folder in ("katas", "solutions", "quizzes"):
        shutil.copytree(content_root() / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _tree_hash(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


def _site_packages() -> set[str]:
    folder = Path(sysconfig.get_paths()["purelib"])
    return {p.name for p in folder.iterdir()}


def _survivors(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in command:
                found.append(command[:200])
    return found


def _normkata(installation: Path, args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from normkata.cli import main; main()", *args]
    full_env = {**os.environ, **env, "PYTHONPATH": str(installation), "COLUMNS": "100"}
    return subprocess.run(command, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=CEILING_S,
                          stdin=subprocess.DEVNULL)  # fmt: skip


@pytest.mark.parametrize("submission", HOSTILE, ids=lambda p: p.stem)
def test_hostile_submission_fails_and_harms_nothing(submission: Path, installation: Path, tmp_path: Path) -> None:
    home, workspace, cwd = tmp_path / "home", tmp_path / "workspace", tmp_path / "cwd"
    cwd.mkdir()
    env = {"NORMKATA_HOME": str(home), "NORMKATA_WORKSPACE": str(workspace), "NORMKATA_LANG": "en"}
    assert _normkata(installation, ["kata", "layernorm"], env, cwd).returncode == 0  # a workspace file, a database
    learner = cwd / "rmsnorm.py"
    shutil.copy(submission, learner)
    (cwd / "results.json").write_text('{"score": 0}\n')
    before = {"installation": _tree_hash(installation), "workspace": _tree_hash(workspace),
              "cwd": _tree_hash(cwd), "site-packages": _site_packages()}  # fmt: skip
    database = Database(home / "normkata.db")
    events_before = database.execute("SELECT COUNT(*) FROM kata_events").fetchone()[0]
    started = time.monotonic()
    run = _normkata(installation, ["grade", "rmsnorm", "--file", str(learner), "--json", "--timeout", "3"], env, cwd)
    took = time.monotonic() - started
    new_packages = _site_packages() - before["site-packages"]
    assert run.returncode == 1, (run.returncode, run.stderr[-500:])
    result = json.loads(run.stdout)
    assert not result["passed"] and result["sandbox"]
    assert "\x1b" not in run.stdout and "\ud800" not in run.stdout
    assert took < CEILING_S
    time.sleep(0.5)  # a detached child that meant to write after the grade has had its chance
    assert not _survivors(str(installation)), "a process outlived the grade"
    assert not new_packages, f"site-packages gained {new_packages}"
    assert _tree_hash(installation) == before["installation"], "the installation changed"
    assert _tree_hash(workspace) == before["workspace"], "the workspace changed"
    assert _tree_hash(cwd) == before["cwd"], "the current folder changed"
    assert database.execute("SELECT COUNT(*) FROM kata_events").fetchone()[0] == events_before
    attempts = database.execute("SELECT COUNT(*), MAX(passed) FROM kata_attempts WHERE kata = 'rmsnorm'").fetchone()
    assert tuple(attempts) == (1, 0)

