"""The third wave of attacks, aimed at class grading: what a class folder, an out folder and a
Gradescope submission may hold. Each class of attack ends as rows, never as a forged grade, a
file written outside the out folder or a stopped batch.

The batch tests swap the grader for one that records what it was given (the real grader is
exercised by tests/test_class_hostile_real.py); the bundle's run_autograder runs for real in a
Gradescope-shaped tree (it refuses these submissions before any grader starts).
"""

from __future__ import annotations

import csv
import json
import os
import stat
import subprocess
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from normkata.classroom import batch
from normkata.grading.source import MAX_FOLDER_DEPTH, MAX_SOURCE_BYTES
from normkata.paths import solutions_dir
from tests.conftest import invoke
from tests.test_grade_all import FakeGrader, a_class, gradebook

REFERENCE = solutions_dir() / "rmsnorm.py"
ROOT = os.geteuid() == 0


@pytest.fixture(autouse=True)
def pinned_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeGrader:
    """The batch's grader, recording what it was given (test_grade_all's)."""
    grader = FakeGrader()

    @contextmanager
    def job_grader() -> Iterator[FakeGrader]:
        yield grader

    monkeypatch.setattr(batch, "job_grader", job_grader)
    return grader


def rows_of(out: Path) -> dict[str, dict[str, str]]:
    return {r["submission"]: r for r in gradebook(out)}


def run_grade_all(runner, folder: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(out), "--jobs", "2", *extra])


# -- 1. submissions are regular files, read without following links ---------------------------------------


def test_links_fifos_devices_huge_files_and_deep_folders_are_error_rows(
    runner, fake: FakeGrader, tmp_path: Path
) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob__="eps")
    (folder / "to_reference.py").symlink_to(REFERENCE)  # a link to the installed reference: was 45/45
    (folder / "carol").mkdir()
    (folder / "carol" / "rmsnorm.py").symlink_to(folder / "alice.py")  # to a classmate's passing file
    (folder / "dan").mkdir()
    (folder / "dan" / "rmsnorm.py").write_text("# dan pass\n")
    (folder / "dan" / "helper.py").symlink_to(REFERENCE)  # a helper module that is a link
    (folder / "linked_folder").symlink_to(folder / "bob")  # a whole folder that is a link
    os.mkfifo(folder / "fifo.py")
    huge = folder / "huge.py"
    huge.write_text("# huge pass\n" + "#" * MAX_SOURCE_BYTES)
    deep = folder / "deep"
    nested = deep.joinpath(*["d"] * (MAX_FOLDER_DEPTH + 1))
    nested.mkdir(parents=True)
    (deep / "rmsnorm.py").write_text("# deep pass\n")
    (nested / "x.py").write_text("")
    if ROOT:
        os.mknod(folder / "device.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
    git = folder / "bob" / ".git"  # hidden folders are neither graded nor counted against the limits
    git.mkdir()
    for i in range(600):
        (git / f"object{i}.py").write_text("")
    out = tmp_path / "grades"
    result = run_grade_all(runner, folder, out)
    assert result.exit_code == 1
    assert sorted(fake.graded) == ["alice", "bob"]  # nothing behind a link, a FIFO or a limit was graded
    rows = rows_of(out)
    errors = {name: row["error"] for name, row in rows.items() if row["error"]}
    assert errors["to_reference"].endswith("to_reference.py is a symbolic link (submit the file itself)")
    assert errors["carol"].endswith("carol/rmsnorm.py is a symbolic link (submit the file itself)")
    assert errors["dan"].endswith("dan/helper.py is a symbolic link (submit the file itself)")
    assert errors["linked_folder"].endswith("linked_folder is a symbolic link (submit the folder itself)")
    assert errors["fifo"].endswith("fifo.py is a FIFO, not a regular file")
    assert errors["huge"].endswith(f"huge.py is larger than 1024 kB ({huge.stat().st_size} bytes)")
    assert errors["deep"].endswith(f"deep nests folders deeper than {MAX_FOLDER_DEPTH}")
    if ROOT:
        assert errors["device"].endswith("device.py is a device, not a regular file")
    assert all(rows[name]["passed"] == "" for name in errors)
    assert rows["alice"]["passed"] == "true" and rows["bob"]["passed"] == "false"
    assert REFERENCE.is_file() and (folder / "alice.py").read_text() == "# alice pass\n"


def test_the_grading_service_refuses_a_link_rather_than_grading_its_target(grading_service, tmp_path: Path) -> None:
    from normkata.errors import InputError

    link = tmp_path / "rmsnorm.py"
    link.symlink_to(REFERENCE)
    with pytest.raises(InputError, match=r"rmsnorm.py is a symbolic link \(submit the file itself\)"):
        grading_service.grade("rmsnorm", link, timeout=3)
    fifo = tmp_path / "fifo" / "rmsnorm.py"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO, not a regular file"):
        grading_service.grade("rmsnorm", fifo, timeout=3)


def test_one_off_grade_refuses_a_link_and_a_huge_file(runner, tmp_path: Path) -> None:
    link = tmp_path / "rmsnorm.py"
    link.symlink_to(REFERENCE)
    result = invoke(runner, ["grade", "rmsnorm", "--file", str(link)])
    assert result.exit_code == 2 and "is a symbolic link (submit the file itself)" in result.stderr
    huge = tmp_path / "huge.py"
    with huge.open("wb") as stream:
        stream.truncate(600 * 1024 * 1024)  # a 600 MB source (sparse: costs no disk)
    result = invoke(runner, ["grade", "rmsnorm", "--file", str(huge)])
    assert result.exit_code == 2 and "huge.py is larger than 1024 kB (629145600 bytes)" in result.stderr


def _gradescope_tree(tmp_path: Path, runner) -> Path:  # type: ignore[no-untyped-def]
    """A tree as Gradescope lays it out, with the bundle's run_autograder (no grader needed: every
    submission here is refused before one would start)."""
    wheel = tmp_path / "normkata-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"not used")
    bundle = tmp_path / "autograder.zip"
    assert invoke(runner, ["gradescope-bundle", "rmsnorm", "--wheel", str(wheel), "--out", str(bundle)]).exit_code == 0
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "results").mkdir()
    (root / "run_autograder").write_bytes(zipfile.ZipFile(bundle).read("run_autograder"))
    (root / "run_autograder").chmod(0o755)
    return root


@pytest.mark.parametrize("make", ["link", "fifo", "huge"])
def test_run_autograder_grades_no_link_fifo_or_huge_file(runner, tmp_path: Path, make: str) -> None:
    root = _gradescope_tree(tmp_path, runner)
    submitted = root / "submission" / "rmsnorm.py"
    if make == "link":
        submitted.symlink_to(REFERENCE)
    elif make == "fifo":
        os.mkfifo(submitted)
    else:
        submitted.write_text("#" * (MAX_SOURCE_BYTES + 1))
    marker = tmp_path / "grader-started"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    (fake_bin / "normkata").write_text(f"#!/bin/sh\ntouch {marker}\nexit 3\n")
    (fake_bin / "normkata").chmod(0o755)
    env = {**os.environ, "NORMKATA_AUTOGRADER_ROOT": str(root), "PATH": f"{fake_bin}:{os.environ['PATH']}"}
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    expected = {
        "link": "Your rmsnorm.py is a symbolic link: upload the file itself.",
        "fifo": "Your rmsnorm.py is not a regular file: upload the file itself.",
        "huge": "Your rmsnorm.py is larger than 1024 kB: upload the kata's file only.",
    }[make]
    assert results == {"score": 0.0, "tests": [], "output": expected}
    assert not marker.exists()  # no grader ever saw it


# -- 3. the out folder is ours -------------------------------------------------------------------------


def test_an_out_folder_inside_the_class_is_refused(runner, fake: FakeGrader, tmp_path: Path, monkeypatch) -> None:
    folder = a_class(tmp_path / "class", alice="pass")
    result = run_grade_all(runner, folder, folder / "grades-rmsnorm")
    assert result.exit_code == 2 and "is inside the class folder" in " ".join(result.stderr.split())
    monkeypatch.chdir(folder)  # `cd class && normkata grade-all rmsnorm .`: the default out is inside it
    result = invoke(runner, ["grade-all", "rmsnorm", "."])
    assert result.exit_code == 2 and "choose a folder outside it" in " ".join(result.stderr.split())
    assert fake.graded == [] and not (folder / "grades-rmsnorm").exists()
    result = invoke(runner, ["grade-all", "rmsnorm", ".", "--out", "../grades"])
    assert result.exit_code == 0 and rows_of(tmp_path / "grades")["alice"]["passed"] == "true"


def test_a_forged_passing_row_is_graded_again(runner, fake: FakeGrader, tmp_path: Path) -> None:
    """A gradebook and report planted with a passing row and the right sha256 for a wrong file."""
    folder = a_class(tmp_path / "class", alice="pass", mallory="eps")
    out = tmp_path / "grades"
    run_grade_all(runner, folder, out)
    rows = rows_of(out)
    assert rows["mallory"]["passed"] == "false"
    forged_report = json.loads((out / "reports" / "alice.json").read_text())
    (out / "reports" / "mallory.json").write_text(json.dumps(forged_report))
    text = (out / "gradebook.csv").read_text()
    mallory_line = next(line for line in text.splitlines() if line.startswith("mallory,"))
    alice = rows["alice"]
    forged = ",".join(
        [
            "mallory",
            "true",
            alice["score"],
            alice["max_score"],
            "",
            alice["duration_s"],
            alice["seed"],
            rows["mallory"]["sha256"],
            "",
        ]
    )
    (out / "gradebook.csv").write_text(text.replace(mallory_line, forged))
    fake.graded.clear()
    result = run_grade_all(runner, folder, out)
    assert fake.graded == ["mallory"]  # alice's vouched-for report kept, mallory's forgery not
    assert rows_of(out)["mallory"]["passed"] == "false" and result.exit_code == 1
    assert json.loads((out / "reports" / "mallory.json").read_text())["passed"] is False


def test_an_out_folder_not_ours_is_refused_without_force_and_never_written_through(
    runner, fake: FakeGrader, tmp_path: Path
) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob="eps")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "victim.csv").write_text("precious\n")
    out = tmp_path / "seeded"
    out.mkdir()
    header = "submission,passed,score,max_score,misconceptions,duration_s,seed,sha256,error\n"
    (out / "gradebook.csv").write_text(header + "bob,true,1,1,,1.0,7,0,\n")  # with no manifest of ours
    result = run_grade_all(runner, folder, out)
    assert result.exit_code == 2 and "was not written by normkata grade-all" in " ".join(result.stderr.split())
    (out / "gradebook.csv").unlink()
    (out / "gradebook.csv").symlink_to(outside / "victim.csv")
    (out / "reports").symlink_to(outside)
    result = run_grade_all(runner, folder, out, "--force")
    assert result.exit_code == 1 and sorted(fake.graded) == ["alice", "bob"]
    assert (outside / "victim.csv").read_text() == "precious\n" and sorted(os.listdir(outside)) == ["victim.csv"]
    assert not (out / "gradebook.csv").is_symlink() and not (out / "reports").is_symlink()
    assert rows_of(out)["bob"]["passed"] == "false"
    link = tmp_path / "link-out"
    link.symlink_to(outside)
    result = run_grade_all(runner, folder, link, "--force")
    assert result.exit_code == 2 and "links are not followed" in " ".join(result.stderr.split())
    assert sorted(os.listdir(outside)) == ["victim.csv"]


# -- 6. no name stops the batch ------------------------------------------------------------------------


def test_every_name_gets_a_row_a_safe_report_and_an_escaped_line(runner, fake: FakeGrader, tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    names = {
        "long": "a" * 252 + ".py",  # 255 bytes: its report name would be too long
        "not-utf8": os.fsdecode(b"caf\xe9.py"),
        "escapes": "\x1b[2J\x1b[32mALL PASSED\x1b[0m.py",
        "formula": '=HYPERLINK("x").py',
        "plus": "+1.py",
        "minus": "-2.py",
        "at": "@SUM(A1).py",
        "tab": "\tx.py",
        "cr": "\rx.py",
        "markup": "[bold red]x.py",
        "backslash": "a\\b.py",
    }
    for name in names.values():
        (folder / name).write_text("# x eps\n")
    deep = folder / "nested"
    deep.mkdir()
    _nest(deep, 1100)  # 1,100 nested folders: was a RecursionError
    (deep / "rmsnorm.py").write_text("# nested pass\n")
    out = tmp_path / "grades"
    try:
        _check_every_name(runner, folder, out, names)
    finally:  # pytest's clean-up of old temporary folders recurses once per level: it would fail
        _nest(deep, 0)


def _check_every_name(runner, folder: Path, out: Path, names: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    result = run_grade_all(runner, folder, out)
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\r" not in result.output.replace("\r\n", "\n")
    raw = (out / "gradebook.csv").read_bytes()
    assert b"\x1b" not in raw
    cells = list(csv.reader(raw.decode("utf-8").splitlines()))[1:]
    assert len(cells) == len(names) + 1  # every submission is a row
    for row in cells:
        assert not row[0].startswith(("=", "+", "-", "@", "\t", "\r")), row[0]  # a spreadsheet shows text
    by_name = {row[0]: row for row in cells}
    assert '\'=HYPERLINK("x")' in by_name and "'+1" in by_name and "'-2" in by_name
    assert "'@SUM(A1)" in by_name and "'\\x09x" not in by_name and "\\x09x" in by_name
    assert "caf\\xe9" in by_name and "\\x1b[2J\\x1b[32mALL PASSED\\x1b[0m" in by_name
    assert by_name["nested"][-1].endswith(f"nested nests folders deeper than {MAX_FOLDER_DEPTH}")
    reports = os.listdir(out / "reports")
    assert len(reports) == 3 * len(names)  # JSON, Markdown and HTML each (the nested one could not be graded)
    assert all(len(os.fsencode(name)) < 128 and "/" not in name and not name.startswith(".") for name in reports)
    for report in reports:
        if report.endswith(".json"):
            json.loads((out / "reports" / report).read_text(encoding="utf-8"))
    again = run_grade_all(runner, folder, out)  # every graded name is recognised on a rerun
    assert f"{len(names)} unchanged since the last run kept their grade" in " ".join(again.stdout.split())


def _nest(folder: Path, depth: int) -> None:
    """`depth` folders nested in `folder` (depth 0: removed), by descriptors: pathlib and shutil
    recurse once per level, beyond Python's recursion limit."""
    fds = [os.open(folder, os.O_RDONLY | os.O_DIRECTORY)]
    try:
        for _ in range(depth):
            os.mkdir("n", dir_fd=fds[-1])
            fds.append(os.open("n", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
        if depth == 0:
            while "n" in os.listdir(fds[-1]):
                fds.append(os.open("n", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
            while len(fds) > 1:  # the deepest first: each is empty when its parent removes it
                os.close(fds.pop())
                os.rmdir("n", dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)
