"""Grading a class.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "classroom.running": Text("Grading {kata}", "正在评测 {kata}"),
        "classroom.none": Text(
            "{dir}: no submission matches {pattern} (a .py file, or a folder holding {file})",
            "{dir}：没有与 {pattern} 匹配的提交（一个 .py 文件，或含有 {file} 的文件夹）",
        ),
        "classroom.summary": Text(
            "{kata}: {n} submissions in {seconds:.0f} s, {jobs} at a time: {passed} passed, {failed} not yet, "
            "{errors} could not be graded.",
            "{kata}：{n} 个提交，用时 {seconds:.0f} 秒，同时评测 {jobs} 个：{passed} 个通过，{failed} 个尚未通过，"
            "{errors} 个无法评测。",
        ),
        "classroom.reused": Text(
            "{n} unchanged since the last run kept their grade (--force grades them again).",
            "{n} 个提交自上次评测以来未改动，沿用原成绩（--force 重新评测）。",
        ),
        "classroom.mean": Text("Mean score: {percent:.0%} of the cases.", "平均得分：用例的 {percent:.0%}。"),
        "classroom.common": Text("Most common mistakes", "最常见的错误"),
        "classroom.col.mistake": Text("Mistake", "错误"),
        "classroom.col.id": Text("Id", "编号"),
        "classroom.col.submissions": Text("Submissions", "提交数"),
        "classroom.error": Text("Could not grade {name}: {error}", "无法评测 {name}：{error}"),
        "classroom.written": Text(
            "Wrote {gradebook} and the reports in {reports}", "已写入 {gradebook}，报告在 {reports}"
        ),
        "classroom.bundle.written": Text(
            "Wrote {path}: upload it as the autograder of a Gradescope programming assignment.",
            "已写入 {path}：将它上传为 Gradescope 编程作业的自动评分器。",
        ),
    },
)
