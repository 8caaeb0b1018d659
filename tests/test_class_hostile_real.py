"""Class grading run the way a teacher runs it, with the real grader: from inside the class
folder, whose students left a `pytest.py`, a `torch.py` and a `normkata/` package there.

A Python started with the current folder on sys.path would import them before any confinement
(every row then a pass). Each one here writes a marker file when imported; inside the confined
worker that write is refused, so a marker can only come from an unconfined grader process.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

GRADING = Path(__file__).parent / "grading"
RMSNORM_FIXTURES = Path(__file__).parents[1] / "katas" / "rmsnorm" / "fixtures"
PLANTED = """\
import os
from pathlib import Path
try:
    Path(os.environ["MARKER_DIR"], "imported-" + __name__).write_text("an unconfined grader imported me")
except OSError:
    pass  # the confined worker, grading this file as a submission
"""


def _console_script(tmp_path: Path) -> Path:
    """`normkata` as pip installs it: a script whose folder, not the current one, is sys.path[0]."""
    script = tmp_path / "bin" / "normkata"
    script.parent.mkdir()
    script.write_text("import sys\nfrom normkata.cli import main\nsys.exit(main())\n")
    return script


def _run(script: Path, args: list[str], cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MARKER_DIR": str(tmp_path / "markers"),
        "NORMKATA_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "COLUMNS": "100",
    }
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


def test_grading_from_inside_a_class_folder_imports_nothing_of_it(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    (folder / "normkata").mkdir(parents=True)
    (tmp_path / "markers").mkdir()
    for planted in ("pytest.py", "torch.py", "normkata/__init__.py"):
        (folder / planted).write_text(PLANTED)
    shutil.copy(RMSNORM_FIXTURES / "correct_llama_style.py", folder / "alice.py")
    shutil.copy(RMSNORM_FIXTURES / "realworld" / "missing_keepdim.py", folder / "bob.py")
    script = _console_script(tmp_path)

    one = _run(script, ["grade", "rmsnorm", "--file", "alice.py", "--json", "--timeout", "5"], folder, tmp_path)
    assert one.returncode == 0, one.stderr[-2000:]
    assert json.loads(one.stdout)["passed"] is True

    batch = _run(script, ["grade-all", "rmsnorm", ".", "--out", "../grades", "--jobs", "1"], folder, tmp_path)
    assert batch.returncode == 1, batch.stderr[-2000:]
    text = (tmp_path / "grades" / "gradebook.csv").read_text(encoding="utf-8")
    rows = {r["submission"]: r for r in csv.DictReader(text.splitlines())}
    assert sorted(rows) == ["alice", "bob", "normkata", "pytest", "torch"]
    assert rows["alice"]["passed"] == "true" and rows["alice"]["score"] == rows["alice"]["max_score"] != "0"
    assert rows["bob"]["passed"] == "false" and rows["bob"]["misconceptions"] == "rms-missing-keepdim"
    assert rows["pytest"]["passed"] == rows["torch"]["passed"] == "false"  # graded as the files they are
    assert rows["normkata"]["error"].endswith("rmsnorm.py not found in normkata")
    assert os.listdir(tmp_path / "markers") == []  # no grader process imported a student's module

    inside = _run(script, ["grade-all", "rmsnorm", "."], folder, tmp_path)  # the default out is in the class
    assert inside.returncode == 2 and "choose a folder outside it" in " ".join(inside.stderr.split())


#: Runs a command as the subreaper of everything it leaves behind, then, 1 s after it exits, lists
#: what of it is still alive: every process it started, however detached, is reparented here.
_SUBREAPER = """\
import ctypes, json, os, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
code = subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
time.sleep(1)
alive = []
for entry in os.listdir("/proc"):
    try:
        stat = open(f"/proc/{entry}/stat").read()
        cmdline = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\\0", b" ").decode(errors="replace")
    except (OSError, ValueError):
        continue
    state, parent = stat.rsplit(")", 1)[1].split()[:2]
    if entry.isdigit() and int(parent) == os.getpid() and state != "Z":
        alive.append(cmdline)
print(json.dumps({"code": code, "alive": alive}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a subreaper is Linux's")
def test_no_process_of_a_class_run_is_alive_a_second_after_it_exits(tmp_path: Path) -> None:
    """The grading service's zygote (multiprocessing's forkserver) and its resource tracker were
    measured alive 2-3 s after grade-all exited: they left only when they noticed the runner gone."""
    folder = tmp_path / "class"
    folder.mkdir()
    for n in range(6):
        shutil.copy(RMSNORM_FIXTURES / "correct_llama_style.py", folder / f"student{n}.py")
    shutil.copy(RMSNORM_FIXTURES / "realworld" / "missing_keepdim.py", folder / "bob.py")
    command = [sys.executable, "-c", _SUBREAPER, sys.executable, "-m", "normkata"]
    command += ["grade-all", "rmsnorm", str(folder), "--out", str(tmp_path / "grades"), "--jobs", "2"]
    env = {**os.environ, "NORMKATA_HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["code"] == 1, done.stderr[-2000:]  # bob did not pass
    assert report["alive"] == []
    rows = list(csv.DictReader((tmp_path / "grades" / "gradebook.csv").read_text(encoding="utf-8").splitlines()))
    assert len(rows) == 7


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="read from /proc")
def test_closing_the_grading_service_ends_its_zygote_and_helpers_at_once(isolated_home: Path) -> None:
    """Every door (watch, the MCP tutor, grade-all, doctor) ends its service through Grader.close."""
    from normkata.grading.client import Grader

    grader = Grader()
    grader.start()
    helpers = grader.processes()  # the zygote, its resource tracker, the spare worker
    assert len(helpers) >= 2
    grader.close()

    def alive(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    assert [pid for pid in helpers if alive(pid)] == []  # no grace period: ended and reaped by the runner
