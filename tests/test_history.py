"""`normkata history [NAME] [--diff]` on attempts written through KataLog."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from normkata.content.katas import load_katas
from normkata.grading.contract import GradeResult
from normkata.paths import database_path
from normkata.record.attempts import KataLog
from normkata.record.store import Store
from tests.conftest import invoke
from tests.grades import grade_result


@pytest.fixture
def log() -> Iterator[KataLog]:
    store = Store(database_path())
    yield KataLog(store)
    store.close()


def result(cases: dict[str, str], seed: int, named: tuple[str, ...] = ()) -> GradeResult:
    return grade_result(kata(), cases, seed=seed, named={f"id-{t}": t for t in named}, file="a.py")


def kata() -> str:
    return load_katas()[0][0].id


def test_history_lists_attempts_with_score_seed_and_misconceptions(runner, log) -> None:
    log.attempt(result({"fwd": "failed", "shape": "passed"}, 11, ("eps outside the root",)), "cpu")
    log.attempt(result({"fwd": "passed", "shape": "passed"}, 12), "cpu")
    out = invoke(runner, ["history"]).stdout
    lines = [line for line in out.splitlines() if line.startswith("│")]
    assert len(lines) == 2
    assert "│ 1 │" in lines[0] and "1/2" in lines[0] and "11" in lines[0] and "eps outside the root" in lines[0]
    assert "│ 2 │" in lines[1] and "2/2 ✓" in lines[1] and "12" in lines[1]
    assert invoke(runner, ["history", kata()]).stdout == out


def test_diff_against_the_last_pass(runner, log) -> None:
    name = kata()
    log.attempt(result({"fwd": "failed", "bwd": "failed", "shape": "passed"}, 1, ("no upcast",)), "cpu")
    log.attempt(result({"fwd": "passed", "bwd": "passed", "shape": "passed"}, 2), "cpu")
    log.attempt(result({"fwd": "error", "bwd": "passed", "shape": "failed"}, 3, ("no upcast",)), "cpu")
    out = invoke(runner, ["history", name, "--diff"]).stdout
    body = out.split("\n", 1)[1]
    assert out.startswith(f"{name}: attempt #3 (") and ", 1/3) against the last pass, #2 (" in out
    assert body == ("Newly failing (2):\n  ✗ fwd (error)\n  ✗ shape (failed)\nMisconceptions named now: no upcast\n")
    assert invoke(runner, ["history", "--diff"]).stdout == out  # NAME defaults to the last kata


def test_diff_before_any_pass_and_with_one_attempt(runner, log) -> None:
    name = kata()
    log.attempt(result({"fwd": "failed", "bwd": "failed"}, 1, ("no upcast",)), "cpu")
    assert invoke(runner, ["history", name, "--diff"]).stdout == f"{name} has one attempt: nothing to compare yet.\n"
    log.attempt(result({"fwd": "passed", "bwd": "failed"}, 2), "cpu")
    out = invoke(runner, ["history", name, "--diff"]).stdout
    assert "against the one before, #1 (" in out and "no pass yet" in out
    assert out.split("\n", 1)[1] == "Newly passing (1):\n  ✓ fwd\nStill failing: 1\nNo longer named: no upcast\n"


def test_attempts_from_before_case_results(runner, log) -> None:
    name = kata()
    log.attempt(result({"fwd": "passed"}, 1), "cpu")
    log._conn.execute("UPDATE kata_attempts SET cases = NULL")  # as m007 leaves older rows
    log.attempt(result({"fwd": "failed"}, 2), "cpu")
    out = invoke(runner, ["history", name, "--diff"]).stdout
    assert "Attempt #1 was graded before case results were kept: grade again to compare." in out


def test_empty_history_and_bad_names(runner) -> None:
    assert invoke(runner, ["history"]).stdout.startswith("No kata attempts yet")
    result_ = invoke(runner, ["history", "--diff"])
    assert result_.exit_code == 2 and "--diff needs a kata" in result_.stderr
    result_ = invoke(runner, ["history", "nosuchkata"])
    assert result_.exit_code == 2 and "nosuchkata" in result_.stderr and "Traceback" not in result_.output


def test_diff_across_a_file_that_would_not_import(runner, log) -> None:
    """A case an attempt lacks because the file would not import counts as an error there."""
    name = kata()
    log.attempt(result({"import": "error"}, 1), "cpu")
    log.attempt(result({"fwd": "passed", "bwd": "failed"}, 2), "cpu")
    out = invoke(runner, ["history", name, "--diff"]).stdout
    assert out.split("\n", 1)[1] == "Newly passing (1):\n  ✓ fwd\nStill failing: 1\n"
    log.attempt(result({"import": "error"}, 3), "cpu")
    out = invoke(runner, ["history", name, "--diff"]).stdout
    assert out.split("\n", 1)[1] == "Newly failing (1):\n  ✗ import (error)\n"
