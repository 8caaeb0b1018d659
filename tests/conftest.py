"""Every test gets its own state directory, workspace and language."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("NORMKATA_HOME", str(home))
    monkeypatch.setenv("NORMKATA_WORKSPACE", str(tmp_path / "workspace"))
    monkeypatch.setenv("NORMKATA_LANG", "en")
    # The terminal is pinned: what a test reads must not depend on the window it was started in.
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("LINES", "40")
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


class Database:
    """Reads the progress database as it is now; each query opens a fresh connection."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def execute(self, sql: str, params: tuple = ()) -> Rows:
        assert self.path.exists(), f"no database at {self.path}"
        connection = sqlite3.connect(self.path)
        connection.row_factory = sqlite3.Row
        try:
            return Rows(connection.execute(sql, params).fetchall())
        finally:
            connection.close()


class Rows(list):
    def fetchall(self) -> list[sqlite3.Row]:
        return list(self)

    def fetchone(self) -> sqlite3.Row | None:
        return self[0] if self else None


@pytest.fixture
def db(isolated_home: Path) -> Database:
    return Database(isolated_home / "normkata.db")


def invoke(runner: CliRunner, args: list[str], stdin: str | None = None):  # type: ignore[no-untyped-def]
    from normkata.cli import cli

    return runner.invoke(cli, args, input=stdin, catch_exceptions=False)


@pytest.fixture(scope="session")
def grading_service(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One warm grader for the session: each file still gets a fresh confined worker."""
    from normkata.grading.client import Grader

    home = tmp_path_factory.mktemp("service-home")
    with Grader(env={"NORMKATA_HOME": str(home), "NORMKATA_LANG": "en"}) as service:
        yield service
