"""The dashboard, the advisor's suggestions and the study plan.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "dash.title": Text("normkata: where you stand", "normkata：你的进度"),
        "dash.topic": Text("Topic", "主题"),
        "dash.questions": Text("Questions", "题目"),
        "dash.seen": Text("Seen", "做过"),
        "dash.mastery": Text("Mastery", "掌握度"),
        "dash.cards": Text("Cards rated", "已评卡片"),
        "dash.due": Text("Due for review: {n}", "待复习：{n}"),
        "dash.katas": Text("Katas: {status}", "编程练习：{status}"),
        "dash.katas.none": Text("none yet", "暂无"),
        "dash.next": Text("Next: {cmd}  ({why})", "下一步：{cmd}（{why}）"),
        # -- next, plan, mock, history, review summary, mastery (issue 12) --
        "dash.mastery.how": Text(
            "Mastery: the share of a topic's questions last answered right and cards last rated Good or Easy; "
            "in a topic with katas, passed katas make up {share} of it.",
            "掌握度：某主题中最近一次答对的题目与最近自评为良好或简单的卡片所占比例；"
            "若该主题有编程练习，已通过的练习占其中的 {share}。",
        ),
        "dash.studied": Text(
            "Time studied: {time} answering (mock interviews: {mock}).",
            "学习时长：作答共 {time}（其中模拟面试 {mock}）。",
        ),
        "dash.mocks": Text(
            "Mock interviews: {n}; the last one made {share} of its key points (normkata mock --history).",
            "模拟面试：{n} 次；最近一次答到 {share} 的要点（normkata mock --history）。",
        ),
        "dash.mocks.none": Text("Mock interviews: none yet.", "模拟面试：暂无。"),
        "dash.katas.passed": Text("Katas passed: {passed} of {total}", "已通过的编程练习：{passed}/{total}"),
        "advice.start": Text("a short quiz shows where you stand", "先做一个简短测验，看看自己的水平"),
        "advice.leech": Text(
            "{item} was forgotten {n} times after you had learnt it (a leech): read its explanation, "
            "then answer it in your own words",
            "{item} 在学会后又遗忘了 {n} 次（顽固项）：先读解析，再用自己的话作答",
        ),
        "advice.review": Text(
            "{n} item(s) due: FSRS expects you to forget these first",
            "{n} 项已到期：按 FSRS 的估计，这些最先被遗忘",
        ),
        "advice.kata_retry": Text("{kata} is not passed yet (best score {best})", "{kata} 尚未通过（最佳得分 {best}）"),
        "advice.topic_quiz": Text(
            "{topic}: {recall} expected recall, {unseen} question(s) never answered",
            "{topic}：预计记得 {recall}，有 {unseen} 道题从未做过",
        ),
        "advice.topic_cards": Text(
            "{topic}: {good} of {cards} interview card(s) rated Good or Easy",
            "{topic}：{cards} 张面试卡片中有 {good} 张自评为良好或简单",
        ),
        "advice.kata_new": Text(
            "{kata}: not started, and interviewers ask you to write it from scratch",
            "{kata}：尚未开始，而面试官会让你从零写出它",
        ),
        "advice.mock": Text("every topic is strong: rehearse under time", "各主题都已掌握：限时演练一次"),
        "plan.title": Text("A plan for {minutes} minutes, weakest first", "{minutes} 分钟的计划，从最薄弱处开始"),
        "plan.col.command": Text("Command", "命令"),
        "plan.col.minutes": Text("Minutes", "分钟"),
        "plan.col.why": Text("Why", "原因"),
        "plan.total": Text("{used} of {minutes} minutes planned.", "已安排 {minutes} 分钟中的 {used} 分钟。"),
        "plan.nothing": Text(
            "Nothing fits in {minutes} minute(s): try `normkata next`.",
            "{minutes} 分钟内安排不下任何练习：试试 `normkata next`。",
        ),
        "advice.kata_again": Text(
            "{kata}: write it again from a fresh starter (passed before; FSRS says it is due since {when})",
            "{kata}：用新的起始代码再写一遍（之前已通过；FSRS 判定自 {when} 起到期）",
        ),
        "advice.lesson": Text(
            "your last {kata} grade named a mistake, {title}: {kind} `{item}` explains it",
            "你上次 {kata} 的评分指出了一个错误（{title}）：{kind} `{item}` 讲清了原因",
        ),
        "advice.kind.card": Text("card", "卡片"),
        "advice.kind.question": Text("question", "题目"),
        "dash.loop.katas_due": Text("Katas to write again: {katas}", "需要再写一遍的编程练习：{katas}"),
        "dash.loop.katas_due.none": Text("Katas to write again: none due", "需要再写一遍的编程练习：暂无到期"),
        "dash.loop.met": Text("Misconceptions met this week:", "本周遇到的误区："),
        "dash.loop.met.none": Text("Misconceptions met this week: none", "本周遇到的误区：无"),
        "dash.loop.reviewed": Text("reviewed since", "之后已复习"),
        "dash.loop.not_reviewed": Text("not reviewed since", "之后未复习"),
        "dash.loop.no_items": Text("no item teaches it yet", "暂无讲解它的题目或卡片"),
    },
)
