"""The workbench: one rule for the solution, the next kata, the learner's file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from normkata.content.katas import get_kata, load_katas
from normkata.errors import InputError
from normkata.paths import database_path
from normkata.record.attempts import KataLog
from normkata.record.store import Store
from normkata.workbench.due import keep_and_restart
from normkata.workbench.workflow import Workbench
from tests.grades import grade_result


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Workbench]:
    store = Store(database_path())
    yield Workbench(KataLog(store), tmp_path / "ws", "en")
    store.close()


def test_the_solution_opens_once_passed_ever_and_closes_while_written_again(bench: Workbench) -> None:
    kata = get_kata("rmsnorm")
    assert not bench.solution_open(kata)
    bench.record(grade_result("rmsnorm", score=2, max_score=2), "cpu")
    assert bench.solution_open(kata)
    bench.record(grade_result("rmsnorm", {"forward": "failed"}), "cpu")  # failing now: still passed, ever
    assert bench.solution_open(kata)
    keep_and_restart(bench.log.store, kata, bench.workspace)  # due again: a review round
    assert not bench.solution_open(kata)
    bench.record(grade_result("rmsnorm", score=2, max_score=2), "cpu")
    assert bench.solution_open(kata)


def test_next_kata_writes_its_starter_once_and_wraps_around(bench: Workbench) -> None:
    katas = load_katas()[0]
    following, started = bench.next_kata(katas[0])
    assert following == katas[1] and started is not None and started.written
    assert started.file == bench.file(following) and started.file.read_text() == following.starter.read_text()
    started.file.write_text("# mine\n")
    assert bench.next_kata(katas[0]) == (following, None) and started.file.read_text() == "# mine\n"
    assert bench.log.last_kata() == following.id  # started: what `grade` picks next
    assert bench.next_kata(katas[-1])[0] == katas[0]


def test_which_kata_and_which_file(bench: Workbench, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="No kata started yet"):
        bench.kata(None, "hint")
    with pytest.raises(InputError, match="No kata to grade yet"):
        bench.gradeable(None)
    kata = get_kata("layernorm")
    started = bench.start(kata)
    assert bench.kata(None, "hint") == kata and bench.learner_file(kata, None) == started.file
    assert not bench.start(kata).written  # the learner's file is kept
    with pytest.raises(InputError, match="no such file .*or grade "):
        bench.learner_file(kata, tmp_path / "layernorn.py")  # a typo: the workspace's file is offered
