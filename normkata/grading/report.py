"""Turn the runner's results into the verdict, the Rich report, JSON, Gradescope and JUnit."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from normkata.grading.categories import CATEGORIES

if TYPE_CHECKING:
    from rich.console import Console

STATUSES = ("passed", "failed", "error", "skipped")
#: How many failing cases the report spells out.
FIRST_FAILURES = 5


def summarise(raw: dict[str, Any], lang: str) -> dict[str, Any]:
    """The result object of SPEC.md ("kata", "file", "passed", "score", ...), from the runner's output."""
    cases = raw["cases"]
    counts = Counter(c["status"] for c in cases)
    counts_out = {status: counts.get(status, 0) for status in STATUSES}
    graded = len(cases) - counts_out["skipped"]
    return {
        "kata": raw["kata"],
        "file": raw["file"],
        "passed": graded > 0 and counts_out["passed"] == graded,
        "score": counts_out["passed"],
        "max_score": graded,
        "counts": counts_out,
        "cases": [{k: c[k] for k in ("name", "category", "status", "message")} for c in cases],
        "diagnosis": [
            {
                "id": d["id"],
                "title": d["title_zh" if lang == "zh" else "title_en"],
                "hint": d["hint_zh" if lang == "zh" else "hint_en"],
                "cases": d["cases"],
            }
            for d in raw.get("diagnosis", [])
        ],
        "duration_s": raw["duration_s"],
    }


def render(console: Console, result: dict[str, Any], raw: dict[str, Any], lang: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    from normkata.i18n import t

    console.print(
        f"[heading]{t('grade.title', lang, kata=result['kata'], file=Path(result['file']).name)}[/]  "
        f"[muted]torch {raw.get('torch') or '?'} · {result['duration_s']:.1f} s[/]"
    )
    table = Table(show_edge=False)
    table.add_column(t("grade.category", lang))
    for status in STATUSES:
        table.add_column(t(f"grade.{status}", lang), justify="right")
    table.add_column("")
    by_category: dict[str, Counter] = {}
    for case in result["cases"]:
        by_category.setdefault(case["category"], Counter())[case["status"]] += 1
    ordered = [c for c in CATEGORIES if c in by_category] + [c for c in by_category if c not in CATEGORIES]
    for category in ordered:
        counts = by_category[category]
        bad = counts["failed"] + counts["error"]
        mark = "[kata.fail]✗[/]" if bad else "[muted]–[/]" if not counts["passed"] else "[kata.pass]✓[/]"
        table.add_row(category, *(str(counts[s] or "") for s in STATUSES), mark)
    console.print(table)
    failures = [c for c in result["cases"] if c["status"] in ("failed", "error")]
    if failures:
        console.print(
            f"[heading]{t('grade.first_failures', lang, n=min(len(failures), FIRST_FAILURES), total=len(failures))}[/]"
        )
        for case in failures[:FIRST_FAILURES]:
            style = "kata.fail" if case["status"] == "failed" else "warn"
            console.print(f"[{style}]✗ {escape(case['name'])}[/] [muted]({case['category']})[/]")
            console.print(f"  {escape(case['message'])}")
    for diagnosis in result["diagnosis"]:
        named = t("grade.diagnosis", lang, title=diagnosis["title"], n=diagnosis["cases"])
        console.print(f"[next]{named}[/] {escape(diagnosis['hint'])}")
    skipped = [c for c in result["cases"] if c["status"] == "skipped"]
    if skipped:
        reasons = Counter(c["message"] for c in skipped)
        text = "; ".join(f"{n} {reason}" for reason, n in reasons.items())
        console.print(f"[muted]{t('grade.skipped_note', lang, text=text)}[/]")
    if result["passed"]:
        console.print(f"[kata.pass]{t('grade.verdict.pass', lang, score=result['score'], max=result['max_score'])}[/]")
    else:
        bad = result["counts"]["failed"] + result["counts"]["error"]
        console.print(f"[kata.fail]{t('grade.verdict.fail', lang, bad=bad, max=result['max_score'])}[/]")


def to_gradescope(result: dict[str, Any]) -> dict[str, Any]:
    """Gradescope autograder results.json: one test per graded case, 1 point each."""
    tests = [
        {
            "name": f"{case['category']}: {case['name']}",
            "score": 1.0 if case["status"] == "passed" else 0.0,
            "max_score": 1.0,
            "status": "passed" if case["status"] == "passed" else "failed",
            "output": case["message"],
        }
        for case in result["cases"]
        if case["status"] != "skipped"
    ]
    skipped = result["counts"]["skipped"]
    return {
        "score": float(result["score"]),
        "execution_time": result["duration_s"],
        "output": f"normkata kata {result['kata']}: {result['score']}/{result['max_score']} cases passed"
        + (f", {skipped} skipped" if skipped else ""),
        "tests": tests,
    }


def to_junit(result: dict[str, Any]) -> str:
    import xml.etree.ElementTree as ET

    counts = result["counts"]
    suite = ET.Element(
        "testsuite",
        name=f"normkata.{result['kata']}",
        tests=str(len(result["cases"])),
        failures=str(counts["failed"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"]),
        time=f"{result['duration_s']:.3f}",
    )
    for case in result["cases"]:
        element = ET.SubElement(suite, "testcase", classname=f"{result['kata']}.{case['category']}", name=case["name"])
        if case["status"] in ("failed", "error", "skipped"):
            tag = {"failed": "failure", "error": "error", "skipped": "skipped"}[case["status"]]
            child = ET.SubElement(element, tag, message=case["message"][:200])
            child.text = case["message"]
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def write_json(path: Path, payload: Any) -> None:
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
