"""Why a submission did not pass, in one line: the gradebook's `reason` column, and what the
terminal's summary counts.

A reason is built from what the runner decided (each case's cause, the named mistakes), never
from the wording of a message; only two details come from the submission's own source, parsed
here and never run: the line of a syntax error and how a forbidden API is spelled (`F.rms_norm`).
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

from normkata.content.katas import Kata
from normkata.grading.contract import STOPPED_AT_IMPORT, Category, Cause, GradeResult, Status
from normkata.grading.text import escape_name, sanitize
from normkata.i18n import t

#: What the summary counts for each cause (a named mistake is counted under its own id).
KINDS = {
    Cause.SYNTAX: "syntax-error",
    Cause.IMPORT: "import-error",
    Cause.MISSING_CLASS: "missing-class",
    Cause.FORBIDDEN: "forbidden-api",
    Cause.TIMEOUT: "timed-out",
    Cause.CRASH: "crashed",
    Cause.GLOBAL_STATE: "global-state",
    Cause.RAISED: "raised",
}
#: Failed cases that no named mistake and no error explains.
WRONG_RESULTS = "wrong-results"
_BAD = (Status.FAILED, Status.ERROR)


@dataclass(frozen=True)
class Reason:
    text: str = ""
    #: What the summary counts: misconception ids and the KINDS above, most telling first.
    kinds: list[str] = field(default_factory=list)


def reason_of(result: GradeResult, files: dict[str, bytes], kata: Kata, lang: str) -> Reason:
    """Why `result` did not pass ("" when it passed). `files` is the graded snapshot (relative
    path, "" for a single file, to bytes)."""
    if result.passed:
        return Reason()
    bad = [c for c in result.cases if c.status in _BAD]
    causes = Counter(c.cause for c in bad if c.cause is not None)
    stopped = next((c for c in bad if c.cause in STOPPED_AT_IMPORT), None)
    if stopped is not None and stopped.cause is not None:
        if stopped.cause is Cause.SYNTAX:
            where = _syntax_error(files, kata.file)
            if where is not None:
                file, line = where
                key = "classroom.reason.syntax" if file == kata.file else "classroom.reason.syntax_in"
                return Reason(t(key, lang, line=line, file=file), [KINDS[Cause.SYNTAX]])
        # The runner's own first line: "IMPORT ERROR in rmsnorm.py line 1: ValueError: boom".
        return Reason(stopped.message.splitlines()[0] if stopped.message else "", [KINDS[stopped.cause]])
    parts: list[tuple[str, str]] = []
    if causes[Cause.FORBIDDEN]:
        rule = next(c for c in bad if c.cause is Cause.FORBIDDEN)
        names = _forbidden_spelled(files, kata.forbidden) or [n for n in kata.forbidden if n in rule.message]
        shown = ", ".join(f"`{n}`" for n in names)
        parts.append((KINDS[Cause.FORBIDDEN], t("classroom.reason.forbidden", lang, names=shown)))
    for cause in (Cause.TIMEOUT, Cause.CRASH):
        if causes[cause]:
            parts.append((KINDS[cause], t(f"classroom.reason.{KINDS[cause]}", lang, n=causes[cause])))
    for named in sorted(result.diagnosis, key=lambda d: -d.cases):
        parts.append((named.id, named.title))
    if causes[Cause.GLOBAL_STATE]:
        parts.append((KINDS[Cause.GLOBAL_STATE], t("classroom.kind.global-state", lang)))
    if not parts and causes[Cause.RAISED]:
        parts.append((KINDS[Cause.RAISED], t("classroom.reason.raised", lang, n=causes[Cause.RAISED])))
    if not parts:
        scored = [c for c in bad if c.category is not Category.INTEGRITY]
        labels = list(dict.fromkeys(c.category.label(lang) for c in scored))
        parts.append(
            (WRONG_RESULTS, t("classroom.reason.wrong-results", lang, n=len(scored), categories=", ".join(labels)))
        )
    return Reason("; ".join(text for _, text in parts), [kind for kind, _ in parts])


def read_back(result: GradeResult, kinds: list[str]) -> GradeResult:
    """A result read back from its JSON report (a kept grade, a shard's) carries no causes:
    `grade --json` leaves them out. The row's kinds say whether the file never imported, and why;
    that cause goes back on its errored cases, so every output treats it as when it was graded
    (PrairieLearn's `gradable`, the report's denominator)."""
    stopped = {KINDS[cause]: cause for cause in STOPPED_AT_IMPORT}
    cause = stopped.get(kinds[0]) if kinds else None
    if cause is not None:
        for case in result.cases:
            if case.status is Status.ERROR and case.cause is None:
                case.cause = cause
    return result


def stopped_at_import(result: GradeResult) -> bool:
    """Whether the file never imported (or lacked its class): the suite's cases never ran."""
    return result.never_imported


def common_reasons(
    outcomes: list[tuple[list[str], GradeResult | None]], lang: str, limit: int = 8
) -> list[tuple[str, str, int]]:
    """(kind, title, submissions it was a reason for), the most common first: named mistakes and
    error kinds (syntax error, forbidden API, timed out, ...) alike."""
    counts: Counter[str] = Counter()
    titles = {kind: t(f"classroom.kind.{kind}", lang) for kind in (*KINDS.values(), WRONG_RESULTS)}
    for kinds, result in outcomes:
        counts.update(set(kinds))
        for named in result.diagnosis if result is not None else ():
            titles.setdefault(named.id, named.title)
    # Ties by id: the same class lists the same mistakes, in whatever order its rows were graded.
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [(kind, titles.get(kind, kind), n) for kind, n in ranked]


def _sources(files: dict[str, bytes], kata_file: str) -> list[tuple[str, str]]:
    """(file name, text), the kata's file first."""
    named = sorted(
        ((relative or kata_file, data) for relative, data in files.items()),
        key=lambda item: (item[0] != kata_file, item[0]),
    )
    return [(name, data.decode("utf-8", "replace")) for name, data in named]


def _parsed(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _syntax_error(files: dict[str, bytes], kata_file: str) -> tuple[str, int] | None:
    """The first file that does not parse, and the line Python names."""
    for name, source in _sources(files, kata_file):
        try:
            ast.parse(source)
        except SyntaxError as exc:
            return escape_name(name), exc.lineno or 0
        except (ValueError, RecursionError, MemoryError):
            continue
    return None


def _forbidden_spelled(files: dict[str, bytes], forbidden: tuple[str, ...]) -> list[str]:
    """Forbidden names as the source spells them: `F.rms_norm`, `torch.nn.functional.rms_norm`,
    or the bare name a `from torch... import` brings in."""
    found: dict[str, None] = {}
    for _, source in _sources(files, ""):
        tree = _parsed(source)
        spelled: list[tuple[int, int, str]] = []  # in the order the source reads
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Attribute) and node.attr in forbidden:
                spelled.append((node.lineno, node.col_offset, sanitize(ast.unparse(node), 60)))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch"):
                spelled += [(node.lineno, node.col_offset, a.name) for a in node.names if a.name in forbidden]
        found.update((text, None) for _, _, text in sorted(spelled))
    return list(found)[:5]
