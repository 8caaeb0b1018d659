"""The workspace is opened as submissions are: no link followed for reading or
writing. A link in a kata file's place, dangling or not, or a `history` folder that is a link, is
refused with one line and exit 2, before anything is written or recorded; each control (the same
workspace without the link) works.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from normkata.commands.watching import _digest
from normkata.content.katas import get_kata
from normkata.paths import database_path
from normkata.record.attempts import KataLog
from normkata.record.store import Store
from tests.conftest import invoke
from tests.grades import grade_result

STARTER = get_kata("rmsnorm").starter.read_text(encoding="utf-8")
MINE = "# my passing RMSNorm\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    Store(database_path()).close()  # the learner's record exists: a refusal must leave it as it is
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file of the learner's outside the workspace, which a link points at."""
    path = tmp_path / "elsewhere" / "notes.py"
    path.parent.mkdir()
    path.write_text("# precious\n", encoding="utf-8")
    return path


@pytest.fixture
def passed_rmsnorm() -> Iterator[None]:
    """rmsnorm passed here once: `review --kata` writes it again, `solution` opens."""
    store = Store(database_path())
    try:
        KataLog(store).attempt(grade_result("rmsnorm", {"forward": "passed"}), "cpu")
    finally:
        store.close()
    yield


def rows() -> dict[str, list[tuple]]:
    path = database_path()
    if not path.exists():
        return {}
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {table: db.execute(f"SELECT * FROM {table}").fetchall() for table in tables}


def assert_refused_as_link(result, path: Path) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"Error: {path} is a symbolic link: normkata neither reads nor writes through "
        "links in the workspace. Put the file itself there (or remove the link to start "
        "afresh)."
    )


# -- normkata kata --------------------------------------------------------------------------------


def test_kata_refuses_a_dangling_link_and_creates_nothing(workspace: Path, tmp_path: Path, runner) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "created-through-the-link.py"
    (workspace / "rmsnorm.py").symlink_to(target)
    before = rows()
    result = invoke(runner, ["kata", "rmsnorm"])
    assert_refused_as_link(result, workspace / "rmsnorm.py")
    assert not target.exists() and rows() == before


@pytest.mark.parametrize("force", [False, True])
def test_kata_refuses_a_link_to_a_file_even_with_force(workspace: Path, outside: Path, runner, force: bool) -> None:  # type: ignore[no-untyped-def]
    (workspace / "rmsnorm.py").symlink_to(outside)
    result = invoke(runner, ["kata", "rmsnorm", *(["--force"] if force else [])])
    assert_refused_as_link(result, workspace / "rmsnorm.py")
    assert outside.read_text() == "# precious\n"


def test_kata_refuses_a_fifo_without_waiting(workspace: Path, runner) -> None:  # type: ignore[no-untyped-def]
    os.mkfifo(workspace / "rmsnorm.py")
    outcome: dict[str, object] = {}
    worker = threading.Thread(
        target=lambda: outcome.update(result=invoke(runner, ["kata", "rmsnorm", "--force"])), daemon=True
    )
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "normkata kata waited on a FIFO"
    result = outcome["result"]
    assert result.exit_code == 2 and "is a FIFO, not a regular file" in result.stderr  # type: ignore[attr-defined]


def test_control_kata_writes_the_starter_and_force_replaces_the_learners_file(workspace: Path, runner) -> None:  # type: ignore[no-untyped-def]
    assert invoke(runner, ["kata", "rmsnorm"]).exit_code == 0
    mine = workspace / "rmsnorm.py"
    assert mine.read_text() == STARTER
    mine.write_text(MINE + "# and much more\n" * 50)
    assert invoke(runner, ["kata", "rmsnorm"]).exit_code == 0 and mine.read_text().startswith(MINE)
    assert invoke(runner, ["kata", "rmsnorm", "--force"]).exit_code == 0 and mine.read_text() == STARTER


# -- review --kata and the history folder ---------------------------------------------------------------


def test_review_kata_refuses_a_kata_file_that_is_a_link(
    workspace: Path, outside: Path, passed_rmsnorm: None, runner
) -> None:  # type: ignore[no-untyped-def]
    (workspace / "rmsnorm.py").symlink_to(outside)
    before = rows()
    result = invoke(runner, ["review", "--kata", "rmsnorm"], stdin="s\n")
    assert_refused_as_link(result, workspace / "rmsnorm.py")
    assert outside.read_text() == "# precious\n"  # not replaced by the starter
    assert not (workspace / "history").exists() and rows() == before  # nor kept in the record


def test_review_kata_refuses_a_history_folder_that_is_a_link(
    workspace: Path, tmp_path: Path, passed_rmsnorm: None, runner
) -> None:  # type: ignore[no-untyped-def]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace / "history").symlink_to(elsewhere)
    (workspace / "rmsnorm.py").write_text(MINE)
    before = rows()
    result = invoke(runner, ["review", "--kata", "rmsnorm"], stdin="s\n")
    assert_refused_as_link(result, workspace / "history")
    assert list(elsewhere.iterdir()) == [] and (workspace / "rmsnorm.py").read_text() == MINE and rows() == before


def test_review_kata_refuses_a_history_that_is_a_file(workspace: Path, passed_rmsnorm: None, runner) -> None:  # type: ignore[no-untyped-def]
    (workspace / "history").write_text("not a folder")
    (workspace / "rmsnorm.py").write_text(MINE)
    result = invoke(runner, ["review", "--kata", "rmsnorm"], stdin="s\n")
    assert result.exit_code == 2 and f"{workspace / 'history'} is not a folder" in result.stderr
    assert (workspace / "rmsnorm.py").read_text() == MINE


def test_control_review_kata_keeps_the_file_in_history_and_writes_the_starter(
    workspace: Path, passed_rmsnorm: None, runner
) -> None:  # type: ignore[no-untyped-def]
    (workspace / "rmsnorm.py").write_text(MINE)
    result = invoke(runner, ["review", "--kata", "rmsnorm"], stdin="s\n")
    assert result.exit_code == 0, result.output
    assert (workspace / "rmsnorm.py").read_text() == STARTER
    assert [p.read_text() for p in (workspace / "history").iterdir()] == [MINE]
    with sqlite3.connect(database_path()) as db:
        assert db.execute("SELECT source FROM kata_kept").fetchall() == [(MINE,)]


def test_the_file_swapped_for_a_link_between_the_check_and_the_write_is_not_written_through(
    workspace: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write itself does not follow a link: what the check saw cannot be swapped under it."""
    from normkata.errors import InputError
    from normkata.workbench import files

    mine = workspace / "rmsnorm.py"
    mine.write_text(MINE)
    real_existing = files.existing

    def swapped(path: Path, lang: str) -> bool:
        found = real_existing(path, lang)
        path.unlink()
        path.symlink_to(outside)
        return found

    monkeypatch.setattr(files, "existing", swapped)
    with pytest.raises(InputError, match="symbolic link"):
        files.write(mine, STARTER, "en", replace=True)
    assert outside.read_text() == "# precious\n"


# -- watch, hint, solution, grade -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["watch", "rmsnorm", "--manual"], ["hint", "rmsnorm"], ["solution", "rmsnorm", "--yes"], ["grade", "rmsnorm"]],
    ids=["watch", "hint", "solution", "grade"],
)
def test_every_command_on_a_kata_refuses_its_dangling_link_before_recording_anything(
    workspace: Path, tmp_path: Path, runner, command: list[str]
) -> None:  # type: ignore[no-untyped-def]
    assert invoke(runner, ["kata", "rmsnorm"]).exit_code == 0  # started: hint and solution have a kata
    (workspace / "rmsnorm.py").unlink()
    (workspace / "rmsnorm.py").symlink_to(tmp_path / "gone.py")
    before = rows()
    result = invoke(runner, command, stdin="q\n")
    if command[0] == "grade":  # the grader's own check, with its own words
        assert result.exit_code == 2 and "is a symbolic link" in result.stderr
    else:
        assert_refused_as_link(result, workspace / "rmsnorm.py")
    assert rows() == before and not (tmp_path / "gone.py").exists()


def test_control_hint_and_solution_work_on_the_plain_file(workspace: Path, passed_rmsnorm: None, runner) -> None:  # type: ignore[no-untyped-def]
    assert invoke(runner, ["kata", "rmsnorm"]).exit_code == 0
    (workspace / "rmsnorm.py").write_text(MINE)
    assert invoke(runner, ["hint", "rmsnorm"]).exit_code == 0
    shown = invoke(runner, ["solution", "rmsnorm"])
    assert shown.exit_code == 0 and "class RMSNorm" in shown.stdout and "my passing RMSNorm" in shown.stdout


def test_watch_reads_no_file_through_a_link(workspace: Path, outside: Path) -> None:
    link = workspace / "rmsnorm.py"
    link.symlink_to(outside)
    assert _digest(link) is None
    plain = workspace / "layernorm.py"
    plain.write_text(MINE)
    assert _digest(plain) is not None  # control
