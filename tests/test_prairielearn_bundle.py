"""`normkata prairielearn-bundle`: a question folder as PrairieLearn's docs lay it out, and its entry
point run as PrairieLearn runs it (a /grade tree: student/, results/, tests/), with this
environment's normkata on PATH instead of the image's."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import invoke
from tests.grading.test_fixtures import fixture_source
from tests.test_formats import check_prairielearn

#: info.json's fields this question sets, as PrairieLearn's question and external grading pages name them.
INFO = {"uuid", "title", "topic", "tags", "type", "singleVariant", "gradingMethod", "externalGradingOptions"}
GRADING_OPTIONS = {"enabled", "image", "entrypoint", "timeout"}


def a_question(runner, tmp_path: Path, *extra: str) -> Path:  # type: ignore[no-untyped-def]
    tmp_path.mkdir(parents=True, exist_ok=True)
    wheel = tmp_path / "normkata-0.0.1-py3-none-any.whl"
    wheel.write_bytes(b"PK not really a wheel")
    out = tmp_path / "question"
    args = ["prairielearn-bundle", "rmsnorm", "--image", "me/normkata-grader:1", "--wheel", str(wheel)]
    result = invoke(runner, [*args, "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return out


def run_entry_point(question: Path, grade: Path) -> dict:
    shutil.copytree(question / "tests", grade / "tests", dirs_exist_ok=True)
    env = {
        **os.environ,
        "NORMKATA_GRADE_ROOT": str(grade),
        "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))),
    }
    env.pop("NORMKATA_HOME", None)
    done = subprocess.run(
        [str(grade / "tests" / "run.sh")], cwd=grade, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads((grade / "results" / "results.json").read_text(encoding="utf-8"))


def test_the_question_folder_is_what_prairielearn_reads(runner, tmp_path: Path) -> None:
    question = a_question(runner, tmp_path, "--seed", "7")
    info = json.loads((question / "info.json").read_text(encoding="utf-8"))
    assert set(info) == INFO and set(info["externalGradingOptions"]) == GRADING_OPTIONS
    assert info["type"] == "v3" and info["gradingMethod"] == "External"
    options = info["externalGradingOptions"]
    assert options == {
        "enabled": True,
        "image": "me/normkata-grader:1",
        "entrypoint": "/grade/tests/run.sh",
        "timeout": 120,
    }
    assert info["uuid"] == json.loads((a_question(runner, tmp_path / "again") / "info.json").read_text())["uuid"]
    html = (question / "question.html").read_text(encoding="utf-8")
    assert '<pl-file-upload file-names="rmsnorm.py"></pl-file-upload>' in html
    assert "<pl-external-grader-results></pl-external-grader-results>" in html
    run = (question / "tests" / "run.sh").read_text(encoding="utf-8")
    assert stat.S_IMODE((question / "tests" / "run.sh").stat().st_mode) == 0o755
    assert 'grade "$KATA" --file "$WORK/$FILE" --format prairielearn --output "$RESULTS"' in run
    assert "SEED=7" in run
    assert subprocess.run(["bash", "-n", str(question / "tests" / "run.sh")]).returncode == 0
    dockerfile = (question / "image" / "Dockerfile").read_text(encoding="utf-8")
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in dockerfile
    assert (question / "image" / "normkata-0.0.1-py3-none-any.whl").is_file()
    # An existing question is never written over.
    again = invoke(runner, ["prairielearn-bundle", "rmsnorm", "--image", "x", "--out", str(question)])
    assert again.exit_code == 2 and "already holds files" in again.stderr


def test_a_missing_or_linked_file_is_not_gradable(runner, tmp_path: Path) -> None:
    question = a_question(runner, tmp_path)
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    results = run_entry_point(question, grade)
    check_prairielearn(results)
    assert results["gradable"] is False
    assert results["format_errors"] == ["Your submission has no rmsnorm.py: upload a file with exactly that name."]
    (grade / "student" / "rmsnorm.py").symlink_to(tmp_path / "elsewhere.py")
    assert "symbolic link" in run_entry_point(question, grade)["message"]


@pytest.mark.slow  # grades a file
def test_the_entry_point_grades_an_upload(runner, tmp_path: Path) -> None:
    question = a_question(runner, tmp_path, "--seed", "7")
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    learner = fixture_source("rmsnorm", "buggy_eps_outside_sqrt")
    (grade / "student" / "rmsnorm.py").write_text(learner)
    results = run_entry_point(question, grade)
    check_prairielearn(results)
    assert results["gradable"] is True and 0.0 < results["score"] < 1.0
    assert "eps added outside the square root" in results["message"]
    assert (grade / "student" / "rmsnorm.py").read_text() == learner  # graded from a copy


def test_what_a_student_reads_without_a_grade_is_in_the_bundles_language(runner, tmp_path: Path) -> None:
    question = a_question(runner, tmp_path, "--lang", "zh")
    grade = tmp_path / "grade"
    (grade / "student").mkdir(parents=True)
    results = run_entry_point(question, grade)
    assert results["format_errors"] == ["你的提交中没有 rmsnorm.py：请上传一个恰好叫这个名字的文件。"]
