"""A student's report as a teacher reads it: Markdown beside the JSON, in `grade`'s own words.

The body is what `normkata grade` prints in the terminal (normkata.grading.report.render),
captured as plain text at a fixed width in a fenced block, so there is one wording. Everything
that comes from a submission is kept from acting as Markdown: names and reasons are escaped,
and the fence is longer than any run of backticks inside it (CommonMark's rule), so a message
cannot close it and smuggle in links, images or HTML.
"""

from __future__ import annotations

import io
import re

from normkata.classroom.gradebook import Row
from normkata.grading.contract import GradeResult
from normkata.i18n import t

#: The report's width in characters: the same text wherever the class is graded.
WIDTH = 100
#: What Markdown (CommonMark and GitHub's autolinks) may read as formatting, a link or HTML.
_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:@&])")


def escape_markdown(text: str) -> str:
    """Text that Markdown shows as it is: every character it could read as markup backslash-escaped."""
    return _PUNCTUATION.sub(r"\\\1", text)


def terminal_report(result: GradeResult) -> str:
    """`grade`'s terminal report of `result`, as plain text."""
    from rich.console import Console
    from rich.theme import Theme

    from normkata.grading.report import render
    from normkata.ui.terminal import THEME

    stream = io.StringIO()
    console = Console(
        file=stream,
        width=WIDTH,
        theme=Theme(THEME),
        color_system=None,
        force_terminal=False,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )
    render(console, result)
    return "\n".join(line.rstrip() for line in stream.getvalue().splitlines())


def _over_the_suite(body: str, row: Row, result: GradeResult) -> str:
    """A file that never imported reached one case; its row counts it out of the suite's cases
    (normkata.classroom.batch.SuiteMax), and so does the verdict line under the header."""
    if not result.never_imported or row.max_score is None or row.max_score == result.max_score:
        return body
    key = "verdict.pass" if result.passed else "verdict.fail"

    def line(total: int) -> str:
        return t(f"report.{key}", result.lang, count=t("grade.count", result.lang, passed=result.score, total=total))

    return body.replace(line(result.max_score), line(row.max_score))


def report_body(row: Row, result: GradeResult) -> str:
    """`grade`'s terminal report of the row's result, its verdict out of the row's max_score."""
    return _over_the_suite(terminal_report(result), row, result)


def report_facts(row: Row, lang: str) -> list[tuple[str, str]]:
    """A submission's facts above its report (score, cases passed, reason, seed, digest, note), in
    `lang`: the Markdown report and the class page's report page show the same ones."""
    cells = row.cells()
    facts = [
        (t("classroom.md.score", lang), f"{cells['score']} / {cells['max_score']}"),
        (t("classroom.md.cases_passed", lang), f"{cells['cases_passed']} / {cells['max_score']}"),
        (t("classroom.md.reason", lang), row.reason or "-"),
        (t("classroom.md.seed", lang), cells["seed"]),
        (t("classroom.md.sha256", lang), row.sha256),
    ]
    if row.note:
        facts.append((t("classroom.md.note", lang), row.note))
    return facts


def markdown_report(row: Row, result: GradeResult, lang: str) -> str:
    body = report_body(row, result)
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    facts = report_facts(row, lang)
    table = [f"| {escape_markdown(t('classroom.md.field', lang))} | |", "|---|---|"]
    table += [f"| {escape_markdown(key)} | {escape_markdown(value)} |" for key, value in facts]
    title = escape_markdown(t("classroom.md.title", lang, kata=result.kata, name=row.submission))
    return "\n".join([f"# {title}", "", *table, "", f"{fence}text", body, fence, ""])
