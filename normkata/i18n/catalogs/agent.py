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
            "quiz_question and check_answer practise the theory; interview_card and rate_card the interview "
            "questions; due, next_step and plan say what to do and when.",
            "使用 normkata 的一次练习：list_katas 或 standing；start_kata；学习者编辑自己的文件；grade；"
            "解释指出的错误；卡住时用 hint；再次 grade；通过后用 solution。"
            "quiz_question 和 check_answer 用来练习理论；interview_card 和 rate_card 练习面试问题；"
            "due、next_step 和 plan 告诉你该做什么、何时做。",
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
            "check_answer, interview_card, rate_card, due, next_step, plan and standing. Otherwise run the "
            "commands: `normkata grade KATA` (the verdict and the named mistakes), `normkata hint KATA` "
            "(the next hint), `normkata next` (what to do now).",
            "## 如何检查他们的代码\n\n"
            "如果你的客户端支持 Model Context Protocol，请连接服务器 `normkata mcp`（stdio）：它的工具有 list_katas、"
            "instructions、start_kata、grade、hint、solution、quiz_question、check_answer、interview_card、rate_card、"
            "due、next_step、plan 和 standing。否则请运行命令："
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
        "agent.kata.kept": Text(
            "{path} already exists: the learner's work is kept as it is.", "{path} 已存在：学习者的代码保持不变。"
        ),
        "agent.kata.file": Text("The learner's file: {path}", "学习者的文件：{path}"),
        "agent.next": Text("Next: {step}  ({why})", "下一步：{step}（{why}）"),
        "agent.card.rate": Text(
            "Let the learner answer aloud or in writing, then call rate_card with id {id} and their own rating "
            "(1 Again, 2 Hard, 3 Good, 4 Easy): it returns the key points and the model answer to compare with.",
            "先让学习者口头或书面作答，再用 id {id} 和他们自己的评分调用 rate_card"
            "（1 重来、2 困难、3 良好、4 简单）：它会返回要点和参考回答以供对照。",
        ),
        "agent.rating.range": Text(
            "rating: 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy), the learner's own; got {value}",
            "rating：1（重来）、2（困难）、3（良好）或 4（简单），由学习者本人给出；收到的是 {value}",
        ),
        "agent.plan.empty": Text("Nothing planned.", "没有安排。"),
        "agent.due.none": Text("Nothing is due now.", "现在没有到期的内容。"),
        "agent.arg.type": Text("{arg}: must be {kind}, got {value}", "{arg}：必须是 {kind}，收到的是 {value}"),
        "agent.arg.long": Text("{arg}: longer than {n} characters ({value})", "{arg}：超过 {n} 个字符（{value}）"),
        "agent.arg.empty": Text("{arg}: empty", "{arg}：为空"),
        "agent.arg.seed": Text(
            "{arg}: a whole number from 0 to {high}, got {value}",
            "{arg}：必须是 0 到 {high} 之间的整数，收到的是 {value}",
        ),
        "agent.arg.minutes": Text(
            "{arg}: a whole number of minutes from 1 to 1440, got {value}",
            "{arg}：必须是 1 到 1440 之间的整数分钟，收到的是 {value}",
        ),
        "agent.prompt.tutor": Text(
            "Start with standing or next_step and say in one sentence where the learner stands. Offer the step it "
            "names. For a kata: start_kata, let them write, grade when they say so, explain each named mistake "
            "with a question that leads to the fix, hint when they are stuck, grade again.",
            "先调用 standing 或 next_step，用一句话说明学习者目前的水平，并建议它给出的那一步。"
            "做编程练习时：start_kata，让学习者自己写，在他们要求时 grade，用引导性的问题解释每个指出的错误，"
            "卡住时用 hint，然后再次 grade。",
        ),
        "agent.prompt.mock": Text(
            "Run a mock interview of about 20 minutes: call interview_card, read its question aloud as an "
            "interviewer would, let the learner answer fully without help, ask one follow-up of your own, then "
            "ask them to rate themself and call rate_card with their rating. Then the next card. At the end, say "
            "which key points they missed most often.",
            "进行约 20 分钟的模拟面试：调用 interview_card，像面试官一样读出问题，让学习者在没有帮助的情况下完整作答，"
            "追问一个你自己的问题，然后请他们自评并用其评分调用 rate_card。接着下一张卡片。"
            "结束时指出他们最常遗漏的要点。",
        ),
        "agent.prompt.review": Text(
            "Call due and go through what it lists, one item at a time: quiz questions with quiz_question and "
            "check_answer (the learner answers first), cards with interview_card and rate_card. Stop when the "
            "learner wants to; what was answered is kept.",
            "调用 due，逐项处理它列出的内容：测验题用 quiz_question 和 check_answer（先让学习者作答），"
            "卡片用 interview_card 和 rate_card。学习者想停就停；已作答的内容都会保存。",
        ),
        "agent.prompt.explain": Text(
            "Call grade on the learner's kata (or read the last result), take the first named mistake, and explain "
            "in your own words what it is and why it is wrong, pointing at the line of their file where it "
            "appears. End with a question that leads them to the fix; do not write the fix.",
            "对学习者的练习调用 grade（或读取上次的结果），取第一个指出的错误，用你自己的话解释它是什么、为什么错，"
            "并指出它出现在学习者文件的哪一行。最后提出一个能引导他们找到修正方法的问题；不要替他们写出修正。",
        ),
        "agent.standing.topic": Text("{topic}: {mastery:.0%} mastered", "{topic}：掌握 {mastery:.0%}"),
        "agent.standing.totals": Text(
            "{due} item(s) due now · {passed} of {katas} katas passed",
            "现在有 {due} 项到期 · 已通过 {passed}/{katas} 个编程练习",
        ),
    },
)
