"""Every test gets its own state directory, workspace and language."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from normkata.clock import Clock
from normkata.content.katas import load_katas
from normkata.extras import OPTIONAL_EXTRAS

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


#: The learner's local hours a test of days runs at (morning, evening, late evening, just after
#: midnight), each in a zone far from UTC, so that no such test depends on when or where it runs.
LOCAL_HOURS = (("08:00", -10), ("19:30", 13), ("23:30", -10), ("00:10", 13))
#: The day those tests take as today: a Sunday.
SOME_DAY = date(2026, 12, 6)


def set_learner_clock(monkeypatch: pytest.MonkeyPatch, hhmm: str, offset: int, day: date = SOME_DAY) -> Clock:
    """The process's clock (normkata.clock) reads `hhmm` on `day` at UTC`offset` now, and runs on from there."""
    zone = timezone(timedelta(hours=offset))
    hour, minute = (int(part) for part in hhmm.split(":"))
    clock = Clock(datetime.combine(day, time(hour, minute), tzinfo=zone), zone)
    monkeypatch.setattr("normkata.clock._current", clock)
    return clock


@pytest.fixture(params=LOCAL_HOURS, ids=[f"{hhmm}UTC{offset:+d}" for hhmm, offset in LOCAL_HOURS])
def learner_clock(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Clock:
    """A test that reads the learner's day runs once at each of LOCAL_HOURS."""
    hhmm, offset = request.param
    return set_learner_clock(monkeypatch, hhmm, offset)


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


@pytest.fixture(autouse=True)
def one_off_grades_in_the_service(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process commands (`grade`, `grade --list` of a kata without cases.yaml, `bench --use-mine`, `next`'s kata) grade
    through the session's warm grading service instead of a one-off runner each: the same runner
    code, request and verdict, without importing torch twice per grade (about 2 s of CPU).

    The one-off runner itself is tested where it matters: tests/grading/test_hostile.py's
    command-line tricks (`normkata grade` in a process of its own), the Gradescope bundle's
    run_autograder, and the tests marked `one_off_runner` (a new learner's first grade, `grade
    --list`, doctor's both paths), which get the real one."""
    if request.node.get_closest_marker("one_off_runner"):
        return
    from normkata.grading import client

    def grade_once(kata: str, file: Path, **options: object) -> object:
        return request.getfixturevalue("grading_service").grade(kata, file, **options)

    def collect_cases(kata: str, lang: str = "en") -> list[tuple[str, str]]:
        return request.getfixturevalue("grading_service").list_cases(kata, lang)  # type: ignore[no-any-return]

    monkeypatch.setattr(client, "grade_once", grade_once)
    monkeypatch.setattr(client, "collect_cases", collect_cases)


@pytest.fixture(scope="session")
def grading_service(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """One warm grader for the session: each file still gets a fresh confined worker."""
    from normkata.grading.client import Grader

    home, workspace = tmp_path_factory.mktemp("service-home"), tmp_path_factory.mktemp("service-workspace")
    # It may start (or restart) inside any test, whose own settings are in os.environ then: every
    # variable normkata reads is set here, an empty one meaning the default.
    env = {
        "NORMKATA_HOME": str(home),
        "NORMKATA_WORKSPACE": str(workspace),
        "NORMKATA_LANG": "en",
        "NORMKATA_KATAS": "",
        "NORMKATA_QUIZZES": "",
        "NORMKATA_SANDBOX": "",
    }
    with Grader(env=env) as service:
        yield service


def _kata_of(item: pytest.Item) -> str | None:
    """The kata a parametrized test is about: a `kata` parameter, or a parameter that has one."""
    params = getattr(item, "callspec", None)
    for value in params.params.values() if params else ():
        kata = value if isinstance(value, str) else getattr(value, "kata", None)
        if isinstance(kata, str) and kata in KATA_EXTRAS:
            return kata
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: `-m extra` must see the marks added here
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test parametrized by a kata that needs an optional extra is marked `extra(...)` (so it is
    skipped, saying so, without it).

    The slow tests (real processes, grades, waits on a terminal) run first, the quick ones
    last: `-n auto` hands tests out in this order, so the last minute is many small tests both
    workers share, not one worker waiting on a `watch` while the other has finished."""
    for item in items:
        for extra in KATA_EXTRAS.get(_kata_of(item) or "", ()):
            item.add_marker(pytest.mark.extra(extra))
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# The optional extras a test may need, by the module that proves each is installed. The README's
# quick start installs none of them; `.ci/run` then installs each and runs the tests that need it.
KATA_EXTRAS = {kata.id: kata.requires for kata in load_katas()[0] if kata.requires}


def pytest_runtest_setup(item: pytest.Item) -> None:
    """`@pytest.mark.extra("triton")`: skipped, naming the extra and its install line, without it."""
    for mark in item.iter_markers("extra"):
        for extra in mark.args:
            if not OPTIONAL_EXTRAS[extra].installed():
                pytest.skip(f'needs the optional {extra} extra: pip install -e ".[{extra}]"')


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite the files the tests compare text with (tests/golden/, katas/*/cases.yaml) instead of comparing.",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """`golden(path, text)`: `text` must equal the file at `path`; with --update-golden it is written there."""
    update = request.config.getoption("--update-golden")

    def check(path: Path, text: str) -> None:
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        assert path.is_file(), f"{path} is missing: write it with `pytest {request.node.path.name} --update-golden`"
        assert text == path.read_text(encoding="utf-8"), f"{path} differs (a deliberate change: --update-golden)"

    return check
