"""A coding assistant beside the learner: `normkata mcp` and the AGENTS.md written into the workspace.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up. `agent.rules` is
said twice on purpose, in the same words: as the MCP server's instructions and in AGENTS.md.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "mcp.needs_extra": Text(
            'normkata mcp needs the optional mcp extra: pip install "normkata[mcp]"',
            'normkata mcp 需要可选依赖 mcp：pip install "normkata[mcp]"',
        ),
        "agent.rules": Text(
            "You are helping someone practise for ML interviews with normkata. Be a teaching assistant, "
            "not a solution generator:\n"
            "- Do not write, complete or paste the solution to a kata (the learner's files such as rmsnorm.py), "
            "not even part of it. Do not edit their kata files unless they ask for a small change they have "
            "already worked out themselves.\n"
            "- Grade with normkata, never by guessing: its verdict comes from a hidden test suite run in a "
            "sandbox; your reading of the code is not a verdict.\n"
            "- When a grade names a mistake, explain that mistake in your own words and show where it appears "
            "in their code; ask a question that leads them to the fix rather than giving it.\n"
            "- Give normkata's hints in order, one at a time, when they ask or are stuck (each hint taken is "
            "recorded). Do not skip ahead and do not add the answer to a hint.\n"
            "- The reference solution opens after a pass. Before that only the learner can decide to give up: "
            "ask for it with give_up only when they have said so themselves, and tell them it is recorded as "
            "giving up.\n"
            "- For a quiz question, let them answer first; checking the answer records it and gives the "
            "explanation.",
            "你在帮助一位学习者用 normkata 准备机器学习面试。请做助教，而不是答案生成器：\n"
            "- 不要编写、补全或粘贴练习（学习者的文件，如 rmsnorm.py）的答案，哪怕一部分也不要。除非学习者要求做一处"
            "他们自己已经想清楚的小改动，否则不要修改他们的练习文件。\n"
            "- 用 normkata 评测，不要猜：结论来自在沙箱中运行的隐藏测试集；你读代码得出的看法不是结论。\n"
            "- 评测指出某个错误时，用你自己的话解释这个错误，并指出它在代码中出现的位置；"
            "提出能引导他们找到修正方法的问题，而不是直接给出修正。\n"
            "- 按顺序给出 normkata 的提示，一次一条，在他们请求或卡住时才给（每条提示都会被记录）。"
            "不要跳级，也不要在提示里附上答案。\n"
            "- 参考答案在通过之后才开放。在此之前只有学习者本人可以决定放弃："
            "只有当他们亲口这样说时才用 give_up 请求答案，并告诉他们这会被记录为放弃。\n"
            "- 对于测验题，先让他们作答；核对答案时会记录答案并给出解析。",
        ),
        "agent.flow": Text(
            "A session with normkata: list_katas or standing; start_kata; the learner edits their file; grade; "
            "explain the named mistake; hint when they are stuck; grade again; solution after a pass. "
            "quiz_question and check_answer practise the theory.",
            "使用 normkata 的一次练习：list_katas 或 standing；start_kata；学习者编辑自己的文件；grade；"
            "解释指出的错误；卡住时用 hint；再次 grade；通过后用 solution。"
            "quiz_question 和 check_answer 用来练习理论。",
        ),
        "agent.agents_md.head": Text(
            "# For coding assistants in this normkata workspace\n\n"
            "This folder holds the kata files of a learner practising normalization layers for ML interviews "
            "with normkata. normkata wrote this file once; it is the learner's to edit and is never "
            "overwritten.",
            "# 致本 normkata 工作区中的编程助手\n\n"
            "这个文件夹存放一位学习者用 normkata 练习归一化层、准备机器学习面试时写的练习文件。"
            "normkata 只写入本文件一次；它归学习者所有，可以随意修改，且永远不会被覆盖。",
        ),
        "agent.agents_md.tools": Text(
            "## How to check their work\n\n"
            "If your client speaks the Model Context Protocol, connect the server `normkata mcp` (stdio): its "
            "tools are list_katas, instructions, start_kata, grade, hint, solution, quiz_question, "
            "check_answer and standing. Otherwise run the commands: `normkata grade KATA` (the verdict and "
            "the named mistakes), `normkata hint KATA` (the next hint), `normkata next` (what to do now).",
            "## 如何检查他们的代码\n\n"
            "如果你的客户端支持 Model Context Protocol，请连接服务器 `normkata mcp`（stdio）：它的工具有 list_katas、"
            "instructions、start_kata、grade、hint、solution、quiz_question、check_answer 和 standing。否则请运行命令："
            "`normkata grade KATA`（结论和指出的错误）、`normkata hint KATA`（下一条提示）、"
            "`normkata next`（现在该做什么）。",
        ),
        "agent.agents_md.written": Text(
            "Wrote {path}: what a coding assistant beside you should and should not do (yours to edit).",
            "已写入 {path}：说明你身边的编程助手该做和不该做的事（可随意修改）。",
        ),
        "agent.solution.refused": Text(
            "The reference solution of {kata} opens after a pass (for a kata written again, after it passes "
            "again): grade a passing file first. Only if the learner says they give up, ask again with "
            "give_up: true (recorded as giving up).",
            "{kata} 的参考答案在通过之后才开放（重写的练习须再次通过）：请先评测一个能通过的文件。"
            "只有学习者本人说要放弃时，才用 give_up: true 再请求一次（将记录为放弃）。",
        ),
        "agent.solution.gave_up": Text("Recorded as giving up on {kata}.", "已记录为放弃 {kata}。"),
        "agent.hint.last": Text("That was the last hint for {kata}.", "这是 {kata} 的最后一条提示。"),
        "agent.answer.empty": Text(
            "answer: empty; give the learner's answer ({format})",
            "answer：为空；请给出学习者的答案（{format}）",
        ),
        "agent.question.unknown": Text("id: no question {id!r} in the bank{hint}", "id：题库中没有题目 {id!r}{hint}"),
        "agent.kata.kept": Text(
            "{path} already exists: the learner's work is kept as it is.", "{path} 已存在：学习者的代码保持不变。"
        ),
        "agent.kata.file": Text("The learner's file: {path}", "学习者的文件：{path}"),
        "agent.standing.topic": Text("{topic}: {mastery:.0%} mastered", "{topic}：掌握 {mastery:.0%}"),
        "agent.standing.totals": Text(
            "{due} item(s) due now · {passed} of {katas} katas passed",
            "现在有 {due} 项到期 · 已通过 {passed}/{katas} 个编程练习",
        ),
    },
)
