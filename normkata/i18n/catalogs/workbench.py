"""Katas at the workbench: listing, hints, the solution, the watch loop, katas written again.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "watch.starting": Text(
            "Warming up the grader (it loads torch and pytest once; the grades after it take a fraction of a second)…",
            "正在预热评测器（只需加载一次 torch 和 pytest；之后每次评测不到一秒）……",
        ),
        "watch.ready": Text("Grader ready in {seconds:.1f} s.", "评测器已就绪，用时 {seconds:.1f} 秒。"),
        "watch.start": Text(
            "Watching {file} (kata {kata}): save to re-grade.",
            "正在监视 {file}（练习 {kata}）：保存即重新评测。",
        ),
        "watch.keys": Text(
            "Keys: h hint · n next kata · l list · s solution · r re-run · q quit",
            "按键：h 提示 · n 下一个练习 · l 列表 · s 参考答案 · r 重新评测 · q 退出",
        ),
        "watch.silent": Text(
            "{file} changed but no file event arrived: this filesystem may not send any. "
            "Restart with --manual and press r to re-grade.",
            "{file} 已改动，但没有收到文件事件：这个文件系统可能不发送事件。请加 --manual 重新启动，按 r 重新评测。",
        ),
        "watch.missing": Text("{file} is gone: save it again to re-grade.", "{file} 不见了：再保存一次即可重新评测。"),
        "watch.passed": Text(
            "Passed. n: the next kata · s: the reference solution · q: quit",
            "已通过。n：下一个练习 · s：参考答案 · q：退出",
        ),
        "watch.solution_confirm": Text(
            "You have not passed {kata} yet. Press y to see the reference solution anyway (recorded as giving up), "
            "any other key to keep going.",
            "你还没有通过 {kata}。按 y 仍然查看参考答案（将记录为放弃），按其他键继续。",
        ),
        "watch.stopped": Text("Stopped watching.", "已停止监视。"),
        "kata.needs_extra": Text("needs the {extra} extra", "需要 {extra} 可选依赖"),
        # The one-line-per-kata list (a narrow terminal): in the status column of a kata not started.
        "kata.needs_extra.short": Text("needs {extra}", "需要 {extra}"),
        "kata.needs_extra.paren": Text(" ({text})", "（{text}）"),
        "kata.list.title": Text("Katas", "编程练习"),
        "kata.col.kata": Text("Kata", "练习"),
        "kata.col.title": Text("Title", "标题"),
        "kata.col.level": Text("Level", "难度"),
        "kata.col.time": Text("Time", "用时"),
        "kata.col.status": Text("Status", "状态"),
        "kata.col.best": Text("Best", "最佳"),
        "kata.status.not started": Text("not started", "未开始"),
        "kata.status.in progress": Text("in progress", "进行中"),
        "kata.status.passed": Text("passed", "已通过"),
        "kata.written": Text("Starter written to {path}", "初始代码已写入 {path}"),
        "workspace.link": Text(
            "{path} is a symbolic link: normkata neither reads nor writes through links in the workspace. "
            "Put the file itself there (or remove the link to start afresh).",
            "{path} 是符号链接：normkata 不会经由工作区中的链接读写文件。"
            "请在该位置放置文件本身（或删除该链接后重新开始）。",
        ),
        "workspace.not_folder": Text(
            "{path} is not a folder: move it away so that normkata can keep your earlier files there.",
            "{path} 不是文件夹：请把它移走，以便 normkata 在那里保存你之前的文件。",
        ),
        "kata.exists": Text(
            "{path} already exists: kept as it is (use --force to start over).",
            "{path} 已存在，保持不变（使用 --force 重新开始）。",
        ),
        "kata.next": Text(
            "Edit the file, then run: normkata grade {kata}", "编辑该文件，然后运行：normkata grade {kata}"
        ),
        "hint.title": Text("Hint {level}/{total} for {kata}", "{kata} 的提示 {level}/{total}"),
        "hint.named": Text(
            "Hint for the mistake your last {kata} grade named: {title}", "针对你上次 {kata} 评测指出的错误：{title}"
        ),
        "hint.named.more": Text(
            "({call} again gives the next of the kata's own hints.)",
            "（再用 {call} 会给出本练习的下一条提示。）",
        ),
        "hint.passed": Text(
            "{kata} is passed: no hint needed. {solution} shows the reference beside your file.",
            "{kata} 已通过，无需提示。{solution} 会把参考答案和你的文件对照显示。",
        ),
        "hint.passed.level": Text(
            "`normkata hint {kata} --level 1` shows a hint anyway.", "仍想看提示可用 `normkata hint {kata} --level 1`。"
        ),
        "hint.title.last": Text(
            "Hint {level}/{total} for {kata} (last hint)", "{kata} 的提示 {level}/{total}（最后一条）"
        ),
        "hint.none_left": Text(
            "That was the last hint. Still stuck? Run normkata solution {kata}.",
            "提示已用完。仍然卡住？运行 normkata solution {kata}。",
        ),
        "solution.confirm": Text(
            "You have not passed {kata} yet. Show the reference solution anyway? (recorded as giving up)",
            "你还没有通过 {kata}。仍然查看参考答案吗？（将记录为放弃）",
        ),
        "solution.heading": Text("Reference solution: {kata} ({title})", "参考答案：{kata}（{title}）"),
        "solution.diff": Text(
            "Your passing file ({path}) against the reference: - yours, + reference",
            "你通过的文件（{path}）与参考答案对照：- 你的，+ 参考答案",
        ),
        "solution.same": Text("Your file is the reference, line for line.", "你的文件与参考答案逐行相同。"),
        "solution.closed": Text(
            "The reference solution of {kata} opens after a pass (or when you give up).",
            "{kata} 的参考答案在通过之后（或你选择放弃时）才开放。",
        ),
        "solution.kept": Text("Solution not shown. Keep going!", "未显示答案。继续加油！"),
        "kata.none_yet": Text(
            "No kata started yet: name one ({named}) or start one with {start}.",
            "还没有开始任何编程练习：请指定一个（{named}），或先用 {start} 开始一个。",
        ),
        "hint.level_range": Text("--level: {kata} has hints 1 to {n}", "--level：{kata} 的提示编号为 1 到 {n}"),
        "hint.all_or_level": Text("--all and --level: give one or the other", "--all 和 --level 只能选一个"),
        "loop.kata_scheduled": Text(
            "{kata} scheduled: {rating} ({why}); write it again {when}.",
            "{kata} 已排期：{rating}（{why}）；{when}再写一遍。",
        ),
        "loop.reason.solution": Text("the solution was shown", "看过了参考答案"),
        "loop.reason.hints": Text("passed after hints", "看过提示后通过"),
        "loop.reason.slow": Text("passed after more than twice its {minutes} min", "用时超过预计 {minutes} 分钟的两倍"),
        "loop.reason.first": Text("first grade passed within its {minutes} min", "在 {minutes} 分钟内首次评分即通过"),
        "loop.reason.failed": Text("passed after failing grades", "经过失败的评分后通过"),
        "loop.reason.time": Text("passed within twice its {minutes} min", "在预计 {minutes} 分钟的两倍内通过"),
        "loop.teach": Text(
            "Now due, to learn why ({mistake}): the {kind} “{title}”{more}",
            "已设为到期，讲清原因（{mistake}）的是{kind}“{title}”{more}",
        ),
        "note.action": Text("{text}  ({action})", "{text}（{action}）"),
        "loop.teach.more": Text(" and {n} more", "，另有 {n} 项"),
        "loop.kata_header": Text("Kata {i}/{n}: write it again", "编程练习 {i}/{n}：再写一遍"),
        "loop.kata_again": Text(
            "Your passing file is kept (history/ in the workspace); a fresh starter is in {path}. Write {kata} "
            "again from memory (the instructions: normkata kata {kata}): it is graded on new inputs.",
            "你通过的文件已保存（工作区的 history/）；{path} 已换成新的起始代码。凭记忆再写一遍 {kata}"
            "（说明见 normkata kata {kata}）：评分用新的输入。",
        ),
        "loop.kata_prompt": Text("Enter grades it, h a hint, s leaves it for now", "回车评分，h 提示，s 稍后再写"),
        "loop.kata_not_passed": Text(
            "{kata} has not passed yet: start it with normkata kata {kata}; it is reviewed once passed.",
            "{kata} 尚未通过：请用 normkata kata {kata} 开始；通过后才会进入复习。",
        ),
        "loop.kata_left": Text("{kata} left unfinished: it stays due.", "{kata} 尚未完成：仍然到期。"),
        "loop.summary.katas": Text(
            "Katas written again: {n} ({ratings}).", "再写一遍的编程练习：{n} 个（{ratings}）。"
        ),
    },
)
