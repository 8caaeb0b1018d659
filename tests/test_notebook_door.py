"""What the notebook's magics do, without IPython (normkata.notebook.door): a `%%kata` cell saved
as the workspace's file (never through a link, never over other code without keeping it), graded
through the loop and recorded as `normkata grade` records it, shown as HTML and text in the
notebook's words. The magics in IPython: tests/test_notebook_magics.py; a real kernel:
tests/test_notebook_kernel.py."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from normkata.actions import Action, speaking, spoken
from normkata.content.katas import get_kata
from normkata.errors import InputError
from normkata.notebook.cells import save_cell
from normkata.notebook.door import Notebook
from normkata.notebook.vocabulary import NOTEBOOK_WORDS
from normkata.paths import solutions_dir
from tests.conftest import invoke
from tests.grading.test_fixtures import fixture_source

BUGGY = fixture_source("rmsnorm", "buggy_eps_outside_sqrt")
CORRECT = (solutions_dir() / "rmsnorm.py").read_text(encoding="utf-8")
#: Columns of an attempt that differ between two grades of the same file with the same seed.
WHEN = ("id", "at", "duration_s")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "workspace"  # NORMKATA_WORKSPACE, set by conftest


@pytest.fixture
def door() -> Notebook:
    """A door whose grades would start a service of its own (the tests that take this one grade nothing)."""
    return Notebook()


@pytest.fixture
def grading_door(grading_service) -> Notebook:  # type: ignore[no-untyped-def]
    """A door grading through the test session's warm service."""
    return Notebook(grade=grading_service.grade)


def plain(text: str) -> str:
    return " ".join(text.split())


def html_text(markup: str) -> str:
    """What a notebook shows of an HTML output: the text, its entities read."""
    return plain(html.unescape(re.sub(r"<[^>]+>", "", markup)))


# -- the notebook's words -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "lang", "said"),
    [
        (Action.of("grade", kata="rmsnorm"), "en", "`%%kata rmsnorm`"),
        (Action.of("kata", kata="layernorm"), "en", "`%kata layernorm`"),
        (Action.of("hint", kata="rmsnorm"), "en", "`%kata_hint rmsnorm`"),
        (Action.of("solution", kata="rmsnorm"), "en", "`%kata_solution rmsnorm`"),
        (Action.of("hint", kata="rmsnorm"), "zh", "`%kata_hint rmsnorm --lang zh`"),
        # No magic for it: the command line's words (a quiz is a terminal's).
        (Action.of("quiz", topic="rmsnorm", n=5), "en", "`normkata quiz --topic rmsnorm -n 5`"),
        (Action.of("interview", id=("card-rms-eps",)), "zh", "`normkata interview --id card-rms-eps --lang zh`"),
    ],
)
def test_a_step_is_a_magic_where_the_notebook_has_one(action: Action, lang: str, said: str) -> None:
    with speaking(NOTEBOOK_WORDS):
        assert spoken(action, lang) == said


# -- the cell as the workspace's file ------------------------------------------------------------


def test_a_cell_is_written_as_the_kata_file_and_never_over_other_code_unkept(workspace: Path) -> None:
    kata = get_kata("rmsnorm", "en")
    target = workspace / "rmsnorm.py"
    first = save_cell(workspace, kata, "x = 1", "en")
    assert first.written and first.kept is None and target.read_text() == "x = 1\n"
    assert not save_cell(workspace, kata, "x = 1\n", "en").written  # the same text: nothing to write
    # What this notebook wrote last, or the starter, is replaced without a copy.
    assert save_cell(workspace, kata, "x = 2", "en", last_written="x = 1\n").kept is None
    target.write_text(kata.starter.read_text(encoding="utf-8"))
    assert save_cell(workspace, kata, "x = 3", "en", last_written="x = 2\n").kept is None
    assert not (workspace / "history").exists()
    # Anything else (the learner's editor, yesterday's notebook) is kept first, and said.
    target.write_text("# my own work\n")
    saved = save_cell(workspace, kata, "x = 4", "en", last_written="x = 3\n")
    assert saved.kept is not None and saved.kept.parent == workspace / "history"
    assert saved.kept.name.startswith("rmsnorm.") and saved.kept.read_text() == "# my own work\n"
    target.write_text("# more of my own work\n")
    again = save_cell(workspace, kata, "x = 5", "en", last_written="x = 4\n")
    assert again.kept is not None and again.kept != saved.kept  # the same second: a name of its own
    assert again.kept.read_text() == "# more of my own work\n" and target.read_text() == "x = 5\n"


def test_a_cell_is_never_written_through_a_link(workspace: Path, tmp_path: Path) -> None:
    kata = get_kata("rmsnorm", "en")
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("theirs\n")
    workspace.mkdir()
    (workspace / "rmsnorm.py").symlink_to(elsewhere)
    with pytest.raises(InputError, match="rmsnorm.py is a symbolic link"):
        save_cell(workspace, kata, "x = 1", "en")
    assert elsewhere.read_text() == "theirs\n"
    # Other code to keep, and history/ a link: refused before the file is touched.
    (workspace / "rmsnorm.py").unlink()
    (workspace / "rmsnorm.py").write_text("# mine\n")
    (workspace / "history").symlink_to(tmp_path)
    with pytest.raises(InputError, match="history is a symbolic link"):
        save_cell(workspace, kata, "x = 1", "en")
    assert (workspace / "rmsnorm.py").read_text() == "# mine\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".py") == ["elsewhere.py"]


# -- grading: the loop's, recorded as `grade` records it ------------------------------------------


@pytest.mark.slow
def test_a_cell_is_graded_and_recorded_as_normkata_grade_records_it(
    runner, grading_door: Notebook, workspace: Path, db
) -> None:  # type: ignore[no-untyped-def]
    said: list[str] = []
    graded = grading_door.grade_cell("rmsnorm", BUGGY, seed=7, say=said.append)
    assert said == ["Starting the grader (the first grade takes a few seconds; the next ones are quick)…"]
    assert graded.kept.recorded and not graded.kept.result.passed
    assert (workspace / "rmsnorm.py").read_text() == BUGGY.rstrip("\n") + "\n"
    bundle = graded.page.bundle()
    failing = next(case for case in graded.kept.result.cases if case.diagnosis == "rms-eps-outside-sqrt")
    for form, read in (("text/html", html_text), ("text/plain", plain)):
        shown = read(bundle[form])
        assert "Recognised mistake: eps added outside the square root" in shown, form
        assert "Use x * rsqrt(mean(x²) + eps): eps belongs inside the root." in shown, form
        assert f"{failing.name}: {plain(failing.message)}" in shown and "NOT YET" in shown, form
    assert bundle["text/html"].startswith('<pre class="normkata"') and "<script" not in bundle["text/html"]
    # The notes speak the notebook's words: the card to study is a terminal's command.
    assert "(`normkata interview --id card-rms-eps`)" in plain(bundle["text/plain"])
    cli = invoke(runner, ["grade", "rmsnorm", "--seed", "7"])  # the same file, graded by the command
    assert cli.exit_code == 1
    rows = db.execute("SELECT * FROM kata_attempts ORDER BY id").fetchall()
    cell_row, cli_row = ({k: row[k] for k in row.keys() if k not in WHEN} for row in rows)
    assert cell_row == cli_row and cell_row["file"] == str(workspace / "rmsnorm.py")
    # The next cell says nothing about warming up; a pass shows the next step.
    passed = grading_door.grade_cell("rmsnorm", CORRECT, say=said.append)
    assert len(said) == 1 and passed.kept.result.passed and passed.saved.kept is None
    assert "PASSED: 45 of 45 cases pass." in plain(passed.page.text())


@pytest.mark.slow
def test_a_cell_over_other_code_keeps_it_and_says_so(grading_door: Notebook, workspace: Path) -> None:
    workspace.mkdir()
    (workspace / "rmsnorm.py").write_text("# written in my editor\n")
    graded = grading_door.grade_cell("rmsnorm", CORRECT, say=lambda _line: None)
    kept = graded.saved.kept
    assert kept is not None and kept.read_text() == "# written in my editor\n"
    assert plain(graded.page.text()).startswith(f"{workspace / 'rmsnorm.py'} held other code: it was kept as {kept}")


@pytest.mark.slow
def test_a_run_of_some_cases_is_said_not_recorded(grading_door: Notebook, db) -> None:  # type: ignore[no-untyped-def]
    graded = grading_door.grade_cell("rmsnorm", CORRECT, select=("eps",), say=lambda _line: None)
    assert not graded.kept.recorded
    assert "Only the cases matching -k ran: this grade is not recorded." in plain(graded.page.text())
    assert db.execute("SELECT COUNT(*) AS n FROM kata_attempts").fetchone()["n"] == 0


# -- hints, the solution, the next step ----------------------------------------------------------


@pytest.mark.slow
def test_hints_and_the_solution_in_the_notebooks_words(grading_door: Notebook, db) -> None:  # type: ignore[no-untyped-def]
    grading_door.grade_cell("rmsnorm", BUGGY, say=lambda _line: None)
    hint = plain(grading_door.hint("rmsnorm").text())
    assert hint.startswith("Hint for the mistake your last rmsnorm grade named: eps added outside the square root")
    assert "(`%kata_hint rmsnorm` again gives the next of the kata's own hints.)" in hint
    with pytest.raises(InputError) as refused:
        grading_door.solution("rmsnorm")
    assert str(refused.value) == (
        "The reference solution of rmsnorm opens after a pass. "
        "To give up (recorded as giving up): `%kata_solution rmsnorm --give-up`"
    )
    assert db.execute("SELECT COUNT(*) AS n FROM kata_events WHERE kind = 'gave_up'").fetchone()["n"] == 0
    grading_door.grade_cell("rmsnorm", CORRECT, say=lambda _line: None)
    shown = plain(grading_door.solution("rmsnorm").text())
    assert "Reference solution: rmsnorm (RMSNorm from scratch)" in shown
    assert "Your file is the reference, line for line." in shown
    assert plain(grading_door.hint("rmsnorm").text()).startswith(
        "rmsnorm is passed: no hint needed. `%kata_solution rmsnorm`"
    )


def test_giving_up_is_recorded(door: Notebook, workspace: Path, db) -> None:  # type: ignore[no-untyped-def]
    door.kata("rmsnorm")
    shown = plain(door.solution("rmsnorm", give_up=True).text())
    assert shown.startswith("Recorded as giving up on rmsnorm.") and "class RMSNorm" in shown
    assert db.execute("SELECT COUNT(*) AS n FROM kata_events WHERE kind = 'gave_up'").fetchone()["n"] == 1


def test_kata_writes_the_starter_once_and_offers_a_cell_that_grades_it(door: Notebook, workspace: Path) -> None:
    page, cell = door.kata("rmsnorm")
    starter = get_kata("rmsnorm", "en").starter.read_text(encoding="utf-8")
    assert cell == f"%%kata rmsnorm\n{starter}"
    text = plain(page.text())
    assert "RMSNorm from scratch" in text and f"Starter written to {workspace / 'rmsnorm.py'}" in text
    (workspace / "rmsnorm.py").write_text("# mine\n")
    page, cell = door.kata("rmsnorm")
    assert cell == "%%kata rmsnorm\n# mine\n"
    assert f"{workspace / 'rmsnorm.py'} already exists: kept as it is." in plain(page.text())


def test_next_and_plan_name_magics_and_commands(door: Notebook, workspace: Path) -> None:
    door.kata("rmsnorm")  # a kata started: grading it is planned after a first quiz
    assert plain(door.next_step().text()) == "Next: `normkata quiz -n 5` (a short quiz shows where you stand)"
    planned = plain(door.plan(60).text())
    assert "`normkata quiz -n 5`" in planned and "`%%kata rmsnorm`" in planned, planned
    assert "normkata grade" not in planned and "normkata kata" not in planned
    standing = plain(door.standing().text())
    assert "RMSNorm" in standing and "Katas passed: 0 of" in standing and "Next: `normkata quiz -n 5`" in standing


def test_the_language_and_the_workspace_are_read_at_each_cell(door: Notebook, workspace: Path) -> None:
    english, chinese = door.learner(), door.learner("zh")
    assert chinese.lang == "zh" and english.lang == "en" and chinese.workspace == english.workspace
    assert door.learner() is english  # the service's own loop
    with pytest.raises(InputError, match="Unknown language 'fr'"):
        door.learner("fr")
    os.environ["NORMKATA_WORKSPACE"] = str(workspace / "other")  # conftest's monkeypatch restores it
    assert door.learner().workspace == workspace / "other"


@pytest.mark.slow
def test_one_grading_service_for_every_language_stopped_with_the_door(
    monkeypatch: pytest.MonkeyPatch, grading_service
) -> None:  # type: ignore[no-untyped-def]
    """The door's loop starts one service (counted here, grading through the session's); a cell in
    Chinese grades through it too (Learner.sharing), and closing the door stops it."""
    from normkata.grading import client

    services: list[object] = []
    closed: list[object] = []

    class Service:
        def __init__(self) -> None:
            services.append(self)

        def start(self) -> None:
            pass

        def grade(self, *args: Any, **options: Any) -> Any:
            return grading_service.grade(*args, **options)

        def close(self) -> None:
            closed.append(self)

    monkeypatch.setattr(client, "Grader", Service)
    door = Notebook()
    said: list[str] = []
    door.grade_cell("rmsnorm", CORRECT, say=said.append)
    graded = door.grade_cell("rmsnorm", BUGGY, lang="zh", say=said.append)
    shown = plain(graded.page.text())
    assert "eps 加在了平方根外面" in shown and "应写成 x * rsqrt(mean(x²) + eps)：eps 应在根号内。" in shown
    assert "这个单元格现在就是" in shown and len(said) == 1 and len(services) == 1 and closed == []
    door.close()
    assert closed == services


@pytest.mark.slow
def test_an_interrupted_grade_leaves_no_reply_for_the_next_cell(
    monkeypatch: pytest.MonkeyPatch, grading_service
) -> None:  # type: ignore[no-untyped-def]
    """Interrupting the kernel mid-grade stops the service: its late reply must not answer the
    next cell's request. The next cell starts a fresh one (and says so)."""
    from normkata.grading import client

    services: list[object] = []
    closed: list[object] = []

    class Service:
        def __init__(self) -> None:
            services.append(self)

        def start(self) -> None:
            pass

        def grade(self, *args: Any, **options: Any) -> Any:
            if len(services) == 1:
                raise KeyboardInterrupt
            return grading_service.grade(*args, **options)

        def close(self) -> None:
            closed.append(self)

    monkeypatch.setattr(client, "Grader", Service)
    door, said = Notebook(), []
    with pytest.raises(KeyboardInterrupt):
        door.grade_cell("rmsnorm", BUGGY, say=said.append)
    assert closed == services and len(said) == 1
    assert door.grade_cell("rmsnorm", CORRECT, say=said.append).kept.result.passed
    assert len(services) == 2 and len(said) == 2


def test_import_normkata_imports_neither_ipython_nor_torch() -> None:
    """`%load_ext normkata` finds its hook on the package; the door is imported only when IPython calls it."""
    probe = "import sys, normkata; print(callable(normkata.load_ipython_extension), 'IPython' in sys.modules, 'torch' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert run.stdout.split() == ["True", "False", "False"], run.stderr


def test_a_plan_toward_an_interview_date_shows_each_day(runner, door: Notebook, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.test_dated_plan import ahead, plan_json

    door.kata("rmsnorm")
    until = ahead(3)
    made = plan_json(runner, "--until", until)
    shown = door.plan().text()
    for day in made["days"]:
        assert f"{day['date']}: {day['planned']} of {day['minutes']} min" in shown
    commands = [step["command"] for day in made["days"] for step in day["steps"]]
    said = plain(shown)
    assert "normkata grade rmsnorm" in commands and "`%%kata rmsnorm`" in said and "normkata grade" not in said
    magics = ("normkata grade", "normkata kata", "normkata hint", "normkata solution")
    assert all(f"`{command}`" in said for command in commands if not command.startswith(magics))


@pytest.mark.slow
def test_the_learners_text_is_escaped_in_the_html(grading_door: Notebook) -> None:
    """What the report repeats of the learner's file (an import error's message) is text, never markup."""
    cell = 'raise RuntimeError("<img src=x onerror=alert(1)> [bold]no[/bold]")\n'
    page = grading_door.grade_cell("rmsnorm", cell, say=lambda _line: None).page.html()
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "[bold]no[/bold]" in html.unescape(re.sub(r"<[^>]+>", "", page))  # Rich markup shown, not applied
