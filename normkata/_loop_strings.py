"""Interface strings of the learning loop (kata reviews, misconceptions that teach, FSRS fitting,
carrying progress between machines), merged into normkata.i18n's table."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    "loop.kata_scheduled": (
        "{kata} scheduled: {rating} ({why}); write it again {when}.",
        "{kata} 已排期：{rating}（{why}）；{when}再写一遍。",
    ),
    "loop.reason.solution": ("the solution was shown", "看过了参考答案"),
    "loop.reason.hints": ("passed after hints", "看过提示后通过"),
    "loop.reason.slow": ("passed after more than twice its {minutes} min", "用时超过预计 {minutes} 分钟的两倍"),
    "loop.reason.first": ("first grade passed within its {minutes} min", "在 {minutes} 分钟内首次评分即通过"),
    "loop.reason.failed": ("passed after failing grades", "经过失败的评分后通过"),
    "loop.reason.time": ("passed within twice its {minutes} min", "在预计 {minutes} 分钟的两倍内通过"),
    "loop.teach": (
        "Now due, to learn why: {items}  (`{cmd}`)",
        "已设为到期，讲清原因的是：{items}（`{cmd}`）",
    ),
    "loop.kata_header": ("Kata {i}/{n}: write it again", "编程练习 {i}/{n}：再写一遍"),
    "loop.kata_again": (
        "Your passing file is kept (history/ in the workspace); a fresh starter is in {path}. Write {kata} "
        "again from memory (the instructions: `normkata kata {kata}`): it is graded on new inputs.",
        "你通过的文件已保存（工作区的 history/）；{path} 已换成新的起始代码。凭记忆再写一遍 {kata}"
        "（说明见 `normkata kata {kata}`）：评分用新的输入。",
    ),
    "loop.kata_prompt": ("Enter grades it, h a hint, s leaves it for now", "回车评分，h 提示，s 稍后再写"),
    "loop.kata_not_passed": (
        "{kata} has not passed yet: start it with `normkata kata {kata}`; it is reviewed once passed.",
        "{kata} 尚未通过：请用 `normkata kata {kata}` 开始；通过后才会进入复习。",
    ),
    "loop.kata_left": ("{kata} left unfinished: it stays due.", "{kata} 尚未完成：仍然到期。"),
    "loop.summary.katas": ("Katas written again: {n} ({ratings}).", "再写一遍的编程练习：{n} 个（{ratings}）。"),
    "advice.kata_again": (
        "{kata}: write it again from a fresh starter (passed before; FSRS says it is due since {when})",
        "{kata}：用新的起始代码再写一遍（之前已通过；FSRS 判定自 {when} 起到期）",
    ),
    "advice.lesson": (
        "your last {kata} grade named a mistake, {title}: {kind} `{item}` explains it",
        "你上次 {kata} 的评分指出了一个错误（{title}）：{kind} `{item}` 讲清了原因",
    ),
    "advice.kind.card": ("card", "卡片"),
    "advice.kind.question": ("question", "题目"),
    "dash.loop.katas_due": ("Katas to write again: {katas}", "需要再写一遍的编程练习：{katas}"),
    "dash.loop.katas_due.none": ("Katas to write again: none due", "需要再写一遍的编程练习：暂无到期"),
    "dash.loop.met": ("Misconceptions met this week:", "本周遇到的误区："),
    "dash.loop.met.none": ("Misconceptions met this week: none", "本周遇到的误区：无"),
    "dash.loop.reviewed": ("reviewed since", "之后已复习"),
    "dash.loop.not_reviewed": ("not reviewed since", "之后未复习"),
    "dash.loop.no_items": ("no item teaches it yet", "暂无讲解它的题目或卡片"),
    "content.links.unlinked": (
        "Misconceptions no question or card teaches yet ({n}): {ids}",
        "尚无题目或卡片讲解的误区（{n} 个）：{ids}",
    ),
    "optimize.too_few": (
        "FSRS fitting needs {need} reviews on a later day than the item's previous review; you have {have}: "
        "{more} more. Until then the default parameters are used.",
        "拟合 FSRS 参数需要 {need} 次与上次复习不在同一天的复习；你现在有 {have} 次，还差 {more} 次。"
        "在此之前使用默认参数。",
    ),
    "optimize.missing": (
        "Fitting FSRS parameters needs py-fsrs's optimizer extra: pip install \"fsrs[optimizer]\" ({why}).",
        "拟合 FSRS 参数需要 py-fsrs 的优化器依赖：`pip install \"fsrs[optimizer]\"`（{why}）。",
    ),
    "optimize.fitting": ("Fitting FSRS parameters on {n} reviews...", "正在用 {n} 次复习拟合 FSRS 参数……"),
    "optimize.result": (
        "On your {n} reviews you recalled {recalled}; the default parameters predicted {before}, "
        "yours predict {after} (log loss {loss_before} -> {loss_after}).",
        "在你的 {n} 次复习中，你实际记住了 {recalled}；默认参数预测 {before}，你的参数预测 {after}"
        "（对数损失 {loss_before} -> {loss_after}）。",
    ),
    "optimize.saved": (
        "Your parameters are saved and used from now on for every schedule.",
        "你的参数已保存，此后所有排期都将使用它们。",
    ),
    "transfer.exported": (
        "Wrote {path}: {summary}.",
        "已写入 {path}：{summary}。",
    ),
    "transfer.imported": ("Imported {path}: added {summary}.", "已导入 {path}：新增 {summary}。"),
    "transfer.nothing": ("Imported {path}: nothing new (every row was already here).",
                         "已导入 {path}：没有新内容（所有记录都已存在）。"),
    "transfer.invalid": ("{path} is not a normkata progress file: {why}. Nothing was imported.",
                         "{path} 不是 normkata 进度文件：{why}。未导入任何内容。"),
    "transfer.unreadable": ("Cannot read {path}: {why}.", "无法读取 {path}：{why}。"),
    "transfer.unwritable": ("Cannot write {path}: {why}.", "无法写入 {path}：{why}。"),
}
