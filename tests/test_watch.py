"""`normkata watch`, driven as a learner and an editor would: real processes, real saves."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from normkata.paths import solutions_dir
from tests.conftest import Database, invoke
from tests.terminal import spawn_normkata

pytestmark = pytest.mark.slow

GOOD = (solutions_dir() / "rmsnorm.py").read_text(encoding="utf-8")
#: eps fixed at 0.1 whatever the constructor says: most cases fail, with a clear message.
WRONG = GOOD.replace("self.eps)", "0.1)")
LINE_TIMEOUT = 120.0  # a grade on a busy 2-core machine, the grader's start included


class Watch:
    """`normkata watch --jsonl` in a process of its own; `verdict()` reads the next grade."""

    def __init__(self, file: Path, home: Path, *extra: str) -> None:
        env = {**os.environ, "NORMKATA_HOME": str(home), "NORMKATA_LANG": "en", "COLUMNS": "100"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "normkata", "watch", "rmsnorm", "--file", str(file), "--jsonl", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    def verdict(self, timeout: float = LINE_TIMEOUT) -> dict:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        assert ready, "no grade arrived"
        line = self.process.stdout.readline()
        assert line, self.stderr()
        return json.loads(line)

    def nothing_for(self, seconds: float) -> bool:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], seconds)
        return not ready

    def key(self, key: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(key + "\n")
        self.process.stdin.flush()

    def quit(self) -> int:
        self.key("q")
        return self.process.wait(timeout=30)

    def stderr(self) -> str:
        assert self.process.stderr is not None
        return self.process.stderr.read() if self.process.poll() is not None else ""

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def learner_file(tmp_path: Path) -> Path:
    file = tmp_path / "work" / "rmsnorm.py"
    file.parent.mkdir()
    file.write_text(WRONG, encoding="utf-8")
    return file


@pytest.fixture
def watch(learner_file: Path, isolated_home: Path) -> Iterator[Watch]:
    running = Watch(learner_file, isolated_home)
    yield running
    running.close()


def test_verdicts_follow_the_saves(watch: Watch, learner_file: Path, db: Database) -> None:
    first = watch.verdict()
    assert not first["passed"] and first["kata"] == "rmsnorm"
    assert any("eps" in c["message"] for c in first["cases"] if c["status"] == "failed")
    learner_file.write_text(GOOD, encoding="utf-8")
    assert watch.verdict()["passed"]
    learner_file.write_text(WRONG + "\n# back to the broken version\n", encoding="utf-8")
    third = watch.verdict()
    assert not third["passed"] and third["score"] == first["score"]
    assert watch.quit() == 0
    # Each re-grade is recorded like a grade, with its seed.
    rows = db.execute("SELECT passed, seed FROM kata_attempts WHERE kata = 'rmsnorm' ORDER BY id").fetchall()
    assert [row["passed"] for row in rows] == [0, 1, 0]
    assert all(row["seed"] for row in rows)


def test_a_save_by_rename_is_seen_and_an_unchanged_save_is_not_graded(watch: Watch, learner_file: Path) -> None:
    watch.verdict()
    replacement = learner_file.with_name(".rmsnorm.py.swp")
    replacement.write_text(GOOD, encoding="utf-8")
    os.replace(replacement, learner_file)  # what vim and many editors do
    assert watch.verdict()["passed"]
    learner_file.write_text(GOOD, encoding="utf-8")  # saved again, same content
    assert watch.nothing_for(3.0)
    assert watch.quit() == 0


def test_saves_during_a_grade_are_coalesced(watch: Watch, learner_file: Path) -> None:
    watch.verdict()
    for n in range(6):  # an editor saving again and again while the grader works
        learner_file.write_text(GOOD + f"\n# save {n}\n", encoding="utf-8")
        time.sleep(0.03)
    verdicts = [watch.verdict()]
    while not watch.nothing_for(4.0):
        verdicts.append(watch.verdict())
    # Six saves, far fewer grades (saves landing during a grade become one more), the last one
    # of the file as it ended.
    assert 1 <= len(verdicts) <= 3 and verdicts[-1]["passed"]
    assert watch.quit() == 0


def test_manual_mode_grades_on_r_only(learner_file: Path, isolated_home: Path) -> None:
    manual = Watch(learner_file, isolated_home, "--manual")
    try:
        assert not manual.verdict()["passed"]
        learner_file.write_text(GOOD, encoding="utf-8")
        assert manual.nothing_for(3.0)
        manual.key("r")
        assert manual.verdict()["passed"]
        assert manual.quit() == 0
    finally:
        manual.close()


def test_keys_in_a_terminal(learner_file: Path, isolated_home: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = {**os.environ, "NORMKATA_HOME": str(isolated_home), "NORMKATA_LANG": "en", "COLUMNS": "100", "NO_COLOR": "1"}
    child = spawn_normkata(["watch", "rmsnorm", "--file", str(learner_file)], env, timeout=LINE_TIMEOUT)
    try:
        # a line while the grader warms up (28-30 s of nothing on a loaded machine before).
        child.expect("Warming up the grader")
        child.expect(r"Grader ready in [\d.]+ s\.")
        child.expect("Keys: h hint")
        child.expect(r"✗ NOT YET: \d+ of \d+ cases pass\.")
        child.send("h")  # one keystroke, no Enter
        child.expect(r"Hint 1/3|Hint for the mistake your last rmsnorm grade named")
        child.send("s")  # as `normkata solution`: before a pass, it asks
        child.expect("Press y to see the reference solution anyway")
        child.send("x")
        child.expect("Solution not shown. Keep going!")
        child.send("l")
        child.expect(r"→ rmsnorm")
        learner_file.write_text(GOOD, encoding="utf-8")
        child.expect(r"✓ PASSED: (\d+) of \1 cases pass\.")
        child.send("h")
        child.expect("rmsnorm is passed: no hint needed")
        child.send("s")
        child.expect("Reference solution: rmsnorm")
        child.expect("def forward")
        child.expect("against the reference")  # your passing file beside it, as `solution` shows
        child.send("q")
        child.expect("Stopped watching.")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_s_before_a_pass_gives_up_on_y_as_solution_does(learner_file: Path, isolated_home: Path, db: Database) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = {**os.environ, "NORMKATA_HOME": str(isolated_home), "NORMKATA_LANG": "en", "COLUMNS": "100", "NO_COLOR": "1"}
    child = spawn_normkata(["watch", "rmsnorm", "--file", str(learner_file)], env, timeout=LINE_TIMEOUT)
    try:
        child.expect(r"✗ NOT YET: \d+ of \d+ cases pass\.")
        child.send("s")
        child.expect("Press y to see the reference solution anyway")
        child.send("y")
        child.expect("Reference solution: rmsnorm")
        child.expect("def forward")
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert [row["kind"] for row in db.execute("SELECT kind FROM kata_events WHERE kata = 'rmsnorm'")] == ["gave_up"]


def test_a_kata_passed_before_opens_its_solution_in_watch(
    runner, learner_file: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """One rule with `normkata solution`: once a kata has passed, s shows the solution, even while
    the file being watched (started over) fails."""
    pexpect = pytest.importorskip("pexpect")
    passing = tmp_path / "passing.py"
    passing.write_text(GOOD, encoding="utf-8")
    assert invoke(runner, ["grade", "rmsnorm", "--file", str(passing)]).exit_code == 0
    env = {**os.environ, "NORMKATA_HOME": str(isolated_home), "NORMKATA_LANG": "en", "COLUMNS": "100", "NO_COLOR": "1"}
    child = spawn_normkata(["watch", "rmsnorm", "--file", str(learner_file)], env, timeout=LINE_TIMEOUT)
    try:
        child.expect(r"✗ NOT YET: \d+ of \d+ cases pass\.")
        child.send("s")
        child.expect("def forward")
        child.send("q")
        child.expect("Stopped watching.")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_n_shows_the_next_katas_instructions_and_grades_nothing(watch: Watch, db: Database) -> None:
    """`n` moves on to the next kata: its instructions to read, its starter watched; an untouched
    starter is no grade of anything the learner wrote, so nothing is graded or recorded."""
    assert watch.verdict()["kata"] == "rmsnorm"
    watch.key("n")
    assert watch.nothing_for(10.0)
    assert watch.quit() == 0
    said = " ".join(watch.stderr().split())  # lines wrapped at the console's width
    assert "LayerNorm like torch.nn.LayerNorm" in said  # the instructions, as `normkata kata layernorm` shows them
    assert "(kata layernorm): save to re-grade" in said
    assert [row["kata"] for row in db.execute("SELECT kata FROM kata_attempts")] == ["rmsnorm"]
