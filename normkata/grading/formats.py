"""A `GradeResult` in the formats autograding platforms read: Gradescope, JUnit XML, exercism,
PrairieLearn.

Every text is made safe again here, not only by the runner: a result can be built anywhere
(a test, a stored report), and one control character makes a JUnit file invalid XML.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normkata.grading.contract import ONE_POINT_EACH, CaseResult, Category, GradeResult, Status, Verdict
from normkata.grading.report import text, tidy, verdict_line
from normkata.grading.text import after_call, sanitize

#: Points per scored case of a category (grade-all's --weights); a category not named is worth 1.
Weights = Mapping[Category, int]

#: Who sees a Gradescope test's result, and when (Gradescope's own values); "visible" by default.
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")

#: exercism caps a test's output at 500 characters and names this notice for what it cut.
EXERCISM_OUTPUT_LIMIT = 500
EXERCISM_TRUNCATED = "Output was truncated. Please limit to 500 chars"

# XML 1.0 allows neither of these; sanitize() already escapes control characters.
_NOT_XML = re.compile("[\ufffe\uffff]")
# Characters Markdown would read as formatting in a failure message (`num_batches_tracked`).
_MARKDOWN = re.compile(r"([\\`*_\[\]<>#|])")


@dataclass(frozen=True)
class Format:
    """A platform's results file: the name it is written under by default, and its text for a
    result (`visibility`: Gradescope's, which the others ignore)."""

    file: str
    text: Callable[[GradeResult, str, Weights], str]


def write(fmt: str, path: Path, result: GradeResult, *, visibility: str = VISIBILITIES[0]) -> None:
    """Write `result` to `path` as `fmt` (a key of FORMATS), one point per case."""
    path.write_text(FORMATS[fmt].text(result, visibility, ONE_POINT_EACH), encoding="utf-8")


def _json(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def _ordered(result: GradeResult) -> list[tuple[str, CaseResult]]:
    """Cases in report order (by category), each with its number `category.case` (1.1, 1.2, 2.1)."""
    numbered = []
    present = [c for c in Category if any(case.category is c for case in result.cases)]
    for major, category in enumerate(present, start=1):
        same = [case for case in result.cases if case.category is category]
        numbered += [(f"{major}.{minor}", case) for minor, case in enumerate(same, start=1)]
    return numbered


def _hint_for(result: GradeResult, case: CaseResult) -> str | None:
    named = next((d for d in result.diagnosis if d.id == case.diagnosis), None)
    return text("hint", result.lang, hint=named.hint) if named else None


def _test_name(case: CaseResult, lang: str) -> str:
    """ "forward fp32: forward [2x5x8-cpu]", "fp32 前向：前向 [2x5x8-cpu]" (a full-width colon after Chinese)."""
    return text("test_name", lang, category=case.category.label(lang), name=tidy(sanitize(case.name, 200), lang))


# -- Gradescope ------------------------------------------------------------------------------


def _md(value: str) -> str:
    return _MARKDOWN.sub(r"\\\1", sanitize(value))


def to_gradescope(
    result: GradeResult, visibility: str = VISIBILITIES[0], weights: Weights = ONE_POINT_EACH
) -> dict[str, Any]:
    """Gradescope's results.json: one point per scored case (its category's weight when
    `weights` names it); rules and skipped cases shown without points (informational), so
    nothing the report says is lost. `visibility` is every test's and the whole result's (a
    test's own setting overrides the top level's)."""
    lang = result.lang
    verdict = result.verdict
    earned, possible = Verdict.weighted(result.cases, weights)
    lines = [f"**normkata {_md(result.kata)}** · {_md(verdict_line(result))}"]
    for named in sorted(result.diagnosis, key=lambda d: -d.cases):
        lines += [
            "",
            f"- {_md(text('named', lang, title=named.title, n=named.cases))}",
            f"  {_md(text('hint', lang, hint=named.hint))}",
        ]
    tests = []
    for number, case in _ordered(result):
        test: dict[str, Any] = {
            "name": _test_name(case, lang),
            "number": number,
            "tags": [case.category.value],
            "visibility": visibility,
            "output_format": "md",
        }
        if case.status is Status.SKIPPED:
            test["output"] = _md(text("skipped_note", lang, text=case.message))
        else:
            passed = case.status is Status.PASSED
            test["status"] = "passed" if passed else "failed"
            if case.category is not Category.INTEGRITY:
                worth = float(weights.get(case.category, 1))
                test["score"], test["max_score"] = (worth if passed else 0.0), worth
            hint = _hint_for(result, case)
            test["output"] = "\n\n".join(_md(tidy(part, lang)) for part in (case.message, hint) if part)
        if case.diagnosis:
            test["extra_data"] = {"misconception": case.diagnosis}
        tests.append(test)
    # A broken rule (torch's own norm called, say) fails the grade: on a platform that adds up
    # points it must cost them too, or copying F.rms_norm would earn full marks (Verdict.points).
    return {
        "score": float(earned),
        "execution_time": round(result.duration_s, 3),
        "output": "\n".join(lines),
        "output_format": "md",
        "test_output_format": "md",
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "extra_data": {
            "kata": result.kata,
            "passed": verdict.passed,
            "max_score": possible,
            "seed": result.seed,
            "sandbox": result.sandbox,
            "misconceptions": [{"id": d.id, "title": d.title, "cases": d.cases} for d in result.diagnosis],
        },
        "tests": tests,
    }


# -- JUnit -----------------------------------------------------------------------------------


def _xml(value: str, limit: int | None = None) -> str:
    return _NOT_XML.sub("", sanitize(value) if limit is None else sanitize(value, limit))


def to_junit(result: GradeResult) -> str:
    """`<testsuites>` with one `<testsuite>` per category, as Jenkins' xUnit plugin (junit-10) reads it.

    Per-case times are not measured by the runner, so only the whole run carries a time.
    """
    import xml.etree.ElementTree as ET

    counts = result.counts
    root = ET.Element(
        "testsuites",
        name=f"normkata.{_xml(result.kata)}",
        tests=str(len(result.cases)),
        failures=str(counts["failed"]),
        errors=str(counts["error"]),
        time=f"{result.duration_s:.3f}",
    )
    properties = {
        "kata": result.kata,
        "file": result.file,
        "seed": str(result.seed),
        "sandbox": result.sandbox,
        "torch": result.torch,
        "score": f"{result.score}/{result.max_score}",
    }
    for category in [c for c in Category if any(case.category is c for case in result.cases)]:
        cases = [case for case in result.cases if case.category is category]
        tally = {s: sum(case.status is s for case in cases) for s in Status}
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"{_xml(result.kata)}.{category.value}",
            tests=str(len(cases)),
            failures=str(tally[Status.FAILED]),
            errors=str(tally[Status.ERROR]),
            skipped=str(tally[Status.SKIPPED]),
        )
        listed = ET.SubElement(suite, "properties")
        for key, value in properties.items():
            ET.SubElement(listed, "property", name=key, value=_xml(value))
        for case in cases:
            element = ET.SubElement(
                suite, "testcase", name=_xml(case.name, 200), classname=f"normkata.{_xml(result.kata)}.{category.value}"
            )
            if case.status is Status.PASSED:
                continue
            tag = {Status.FAILED: "failure", Status.ERROR: "error", Status.SKIPPED: "skipped"}[case.status]
            message = tidy(case.message, result.lang)
            child = ET.SubElement(element, tag, message=_xml(message, 200))
            if case.diagnosis:
                child.set("type", case.diagnosis)
            hint = _hint_for(result, case)
            child.text = _xml("\n".join(part for part in (message, hint) if part))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


# -- exercism --------------------------------------------------------------------------------


def _capped(output: str) -> str:
    if len(output) <= EXERCISM_OUTPUT_LIMIT:
        return output
    keep = EXERCISM_OUTPUT_LIMIT - len(EXERCISM_TRUNCATED) - 2
    return output[:keep] + "…\n" + EXERCISM_TRUNCATED


_EXERCISM_STATUS = {Status.PASSED: "pass", Status.FAILED: "fail", Status.ERROR: "error"}


def to_exercism(result: GradeResult) -> dict[str, Any]:
    """exercism's test-runner results.json, version 3.

    A test's `test_code` is the case's call, `message` what came back (the line after the call)
    and the named mistake's hint, `output` the grader's full line for it (capped as the interface
    requires). Skipped cases are left out: the interface has no such status. The status is
    `error` when every case that ran errored (the file did not import).
    """
    tests = []
    for case in result.cases:
        if case.status is Status.SKIPPED:
            continue
        test: dict[str, Any] = {
            "name": _test_name(case, result.lang),
            "status": _EXERCISM_STATUS[case.status],
        }
        line, call = sanitize(case.message), case.call and sanitize(case.call)
        if call:
            test["test_code"] = call
        if case.status is not Status.PASSED:
            what = tidy(after_call(line, call), result.lang)
            test["message"] = "\n".join(part for part in (what, _hint_for(result, case)) if part)
            test["output"] = _capped(tidy(line, result.lang))
        tests.append(test)
    errors = [sanitize(c.message) for c in result.cases if c.status is Status.ERROR]
    if result.passed:
        return {"version": 3, "status": "pass", "message": None, "tests": tests}
    if errors and len(errors) == len(tests):
        return {"version": 3, "status": "error", "message": "\n".join(errors), "tests": tests}
    return {"version": 3, "status": "fail", "message": None, "tests": tests}


# -- PrairieLearn ----------------------------------------------------------------------------


def _named_lines(result: GradeResult) -> list[str]:
    """Each named mistake, most cases first: its title and count, then its hint."""
    lines = []
    for named in sorted(result.diagnosis, key=lambda d: -d.cases):
        lines.append(text("named", result.lang, title=named.title, n=named.cases))
        lines.append(text("hint", result.lang, hint=named.hint))
    return [sanitize(tidy(line, result.lang)) for line in lines]


def to_prairielearn(result: GradeResult, weights: Weights = ONE_POINT_EACH) -> dict[str, Any]:
    """PrairieLearn's external grader results (/grade/results/results.json).

    `score` is a fraction in [0, 1]: the points earned (0 when a rule is broken, as on every
    platform) over the suite's. A file that never imported is `gradable: false` with the reason
    in `format_errors`: PrairieLearn then neither awards nor takes points and does not count the
    attempt. Each case is a test with `points`/`max_points` (one per scored case, or its
    category's weight when `weights` names it; rules and
    skipped cases 0 of 0, listed so that nothing the report says is lost), its line in `output`
    and its named mistake's hint in `message`.
    """
    lang = result.lang
    named = _named_lines(result)
    if result.never_imported:
        errors = [sanitize(c.message) for c in result.cases if c.status in (Status.FAILED, Status.ERROR)]
        return {
            "gradable": False,
            "score": 0.0,
            "message": sanitize(verdict_line(result)),
            "format_errors": errors,
            "tests": [],
        }
    tests = []
    for _number, case in _ordered(result):
        scored = case.category is not Category.INTEGRITY and case.status is not Status.SKIPPED
        passed = case.status is Status.PASSED
        worth = weights.get(case.category, 1) if scored else 0
        test: dict[str, Any] = {
            "name": _test_name(case, lang),
            "points": worth if passed else 0,
            "max_points": worth,
        }
        if case.status is Status.SKIPPED:
            test["message"] = sanitize(text("skipped_note", lang, text=case.message))
        elif not passed:
            hint = _hint_for(result, case)
            if hint:
                test["message"] = sanitize(tidy(hint, lang))
            if case.message:
                test["output"] = sanitize(tidy(case.message, lang))
        if case.diagnosis:
            test["description"] = case.diagnosis
        tests.append(test)
    earned, possible = Verdict.weighted(result.cases, weights)
    score = earned / possible if possible else 0.0
    return {
        "gradable": True,
        "score": round(score, 6),
        "message": "\n".join([sanitize(verdict_line(result)), *named]),
        "tests": tests,
    }


#: Every format `normkata grade --format` writes, by name: the one table the command reads.
FORMATS = {
    "gradescope": Format(
        "results.json", lambda result, visibility, weights: _json(to_gradescope(result, visibility, weights))
    ),
    "junit": Format("junit.xml", lambda result, _visibility, _weights: to_junit(result)),
    "exercism": Format("results.json", lambda result, _visibility, _weights: _json(to_exercism(result))),
    "prairielearn": Format(
        "results.json", lambda result, _visibility, weights: _json(to_prairielearn(result, weights))
    ),
}
