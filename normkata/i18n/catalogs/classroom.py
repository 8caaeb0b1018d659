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
        "classroom.note.same_name": Text(
            "{entries} share the name {name}: graded as separate rows",
            "{entries} 同名（{name}）：分别作为单独的行评测",
        ),
        "classroom.left.pattern": Text(
            "Left out {n} entries that do not match {pattern}: {names}",
            "未纳入 {n} 个与 {pattern} 不匹配的条目：{names}",
        ),
        "classroom.left.hidden_folder": Text(
            "Left out {n} hidden folder(s), not submissions: {names}",
            "未纳入 {n} 个隐藏文件夹（不是提交）：{names}",
        ),
        "classroom.left.cache": Text("Left out Python's cache: {names}", "未纳入 Python 的缓存：{names}"),
        "classroom.left.other": Text(
            "Left out {n} entries that are neither .py files nor folders: {names}",
            "未纳入 {n} 个既不是 .py 文件也不是文件夹的条目：{names}",
        ),
        "classroom.left.out": Text("Left out the out folder: {names}", "未纳入输出文件夹：{names}"),
        "classroom.left.more": Text("{names} and {n} more", "{names} 等另外 {n} 个"),
        "classroom.not_graded": Text("could not be graded (see error)", "无法评测（见 error 列）"),
        "classroom.reason.syntax": Text("syntax error at line {line}", "第 {line} 行语法错误"),
        "classroom.reason.syntax_in": Text("syntax error at line {line} of {file}", "{file} 第 {line} 行语法错误"),
        "classroom.reason.forbidden": Text("forbidden API {names}", "使用了禁止的 API {names}"),
        "classroom.reason.timed-out": Text("timed out ({n} case(s))", "超时（{n} 个用例）"),
        "classroom.reason.crashed": Text("crashed ({n} case(s))", "崩溃（{n} 个用例）"),
        "classroom.reason.raised": Text("raised an exception ({n} case(s))", "抛出异常（{n} 个用例）"),
        "classroom.reason.wrong-results": Text("{n} cases failed ({categories})", "{n} 个用例未通过（{categories}）"),
        "classroom.kind.syntax-error": Text("syntax error", "语法错误"),
        "classroom.kind.import-error": Text("the file did not import", "文件无法导入"),
        "classroom.kind.missing-class": Text("the class is missing", "缺少要求的类"),
        "classroom.kind.forbidden-api": Text("forbidden API used", "使用了禁止的 API"),
        "classroom.kind.timed-out": Text("timed out", "超时"),
        "classroom.kind.crashed": Text("crashed", "崩溃"),
        "classroom.kind.global-state": Text("changed torch's global state on import", "导入时改变了 torch 的全局状态"),
        "classroom.kind.raised": Text("raised an exception", "抛出异常"),
        "classroom.kind.wrong-results": Text("wrong results, no mistake named", "结果错误，未识别出具体错误"),
        "classroom.shard": Text(
            "Shard {shard}: {n} of the class's {total} submissions.", "分片 {shard}：全班 {total} 个提交中的 {n} 个。"
        ),
        "classroom.md.title": Text("{kata}: {name}", "{kata}：{name}"),
        "classroom.md.field": Text("Gradebook", "成绩册"),
        "classroom.md.score": Text("score", "得分"),
        "classroom.md.reason": Text("reason", "原因"),
        "classroom.md.seed": Text("seed", "随机种子"),
        "classroom.md.sha256": Text("sha256", "sha256"),
        "classroom.md.note": Text("note", "备注"),
        "classroom.merged": Text(
            "Merged {shards} shards of {kata}: {n} submissions into {out}",
            "已合并 {kata} 的 {shards} 个分片：{n} 个提交，写入 {out}",
        ),
        "classroom.exported": Text(
            "Wrote {path}: {n} grades for {lms}, {blank} left blank (not graded).",
            "已写入 {path}：{lms} 的 {n} 个成绩，{blank} 个留空（未能评测）。",
        ),
        "classroom.bundle.written": Text(
            "Wrote {path}: upload it as the autograder of a Gradescope programming assignment.",
            "已写入 {path}：将它上传为 Gradescope 编程作业的自动评分器。",
        ),
    },
)
