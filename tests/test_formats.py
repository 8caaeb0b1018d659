"""Gradescope, JUnit and exercism results, checked against what each platform publishes.

Results are built directly (no grading), including a learner's exception that carries an ANSI
escape and a NUL byte, which must never reach a file unescaped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xmlschema

from normkata.grading.contract import CaseResult, Category, Cause, Diagnosis, GradeResult, Status
from normkata.grading.formats import EXERCISM_TRUNCATED, to_exercism, to_gradescope, to_junit, to_prairielearn
from tests.conftest import invoke

JUNIT_XSD = Path(__file__).parent / "fixtures" / "junit-10.xsd"
EPS_CALL = "RMSNorm(8, eps=1e-05).forward on N(0,1) input of shape (2, 5, 8), float32 on cpu"
EPS_MESSAGE = f"{EPS_CALL}: output differs from the reference. Max abs error 0.0123 at index (0, 1)."
HOSTILE = "RMSNorm(16) in forward: ValueError: \x1b[31mboom\x00 " + "x" * 700 + " (your file, line 9)"
HINT = "Use x * rsqrt(mean(x_sq) + eps)"


def a_result(lang: str = "en") -> GradeResult:
    cases = [
        CaseResult("weight_parameter", "weight parameter and state dict", Category.STATE, Status.PASSED),
        CaseResult(
            "forward[2x5x8-cpu]",
            "forward [2x5x8-cpu]",
            Category.FORWARD,
            Status.FAILED,
            EPS_MESSAGE,
            "rms-eps-outside-sqrt",
            EPS_CALL,
        ),
        CaseResult(
            "forward[3x16-cpu]",
            "forward [3x16-cpu]",
            Category.FORWARD,
            Status.ERROR,
            HOSTILE,
            call="RMSNorm(16) in forward",
        ),
        CaseResult(
            "forward[2x5x8-cuda]",
            "forward [2x5x8-cuda]",
            Category.CUDA,
            Status.SKIPPED,
            "CUDA is not available on this machine",
        ),
        CaseResult("forbidden_api", "uses no forbidden API", Category.INTEGRITY, Status.PASSED),
        CaseResult(
            "global_defaults",
            "leaves torch's global defaults alone",
            Category.INTEGRITY,
            Status.FAILED,
            "importing your file changed torch's global state (default dtype)",
        ),
    ]
    diagnosis = [Diagnosis("rms-eps-outside-sqrt", "eps added outside the square root", HINT, 1)]
    return GradeResult("rmsnorm", "/class/alice/rmsnorm.py", cases, diagnosis, 42, "full", 2.5, "2.13.0", lang)


def import_failure() -> GradeResult:
    case = CaseResult(
        "import", "import", Category.STATE, Status.ERROR, "SYNTAX ERROR in rmsnorm.py line 3: invalid syntax"
    )
    return GradeResult("rmsnorm", "rmsnorm.py", [case], [], 7, "full", 0.9)


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


# -- JUnit: the structure of Jenkins' xUnit junit-10 schema -------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_junit_is_valid_against_the_xunit_schema(lang: str) -> None:
    xml = to_junit(a_result(lang))
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(xml)
    assert "\x1b" not in xml and "\x00" not in xml
    assert "\\x1b[31mboom\\x00" in xml  # shown escaped, not dropped


def test_junit_has_one_suite_per_category_with_counts_and_time() -> None:
    document = xmlschema.XMLSchema(str(JUNIT_XSD)).to_dict(to_junit(a_result()))
    assert document["@tests"] == "6" and document["@failures"] == "2" and document["@errors"] == "1"
    assert document["@time"] == "2.500"
    suites = {s["@name"]: s for s in document["testsuite"]}
    assert list(suites) == [
        "rmsnorm.forward fp32",
        "rmsnorm.module state",
        "rmsnorm.CUDA",
        "rmsnorm.integrity",
    ]  # report order
    forward = suites["rmsnorm.forward fp32"]
    assert (forward["@tests"], forward["@failures"], forward["@errors"], forward["@skipped"]) == ("2", "1", "1", "0")
    failed, errored = forward["testcase"]
    assert failed["failure"][0]["@type"] == "rms-eps-outside-sqrt"
    assert failed["failure"][0]["$"] == f"{EPS_MESSAGE}\nHint: {HINT}"
    assert errored["error"][0]["$"].startswith("RMSNorm(16) in forward: ValueError: \\x1b[31mboom\\x00 xxx")
    assert suites["rmsnorm.CUDA"]["testcase"][0]["skipped"][0]["@message"] == "CUDA is not available on this machine"
    properties = {p["@name"]: p["@value"] for p in forward["properties"][0]["property"]}
    assert properties["seed"] == "42" and properties["score"] == "1/3"


def test_junit_drops_characters_xml_cannot_hold() -> None:
    result = a_result()
    result.cases[1].message = "got \ufffe and \uffff and a lone \ud800 surrogate"
    xml = to_junit(result)
    xmlschema.XMLSchema(str(JUNIT_XSD)).validate(xml)
    assert "got  and  and a lone ? surrogate" in xml


# -- Gradescope: https://gradescope-autograders.readthedocs.io/en/latest/specs/ -----------------

GRADESCOPE_TOP = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
GRADESCOPE_TEST = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
OUTPUT_FORMATS = {"text", "html", "simple_format", "md", "ansi"}


def test_gradescope_uses_only_published_fields() -> None:
    results = json.loads(json.dumps(to_gradescope(a_result())))
    assert set(results) <= GRADESCOPE_TOP
    assert results["visibility"] in VISIBILITY and results["stdout_visibility"] in VISIBILITY
    assert results["output_format"] == "md" and results["test_output_format"] == "md"
    for test in results["tests"]:
        assert set(test) <= GRADESCOPE_TEST and {"name", "number", "tags", "visibility", "output"} <= set(test)
        assert test["visibility"] in VISIBILITY and test["output_format"] in OUTPUT_FORMATS
        assert test.get("status", "passed") in {"passed", "failed"}
        assert isinstance(test.get("score", 0.0), float) and isinstance(test.get("max_score", 0.0), float)
    assert not any("\x1b" in s or "\x00" in s for s in strings_in(results))


def test_gradescope_score_is_the_cases_passed_when_every_rule_holds() -> None:
    result = a_result()
    result.cases = [c for c in result.cases if c.category is not Category.INTEGRITY or c.status is Status.PASSED]
    results = to_gradescope(result)
    assert results["score"] == 1.0 == sum(t.get("score", 0.0) for t in results["tests"])


def test_gradescope_scores_cases_and_keeps_rules_and_skips_as_information() -> None:
    results = to_gradescope(a_result())
    tests = {t["name"]: t for t in results["tests"]}
    assert [t["number"] for t in results["tests"]] == ["1.1", "1.2", "2.1", "3.1", "4.1", "4.2"]
    assert sum(t.get("score", 0.0) for t in results["tests"]) == 1.0
    assert results["score"] == 0.0  # a broken rule (the changed default dtype) costs every point
    assert sum(t.get("max_score", 0.0) for t in results["tests"]) == 3.0
    assert tests["forward fp32: forward [2x5x8-cpu]"] == {
        "name": "forward fp32: forward [2x5x8-cpu]",
        "number": "1.1",
        "tags": ["forward fp32"],
        "visibility": "visible",
        "output_format": "md",
        "status": "failed",
        "score": 0.0,
        "max_score": 1.0,
        "output": f"{EPS_MESSAGE}\n\nHint: Use x \\* rsqrt(mean(x\\_sq) + eps)",
        "extra_data": {"misconception": "rms-eps-outside-sqrt"},
    }
    skipped = tests["CUDA: forward [2x5x8-cuda]"]
    assert "score" not in skipped and "status" not in skipped
    assert skipped["output"] == "Skipped: CUDA is not available on this machine."
    rule = tests["integrity: leaves torch's global defaults alone"]
    assert rule["status"] == "failed" and "score" not in rule and "default dtype" in rule["output"]
    assert results["extra_data"]["misconceptions"] == [
        {"id": "rms-eps-outside-sqrt", "title": "eps added outside the square root", "cases": 1}
    ]
    assert results["extra_data"]["max_score"] == 3 and results["extra_data"]["seed"] == 42
    # counted as the terminal counts (report.verdict), not as failures
    assert results["output"].startswith("**normkata rmsnorm** · NOT YET: 1 of 3 cases pass.")


# -- exercism: test runner interface, version 3 ------------------------------------------------

EXERCISM_TOP = {"version", "status", "message", "tests"}
EXERCISM_TEST = {"name", "test_code", "status", "message", "output", "task_id"}


def check_exercism(results: dict) -> None:
    assert set(results) <= EXERCISM_TOP and results["version"] == 3
    assert results["status"] in {"pass", "fail", "error"}
    assert (results["message"] is not None) == (results["status"] == "error")
    for test in results["tests"]:
        assert set(test) <= EXERCISM_TEST and {"name", "status"} <= set(test)
        assert test["status"] in {"pass", "fail", "error"}
        assert len(test.get("output", "")) <= 500
    assert not any("\x1b" in s or "\x00" in s for s in strings_in(results))


def test_exercism_results_version_3() -> None:
    results = json.loads(json.dumps(to_exercism(a_result())))
    check_exercism(results)
    assert results["status"] == "fail"
    tests = {t["name"]: t for t in results["tests"]}
    assert "CUDA: forward [2x5x8-cuda]" not in tests  # the interface has no skipped status
    assert tests["forward fp32: forward [2x5x8-cpu]"] == {
        "name": "forward fp32: forward [2x5x8-cpu]",
        "status": "fail",
        "test_code": EPS_CALL,
        "message": f"output differs from the reference. Max abs error 0.0123 at index (0, 1).\nHint: {HINT}",
        "output": EPS_MESSAGE,
    }
    hostile = tests["forward fp32: forward [3x16-cpu]"]
    assert hostile["status"] == "error" and hostile["test_code"] == "RMSNorm(16) in forward"
    assert len(hostile["output"]) == 500 and hostile["output"].endswith("…\n" + EXERCISM_TRUNCATED)
    assert hostile["output"].startswith("RMSNorm(16) in forward: ValueError: \\x1b[31mboom\\x00 ")
    assert tests["module state: weight parameter and state dict"] == {
        "name": "module state: weight parameter and state dict",
        "status": "pass",
    }


def test_exercism_error_when_the_file_does_not_import() -> None:
    results = to_exercism(import_failure())
    check_exercism(results)
    assert results["status"] == "error"
    assert results["message"] == "SYNTAX ERROR in rmsnorm.py line 3: invalid syntax"


def test_exercism_pass() -> None:
    result = a_result()
    result.cases = [c for c in result.cases if c.status in (Status.PASSED, Status.SKIPPED)]
    results = to_exercism(result)
    check_exercism(results)
    assert results["status"] == "pass" and len(results["tests"]) == 2


@pytest.mark.slow
def test_grade_format_exercism_writes_results_json(runner, tmp_path: Path) -> None:
    learner = tmp_path / "rmsnorm.py"
    learner.write_text("class RMSNorm(:\n")
    out = tmp_path / "results.json"
    result = invoke(runner, ["grade", "rmsnorm", "--file", str(learner), "--format", "exercism", "--output", str(out)])
    assert result.exit_code == 1
    results = json.loads(out.read_text(encoding="utf-8"))
    check_exercism(results)
    assert results["status"] == "error" and results["message"].startswith("SYNTAX ERROR in rmsnorm.py line 1")


# -- PrairieLearn: the fields its docs (externalGrading.md, "Grading results") define ------------

PRAIRIELEARN_TOP = {"gradable", "score", "message", "output", "format_errors", "images", "tests"}
PRAIRIELEARN_TEST = {"name", "description", "points", "max_points", "message", "output", "images"}
RMSNORM_CORRECT = Path(__file__).parents[1] / "katas" / "rmsnorm" / "fixtures" / "correct_cs336_style.py"


def check_prairielearn(results: dict[str, object]) -> None:
    """Only the documented fields, of the documented types: score a number in [0, 1], each test
    named with points out of max_points."""
    assert set(results) <= PRAIRIELEARN_TOP and isinstance(results["gradable"], bool)
    score = results["score"]
    assert isinstance(score, float) and 0.0 <= score <= 1.0
    tests = results["tests"]
    assert isinstance(tests, list)
    for test in tests:
        assert set(test) <= PRAIRIELEARN_TEST and {"name", "points", "max_points"} <= set(test)
        assert isinstance(test["name"], str) and test["name"]
        assert 0 <= test["points"] <= test["max_points"]
    assert not any("\x1b" in s or "\x00" in s for s in strings_in(results))


def test_prairielearn_scores_the_cases_passed_as_a_fraction() -> None:
    result = a_result()
    result.cases = [c for c in result.cases if c.category is not Category.INTEGRITY or c.status is Status.PASSED]
    results = json.loads(json.dumps(to_prairielearn(result)))
    check_prairielearn(results)
    assert results["gradable"] is True
    assert results["score"] == pytest.approx(1 / 3)  # one of the three scored cases
    assert sum(t["points"] for t in results["tests"]) == 1 and sum(t["max_points"] for t in results["tests"]) == 3
    failed = next(t for t in results["tests"] if t["name"] == "forward fp32: forward [2x5x8-cpu]")
    assert failed["points"] == 0 and failed["max_points"] == 1
    assert failed["output"] == EPS_MESSAGE and HINT in failed["message"]
    assert failed["description"] == "rms-eps-outside-sqrt"
    assert "eps added outside the square root" in results["message"]


def test_prairielearn_broken_rule_costs_every_point_and_is_listed() -> None:
    results = to_prairielearn(a_result())
    check_prairielearn(results)
    assert results["gradable"] is True and results["score"] == 0.0
    rule = next(t for t in results["tests"] if "global defaults" in t["name"])
    assert rule["max_points"] == 0 and "default dtype" in rule["output"]


def test_prairielearn_file_that_never_imports_is_not_gradable() -> None:
    failure = import_failure()
    failure.cases[0].cause = Cause.SYNTAX
    results = to_prairielearn(failure)
    check_prairielearn(results)
    assert results["gradable"] is False and results["tests"] == []
    assert results["format_errors"] == ["SYNTAX ERROR in rmsnorm.py line 3: invalid syntax"]


@pytest.mark.slow
def test_grade_format_prairielearn_on_a_wrong_and_a_broken_file(runner, tmp_path: Path) -> None:
    source = RMSNORM_CORRECT.read_text(encoding="utf-8")
    right = "rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)"
    assert right in source
    wrong = tmp_path / "wrong" / "rmsnorm.py"
    wrong.parent.mkdir()
    wrong.write_text(source.replace(right, "rms = 1 / (x.pow(2).mean(-1, keepdim=True).sqrt() + self.eps)"))
    out = tmp_path / "results.json"
    args = ["grade", "rmsnorm", "--seed", "7", "--format", "prairielearn", "--output", str(out)]
    assert invoke(runner, [*args, "--file", str(wrong)]).exit_code == 1
    results = json.loads(out.read_text(encoding="utf-8"))
    check_prairielearn(results)
    assert results["gradable"] is True and 0.0 < results["score"] < 1.0
    assert any(t["points"] < t["max_points"] for t in results["tests"])
    assert "eps added outside the square root" in results["message"]
    broken = tmp_path / "rmsnorm.py"
    broken.write_text("class RMSNorm(:\n")
    assert invoke(runner, [*args, "--file", str(broken)]).exit_code == 1
    results = json.loads(out.read_text(encoding="utf-8"))
    check_prairielearn(results)
    assert results["gradable"] is False
    assert results["format_errors"][0].startswith("SYNTAX ERROR in rmsnorm.py line 1")
