"""A `GradeResult` shown to people in the terminal (the formats platforms read: formats.py).

The report leads with the named misconceptions (each hint once), then only the failures no
named misconception accounts for, grouped by category, one line per distinct message.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from normkata.grading.contract import CaseResult, Category, GradeResult, Status

if TYPE_CHECKING:
    from rich.console import Console

#: How many distinct findings the report spells out (`--json` has every case).
MAX_FINDINGS = 6


def text(key: str, lang: str, **values: Any) -> str:
    """The report's string `key` (`report.<key>` in i18n/catalogs/grading.py) in `lang`."""
    from normkata.i18n import t

    return t(f"report.{key}", lang, **values)


_LEVELS_ZH = {"full": "完整", "partial": "部分", "off": "关闭"}


def sandbox_text(level: str, lang: str) -> str:
    """`full`, `partial: missing ...` or `off: ...`, the level word in the learner's language.

    What is missing is named as the kernel names it (Landlock, seccomp, ...).
    """
    from normkata.i18n import Text

    word, _, rest = level.partition(":")
    if word not in _LEVELS_ZH:
        return level
    zh = _LEVELS_ZH[word] + (f"（{rest.strip().removeprefix('missing ')} 未启用）" if rest else "")
    return Text(level, zh).in_(lang)


def render(console: Console, result: GradeResult, *, every_failure: bool = False) -> None:
    """The full report; `every_failure` spells out every failing case (`grade --all`)."""
    from rich.cells import cell_len
    from rich.markup import escape
    from rich.table import Table

    from normkata.ui.paragraph import Paragraph

    lang = result.lang
    title = text("title", lang, kata=result.kata, file=Path(result.file).name)
    meta = text(
        "meta",
        lang,
        torch=result.torch or "?",
        seed=result.seed,
        sandbox=sandbox_text(result.sandbox, lang),
        seconds=result.duration_s,
    )
    # The run's facts beside the title where they fit, else on a line of their own: never cut.
    apart = "\n" if cell_len(title) + 2 + cell_len(meta) > console.width else "  "
    console.print(f"[heading]{escape(title)}[/]{apart}[muted]{escape(meta)}[/]")
    table = Table(show_edge=False)
    table.add_column(text("category", lang))
    for status in Status:
        table.add_column(text(status.value, lang), justify="right")
    table.add_column("")
    by_category: dict[Category, Counter[Status]] = {}
    for case in result.cases:
        by_category.setdefault(case.category, Counter())[case.status] += 1

    def row(label: str, counts: Counter[Status]) -> None:
        bad = counts[Status.FAILED] + counts[Status.ERROR]
        mark = "[kata.fail]✗[/]" if bad else "[muted]–[/]" if not counts[Status.PASSED] else "[kata.pass]✓[/]"
        table.add_row(label, *(str(counts[s] or "") for s in Status), mark)

    # The scored categories add up to the verdict's count; the kata's rules (pass or fail, no
    # points) come after that total, so that the table and the verdict count the same cases.
    scored = [c for c in Category if c in by_category and c is not Category.INTEGRITY]
    for category in scored:
        row(category.label(lang), by_category[category])
    if len(scored) > 1:
        table.add_section()
        row(text("scored", lang), sum((by_category[c] for c in scored), Counter()))
    if Category.INTEGRITY in by_category:
        table.add_section()
        row(text("rules", lang), by_category[Category.INTEGRITY])
    console.print(table)
    failures = [c for c in result.cases if c.status in (Status.FAILED, Status.ERROR)]
    named_ids = {d.id for d in result.diagnosis}
    for diagnosis in sorted(result.diagnosis, key=lambda d: -d.cases):
        console.print(Paragraph(tidy(text("named", lang, title=diagnosis.title, n=diagnosis.cases), lang), "next"))
        example = next((c for c in failures if c.diagnosis == diagnosis.id), None)
        if example:
            line = text("case_line", lang, name=tidy(example.name, lang), message=tidy(example.message, lang))
            console.print(Paragraph(line, prefix="  "))
        console.print(Paragraph(tidy(text("hint", lang, hint=diagnosis.hint), lang), prefix="  "))
    if every_failure:
        _print_every_failure(console, failures, lang)
    else:
        others = [c for c in failures if c.diagnosis not in named_ids]
        if others and named_ids:
            console.print(f"[muted]{escape(text('others', lang))}[/]")
        _print_findings(console, others, lang)
    skipped = [c for c in result.cases if c.status is Status.SKIPPED]
    if skipped:
        reasons = Counter(c.message for c in skipped)
        note = text("sep", lang).join(text("skipped_group", lang, n=n, reason=reason) for reason, n in reasons.items())
        console.print(Paragraph(tidy(text("skipped_note", lang, text=note), lang), "muted"))
    if result.verdict.only_rules:
        console.print(f"[kata.fail]{text('rule_fail', lang)}[/]")
    else:
        console.print(verdict(result))


def verdict_line(result: GradeResult) -> str:
    """Every format's summary (formats.py), counted as the terminal's verdict counts: "NOT YET:
    39 of 45 cases pass.", or a rule broken."""
    return text("rule_fail", result.lang) if result.verdict.only_rules else _counted(result)


def _counted(result: GradeResult) -> str:
    """ "PASSED: 45 of 45 cases pass.", "NOT YET: 39 of 45 cases pass.": one way to count."""
    from normkata.i18n import t

    count = t("grade.count", result.lang, passed=result.score, total=result.max_score)
    return text("verdict.pass" if result.passed else "verdict.fail", result.lang, count=count)


def _print_findings(console: Console, cases: list[CaseResult], lang: str) -> None:
    """One finding per distinct message (a root cause shows once), in category order."""
    from rich.markup import escape

    from normkata.ui.paragraph import Paragraph

    groups: dict[str, list[CaseResult]] = {}
    for case in sorted(cases, key=lambda c: list(Category).index(c.category)):
        groups.setdefault(_shape_of(case), []).append(case)
    for shown, same in enumerate(groups.values()):
        if shown == MAX_FINDINGS:
            left = sum(len(g) for g in list(groups.values())[shown:])
            console.print(f"[muted]{escape(text('more', lang, n=left))}[/]")
            break
        first = same[0]
        style = "kata.fail" if first.status is Status.FAILED else "warn"
        where = _paren(first.category.label(lang), lang)
        console.print(f"[{style}]✗ {escape(tidy(first.name, lang))}[/][muted]{where}[/]")
        console.print(Paragraph(tidy(first.message, lang), prefix="  "))
        if len(same) > 1:
            console.print(f"[muted]{escape(text('more_like', lang, n=len(same) - 1))}[/]")


def _print_every_failure(console: Console, cases: list[CaseResult], lang: str) -> None:
    from rich.markup import escape

    from normkata.ui.paragraph import Paragraph

    for case in sorted(cases, key=lambda c: list(Category).index(c.category)):
        style = "kata.fail" if case.status is Status.FAILED else "warn"
        where = _paren(case.category.label(lang), lang)
        console.print(f"[{style}]✗ {escape(tidy(case.name, lang))}[/][muted]{where}[/]")
        console.print(Paragraph(tidy(case.message, lang), prefix="  "))


def tidy(message: str, lang: str) -> str:
    """A Chinese message as the learner reads it: no space left where two parts were joined
    ("…1e-05）。 这符合…"), full-width brackets around Chinese words (normkata.content.typography)."""
    import re

    from normkata.content.typography import tidy_zh
    from normkata.i18n import Text

    ideograph = "\u3400-\u4dbf\u4e00-\u9fff"
    tidied = tidy_zh(re.sub(f"\\(([^()]*[{ideograph}][^()]*)\\)", r"（\1）", message))
    return Text(message, tidied).in_(lang)


def _paren(label: str, lang: str) -> str:
    """A category after a case name: " (forward fp32)", "（fp32 前向）" (no space before it)."""
    from rich.markup import escape

    return text("paren", lang, label=escape(label))


def verdict(result: GradeResult, *, mark: bool = False) -> str:
    """The verdict line of `grade` and `watch`, as markup: "NOT YET: 6 of 45 cases pass." (`mark`: ✓/✗ first)."""
    from rich.markup import escape

    style, sign = ("kata.pass", "✓") if result.passed else ("kata.fail", "✗")
    return f"[{style}]{sign + ' ' if mark else ''}{escape(_counted(result))}[/]"


def render_compact(console: Console, result: GradeResult) -> None:
    """Three lines for `watch`: the verdict, the counts per category, the first thing to fix."""
    from rich.markup import escape

    lang = result.lang
    when = text("compact.meta", lang, seconds=result.duration_s, seed=result.seed)
    console.print(f"{verdict(result, mark=True)}  [muted]{escape(Path(result.file).name)} · {escape(when)}[/]")
    parts = []
    for category in Category:
        cases = [c for c in result.cases if c.category is category and c.status is not Status.SKIPPED]
        if cases:
            good = sum(c.status is Status.PASSED for c in cases)
            mark = "[kata.pass]✓[/]" if good == len(cases) else "[kata.fail]✗[/]"
            if category is Category.INTEGRITY:  # no points: counted apart from the verdict's cases
                parts.append(f"{escape(text('rules', lang))} {mark}")
            else:
                parts.append(f"{escape(category.label(lang))} {good}/{len(cases)} {mark}")
    console.print("  " + " · ".join(parts))
    failures = [c for c in result.cases if c.status in (Status.FAILED, Status.ERROR)]
    if result.diagnosis:
        first = max(result.diagnosis, key=lambda d: d.cases)
        console.print(f"  [next]{escape(text('named', lang, title=first.title, n=first.cases))}[/]")
        console.print(f"  {escape(text('hint', lang, hint=first.hint))}")
    elif failures:
        console.print(f"  [kata.fail]{escape(failures[0].name)}:[/] {escape(failures[0].message)}")


#: A message's lead, up to its first colon: where a case carries no call, what it was doing.
_LEAD = re.compile(r"^[^:：]*[:：]")
_INDEX = re.compile(r"\([\d,\s]*\)")
_NUMBER = re.compile(r"[-+]?\d[\d.e+-]*")


def _shape_of(case: CaseResult) -> str:
    """A case's message without what it was called on, indices and numbers: messages of the same
    shape are one finding. The call a case carries is cut whole (colons inside its input
    description and all); a message without one loses its lead, up to the first colon."""
    message = case.message
    if case.call and message.startswith(case.call):
        message = message.removeprefix(case.call).lstrip(":： ")
    else:
        message = _LEAD.sub("", message, count=1)
    return _NUMBER.sub("#", _INDEX.sub("#", message))
