"""The class as a page: `index.html` in the out folder, and `reports/<report>.html` per graded
submission, for a teacher who reads a class in a browser.

Self-contained files: the style, the sorting script and the histogram (inline SVG) are in the
page, nothing is fetched, no server is needed (a file:// URL will do). Everything that comes
from a submission (its name, its reason, the grader's messages) is HTML-escaped, so a name such
as `<img src=x onerror=...>` stays text. The pages are derived from the rows and reports, which
the signed manifest vouches for; they are written again on every run and merge, and not signed.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from urllib.parse import quote

from normkata.classroom.gradebook import Row
from normkata.classroom.markdown import report_body, report_facts
from normkata.classroom.outfolder import OutFolder
from normkata.classroom.reasons import common_reasons
from normkata.grading.contract import GradeResult
from normkata.i18n import t

INDEX = "index.html"
#: The histogram's bins: tenths of the suite's cases (the last one holds full marks).
BINS = 10

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1f2328; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border-bottom: 1px solid #d0d7de; padding: .3rem .7rem; text-align: left; vertical-align: top; }
th.sortable { cursor: pointer; user-select: none; }
th.sortable::after { content: " \\2195"; color: #8c959f; }
td.num, th.num { text-align: right; }
.pass { color: #1a7f37; } .fail { color: #cf222e; } .none { color: #8c959f; }
pre { background: #f6f8fa; padding: 1rem; overflow-x: auto; }
svg text { font-size: 11px; fill: #57606a; }
"""

# Sorts the table by the clicked column (numbers as numbers, text as text); click again to reverse.
_SCRIPT = """
document.querySelectorAll("table.sortable th.sortable").forEach(function (th, column) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0];
    var down = th.dataset.order !== "asc";
    th.dataset.order = down ? "asc" : "desc";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[th.cellIndex].dataset.sort, y = b.cells[th.cellIndex].dataset.sort;
      var nx = parseFloat(x), ny = parseFloat(y);
      var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return down ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _document(title: str, body: list[str], lang: str, *, script: bool = False) -> str:
    head = [
        "<!DOCTYPE html>",
        f'<html lang="{_e(lang)}">',
        "<head>",
        '<meta charset="utf-8">',
        # Nothing is fetched: no script but the page's own, no image, no style from elsewhere.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
        f"<title>{_e(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
    ]
    tail = [f"<script>{_SCRIPT}</script>"] if script else []
    return "\n".join([*head, *body, *tail, "</body>", "</html>", ""])


def report_link(row: Row) -> str:
    return f"reports/{quote(row.report)}.html"


def _histogram(rows: Sequence[Row], lang: str) -> str:
    """An inline SVG bar chart: how many graded rows scored in each tenth of the suite's cases."""
    counts = [0] * BINS
    for row in rows:
        if row.passed is not None and row.score is not None and row.max_score:
            counts[min(BINS - 1, int(row.score / row.max_score * BINS))] += 1
    tallest = max(counts) or 1
    width, height, bar = 52, 120, 40
    parts = [
        f'<svg role="img" aria-label="{_e(t("classroom.page.histogram", lang))}" '
        f'width="{width * BINS + 20}" height="{height + 40}">'
    ]
    for i, count in enumerate(counts):
        h = round(count / tallest * height)
        x = 10 + i * width
        parts.append(f'<rect x="{x}" y="{height - h + 15}" width="{bar}" height="{h}" fill="#54aeff"></rect>')
        parts.append(f'<text x="{x + bar / 2}" y="{height - h + 10}" text-anchor="middle">{count}</text>')
        label = f"{i * 10}–{100 if i == BINS - 1 else i * 10 + 9}%"
        parts.append(f'<text x="{x + bar / 2}" y="{height + 30}" text-anchor="middle">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)


def class_page(kata: str, rows: Sequence[Row], common: Sequence[tuple[str, str, int]], lang: str) -> str:
    """index.html: the summary, the most common named mistakes, a histogram and the sortable rows."""
    ordered = sorted(rows, key=lambda r: r.submission)
    graded = [r for r in ordered if r.passed is not None]
    passed = sum(bool(r.passed) for r in graded)
    summary = t(
        "classroom.page.summary",
        lang,
        n=len(ordered),
        passed=passed,
        failed=len(graded) - passed,
        errors=len(ordered) - len(graded),
    )
    body = [f"<h1>{_e(t('classroom.page.title', lang, kata=kata))}</h1>", f"<p>{_e(summary)}</p>"]
    if common:
        body.append(f"<h2>{_e(t('classroom.common', lang))}</h2>")
        body.append('<table class="common"><thead><tr>')
        body.append(f"<th>{_e(t('classroom.col.mistake', lang))}</th><th>{_e(t('classroom.col.id', lang))}</th>")
        body.append(f'<th class="num">{_e(t("classroom.col.submissions", lang))}</th></tr></thead><tbody>')
        for kind, title, count in common:
            body.append(f'<tr><td>{_e(title)}</td><td><code>{_e(kind)}</code></td><td class="num">{count}</td></tr>')
        body.append("</tbody></table>")
    body.append(f"<h2>{_e(t('classroom.page.histogram', lang))}</h2>")
    body.append(_histogram(ordered, lang))
    body.append(f"<h2>{_e(t('classroom.page.rows', lang))}</h2>")
    body.append(f"<p>{_e(t('classroom.page.sort_hint', lang))}</p>")
    heads = [
        ("classroom.page.col.submission", ""),
        ("classroom.page.col.passed", ""),
        ("classroom.page.col.score", "num"),
        ("classroom.page.col.cases_passed", "num"),
        ("classroom.page.col.reason", ""),
    ]
    body.append('<table class="sortable" id="rows"><thead><tr>')
    body.append("".join(f'<th class="sortable {kind}">{_e(t(key, lang))}</th>' for key, kind in heads))
    body.append("</tr></thead><tbody>")
    for row in ordered:
        name = _e(row.submission)
        link = f'<a href="{_e(report_link(row))}">{name}</a>' if row.report else name
        if row.passed is None:
            state, word = "none", t("classroom.page.not_graded", lang)
        else:
            state, word = (
                ("pass", t("classroom.page.yes", lang)) if row.passed else ("fail", t("classroom.page.no", lang))
            )
        score = "" if row.score is None else f"{row.score} / {row.max_score}"
        share = "" if row.score is None or not row.max_score else f"{row.score / row.max_score:.6f}"
        cases = "" if row.cases_passed is None else str(row.cases_passed)
        reason = row.reason if row.passed is not None else f"{row.reason} ({row.error})"
        body.append(
            f'<tr><td data-sort="{name}">{link}</td>'
            f'<td data-sort="{state}" class="{state}">{_e(word)}</td>'
            f'<td data-sort="{share or -1}" class="num">{_e(score)}</td>'
            f'<td data-sort="{cases or -1}" class="num">{_e(cases)}</td>'
            f'<td data-sort="{_e(reason)}">{_e(reason)}</td></tr>'
        )
    body.append("</tbody></table>")
    return _document(t("classroom.page.title", lang, kata=kata), body, lang, script=True)


def report_page(row: Row, result: GradeResult, lang: str) -> str:
    """reports/<report>.html: the row's facts and `grade`'s terminal report, as the Markdown one."""
    facts = report_facts(row, lang)
    title = t("classroom.md.title", lang, kata=result.kata, name=row.submission)
    body = [
        f'<p><a href="../{INDEX}">{_e(t("classroom.page.back", lang))}</a></p>',
        f"<h1>{_e(title)}</h1>",
        "<table>",
        *(f"<tr><th>{_e(key)}</th><td>{_e(value)}</td></tr>" for key, value in facts),
        "</table>",
        f"<pre>{_e(report_body(row, result))}</pre>",
    ]
    return _document(title, body, lang)


def write_pages(
    folder: OutFolder, kata: str, graded: Sequence[tuple[Row, GradeResult | None, list[str]]], lang: str
) -> None:
    """index.html and every graded row's reports/<report>.html in `folder`: (row, its result, what
    the summary counts for it) for every row of the class."""
    for row, result, _kinds in graded:
        if result is not None and row.report:
            folder.write_report_page(row.report, report_page(row, result, lang).encode("utf-8"))
    common = common_reasons([(kinds, result) for _row, result, kinds in graded], lang)
    folder.write(INDEX, class_page(kata, [row for row, _result, _kinds in graded], common, lang).encode("utf-8"))
