"""Grade and kata screens: advice that fits what was typed, the learner's line under
a syntax or import error, and `solution` with a heading and, after a pass, a diff."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from rich.cells import cell_len

from normkata.grading.runner import source_excerpt
from normkata.paths import database_path, solutions_dir
from normkata.record.attempts import KataLog
from normkata.record.store import Store
from tests.conftest import invoke
from tests.grades import grade_result


def test_missing_file_advice_fits_what_was_typed(runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(runner, ["grade", "rmsnorm", "--file", "missing.py"])
    assert result.exit_code == 2
    assert "--file missing.py: no such file (looked in" in result.stderr and "Check the path." in result.stderr
    assert "pass --file" not in result.stderr  # it was passed
    (tmp_path / "rmsnorm_v2.py").write_text("x = 1\n")
    result = invoke(runner, ["grade", "rmsnorm", "--file", "rmsnorm_v3.py"])
    assert "or grade " in result.stderr and "rmsnorm_v2.py" in result.stderr
    result = invoke(runner, ["grade", "rmsnorm"])  # no --file, no workspace file: start the kata
    assert "start the kata first (normkata kata rmsnorm), or name a file with --file." in result.stderr


def test_a_syntax_error_shows_the_line_and_a_caret() -> None:
    source = "import torch\n\n\ndef f(x):\n    return x.mean(-1\n"
    excerpt = source_excerpt(source, 5, syntax=True)
    code, caret = excerpt.splitlines()[1:]
    assert code == "   5 |     return x.mean(-1"
    assert caret.index("^") == code.index("(") and caret.count("^") == 1  # under the bracket never closed


def test_an_import_error_underlines_the_line() -> None:
    source = "import torch\nimport nonexistent\n"
    assert source_excerpt(source, 2).splitlines()[1:] == ["   2 | import nonexistent", "     | ^^^^^^^^^^^^^^^^^^"]
    assert source_excerpt(source, 9) == ""  # a line the file does not have: nothing made up


def test_solution_has_a_heading_and_after_a_pass_a_diff(runner, isolated_home: Path) -> None:
    assert invoke(runner, ["kata", "rmsnorm"]).exit_code == 0
    store = Store(database_path())
    KataLog(store).attempt(grade_result("rmsnorm", score=5, max_score=5, file="rmsnorm.py"), "cpu")
    store.close()
    result = invoke(runner, ["solution", "rmsnorm"])
    assert result.exit_code == 0
    assert "Reference solution: rmsnorm (RMSNorm from scratch)" in result.stdout
    assert "against the reference: - yours, + reference" in result.stdout
    assert "+++ reference" in result.stdout


def test_a_grade_without_a_verdict_is_one_line_and_exit_2(
    runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from normkata.grading import client
    from normkata.grading.errors import GraderError

    def no_verdict(*args: object, **options: object) -> None:
        raise GraderError("the grader failed: the worker vanished")

    monkeypatch.setattr(client, "grade_once", no_verdict)
    learner = tmp_path / "rmsnorm.py"
    learner.write_text("x = 1\n")
    result = invoke(runner, ["grade", "rmsnorm", "--file", str(learner)])
    assert result.exit_code == 2
    assert result.stderr.strip() == "Error: the grader failed: the worker vanished"


def test_piped_solution_is_the_reference_whole_and_runs(runner, tmp_path: Path) -> None:
    """`solution rmsnorm --yes > ref.py` was the terminal rendering cut at column 80
    (`torch.ones(hidden_size, device=device, d`): a file that did not parse."""
    result = invoke(runner, ["solution", "rmsnorm", "--yes"])
    assert result.exit_code == 0
    reference = (solutions_dir() / "rmsnorm.py").read_text(encoding="utf-8")
    shown = result.stdout.splitlines()
    assert any(len(line) > 80 for line in reference.splitlines())  # the case that was cut
    for line in reference.splitlines():
        assert line in shown
    ast.parse(result.stdout)
    assert shown[0] == "# Reference solution: rmsnorm (RMSNorm from scratch)"


def test_solution_in_a_terminal_wraps_long_lines_under_their_number(isolated_home: Path) -> None:
    from rich.console import Console

    from normkata.content.katas import get_kata
    from normkata.workbench.showing import show_solution
    from normkata.workbench.workflow import Workbench

    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    show_solution(console, Workbench.open(isolated_home / "workspace", "en"), get_kata("rmsnorm"), "en")
    text = out.getvalue()
    assert max(cell_len(line) for line in text.splitlines()) <= 80
    assert "# gain, starts at 1" in " ".join(text.split())  # the end of the longest line, past column 80
