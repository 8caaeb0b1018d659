"""Golden files: the text a learner or a teacher reads, one file per screen and language
(tests/golden/<screen>.<lang>.<ext>), compared whole, so that a change of wording is a visible diff.

A deliberate change rewrites them, in the same commit as the change:

    .venv/bin/python -m pytest tests/test_golden.py tests/test_golden_doors.py tests/test_case_lists.py --update-golden

What varies from run to run or machine to machine is pinned before the screen is drawn: the
terminal's width, an empty home and workspace, the grade's seed; a grade's time, torch version,
sandbox level and file path are set to fixed values (the report shows them, they are not its words).
"""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from normkata.grading.contract import GradeResult
from tests.conftest import invoke

GOLDEN = Path(__file__).parent / "golden"
LANGS = ["en", "zh"]
HERE = Path(__file__).parent

#: The learner's files a grade report is drawn for: a pass, a named mistake, a syntax error and a
#: forbidden call (torch's own RMSNorm).
SYNTAX_ERROR = "import torch\n\n\nclass RMSNorm(torch.nn.Module:\n    pass\n"
FORBIDDEN = """import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)
"""


def _learner_files() -> dict[str, str]:
    from normkata.paths import solutions_dir
    from tests.grading.test_fixtures import fixture_source

    return {
        "pass": (solutions_dir() / "rmsnorm.py").read_text(encoding="utf-8"),
        "mistake": fixture_source("rmsnorm", "buggy_eps_outside_sqrt"),
        "syntax": SYNTAX_ERROR,
        "forbidden": FORBIDDEN,
    }


def _pinned(result: GradeResult) -> GradeResult:
    """The result with what differs between runs and machines set to fixed values."""
    return dataclasses.replace(result, file="rmsnorm.py", duration_s=2.5, torch="2.x", sandbox="full")


def _drawn(draw, width: int = 80) -> str:  # type: ignore[no-untyped-def]
    """What `draw(console)` prints on a terminal `width` columns wide, without colour."""
    from rich.console import Console
    from rich.theme import Theme

    from normkata.ui.terminal import THEME

    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None, theme=Theme(THEME))
    draw(console)
    return out.getvalue()


@pytest.fixture(scope="module")
def grades(grading_service, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], GradeResult]:  # type: ignore[no-untyped-def]
    """(case, lang) -> the pinned result of grading that learner file with seed 7."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("the golden reports are drawn where CUDA cases are skipped")
    folder = tmp_path_factory.mktemp("golden-learner")
    results = {}
    for case, source in _learner_files().items():
        learner = folder / f"{case}.py"
        learner.write_text(source, encoding="utf-8")
        for lang in LANGS:
            results[case, lang] = _pinned(grading_service.grade("rmsnorm", learner, seed=7, lang=lang))
    return results


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", ["pass", "mistake", "syntax", "forbidden"])
def test_grade_report(case: str, lang: str, grades, golden) -> None:  # type: ignore[no-untyped-def]
    from normkata.grading import report

    result = grades[case, lang]
    assert result.passed is (case == "pass")
    golden(GOLDEN / f"grade-{case}.{lang}.txt", _drawn(lambda console: report.render(console, result)))


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fmt", ["gradescope", "junit", "exercism", "prairielearn"])
def test_grade_formats(fmt: str, lang: str, grades, golden, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from normkata.grading import formats

    written = tmp_path / formats.FORMATS[fmt].file
    formats.write(fmt, written, grades["mistake", lang])
    extension = "xml" if fmt == "junit" else "json"
    golden(GOLDEN / f"format-{fmt}.{lang}.{extension}", written.read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", LANGS)
def test_solution(lang: str, golden, isolated_home: Path) -> None:  # type: ignore[no-untyped-def]
    """The reference in an 80-column terminal: long lines wrap under their number, none is cut."""
    from normkata.content.katas import get_kata
    from normkata.workbench.showing import show_solution
    from normkata.workbench.workflow import Workbench

    bench = Workbench.open(isolated_home.parent / "workspace", lang)
    shown = _drawn(lambda console: show_solution(console, bench, get_kata("rmsnorm"), lang))
    golden(GOLDEN / f"solution.{lang}.txt", shown)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("screen", "args", "columns"),
    [
        ("kata", ["kata"], 80),
        ("plan", ["plan", "--minutes", "30"], 80),
        ("dashboard-80", [], 80),
        ("dashboard-120", [], 120),
        ("grade-list", ["grade", "rmsnorm_backward", "--list"], 80),
    ],
)
def test_screens_of_a_fresh_record(  # type: ignore[no-untyped-def]
    screen: str, args: list[str], columns: int, lang: str, runner, golden, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    # The screens of a machine without the triton extra (the README's install), wherever they are drawn.
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "triton" else found(name, *a))
    result = invoke(runner, [*args, "--lang", lang] if args else ["--lang", lang])
    assert result.exit_code == 0, result.output
    golden(GOLDEN / f"{screen}.{lang}.txt", result.stdout)


@pytest.mark.parametrize("lang", LANGS)
def test_quiz_and_progress_export(lang: str, runner, golden, monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Three questions answered from a pipe (seed 1), then the record exported: its summary."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.chdir(tmp_path)
    quiz = invoke(runner, ["quiz", "-n", "3", "--seed", "1", "--lang", lang], "a\nb\n1\n")
    assert quiz.exit_code == 0, quiz.output
    golden(GOLDEN / f"quiz.{lang}.txt", quiz.stdout)
    exported = invoke(runner, ["progress", "export", "progress.json", "--lang", lang])
    assert exported.exit_code == 0, exported.output
    golden(GOLDEN / f"progress-export.{lang}.txt", exported.stdout)
    tables = json.loads((tmp_path / "progress.json").read_text(encoding="utf-8"))["tables"]
    named = [table for table in tables if "_" in table or table == "srs"]  # review_logs, kata_attempts, ...
    assert named and not any(table in exported.stdout for table in named)  # what the rows are, not where they live


def test_chinese_golden_files_keep_chinese_typography() -> None:
    """No space after 。 and no half-width colon after a Chinese character, in any Chinese screen
    (the zh grade report had "……（容差 1e-05）。 这符合" and "多次调用同一模块: RMSNorm(17, …)")."""
    import re

    written = sorted(GOLDEN.glob("*.zh.*"))
    assert len(written) >= 12
    for path in written:
        text = path.read_text(encoding="utf-8")
        # A space after 。 in prose; a table cell's padding after a closing 。 is no space in a sentence.
        assert not re.search("。 +[^ │┃║]", text), path.name
        assert not re.search("[\u4e00-\u9fff][:;,?!] ", text), (
            path.name,
            re.findall("..[\u4e00-\u9fff][:;,] ..", text),
        )
