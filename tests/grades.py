"""Grade results made by hand, for tests that write the record without running the grader."""

from __future__ import annotations

from normkata.grading.contract import CaseResult, Category, Diagnosis, GradeResult, Status


def grade_result(
    kata: str,
    cases: dict[str, str] | None = None,
    *,
    seed: int = 1,
    named: dict[str, str] | None = None,
    score: int | None = None,
    max_score: int | None = None,
    file: str = "x.py",
    lang: str = "en",
) -> GradeResult:
    """A result with these cases (id -> status, each titled by its id) and misconceptions (id -> title); `score` and
    `max_score` add passing, then failing, cases named `cN` until the counts are met."""
    shown = [CaseResult(name, name, Category.FORWARD, Status(status)) for name, status in (cases or {}).items()]
    passing = sum(c.status is Status.PASSED for c in shown)
    extra = 0
    while score is not None and passing < score:
        extra += 1
        passing += 1
        shown.append(CaseResult(f"c{extra}", f"c{extra}", Category.FORWARD, Status.PASSED))
    while max_score is not None and len(shown) < max_score:
        extra += 1
        shown.append(CaseResult(f"c{extra}", f"c{extra}", Category.FORWARD, Status.FAILED))
    diagnosis = [Diagnosis(mid, title, "", 1) for mid, title in (named or {}).items()]
    return GradeResult(kata, file, shown, diagnosis, seed, "test", 1.0, "", lang)
