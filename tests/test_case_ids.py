"""A grade carries each case's id (`CaseResult.id`): the record stores it as it came, reading no
YAML and no title back, so two cases may share a title; screens word an id in the reader's
language when they show it."""

from __future__ import annotations

from pathlib import Path

import pytest

from normkata.content.suite_names import suite_names
from normkata.grading.contract import CaseResult, Category, GradeResult, Status
from normkata.record.attempts import KataLog
from normkata.record.store import Store

SOLUTIONS = Path(__file__).parents[1] / "solutions"


def test_the_record_keeps_the_ids_two_cases_sharing_a_title(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_yaml(kata: str) -> None:
        raise AssertionError(f"storing a grade read {kata}'s names")

    monkeypatch.setattr("normkata.content.suite_names.suite_names", no_yaml)
    cases = [
        CaseResult("forward[2x8-cpu]", "forward [2x8-cpu]", Category.FORWARD, Status.PASSED),
        CaseResult("centre_rows[2x8-cpu]", "forward [2x8-cpu]", Category.FORWARD, Status.FAILED, "off"),
    ]
    store = Store(tmp_path / "normkata.db")
    KataLog(store).attempt(GradeResult("rmsnorm", "rmsnorm.py", cases, [], 1, "full", 0.5, lang="zh"), "cpu")
    (attempt,) = KataLog(store).attempts("rmsnorm")
    assert attempt.cases == {"forward[2x8-cpu]": "passed", "centre_rows[2x8-cpu]": "failed"}
    monkeypatch.undo()
    assert attempt.case("forward[2x8-cpu]", "zh") == "前向 [2x8-cpu]"  # worded where it is shown
    assert attempt.case("forward[2x8-cpu]", "en") == "forward [2x8-cpu]"


@pytest.mark.slow
def test_a_grade_sends_each_case_id_and_its_title_in_the_grades_language(grading_service, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    mine = tmp_path / "rmsnorm.py"  # the reference, as a learner's file (its own folder is never readable)
    mine.write_bytes((SOLUTIONS / "rmsnorm.py").read_bytes())
    result = grading_service.grade("rmsnorm", mine, lang="zh", timeout=5)
    assert result.passed
    names = suite_names("rmsnorm")
    ids = [case.id for case in result.cases]
    assert len(set(ids)) == len(ids) and {"forbidden_api", "global_defaults"} <= set(ids)
    for case in result.cases:
        assert case.name == names.case(case.id, "zh"), case
