"""The learner's record: kata history, the progress store, carrying progress between machines.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "history.title": Text("Kata attempts", "编程练习评测记录"),
        "history.col.kata": Text("Kata", "练习"),
        "history.col.when": Text("When (UTC)", "时间（UTC）"),
        "history.col.score": Text("Score", "得分"),
        "history.col.seed": Text("Seed", "种子"),
        "history.col.misconceptions": Text("Misconceptions named", "识别出的常见错误"),
        "history.empty": Text(
            "No kata attempts yet: start one with normkata kata rmsnorm, then normkata grade.",
            "还没有评测记录：先运行 normkata kata rmsnorm，再运行 normkata grade。",
        ),
        "history.diff.needs_kata": Text(
            "--diff needs a kata: give NAME, or grade one first.",
            "--diff 需要指定练习：请给出 NAME，或先评测一个练习。",
        ),
        "history.diff.one": Text(
            "{kata} has one attempt: nothing to compare yet.", "{kata} 只有一次评测：暂无可比较的内容。"
        ),
        "history.diff.against_pass": Text(
            "{kata}: attempt #{id} ({when}, {score}) against the last pass, #{base} ({base_when}, {base_score}); "
            "{verdict}",
            "{kata}：第 {id} 次评测（{when}，{score}）对比最近一次通过的第 {base} 次（{base_when}，{base_score}）；"
            "{verdict}",
        ),
        "history.diff.against_previous": Text(
            "{kata}: attempt #{id} ({when}, {score}) against the one before, #{base} ({base_when}, {base_score}); "
            "{verdict}",
            "{kata}：第 {id} 次评测（{when}，{score}）对比上一次第 {base} 次（{base_when}，{base_score}）；{verdict}",
        ),
        "history.diff.verdict.passed": Text("passed", "已通过"),
        "history.diff.verdict.not_passed": Text("not passed", "未通过"),
        "history.diff.verdict.no_pass": Text("no pass yet", "尚未通过"),
        "history.status.failed": Text("failed", "失败"),
        "history.status.error": Text("error", "出错"),
        "history.diff.unknown": Text(
            "Attempt #{id} was graded before case results were kept: grade again to compare.",
            "第 {id} 次评测早于逐个用例的记录：请重新评测后再比较。",
        ),
        "history.diff.failing": Text("Newly failing ({n}):", "新出现的失败（{n}）："),
        "history.diff.passing": Text("Newly passing ({n}):", "新通过的用例（{n}）："),
        "history.diff.same": Text("No case changed its verdict.", "没有用例的结果发生变化。"),
        "history.diff.still": Text("Still failing: {n}", "仍未通过：{n}"),
        "history.diff.named_now": Text("Misconceptions named now: {names}", "新识别出的常见错误：{names}"),
        "history.diff.no_longer": Text("No longer named: {names}", "不再出现的常见错误：{names}"),
        "store.damaged": Text(
            "The progress database {path} is damaged ({why}); it was moved to {moved} and a fresh one was started.",
            "进度数据库 {path} 已损坏（{why}）；已移至 {moved}，并新建了一个数据库。",
        ),
        "store.skipped": Text(
            "Note: {n} row(s) of the progress database could not be used and were skipped (first: {first}); "
            "they were left as they are.",
            "注意：进度数据库中有 {n} 行无法使用，已跳过（第一处：{first}）；这些行保持原样。",
        ),
        "transfer.exported": Text(
            "Wrote {path}: {summary}.",
            "已写入 {path}：{summary}。",
        ),
        # What a progress file's rows are, in the summary of an export or an import (one per table
        # of normkata.record.transfer: TABLES, then the schedules and the settings).
        "transfer.count": Text("{what} {n}", "{what} {n}"),
        "transfer.sep": Text(", ", "，"),
        "transfer.rows.sessions": Text("practice sessions", "练习会话"),
        "transfer.rows.answers": Text("quiz answers", "测验作答"),
        "transfer.rows.ratings": Text("card ratings", "卡片自评"),
        "transfer.rows.review_logs": Text("reviews", "复习记录"),
        "transfer.rows.kata_attempts": Text("kata grades", "练习评分"),
        "transfer.rows.kata_events": Text("kata steps (starts, hints, solutions)", "练习步骤（开始、提示、答案）"),
        "transfer.rows.mock_interviews": Text("mock interviews", "模拟面试"),
        "transfer.rows.mock_answers": Text("mock interview answers", "模拟面试作答"),
        "transfer.rows.kata_kept": Text("kept kata files", "保存的练习文件"),
        "transfer.rows.fsrs_parameters": Text("personal FSRS fits", "个人 FSRS 参数"),
        "transfer.rows.srs": Text("review schedules", "复习日程"),
        "transfer.rows.settings": Text("settings", "设置"),
        "transfer.imported": Text("Imported {path}: added {summary}.", "已导入 {path}：新增 {summary}。"),
        "transfer.nothing": Text(
            "Imported {path}: nothing new (every row was already here).",
            "已导入 {path}：没有新内容（所有记录都已存在）。",
        ),
        "transfer.invalid": Text(
            "{path}: {why}. Nothing was imported: the file is refused whole.",
            "{path}：{why}。未导入任何内容：整个文件被拒绝。",
        ),
        "transfer.unreadable": Text("Cannot read {path}: {why}.", "无法读取 {path}：{why}。"),
        "transfer.unwritable": Text("Cannot write {path}: {why}.", "无法写入 {path}：{why}。"),
    },
)
