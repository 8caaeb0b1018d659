"""The notebook door: `%load_ext normkata`, `%%kata NAME` and the other magics.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up. What the
magics show beside them (a grade's report, hints, the plan) is in the other wings' words.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "notebook.warming": Text(
            "Starting the grader (the first grade takes a few seconds; the next ones are quick)…",
            "正在启动评测器（第一次评测需要几秒钟，之后会很快）……",
        ),
        "notebook.saved": Text(
            "This cell is {path} now: watch, hint and solution see it.",
            "这个单元格现在就是 {path}：watch、hint 和 solution 都能看到它。",
        ),
        "notebook.kept": Text(
            "{path} held other code: it was kept as {kept} before this cell replaced it.",
            "{path} 里原有别的代码：已先保存为 {kept}，再由这个单元格替换。",
        ),
        "notebook.history.full": Text("{folder}: no free name left for {name}", "{folder}：{name} 已没有可用的文件名"),
        "notebook.not_recorded": Text(
            "Only the cases matching -k ran: this grade is not recorded.",
            "只运行了与 -k 匹配的用例：本次评测不记录。",
        ),
        "notebook.kata.name": Text(
            "{magic}: name the kata, e.g. `{magic} rmsnorm` (`%kata` lists them)",
            "{magic}：请指定练习，例如 `{magic} rmsnorm`（`%kata` 会列出全部练习）",
        ),
        "notebook.kata.kept": Text("{path} already exists: kept as it is.", "{path} 已存在，保持不变。"),
        "notebook.kata.cell": Text(
            "Grade it in a cell that starts with {grade}: Jupyter and IPython put one below, holding {path}.",
            "在以 {grade} 开头的单元格中评测它：Jupyter 和 IPython 会在下方放一个这样的单元格，内容就是 {path}。",
        ),
        "notebook.hint.none_left": Text(
            "That was the last hint. Still stuck? {solution}", "提示已用完。仍然卡住？{solution}"
        ),
        "notebook.solution.closed": Text(
            "The reference solution of {kata} opens after a pass. To give up (recorded as giving up): {give_up}",
            "{kata} 的参考答案在通过之后才开放。若要放弃（将记录为放弃）：{give_up}",
        ),
        "notebook.solution.gave_up": Text("Recorded as giving up on {kata}.", "已记录为放弃 {kata}。"),
        "notebook.plan.day": Text("{date}: {planned} of {minutes} min", "{date}：{minutes} 分钟中安排 {planned} 分钟"),
        "notebook.usage.normkata": Text(
            "%normkata: say what to show: next, plan or standing (not {what!r})",
            "%normkata：请说明要显示什么：next、plan 或 standing（不是 {what!r}）",
        ),
        "notebook.usage.seed": Text(
            "{value!r} is not a whole number from 0 to {high}", "{value!r} 不是 0 到 {high} 之间的整数"
        ),
        "notebook.usage.minutes": Text(
            "{value!r} is not a whole number from 1 to {high}", "{value!r} 不是 1 到 {high} 之间的整数"
        ),
        "notebook.usage.args": Text("{magic}: {why}", "{magic}：{why}"),
        # A magic as typed; in Chinese while a bare one would answer in English, with --lang zh.
        "notebook.magic": Text("{magic} {arguments}", "{magic} {arguments} --lang zh"),
    },
)
