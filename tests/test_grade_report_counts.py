"""One count between a grade's verdict and its table; skipped cases counted as cases in Chinese too."""

from __future__ import annotations

import io
import re

from rich.console import Console

from normkata.grading.contract import CaseResult, Category, GradeResult, Status
from normkata.grading.report import render, render_compact


def result(lang: str = "en") -> GradeResult:
    """A grade: 37 of 45 scored cases pass, two rules pass, 16 CUDA cases skipped."""
    cases = [CaseResult(f"forward [{n}]", f"forward [{n}]", Category.FORWARD, Status.PASSED) for n in range(30)]
    cases += [
        CaseResult(f"low precision [{n}]", f"low precision [{n}]", Category.LOW_PRECISION, Status.PASSED)
        for n in range(7)
    ]
    cases += [
        CaseResult(
            f"low precision [f{n}]", f"low precision [f{n}]", Category.LOW_PRECISION, Status.FAILED, "off by 0.1"
        )
        for n in range(8)
    ]
    cases += [
        CaseResult(rule, rule, Category.INTEGRITY, Status.PASSED) for rule in ("forbidden_api", "global_defaults")
    ]
    reason = "本机没有可用的 CUDA" if lang == "zh" else "CUDA is not available on this machine"
    cases += [CaseResult(f"cuda [{n}]", f"cuda [{n}]", Category.CUDA, Status.SKIPPED, reason) for n in range(16)]
    return GradeResult("rmsnorm", "rmsnorm.py", cases, [], 7, "full", 1.0, "2.13.0", lang)


def shown(render_with, graded: GradeResult) -> str:  # type: ignore[no-untyped-def]
    console = Console(file=io.StringIO(), width=100, no_color=True, highlight=False)
    render_with(console, graded)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_the_table_adds_up_to_the_verdict() -> None:
    """the verdict counted 37 of 45 while the table added up to 39 passed and 8 failed."""
    text = shown(render, result())
    assert "NOT YET: 37 of 45 cases pass." in text
    cells = [[cell.strip() for cell in line.split("│")] for line in text.splitlines() if "│" in line]
    rows = {row[0]: [int(n) if n else 0 for n in row[1:5]] for row in cells}
    scored = [rows["forward fp32"], rows["low precision"]]
    assert [sum(column) for column in zip(*scored, strict=True)][:2] == [37, 8]
    assert rows["scored cases"][:2] == [37, 8]  # the verdict's count, on its own row
    assert rows["rules (not scored)"][:2] == [2, 0]  # apart from it


def test_watch_counts_the_rules_apart_too() -> None:
    text = shown(render_compact, result())
    counts = [tuple(map(int, pair)) for pair in re.findall(r"(\d+)/(\d+) [✓✗]", text)]
    assert sum(good for good, _ in counts) == 37 and sum(total for _, total in counts) == 45
    assert "rules (not scored) ✓" in text


def test_skipped_cases_are_counted_as_cases_in_both_languages() -> None:
    assert "Skipped: 16 case(s) (CUDA is not available on this machine)." in shown(render, result())
    zh = shown(render, result("zh"))
    assert "跳过：16 个用例（本机没有可用的 CUDA）。" in zh  # not "16 本机…" (16 machines)
    assert "尚未通过：45 个用例中 37 个通过。" in zh


def failing(name: str, call: str | None, rest: str) -> CaseResult:
    message = f"{call}: {rest}" if call else rest
    return CaseResult(name, name, Category.FORWARD, Status.FAILED, message, call=call)


def test_findings_alike_but_for_their_call_are_one_finding() -> None:
    """The call each case carries is what differs between findings of one mistake, colons inside
    its input description and all; the rest of the message, numbers aside, says which mistake."""
    cases = [
        failing("forward [a]", "launch(x) on x: N(0,1) 4x8", "wrong values at row 2 (max error 0.5)"),
        failing("forward [b]", "launch(x) on x: ones, residual: zeros 16x64", "wrong values at row 7 (max error 3)"),
        failing("forward [c]", "launch(x) on x: N(0,1) 4x8", "returned float32, expected bfloat16"),
        failing("forward [d]", None, "the kernel wrote nothing: no @triton.jit kernel ran"),
        # No call carried: the lead before the first colon is what differs.
        failing("dtype [e]", None, "RMSNorm(4).to(float64) left weight as float32: is it an nn.Parameter?"),
        failing("dtype [f]", None, "RMSNorm(4).to(bfloat16) left weight as float32: is it an nn.Parameter?"),
    ]
    text = shown(render, GradeResult("triton_rmsnorm", "k.py", cases, [], 7, "full", 1.0, "2.13.0", "en"))
    assert sum(line.startswith("✗ ") for line in text.splitlines()) == 4
    assert text.count("… and 1 more with the same message") == 2
    assert "returned float32, expected bfloat16" in text and "no @triton.jit kernel ran" in text
