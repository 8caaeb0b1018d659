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
