"""A class beyond one machine: `grade-all --seed/--shard`, `gradebook merge` and `gradebook export`,
through CliRunner with a fake grader (what is under test is the batch, the split, the signature
and the files); tests/test_class_shards_real.py grades a class for real."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
import pytest

from normkata.classroom import batch
from normkata.classroom.gradebook import Row, report_names
from normkata.classroom.key import grading_key
from normkata.classroom.lms import points
from normkata.classroom.shards import Shard, parse_shard, shard_of
from normkata.classroom.signed import SIGNED, SignedRow, verified
from normkata.errors import InputError
from normkata.grading.contract import CaseResult, Category, Cause, GradeResult, Status
from tests.conftest import invoke
from tests.test_grade_all import FakeGrader, a_class, gradebook


class ClassGrader(FakeGrader):
    """test_grade_all's fake, plus what a class also holds: `syntax` (a file that does not parse),
    `forbid` (torch's own norm called) and `hang` (timed out)."""

    def grade(self, kata_id: str, file: Path, **options: object) -> GradeResult:
        text = file.read_text()
        kinds = {
            "syntax": (Cause.SYNTAX, Status.ERROR, Category.STATE),
            "hang": (Cause.TIMEOUT, Status.ERROR, Category.FORWARD),
            "forbid": (Cause.FORBIDDEN, Status.FAILED, Category.INTEGRITY),
        }
        word = text.split()[2] if len(text.split()) > 2 else ""
        if word not in kinds:
            return super().grade(kata_id, file, **options)
        self.graded.append(text.split()[1])
        self.options.append(options)
        cause, status, category = kinds[word]
        cases = [
            CaseResult(
                "import" if cause is Cause.SYNTAX else "forward",
                "import" if cause is Cause.SYNTAX else "forward",
                category,
                status,
                "no",
                None,
                None,
                cause,
            )
        ]
        if cause is Cause.FORBIDDEN:
            cases.insert(0, CaseResult("forward", "forward", Category.FORWARD, Status.PASSED))
        seed = options.get("seed")
        return GradeResult(
            kata_id,
            str(file),
            cases,
            [],
            seed if isinstance(seed, int) else 7,
            "full",
            1.25,
            "2.13.0",
            str(options["lang"]),
        )


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> ClassGrader:
    grader = ClassGrader()

    @contextmanager
    def job_grader() -> Iterator[ClassGrader]:
        yield grader

    monkeypatch.setattr(batch, "job_grader", job_grader)
    return grader


def a_big_class(root: Path) -> Path:
    """12 submissions, files and folders, of every kind the fake grades, two of them identical."""
    folder = a_class(
        root,
        alice="pass",
        bob__="eps",
        carol="grader-error",
        dave="crash",
        frank="pass",
        grace__="eps",
        heidi="pass",
        ivan="eps",
        judy="pass",
        mallory="pass",
    )
    (folder / "syntaxer.py").write_text("# syntaxer syntax\nclass RMSNorm(:\n")
    (folder / "copier.py").write_text("# copier forbid\nimport torch.nn.functional as F\nF.rms_norm\n")
    return folder


def grade(runner, folder: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return invoke(runner, ["grade-all", "rmsnorm", str(folder), "--out", str(out), "--jobs", "2", *extra])


def merge(runner, out: Path, *shards: Path):  # type: ignore[no-untyped-def]
    return invoke(runner, ["gradebook", "merge", *map(str, shards), "--out", str(out)])


def one_line(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, result.output
    return lines[0]


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "reports").iterdir())}


# -- the split ---------------------------------------------------------------------------------------------


def test_a_name_goes_to_sha256_of_it_modulo_n() -> None:
    names = ["alice", "bob/", "caf\\xe9", "=HYPERLINK()", "a" * 250]
    for name in names:
        number = int(hashlib.sha256(name.encode()).hexdigest()[:16], 16)
        assert shard_of(name, 3) == number % 3 + 1
        assert [Shard(k, 3).holds(name) for k in (1, 2, 3)].count(True) == 1


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("2/3", {}, Shard(2, 3)),
        ("1/1", {}, Shard(1, 1)),
        # Slurm: --array=4-6 is shard (5 - 4) + 1 of 3 for task 5; --array=2-6:2 counts in steps.
        (
            "auto",
            {
                "SLURM_ARRAY_TASK_ID": "5",
                "SLURM_ARRAY_TASK_MIN": "4",
                "SLURM_ARRAY_TASK_MAX": "6",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            Shard(2, 3),
        ),
        (
            "auto",
            {
                "SLURM_ARRAY_TASK_ID": "6",
                "SLURM_ARRAY_TASK_MIN": "2",
                "SLURM_ARRAY_TASK_MAX": "6",
                "SLURM_ARRAY_TASK_STEP": "2",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            Shard(3, 3),
        ),
        ("auto", {"JOB_COMPLETION_INDEX": "0", "NORMKATA_SHARD_COUNT": "3"}, Shard(1, 3)),
        ("auto", {"NORMKATA_SHARD_INDEX": "2", "NORMKATA_SHARD_COUNT": "3"}, Shard(3, 3)),
    ],
)
def test_a_shard_from_k_of_n_or_the_engine(text: str, env: dict[str, str], expected: Shard) -> None:
    assert parse_shard(text, env) == expected


@pytest.mark.parametrize(
    ("text", "env", "message"),
    [
        ("0/3", {}, "--shard 0/3: shard 0 of 3 does not exist (shards are 1 to 3)"),
        ("4/3", {}, "shard 4 of 3 does not exist"),
        ("2/0", {}, "the number of shards must be between 1 and 10000"),
        ("two", {}, "--shard two: expected K/N (shard K of N, e.g. 2/3) or auto"),
        ("auto", {}, "none of SLURM_ARRAY_TASK_ID (Slurm), JOB_COMPLETION_INDEX (Kubernetes) or NORMKATA_SHARD_INDEX"),
        (
            "auto",
            {
                "SLURM_ARRAY_TASK_ID": "3",
                "SLURM_ARRAY_TASK_MIN": "1",
                "SLURM_ARRAY_TASK_MAX": "5",
                "SLURM_ARRAY_TASK_COUNT": "3",
            },
            "the array is not evenly spaced (1 to 5, step 1, 3 tasks)",
        ),
        ("auto", {"SLURM_ARRAY_TASK_ID": "1"}, "SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT"),
        ("auto", {"JOB_COMPLETION_INDEX": "1"}, "JOB_COMPLETION_INDEX is set but not NORMKATA_SHARD_COUNT"),
        ("auto", {"JOB_COMPLETION_INDEX": "3", "NORMKATA_SHARD_COUNT": "3"}, "shard 4 of 3 does not exist"),
        ("auto", {"NORMKATA_SHARD_INDEX": "x", "NORMKATA_SHARD_COUNT": "3"}, "NORMKATA_SHARD_INDEX='x' is not a whole"),
    ],
)
def test_a_bad_shard_is_one_line(
    runner, fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, env: dict[str, str], message: str
) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_shard(text, env)
    for name in ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "NORMKATA_SHARD_INDEX"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    folder = a_class(tmp_path / "class", alice="pass")
    assert message in one_line(grade(runner, folder, tmp_path / "g", "--shard", text))
    assert fake.graded == [] and not (tmp_path / "g").exists()


# -- sharded and merged equals unsharded ----------------------------------------------------------------


def test_three_shards_merged_are_the_unsharded_gradebook(runner, fake, tmp_path: Path) -> None:
    folder = a_big_class(tmp_path / "class")
    whole = tmp_path / "whole"
    assert grade(runner, folder, whole, "--seed", "7", "--run", "r1").exit_code == 1
    shards = []
    for k in (1, 2, 3):
        out = tmp_path / f"shard-{k}"
        result = grade(runner, folder, out, "--seed", "7", "--shard", f"{k}/3", "--run", "r1")
        assert result.exit_code in (0, 1) and f"Shard {k}/3: " in result.stdout
        shards.append(out)
    assert sorted(name for s in shards for name in (r["submission"] for r in gradebook(s))) == sorted(
        r["submission"] for r in gradebook(whole)
    )
    result = merge(runner, tmp_path / "merged", *shards)
    assert result.exit_code == 0 and "Merged 3 shards of rmsnorm: 12 submissions into" in result.stdout
    assert (tmp_path / "merged" / "gradebook.csv").read_bytes() == (whole / "gradebook.csv").read_bytes()
    assert files_of(tmp_path / "merged") == files_of(whole)  # both reports of each, byte for byte
    key = grading_key()
    merged = verified((tmp_path / "merged" / SIGNED).read_bytes(), key)
    assert merged.body() | {"files": {}} == verified((whole / SIGNED).read_bytes(), key).body() | {"files": {}}
    rows = {r["submission"]: r for r in gradebook(whole)}
    assert {r["seed"] for r in rows.values()} == {"7"} and all(o["seed"] == 7 for o in fake.options)
    assert {r["max_score"] for r in rows.values()} == {"1"}  # files that never imported too
    for row in rows.values():
        assert (row["passed"] == "true") == (row["reason"] == ""), row  # every failing row says why
    assert rows["syntaxer"]["reason"] == "syntax error at line 2"
    assert rows["copier"]["reason"] == "forbidden API `F.rms_norm`"
    assert rows["bob"]["reason"] == "eps added outside the square root"
    assert rows["carol"]["reason"] == "could not be graded (see error)"
    # Files graded alike, rows alike (but for the name, the report and the content's digest).
    assert {k: v for k, v in rows["alice"].items() if k not in ("submission", "report", "sha256")} == {
        k: v for k, v in rows["frank"].items() if k not in ("submission", "report", "sha256")
    }


def test_an_empty_shard_is_a_signed_empty_gradebook(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass")
    empty = next(k for k in (1, 2) if not Shard(k, 2).holds("alice"))
    result = grade(runner, folder, tmp_path / "g", "--shard", f"{empty}/2", "--run", "r1")
    assert result.exit_code == 0 and fake.graded == [] and gradebook(tmp_path / "g") == []
    assert verified((tmp_path / "g" / SIGNED).read_bytes(), grading_key()).assigned == 0


def test_the_summary_counts_every_reason(runner, fake, tmp_path: Path) -> None:
    result = grade(runner, a_big_class(tmp_path / "class"), tmp_path / "g")
    text = " ".join(result.stdout.split())
    for line in (
        "eps added outside the square root │ rms-eps-outside-sqrt │ 3",
        "syntax error │ syntax-error │ 1",
        "forbidden API used │ forbidden-api │ 1",
    ):
        assert line in text


# -- one seed --------------------------------------------------------------------------------------------


def test_without_a_seed_each_draws_its_own_and_another_seed_grades_again(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob="eps")
    out = tmp_path / "g"
    grade(runner, folder, out)
    assert [o["seed"] for o in fake.options] == [None, None]  # the runner draws, the row records it
    assert {r["seed"] for r in gradebook(out)} == {"7"}
    fake.graded.clear()
    before = (out / "gradebook.csv").read_bytes()
    assert one_line(grade(runner, folder, out, "--seed", "8")) == (
        f"Error: --out {out} holds the finished gradebook of 2 graded submission(s) (rmsnorm, en, fresh seeds, "
        f"10 s, auto) from {folder}, shard 1/1: choose another folder, or add --force to replace it"
    )
    assert fake.graded == [] and (out / "gradebook.csv").read_bytes() == before
    grade(runner, folder, out, "--seed", "8", "--force")
    assert sorted(fake.graded) == ["alice", "bob"]  # graded with other settings: nothing is kept
    assert {r["seed"] for r in gradebook(out)} == {"8"}
    fake.graded.clear()
    again = grade(runner, folder, out, "--seed", "8")
    assert fake.graded == [] and "2 unchanged since the last run kept their grade" in again.stdout


# -- merge refuses --------------------------------------------------------------------------------------------


@pytest.fixture
def shards(runner, fake, tmp_path: Path) -> list[Path]:
    folder = a_big_class(tmp_path / "class")
    outs = []
    for k in (1, 2, 3):
        grade(runner, folder, tmp_path / f"s{k}", "--seed", "7", "--shard", f"{k}/3", "--run", "r1")
        outs.append(tmp_path / f"s{k}")
    return outs


def _resign(out: Path, edit) -> None:  # type: ignore[no-untyped-def]
    """Change a shard's manifest and sign it again with the key: what only the key's holder can do."""
    manifest = verified((out / SIGNED).read_bytes(), grading_key())
    edit(manifest)
    (out / SIGNED).write_bytes(manifest.signed(grading_key()))


def test_missing_duplicate_and_foreign_shards_are_refused(runner, shards: list[Path], tmp_path: Path) -> None:
    s1, s2, s3 = shards
    out = tmp_path / "merged"
    assert one_line(merge(runner, out, s1, s3)).endswith(
        "shard 2/3 missing: a class graded in 3 shards is merged from all 3 out folders"
    )
    copy = tmp_path / "copy"
    shutil.copytree(s2, copy)
    assert (
        one_line(merge(runner, out, s1, s2, copy, s3)) == f"Error: {s2} and {copy} are both shard 2/3: each "
        "shard is merged once"
    )
    assert "no gradebook.signed.json" in one_line(merge(runner, out, s1, s2, tmp_path / "class"))
    assert "is one of the shards" in one_line(merge(runner, s1, s1, s2, s3))
    assert not out.exists()  # nothing written


def test_a_forged_or_tampered_shard_is_refused(runner, shards: list[Path], tmp_path: Path) -> None:
    s1, s2, s3 = shards
    signed = (s2 / SIGNED).read_text(encoding="utf-8")
    forged = signed.replace('"passed": "false"', '"passed": "true"', 1)
    assert forged != signed
    (s2 / SIGNED).write_text(forged, encoding="utf-8")
    assert one_line(merge(runner, tmp_path / "m", s1, s2, s3)) == (
        f"Error: {s2}/{SIGNED}: its signature does not verify with this grading key: it was changed after grading, "
        "or graded with another key"
    )
    (s2 / SIGNED).write_text(signed, encoding="utf-8")
    report = sorted((s3 / "reports").glob("*.json"))[0]
    report.write_text(report.read_text().replace('"passed": false', '"passed": true'))
    (s3 / "gradebook.csv").write_text("submission\nplanted\n")
    assert "is not what was signed: changed or replaced after grading" in one_line(
        merge(runner, tmp_path / "m", s1, s2, s3)
    )
    assert not (tmp_path / "m").exists()


def test_a_shard_signed_with_another_key_is_refused(
    runner, shards: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NORMKATA_HOME", str(tmp_path / "another-machine"))
    assert "signature does not verify with this grading key" in one_line(merge(runner, tmp_path / "m", *shards))


def test_overlapping_misplaced_incomplete_and_mismatched_shards_are_refused(
    runner, shards: list[Path], tmp_path: Path
) -> None:
    s1, s2, s3 = shards
    first = verified((s1 / SIGNED).read_bytes(), grading_key())
    stolen = next(r for r in first.rows if r.row.report)
    reports = {path: digest for path, digest in first.files.items() if f"/{stolen.row.report}." in path}
    for path in reports:
        shutil.copy(s1 / path, s2 / path)

    def steal(manifest) -> None:  # type: ignore[no-untyped-def]
        manifest.rows.append(stolen)
        manifest.files.update(reports)

    _resign(s2, steal)
    name = stolen.row.submission
    assert one_line(merge(runner, tmp_path / "m", s1, s2, s3)) == f"Error: submission {name!r} is in both {s1} and {s2}"
    assert one_line(merge(runner, tmp_path / "m", s2, s3, s1)).endswith(
        f"{s2}: submission {name!r} does not belong to shard 2/3"
    )
    _resign(s2, lambda m: m.rows.pop())
    _resign(s2, lambda m: m.rows.pop())
    assert "(interrupted?): run its grade-all again" in one_line(merge(runner, tmp_path / "m", s1, s2, s3))
    _resign(s3, lambda m: setattr(m, "settings", type(m.settings)("rmsnorm", "en", 8, 10.0, "auto")))
    assert one_line(merge(runner, tmp_path / "m", s1, s3)) == (
        f"Error: {s3} was graded with rmsnorm, en, seed 8, 10 s, auto, {s1} with rmsnorm, en, seed 7, 10 s, auto: "
        "the shards of one class share the kata, language, seed, case timeout and device"
    )
    assert not (tmp_path / "m").exists()


def test_an_interrupted_shard_is_refused(runner, fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = a_class(tmp_path / "class", **{f"s{n}": "pass" for n in range(8)})
    outs = [tmp_path / f"g{k}" for k in (1, 2)]
    grade(runner, folder, outs[0], "--shard", "1/2", "--run", "r1")
    original = batch._write_reports
    assigned = sum(Shard(2, 2).holds(f"s{n}") for n in range(8))
    assert assigned > 1

    def interrupted(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt  # Ctrl-C as the first grade of the shard comes in

    monkeypatch.setattr(batch, "_write_reports", interrupted)
    aborted = grade(runner, folder, outs[1], "--shard", "2/2", "--jobs", "1", "--run", "r1")
    assert aborted.exit_code == 1 and "Aborted!" in aborted.output  # click's answer to Ctrl-C
    monkeypatch.setattr(batch, "_write_reports", original)
    assert gradebook(outs[1]) == []  # written after Ctrl-C, with what was graded: nothing
    assert "(interrupted?): run its grade-all again" in one_line(merge(runner, tmp_path / "m", *outs))
    grade(runner, folder, outs[1], "--shard", "2/2", "--run", "r1")
    assert merge(runner, tmp_path / "m", *outs).exit_code == 0


# -- names ---------------------------------------------------------------------------------------------------


def test_a_file_and_a_folder_of_one_name_are_two_rows_with_a_note(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", alice__="eps", bob="pass")
    result = grade(runner, folder, tmp_path / "g")
    assert result.exit_code == 1  # graded, not stopped
    rows = {r["submission"]: r for r in gradebook(tmp_path / "g")}
    assert sorted(rows) == ["alice.py", "alice/", "bob"]
    assert rows["alice.py"]["passed"] == "true" and rows["alice/"]["passed"] == "false"
    note = "alice/, alice.py share the name alice: graded as separate rows"
    assert rows["alice.py"]["note"] == rows["alice/"]["note"] == note and rows["bob"]["note"] == ""
    assert rows["alice.py"]["report"] != rows["alice/"]["report"]


def test_no_name_can_take_another_submissions_report(runner, fake, tmp_path: Path) -> None:
    victim = "x y"  # not plain: its report is a slug and a hash
    taken = report_names([victim])[victim]
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / f"{victim}.py").write_text("# victim eps\n")
    (folder / f"{taken}.py").write_text("# mallory pass\n")  # a plain name equal to the victim's report name
    (folder / "Alice.py").write_text("# Alice pass\n")
    (folder / "alice.py").write_text("# alice eps\n")  # one file on a file system that ignores case
    grade(runner, folder, tmp_path / "g")
    rows = {r["submission"]: r for r in gradebook(tmp_path / "g")}
    reports = [rows[n]["report"] for n in (victim, taken, "Alice", "alice")]
    assert len({r.casefold() for r in reports}) == 4
    for name in (victim, taken):
        report = json.loads((tmp_path / "g" / "reports" / f"{rows[name]['report']}.json").read_text())
        assert report["file"] == str(folder / f"{name}.py")  # each student's own report
    assert report_names([victim, taken]) == {taken: taken, victim: f"{taken}-2"}


# -- export ---------------------------------------------------------------------------------------------------


def test_canvas_and_moodle_exports(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob="eps", carol="grader-error")
    (folder / "copier.py").write_text("# copier forbid\nimport torch.nn.functional as F\nF.rms_norm\n")
    grade(runner, folder, tmp_path / "g", "--seed", "7")
    result = invoke(
        runner,
        [
            "gradebook",
            "export",
            str(tmp_path / "g"),
            "--lms",
            "canvas",
            "--out",
            str(tmp_path / "canvas.csv"),
            "--assignment",
            "RMSNorm kata",
        ],
    )
    assert result.exit_code == 0 and "3 grades for Canvas, 1 left blank (not graded)." in " ".join(
        result.stdout.split()
    )
    assert (tmp_path / "canvas.csv").read_text() == (
        "Student,ID,SIS User ID,SIS Login ID,Section,RMSNorm kata\n"
        "Points Possible,,,,,1\n"
        "alice,,,alice,,1\n"
        "bob,,,bob,,0\n"
        "carol,,,carol,,\n"
        "copier,,,copier,,0\n"
    )  # a rule broken costs the points, as on Gradescope
    invoke(
        runner,
        [
            "gradebook",
            "export",
            str(tmp_path / "g"),
            "--lms",
            "moodle",
            "--out",
            str(tmp_path / "m.csv"),
            "--points",
            "10",
        ],
    )
    assert (tmp_path / "m.csv").read_text() == (
        "Username,normkata rmsnorm,normkata rmsnorm feedback\n"
        "alice,10,\n"
        "bob,0,eps added outside the square root\n"
        "carol,,\n"
        "copier,0,forbidden API `F.rms_norm`\n"
    )


def test_a_broken_rule_is_one_score_in_the_gradebook_the_summary_the_report_and_every_export(
    runner, fake, tmp_path: Path
) -> None:
    folder = a_class(tmp_path / "class", alice="pass")
    (folder / "copier.py").write_text("# copier forbid\nimport torch.nn.functional as F\nF.rms_norm\n")
    result = grade(runner, folder, tmp_path / "g", "--seed", "7")
    assert "Mean score: 50% of the points." in " ".join(result.stdout.split())  # alice 1/1, copier 0/1
    copier = {r["submission"]: r for r in gradebook(tmp_path / "g")}["copier"]
    assert (copier["score"], copier["max_score"], copier["cases_passed"]) == ("0", "1", "1")
    assert "| score | 0 / 1 |" in (tmp_path / "g" / "reports" / "copier.md").read_text(encoding="utf-8")
    for lms, line in (("moodle", "copier,0,forbidden API `F.rms_norm`"), ("canvas", "copier,,,copier,,0")):
        out = tmp_path / f"{lms}.csv"
        args = ["gradebook", "export", str(tmp_path / "g"), "--lms", lms, "--out", str(out)]
        assert invoke(runner, args).exit_code == 0
        assert line in out.read_text(encoding="utf-8").splitlines()


def test_export_refuses_a_shard_and_a_tampered_gradebook(runner, fake, tmp_path: Path) -> None:
    folder = a_class(tmp_path / "class", alice="pass", bob="eps")
    grade(runner, folder, tmp_path / "s", "--shard", "1/2", "--run", "r1")
    args = ["gradebook", "export", str(tmp_path / "s"), "--lms", "canvas", "--out", str(tmp_path / "c.csv")]
    assert "is shard 1/2 of a class: merge the shards first" in one_line(invoke(runner, args))
    grade(runner, folder, tmp_path / "g")
    signed = tmp_path / "g" / SIGNED
    signed.write_text(signed.read_text().replace('"score": "0"', '"score": "1"'))
    args[2] = str(tmp_path / "g")
    assert "its signature does not verify" in one_line(invoke(runner, args))
    assert not (tmp_path / "c.csv").exists()


def test_points_scale_and_blank() -> None:
    row = Row("a", False, 30, 45, 30, "x")
    assert points(SignedRow(row, ["wrong-results"]), None) == "30"
    assert points(SignedRow(row, ["wrong-results"]), 10) == "6.67"
    # A broken rule: the row's score is 0 (cases_passed keeps 45), and the export reads the score.
    assert points(SignedRow(Row("a", False, 0, 45, 45, "x"), ["global-state"]), 10) == "0"
    assert points(SignedRow(Row("a", max_score=45, error="x"), []), 10) == ""
    assert points(SignedRow(Row("a", False, 0, 45, 0, "x"), []), 10) == "0"  # graded 0: a grade, not a blank


def test_the_key_may_be_hex_as_openssl_writes_it(isolated_home: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "grade-all.key").write_text("ab" * 32 + "\n")
    assert grading_key() == bytes.fromhex("ab" * 32)
    (isolated_home / "grade-all.key").write_text("short")
    with pytest.raises(InputError, match="is not a grade-all key"):
        grading_key()
    os.unlink(isolated_home / "grade-all.key")
    assert len(grading_key()) == 32


def test_a_row_reads_back_typed_and_only_as_written() -> None:
    """A gradebook row holds typed values; its cells (gradebook.csv, the manifests) are read back
    only when spelled as `cells()` writes them, so a hand-edited "yes" or "+5" is no row."""
    row = Row("alice", True, 5, 5, 5, "", ("rms-no-eps", "stateful-forward"), 0.412, 7, "ab" * 32, "alice")
    cells = row.cells()
    assert cells["passed"] == "true" and cells["score"] == "5" and cells["duration_s"] == "0.412"
    assert cells["misconceptions"] == "rms-no-eps;stateful-forward" and cells["seed"] == "7"
    assert Row.of(cells) == row
    assert Row.of(Row("bob", error="timed out").cells()) == Row("bob", error="timed out")
    for column, value in (
        ("passed", "yes"),
        ("score", "+5"),
        ("cases_passed", "5.0"),
        ("duration_s", "nan"),
        ("seed", "seven"),
    ):
        with pytest.raises(ValueError):
            Row.of({**cells, column: value})


def test_each_lms_and_each_grade_format_is_one_entry_the_commands_read() -> None:
    from normkata.classroom.lms import LMS
    from normkata.commands.classroom import export_command, grade_all
    from normkata.commands.grade import grade
    from normkata.grading.formats import FORMATS

    def choices(command: click.Command, option: str) -> tuple[str, ...]:
        param = next(p for p in command.params if p.name == option)
        assert isinstance(param.type, click.Choice)
        return tuple(param.type.choices)

    assert choices(export_command, "lms") == tuple(LMS) == ("canvas", "moodle")
    assert choices(grade, "fmt") == tuple(FORMATS) == ("gradescope", "junit", "exercism", "prairielearn")
    assert choices(grade_all, "results") == tuple(FORMATS)


def test_refusals_are_worded_in_the_commands_language(runner, tmp_path: Path) -> None:
    unsigned = tmp_path / "shard"
    unsigned.mkdir()
    (unsigned / "gradebook.csv").write_text("submission\n")
    args = ["gradebook", "merge", str(unsigned), "--out", str(tmp_path / "merged")]
    assert one_line(invoke(runner, ["--lang", "zh", *args])) == (
        f"Error: {unsigned}：没有 gradebook.signed.json：不是 grade-all 的输出文件夹（或是在分片签名之前评测的：请重新评测）"
    )
    assert one_line(invoke(runner, args)) == (
        f"Error: {unsigned}: no gradebook.signed.json: not an out folder of grade-all (or graded before shards were "
        "signed: grade it again)"
    )
    export = ["gradebook", "export", str(unsigned), "--lms", "moodle", "--out", str(tmp_path / "m.csv"), "--lang", "zh"]
    assert "请导出 grade-all 或 gradebook merge 的输出文件夹" in one_line(invoke(runner, export))
    assert "分片数必须在 1 到" in one_line(
        invoke(runner, ["--lang", "zh", "grade-all", "rmsnorm", str(unsigned), "--shard", "1/0"])
    )


def test_every_refusal_of_the_classroom_is_worded_in_both_languages() -> None:
    """No English-only refusal is left in classroom/: each is a catalog key (normkata.i18n.worded)."""
    import ast

    from normkata.i18n import strings

    for path in sorted((Path(__file__).parents[1] / "normkata" / "classroom").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                name = getattr(node.exc.func, "id", "")
                assert name != "InputError", f"{path.name}:{node.lineno}: an English-only InputError"
                if name in ("Worded", "Unsigned"):
                    key = node.exc.args[0]
                    assert isinstance(key, ast.Constant) and key.value in strings(), f"{path.name}:{node.lineno}"
                    text = strings()[key.value]
                    assert text.en != text.zh, key.value


# -- weights ----------------------------------------------------------------------------------------------


class MixedGrader(ClassGrader):
    """`mixed`: the forward case passes, the low-precision one fails, a rule holds."""

    def grade(self, kata_id: str, file: Path, **options: object) -> GradeResult:
        if "mixed" not in file.read_text():
            return super().grade(kata_id, file, **options)
        cases = [
            CaseResult("forward", "forward", Category.FORWARD, Status.PASSED),
            CaseResult("fp16", "fp16", Category.LOW_PRECISION, Status.FAILED, "off by 1e-2"),
            CaseResult("forbidden_api", "uses no forbidden API", Category.INTEGRITY, Status.PASSED),
        ]
        return GradeResult(kata_id, str(file), cases, [], 7, "full", 1.0, "2.13.0", str(options["lang"]))


def test_weights_are_signed_and_every_output_reads_the_same_score(
    runner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    grader = MixedGrader()

    @contextmanager
    def job_grader() -> Iterator[MixedGrader]:
        yield grader

    monkeypatch.setattr(batch, "job_grader", job_grader)
    folder = a_class(tmp_path / "class", mia="mixed")
    out = tmp_path / "g"
    extra = ("--weights", "low-precision=3", "--format", "prairielearn", "--format", "gradescope")
    result = grade(runner, folder, out, *extra)
    assert "Mean score: 25% of the points." in " ".join(result.stdout.split())
    (row,) = gradebook(out)
    assert (row["score"], row["max_score"], row["cases_passed"]) == ("1", "4", "1")  # 1 + 0 of 1 + 3
    settings = verified((out / SIGNED).read_bytes(), grading_key()).settings
    assert settings.weights == (("low-precision", 3),)
    assert "| score | 1 / 4 |" in (out / "reports" / "mia.md").read_text(encoding="utf-8")
    assert '<td data-sort="0.250000" class="num">1 / 4</td>' in (out / "index.html").read_text(encoding="utf-8")
    prairielearn = json.loads((out / "prairielearn" / "mia" / "results.json").read_text(encoding="utf-8"))
    assert prairielearn["score"] == 0.25
    assert [(t["points"], t["max_points"]) for t in prairielearn["tests"]] == [(1, 1), (0, 3), (0, 0)]
    gradescope = json.loads((out / "gradescope" / "mia" / "results.json").read_text(encoding="utf-8"))
    assert gradescope["score"] == 1.0 and gradescope["extra_data"]["max_score"] == 4
    moodle = tmp_path / "m.csv"
    invoke(runner, ["gradebook", "export", str(out), "--lms", "moodle", "--out", str(moodle), "--points", "10"])
    assert "mia,2.5," in moodle.read_text(encoding="utf-8")
    # Other weights are another gradebook; a category that does not exist is one line.
    assert "holds the finished gradebook" in one_line(grade(runner, folder, out, "--weights", "low-precision=2"))
    assert "--weights dtype=3: expected CATEGORY=POINTS" in one_line(grade(runner, folder, out, "--weights", "dtype=3"))


def test_a_kept_grade_of_a_file_that_never_imported_stays_not_gradable(runner, fake, tmp_path: Path) -> None:
    """A kept grade is read back from its JSON report, which has no causes: the row's kinds give
    them back, so the rerun writes what the first run wrote."""
    folder = a_class(tmp_path / "class", alice="pass")
    (folder / "syntaxer.py").write_text("# syntaxer syntax\nclass RMSNorm(:\n")
    out = tmp_path / "g"
    first = {}
    for run in (1, 2):
        result = grade(runner, folder, out, "--format", "prairielearn")
        assert (run == 1) or "2 unchanged since the last run kept their grade" in " ".join(result.stdout.split())
        pages = {p: (out / p).read_bytes() for p in ("prairielearn/syntaxer/results.json", "reports/syntaxer.html")}
        assert json.loads(pages["prairielearn/syntaxer/results.json"])["gradable"] is False
        first = first or pages
        assert pages == first
