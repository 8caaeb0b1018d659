"""The magics in IPython itself (an InteractiveShell, as a plain IPython terminal runs them):
`%load_ext normkata`, what each magic displays (text/html and text/plain), bad input as one line,
the cell's code kept out of the kernel, `%unload_ext`. Grades go through the test session's warm
service; the kernel's own service: tests/test_notebook_kernel.py."""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from normkata.paths import solutions_dir
from tests.grading.test_fixtures import fixture_source

pytestmark = pytest.mark.extra("notebook")

BUGGY = fixture_source("rmsnorm", "buggy_eps_outside_sqrt")
CORRECT = (solutions_dir() / "rmsnorm.py").read_text(encoding="utf-8")


def plain(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


class Ran:
    """One cell run: its error, what it printed, and what it displayed (one MIME bundle each)."""

    def __init__(self, shell: Any, source: str) -> None:
        from IPython.utils.capture import capture_output

        with capture_output() as captured:
            result = shell.run_cell(source)
        self.error = result.error_in_exec
        self.stdout, self.stderr = captured.stdout, captured.stderr
        self.outputs = [output.data for output in captured.outputs]

    def shown(self, kind: str = "text/plain") -> str:
        return plain("\n".join(data[kind] for data in self.outputs if kind in data))


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Any]:
    """An IPython shell in the test's folder, normkata loaded, grading through the session's service
    (started at the first grade: a test that grades nothing does not wait for it)."""
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.chdir(tmp_path)
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from normkata.notebook import door, magics

    def grade(*args: Any, **options: Any) -> Any:
        return request.getfixturevalue("grading_service").grade(*args, **options)

    monkeypatch.setattr(magics, "Notebook", functools.partial(door.Notebook, grade=grade))
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    ip = InteractiveShell.instance(config=config)
    try:
        assert Ran(ip, "%load_ext normkata").error is None
        yield ip
    finally:
        Ran(ip, "%unload_ext normkata")
        InteractiveShell.clear_instance()


@pytest.mark.slow
def test_a_kata_cell_shows_its_report_as_html_and_text(shell: Any, tmp_path: Path) -> None:
    started = Ran(shell, "%kata rmsnorm")
    assert started.error is None and "RMSNorm from scratch" in started.shown()
    starter = (tmp_path / "workspace" / "rmsnorm.py").read_text()
    assert shell.rl_next_input == f"%%kata rmsnorm\n{starter}"  # the next cell: the starter, to grade
    first = Ran(shell, f"%%kata rmsnorm --seed 3\n{BUGGY}")
    assert first.error is None and first.stdout.startswith("Starting the grader")
    assert len(first.outputs) == 1 and set(first.outputs[0]) == {"text/plain", "text/html"}
    for kind in ("text/html", "text/plain"):
        assert "Recognised mistake: eps added outside the square root" in first.shown(kind)
        assert "seed 3" in first.shown(kind) and "NOT YET" in first.shown(kind)
    every = Ran(shell, f"%%kata rmsnorm --seed 3 --all\n{BUGGY}")  # every failing case, as grade --all
    assert every.shown().count("✗ ") > first.shown().count("✗ ") and every.stdout == ""
    hint = Ran(shell, "%kata_hint rmsnorm")
    assert hint.shown().startswith("Hint for the mistake your last rmsnorm grade named")
    second = Ran(shell, f"%%kata rmsnorm\n{CORRECT}")
    assert second.error is None and second.stdout == "" and "PASSED: 45 of 45" in second.shown()
    assert "Reference solution: rmsnorm" in Ran(shell, "%kata_solution").shown()
    assert Ran(shell, "%normkata next").shown().startswith("Next: ")


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (
            "%kata_solution rmsnorm",
            "The reference solution of rmsnorm opens after a pass. To give up (recorded as "
            "giving up): `%kata_solution rmsnorm --give-up`",
        ),
        ("%%kata\nx = 1", "%%kata: name the kata, e.g. `%%kata rmsnorm` (`%kata` lists them)"),
        (
            "%%kata rmsnorm --seed x\nx = 1",
            "%%kata: argument --seed: 'x' is not a whole number from 0 to 9223372036854775807",
        ),
        ("%%kata rmsnorm --bogus\nx = 1", "%%kata: unrecognized arguments: --bogus"),
        ("%%kata rmsnrom\nx = 1", "unknown kata 'rmsnrom' (did you mean rmsnorm?)"),
        ("%%kata rmsnorm --lang fr\nx = 1", "Unknown language 'fr': use en or zh."),
        ("%normkata nxt", "%normkata: say what to show: next, plan or standing (not 'nxt')"),
        ("%normkata plan --minutes 0", "%normkata: argument --minutes: '0' is not a whole number from 1 to 1440"),
        ("%kata rmsnorm 'unclosed", "%kata: No closing quotation"),
    ],
)
def test_bad_input_is_one_line_and_nothing_is_graded(shell: Any, source: str, said: str, tmp_path: Path, db) -> None:  # type: ignore[no-untyped-def]
    if source == "%kata_solution rmsnorm":
        Ran(shell, "%kata rmsnorm")
    ran = Ran(shell, source)
    assert type(ran.error).__name__ == "UsageError" and ran.outputs == []
    assert ran.stderr.startswith(f"UsageError: {said}") and ran.stderr.count("\n") == 1, ran.stderr
    assert "Traceback" not in ran.stderr + ran.stdout
    if source != "%kata_solution rmsnorm":
        assert not (tmp_path / "workspace" / "rmsnorm.py").exists()  # refused before the cell was saved
    assert not (tmp_path / "home" / "normkata.db").exists() or not db.execute("SELECT * FROM kata_attempts").fetchall()


@pytest.mark.slow
def test_the_cells_code_never_runs_in_the_kernel(shell: Any, tmp_path: Path) -> None:
    """A cell that writes a file and defines a name when imported: graded (it passes), yet the
    kernel has neither the name nor the file (its folder is the test's)."""
    body = CORRECT.replace("from __future__ import annotations\n", "")
    source = f"open('written_by_the_cell.txt', 'w').write('ran')\nMARKER = 1\n{body}"
    ran = Ran(shell, f"%%kata rmsnorm\n{source}")
    assert "PASSED: 45 of 45" in ran.shown()
    assert "MARKER" not in shell.user_ns and "RMSNorm" not in shell.user_ns
    assert "written_by_the_cell.txt" not in {p.name for p in tmp_path.rglob("*")}


def test_unload_removes_the_magics(shell: Any) -> None:
    assert Ran(shell, "%unload_ext normkata").error is None
    gone = Ran(shell, "%kata rmsnorm")
    assert type(gone.error).__name__ == "UsageError" and "%kata" in gone.stderr
    assert Ran(shell, "%load_ext normkata").error is None and Ran(shell, "%kata").error is None
