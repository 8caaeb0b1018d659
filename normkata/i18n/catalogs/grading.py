"""Grading: the grade command's lines and the report shown to people (report.py).

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "grade.running": Text("Grading {kata}…", "正在评测 {kata}…"),
        # A submission the grader does not read (grading/source.py), after its path.
        "source.link": Text("a symbolic link (submit the file itself)", "是符号链接（请提交文件本身）"),
        "source.link_folder": Text("a symbolic link (submit the folder itself)", "是符号链接（请提交文件夹本身）"),
        "source.entries": Text("holds more than {limit} entries", "包含超过 {limit} 个条目"),
        "source.depth": Text("nests folders deeper than {limit}", "的文件夹嵌套超过 {limit} 层"),
        "source.folder_bytes": Text("its .py files exceed {amount}", "其中的 .py 文件超过 {amount}"),
        "source.missing": Text("not found in {folder}", "不在 {folder} 中"),
        # What grade and watch count: the scored cases that pass, out of all scored cases.
        "grade.count": Text("{passed} of {total} cases pass", "{total} 个用例中 {passed} 个通过"),
        "grade.written": Text("Wrote {path}", "已写入 {path}"),
        "grade.list.count": Text(" ({n})", "（{n}）"),
        "grade.list.title": Text(
            "Cases of {kata} (inputs are drawn from each run's seed)", "{kata} 的用例（输入由每次运行的种子生成）"
        ),
        "grade.no_kata": Text(
            "No kata to grade yet: start one with {start}.",
            "还没有可评测的练习：先用 {start} 开始一个。",
        ),
        "grade.no_file": Text(
            "{path} not found: start the kata first ({start}), or name a file with {arg}.",
            "找不到 {path}：请先开始这个练习（{start}），或用 {arg} 指定文件。",
        ),
        "grade.needs_extra": Text(
            '{kata} needs an optional extra that is not installed: pip install "{package}" (then grade again).',
            '{kata} 需要尚未安装的可选依赖，安装后再评测：pip install "{package}"',
        ),
        "grade.no_file.given": Text(
            "{arg} {path}: no such file (looked in {cwd}). Check the path{hint}.",
            "{arg} {path}：没有这个文件（在 {cwd} 中查找）。请检查路径{hint}。",
        ),
        "grade.no_file.similar": Text(", or grade {near}", "，或改为评测 {near}"),
        "report.title": Text("Grading {file} (kata {kata})", "评测 {file}（练习 {kata}）"),
        "report.meta": Text(
            "torch {torch} · seed {seed} · sandbox: {sandbox} · {seconds:.1f} s",
            "torch {torch} · 种子 {seed} · 沙箱：{sandbox} · {seconds:.1f} 秒",
        ),
        "report.category": Text("Category", "类别"),
        "report.paren": Text(" ({label})", "（{label}）"),
        "report.passed": Text("Passed", "通过"),
        "report.failed": Text("Failed", "失败"),
        "report.error": Text("Error", "出错"),
        "report.skipped": Text("Skipped", "跳过"),
        "report.named": Text("Recognised mistake: {title} ({n} case(s)).", "识别出的常见错误：{title}（{n} 个用例）。"),
        "report.hint": Text("Hint: {hint}", "提示：{hint}"),
        # A named mistake's example: the case, then what it said.
        "report.case_line": Text("{name}: {message}", "{name}：{message}"),
        # A case as the platforms name it (formats.py): its category, then its name.
        "report.test_name": Text("{category}: {name}", "{category}：{name}"),
        "report.others": Text(
            "Failures no named mistake accounts for (they may share the cause above):",
            "以下失败没有被上面的常见错误解释（可能与之同源）：",
        ),
        "report.more_like": Text("  … and {n} more with the same message", "  ……另有 {n} 个用例信息相同"),
        "report.more": Text(
            "  … and {n} more (normkata grade --json lists every case)",
            "  ……另有 {n} 个（normkata grade --json 列出全部用例）",
        ),
        "report.skipped_note": Text("Skipped: {text}.", "跳过：{text}。"),
        "report.skipped_group": Text("{n} case(s) ({reason})", "{n} 个用例（{reason}）"),
        "report.sep": Text("; ", "；"),
        # The category table: the scored cases' total (the verdict's count), then the kata's rules.
        "report.scored": Text("scored cases", "计分用例"),
        "report.rules": Text("rules (not scored)", "规则（不计分）"),
        # The learner's screens (grade and watch) and the platforms' summaries (formats.py) close
        # with one verdict line, counting one way.
        "report.verdict.pass": Text("PASSED: {count}.", "通过：{count}。"),
        "report.verdict.fail": Text("NOT YET: {count}.", "尚未通过：{count}。"),
        "report.compact.meta": Text("{seconds:.2f} s · seed {seed}", "{seconds:.2f} 秒 · 种子 {seed}"),
        "report.rule_fail": Text(
            "NOT YET: a rule of the kata is broken (see above).", "尚未通过：违反了本练习的规则（见上）。"
        ),
    },
)
