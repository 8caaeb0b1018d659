"""`normkata grade-all`: a class folder graded into a gradebook, through CliRunner.

Most tests swap the grader for a fake one (what is under test is the batch: discovery,
rows, reruns, errors); the slow test grades real and hostile files end to end.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from normkata.classroom import batch
from normkata.grading.contract import CaseResult, Category, Diagnosis, GradeResult, Status
from normkata.grading.errors import GraderError
from tests.conftest import invoke

GRADING = Path(__file__).parent / "grading"
RMSNORM_FIXTURES = Path(__file__).parents[1] / "katas" / "rmsnorm" / "fixtures"
HEADER = "submission,passed,score,max_score,cases_passed,reason,misconceptions,duration_s,seed,sha256,report,note,error"


@pytest.fixture(autouse=True)
def pinned_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")


class FakeGrader:
    """Grades by what the file says: `pass`, `eps` (the named eps mistake), `grader-error`, `crash`;
    the kata's reference (graded once for the suite's max_score) passes, and is not recorded."""

    def __init__(self) -> None:
        self.graded: list[str] = []
        self.options: list[dict[str, object]] = []

    def grade(self, kata_id: str, file: Path, **options: object) -> GradeResult:
        text = file.read_text()
        assert file.name == "rmsnorm.py" and [p.name for p in file.parent.iterdir()] == ["rmsnorm.py"]
        if text.startswith('"""Reference RMSNorm'):
            case = CaseResult("forward", "forward", Category.FORWARD, Status.PASSED)
            return GradeResult(kata_id, str(file), [case], [], 7, "full", 1.0, "2.13.0", "en")
        self.graded.append(text.split()[1])
        self.options.append(options)
        if "grader-error" in text:
            raise GraderError("the grader failed: worker vanished")
        if "crash" in text:
            raise RuntimeError("unexpected\nfailure")
        ok = "pass" in text
        cases = [
            CaseResult(
                "forward",
                "forward",
                Category.FORWARD,
                Status.PASSED if ok else Status.FAILED,
                "",
                None if ok else "rms-eps-outside-sqrt",
            )
        ]
        named = [] if ok else [Diagnosis("rms-eps-outside-sqrt", "eps added outside the square root", "hint", 1)]
        seed = options.get("seed")
        return GradeResult(
            kata_id,
            str(file),
            cases,
            named,
            seed if isinstance(seed, int) else 7,
            "full",
            1.25,
            "2.13.0",
            str(options["lang"]),
        )


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeGrader:
    grader = FakeGrader()

    @contextmanager
    def job_grader() -> Iterator[FakeGrader]:
        yield grader

    monkeypatch.setattr(batch, "job_grader", job_grader)
    return grader


def a_class(root: Path, **files: str) -> Path:
    """`name="pass"` writes root/name.py; `"name/": "eps"` writes root/name/rmsnorm.py."""
    for name, what in files.items():
        path = root / name.replace("__", "/") / "rmsnorm.py" if name.endswith("__") else root / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name.strip('_')} {what}\n")
    return root


def gradebook(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader((out / "gradebook.csv").read_text(encoding="utf-8").splitlines()))


def test_every_submission_is_a_row_and_a_report(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob__="eps", carol="grader-error", dave="crash")
    (folder / "erin").mkdir()  # a folder without rmsnorm.py
    (folder / "notes.txt").write_text("not a submission")
    out = tmp_path / "grades"
    result = invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 1
    assert sorted(fake.graded) == ["alice", "bob", "carol", "dave"]
    lines = (out / "gradebook.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == HEADER
    rows = {r["submission"]: r for r in gradebook(out)}
    assert list(rows) == ["alice", "bob", "carol", "dave", "erin"]
    assert {
        k: rows["alice"][k]
        for k in (
            "passed",
            "score",
            "max_score",
            "reason",
            "misconceptions",
            "duration_s",
            "seed",
            "report",
            "note",
            "error",
        )
    } == {
        "passed": "true",
        "score": "1",
        "max_score": "1",
        "reason": "",
        "misconceptions": "",
        "duration_s": "1.250",
        "seed": "7",
        "report": "alice",
        "note": "",
        "error": "",
    }
    assert rows["bob"]["passed"] == "false" and rows["bob"]["misconceptions"] == "rms-eps-outside-sqrt"
    assert rows["bob"]["reason"] == "eps added outside the square root"
    assert rows["carol"]["passed"] == "" and rows["carol"]["error"] == "the grader failed: worker vanished"
    assert rows["dave"]["error"] == "RuntimeError: unexpected failure"  # one line in the CSV
    assert rows["erin"]["error"] == f"rmsnorm.py not found in {folder / 'erin'}"
    for ungraded in ("carol", "dave", "erin"):  # out of the suite's max (the reference's) like every row
        assert rows[ungraded]["reason"] == "could not be graded (see error)" and rows[ungraded]["max_score"] == "1"
    report = json.loads((out / "reports" / "bob.json").read_text(encoding="utf-8"))
    assert report["file"] == str(folder / "bob" / "rmsnorm.py")
    assert report["diagnosis"][0]["id"] == "rms-eps-outside-sqrt"
    assert sorted(p.name for p in (out / "reports").iterdir()) == [
        "alice.html",
        "alice.json",
        "alice.md",
        "bob.html",
        "bob.json",
        "bob.md",
    ]
    text = " ".join(result.stdout.split())
    assert "rmsnorm: 5 submissions in" in text and "2 at a time: 1 passed, 1 not yet, 3 could not be graded." in text
    assert "Mean score: 50% of the points." in text
    assert "eps added outside the square root │ rms-eps-outside-sqrt │ 1" in text
    assert "Could not grade carol: the grader failed: worker vanished" in text


def test_a_rerun_grades_only_what_changed(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob="eps", carol="grader-error")
    out = tmp_path / "grades"
    args = ["grade-all", "rmsnorm", str(folder), "--out", str(out)]
    invoke(runner, args)
    first = {r["submission"]: r for r in gradebook(out)}
    fake.graded.clear()
    again = invoke(runner, args)
    assert fake.graded == ["carol"]  # an error is tried again; graded work is kept
    assert "2 unchanged since the last run kept their grade (--force grades them again)." in again.stdout
    assert "1 passed, 1 not yet, 1 could not be graded" in again.stdout  # kept grades still count
    (folder / "bob.py").write_text("# bob pass\n")
    fake.graded.clear()
    invoke(runner, args)
    assert sorted(fake.graded) == ["bob", "carol"]
    rows = {r["submission"]: r for r in gradebook(out)}
    assert rows["alice"] == first["alice"] and rows["bob"]["passed"] == "true"
    fake.graded.clear()
    invoke(runner, [*args, "--force"])
    assert sorted(fake.graded) == ["alice", "bob", "carol"]


def test_a_grader_that_does_not_start_is_every_row_not_a_hang(runner, tmp_path: Path, monkeypatch) -> None:
    @contextmanager
    def job_grader() -> Iterator[FakeGrader]:
        raise GraderError("the grading service did not start: no torch")
        yield FakeGrader()

    monkeypatch.setattr(batch, "job_grader", job_grader)
    folder = a_class(tmp_path / "class", alice="pass", bob="eps", carol="pass")
    result = invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(tmp_path / "g"), "--jobs", "2"])
    assert result.exit_code == 1
    errors = {r["submission"]: r["error"] for r in gradebook(tmp_path / "g")}
    assert errors == dict.fromkeys(
        ["alice", "bob", "carol"], "no grader could start: the grading service did not start: no torch"
    )


def test_pattern_and_all_passed_exit_0(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", team_a="pass", team_b__="pass", solo="eps")
    result = invoke(runner, ["grade-all", "rmsnorm", str(folder), "--pattern", "team_*", "--out", str(tmp_path / "g")])
    assert result.exit_code == 0
    assert sorted(fake.graded) == ["team_a", "team_b"]


def test_default_out_and_chinese_summary(runner, fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    a_class(tmp_path / "class", alice="eps")
    result = invoke(runner, ["--lang", "zh", "grade-all", "rmsnorm", "class", "--jobs", "1"])
    assert result.exit_code == 1
    assert (tmp_path / "grades-rmsnorm" / "gradebook.csv").is_file()
    text = " ".join(result.stdout.split())
    assert "1 个尚未通过，0 个无法评测。" in text and "最常见的错误" in text


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (lambda root: None, ["grade-all", "rmsnorm", "{root}/missing"], "Directory '{root}/missing' does not exist"),
        (
            lambda root: (root / "c").mkdir(),
            ["grade-all", "rmsnorm", "{root}/c"],
            "{root}/c: no submission matches * (a .py file, or a folder holding rmsnorm.py)",
        ),
        (lambda root: (root / "c").mkdir(), ["grade-all", "nosuch", "{root}/c"], "unknown kata 'nosuch'"),
        (
            lambda root: a_class(root / "c", alice="pass"),
            ["grade-all", "rmsnorm", "{root}/c", "--jobs", "0"],
            "Invalid value for '--jobs'",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runner, fake, tmp_path: Path, make, args: list[str], message: str) -> None:
    make(tmp_path)
    result = invoke(runner, [a.format(root=tmp_path) for a in args])
    assert result.exit_code == 2
    assert message.format(root=tmp_path) in " ".join(result.stderr.split())
    assert "Traceback" not in result.output and fake.graded == []


@pytest.mark.slow
def test_a_real_class_with_hostile_submissions(runner, tmp_path: Path) -> None:
    """Correct, buggy, exiting and escape-printing files, graded for real: the batch goes on."""
    folder = tmp_path / "class"
    (folder / "bob").mkdir(parents=True)
    shutil.copy(RMSNORM_FIXTURES / "correct_llama_style.py", folder / "alice.py")
    shutil.copy(RMSNORM_FIXTURES / "realworld" / "missing_keepdim.py", folder / "bob" / "rmsnorm.py")
    shutil.copy(GRADING / "hostile_v2" / "exits_in_forward.py", folder / "carol.py")
    shutil.copy(GRADING / "hostile_v2" / "ansi_escape_message.py", folder / "dave.py")
    out = tmp_path / "grades"
    result = invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 1
    assert "\x1b[2J" not in result.output
    rows = {r["submission"]: r for r in gradebook(out)}
    assert [rows[n]["passed"] for n in ("alice", "bob", "carol", "dave")] == ["true", "false", "false", "false"]
    assert rows["alice"]["score"] == rows["alice"]["max_score"] != "0"
    assert rows["bob"]["misconceptions"] == "rms-missing-keepdim"
    assert all(not row["error"] for row in rows.values())
    dave = json.loads((out / "reports" / "dave.json").read_text(encoding="utf-8"))
    assert not any("\x1b" in case["message"] for case in dave["cases"])
    again = invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(out)])
    assert "4 unchanged since the last run kept their grade" in again.stdout
    assert {r["submission"]: r for r in gradebook(out)} == rows


def test_format_prairielearn_writes_one_results_file_per_graded_submission(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob__="eps", carol="grader-error")
    out = tmp_path / "grades"
    args = ["grade-all", "rmsnorm", str(folder), "--out", str(out), "--jobs", "1", "--format", "prairielearn"]
    assert invoke(runner, args).exit_code == 1
    written = out / "prairielearn"
    assert sorted(p.name for p in written.iterdir()) == ["alice", "bob"]  # carol could not be graded
    alice = json.loads((written / "alice" / "results.json").read_text(encoding="utf-8"))
    bob = json.loads((written / "bob" / "results.json").read_text(encoding="utf-8"))
    assert alice["gradable"] is True and alice["score"] == 1.0
    assert bob["gradable"] is True and bob["score"] == 0.0
    assert bob["tests"] == [
        {
            "name": "forward fp32: forward",
            "points": 0,
            "max_points": 1,
            "message": "Hint: hint",
            "description": "rms-eps-outside-sqrt",
        }
    ]
    assert "eps added outside the square root" in bob["message"]
    # A rerun keeps the grades and writes the files again from the kept reports.
    (written / "bob" / "results.json").unlink()
    assert invoke(runner, args).exit_code == 1
    assert json.loads((written / "bob" / "results.json").read_text(encoding="utf-8")) == bob
