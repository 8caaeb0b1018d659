"""The fifth wave of attacks on class grading: a stale shard, the teacher's finished gradebooks,
signed files built to crash a parser, --points that is no number of points, and entries of a
class folder that got neither a row nor a note. Through CliRunner with test_class_shards' fake
grader: what is under test is the batch, the signature, the merge and the files."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from normkata.boundedjson import RefusedJSON, loads
from normkata.classroom import batch
from normkata.classroom.key import grading_key
from normkata.classroom.signed import SIGNED, verified
from tests.conftest import invoke
from tests.test_class_shards import ClassGrader, a_big_class, grade, merge, one_line
from tests.test_grade_all import a_class, gradebook


@pytest.fixture(autouse=True)
def pinned_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> ClassGrader:
    grader = ClassGrader()

    @contextmanager
    def job_grader() -> Iterator[ClassGrader]:
        yield grader

    monkeypatch.setattr(batch, "job_grader", job_grader)
    return grader


def shards_of(runner, folder: Path, root: Path, run: str) -> list[Path]:  # type: ignore[no-untyped-def]
    outs = []
    for k in (1, 2, 3):
        out = root / f"{run}-{k}"
        assert grade(runner, folder, out, "--seed", "7", "--shard", f"{k}/3", "--run", run).exit_code in (0, 1)
        outs.append(out)
    return outs


# -- 1. shards belong to one run -------------------------------------------------------------------------


def test_a_stale_signed_shard_is_refused_by_its_run_and_by_its_contents(runner, fake, tmp_path: Path) -> None:
    folder = a_big_class(tmp_path / "class")
    monday = shards_of(runner, folder, tmp_path, "monday")
    stale = tmp_path / "stale-2"
    shutil.copytree(monday[1], stale)  # kept from Monday's run: authentic, signed by this key
    (folder / "ivan.py").write_text("# ivan pass\n")  # ivan fixed his file on Tuesday
    tuesday = shards_of(runner, folder, tmp_path, "tuesday")
    assert one_line(merge(runner, tmp_path / "m", tuesday[0], stale, tuesday[2])) == (
        f"Error: {stale} is of class run monday, {tuesday[0]} of run tuesday: merge the shards of one run "
        "(a shard kept from an earlier run is as signed as today's)"
    )
    again = shards_of(runner, folder, tmp_path / "again", "monday")  # the teacher reused the id
    assert one_line(merge(runner, tmp_path / "m", again[0], stale, again[2])) == (
        f"Error: {stale} read other contents of the class than {again[0]} ('ivan', and 0 more, differ): the files "
        "changed between the shards' runs; grade every shard again from the same files"
    )
    assert not (tmp_path / "m").exists()
    assert merge(runner, tmp_path / "m", *tuesday).exit_code == 0
    manifest = verified((tmp_path / "m" / SIGNED).read_bytes(), grading_key())
    assert (
        manifest.run == "tuesday"
        and manifest.listing["ivan"] == verified((tuesday[1] / SIGNED).read_bytes(), grading_key()).listing["ivan"]
    )
    assert len(manifest.listing) == 12 and all(len(digest) == 64 for digest in manifest.listing.values())


def test_a_class_split_by_hand_needs_a_run_id_and_an_engine_gives_its_own(
    runner, fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "NORMKATA_RUN_ID",
        "GITHUB_RUN_ID",
        "SLURM_ARRAY_JOB_ID",
        "JOB_COMPLETION_INDEX",
        "NORMKATA_SHARD_INDEX",
    ):
        monkeypatch.delenv(name, raising=False)  # no engine's id where the tests run
    folder = a_class(tmp_path / "class", alice="pass", bob="eps")
    assert one_line(grade(runner, folder, tmp_path / "g", "--shard", "1/2")) == (
        "Error: --shard 1/2 needs --run ID: the one id every shard of this class run is given (e.g. the date; or "
        "set NORMKATA_RUN_ID), so that the merge refuses a shard of another run"
    )
    assert "--run x/y: expected an id" in one_line(grade(runner, folder, tmp_path / "g", "--run", "x/y"))
    assert not (tmp_path / "g").exists()
    monkeypatch.setenv("SLURM_ARRAY_JOB_ID", "4242")
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "0")
    monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", "2")
    assert grade(runner, folder, tmp_path / "g", "--shard", "auto").exit_code in (0, 1)
    assert verified((tmp_path / "g" / SIGNED).read_bytes(), grading_key()).run == "slurm-4242"


# -- 2. the teacher's folders ------------------------------------------------------------------------------


def test_merge_and_grade_all_never_replace_a_finished_gradebook(runner, fake, tmp_path: Path) -> None:
    other = a_class(tmp_path / "other", zoe="pass")
    finished = tmp_path / "finished"
    assert grade(runner, other, finished, "--seed", "3").exit_code == 0
    before = {p.name: p.read_bytes() for p in finished.iterdir() if p.is_file()}
    folder = a_big_class(tmp_path / "class")
    shards = shards_of(runner, folder, tmp_path, "r1")
    assert one_line(merge(runner, finished, *shards)) == (
        f"Error: --out {finished} holds the finished gradebook of 1 graded submission(s) (rmsnorm, en, seed 3, "
        f"10 s, auto) from {other}, shard 1/1: choose another folder, or add --force to replace it"
    )
    assert {p.name: p.read_bytes() for p in finished.iterdir() if p.is_file()} == before
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "notes.txt").write_text("mine")
    assert "holds 1 entries (notes.txt): choose another folder" in one_line(merge(runner, planted, *shards))
    merged = tmp_path / "merged"
    assert merge(runner, merged, *shards).exit_code == 0
    merged_bytes = (merged / "gradebook.csv").read_bytes()
    assert "holds the finished gradebook of 10 graded" in one_line(merge(runner, merged, *shards))
    assert "from a merge of shards: choose another folder" in one_line(grade(runner, folder, merged, "--seed", "7"))
    assert one_line(grade(runner, folder, finished, "--seed", "3")).endswith(
        f"from {other}, shard 1/1: choose another folder, or add --force to replace it"
    )
    assert (merged / "gradebook.csv").read_bytes() == merged_bytes
    assert (finished / "gradebook.csv").read_bytes() == before["gradebook.csv"]
    assert merge(runner, finished, *shards, "--force").exit_code == 0
    assert len(gradebook(finished)) == 12


def test_a_signed_file_nested_200_000_deep_is_one_line_not_a_traceback(runner, fake, tmp_path: Path) -> None:
    folder = a_big_class(tmp_path / "class")
    whole = tmp_path / "whole"
    assert grade(runner, folder, whole).exit_code == 1
    deep = b"[" * 200_000 + b"]" * 200_000
    (whole / SIGNED).write_bytes(deep)
    assert one_line(merge(runner, tmp_path / "m", whole)) == (
        f"Error: {whole}/{SIGNED}: not a manifest: nests arrays or objects deeper than 8 levels"
    )
    export = invoke(runner, ["gradebook", "export", str(whole), "--lms", "canvas", "--out", str(tmp_path / "c.csv")])
    assert one_line(export) == f"Error: {whole}/{SIGNED}: not a manifest: nests arrays or objects deeper than 8 levels"
    (whole / ".normkata-manifest.json").write_bytes(deep)  # the rerun manifest too: not ours any more
    assert "exists and was not written by normkata grade-all" in one_line(grade(runner, folder, whole))


def test_the_bounded_reader_measures_before_it_parses() -> None:
    assert loads(b'\xef\xbb\xbf{"a": ["[", 1]}', max_bytes=100, max_depth=2) == {"a": ["[", 1]}
    with pytest.raises(RefusedJSON, match="deeper than 2 levels"):
        loads("[[[1]]]", max_bytes=100, max_depth=2)
    # Brackets inside strings do not nest, whatever the escapes around them; those outside do.
    tricky = r'["[[[[", "\"[[[", "\\", "é{{", ""]'
    assert loads(tricky, max_bytes=100, max_depth=1) == ["[[[[", '"[[[', "\\", "é{{", ""]
    with pytest.raises(RefusedJSON, match="deeper than 1 levels"):
        loads(r'["\\", ["x"]]', max_bytes=100, max_depth=1)
    with pytest.raises(RefusedJSON, match=r"larger than 10 bytes \(11\)"):
        loads(b"[" + b" " * 9 + b"]", max_bytes=10, max_depth=2)
    with pytest.raises(RefusedJSON, match="not UTF-8"):
        loads(b'"\xff"', max_bytes=10, max_depth=2)
    with pytest.raises(RefusedJSON, match="not JSON"):
        loads("[1,", max_bytes=10, max_depth=2)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1"])
def test_points_that_are_no_number_of_points_are_refused(runner, fake, tmp_path: Path, value: str) -> None:
    folder = a_class(tmp_path / "class", alice="pass")
    assert grade(runner, folder, tmp_path / "g").exit_code == 0
    out = tmp_path / "canvas.csv"
    args = ["gradebook", "export", str(tmp_path / "g"), "--lms", "canvas", "--out", str(out), "--points", value]
    shown = {"nan": "nan", "inf": "inf", "-inf": "-inf", "0": "0", "-1": "-1"}[value]
    assert one_line(invoke(runner, args)) == f"Error: --points {shown}: must be a finite number of points above 0"
    assert not out.exists()


def test_every_entry_of_the_class_folder_gets_a_row_or_a_note(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob__="eps")
    (folder / "..py").write_text("# dotdot pass\n")
    (folder / ".py").write_text("# dot eps\n")
    (folder / ".hidden.py").write_text("# hidden pass\n")
    (folder / ".git").mkdir()
    (folder / "__pycache__").mkdir()
    (folder / "README.txt").write_text("hand in by Friday")
    out = tmp_path / "g"
    result = grade(runner, folder, out)
    assert result.exit_code == 1
    assert sorted(fake.graded) == ["alice", "bob", "dot", "dotdot", "hidden"]
    assert sorted(r["submission"] for r in gradebook(out)) == ["..py", ".hidden.py", ".py", "alice", "bob"]
    for line in (
        "Left out 1 hidden folder(s), not submissions: .git/",
        "Left out Python's cache: __pycache__/",
        "Left out 1 entries that are neither .py files nor folders: README.txt",
    ):
        assert line in result.stdout, result.stdout
    pattern = grade(runner, folder, tmp_path / "g2", "--pattern", "a*")
    assert "Left out 7 entries that do not match a*: ..py, .git, .hidden.py, .py, README.txt and 2 more" in (
        pattern.stdout
    )
