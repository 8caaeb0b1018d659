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
        # -- next, plan, mock, history, review summary, mastery --
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
        "dash.katas.started": Text("; in progress: {katas}", "；进行中：{katas}"),
        "dash.katas.one": Text("{kata} ({best})", "{kata}（{best}）"),
        "dash.studied_mocks": Text("{studied} {mocks}", "{studied}{mocks}"),
        "dash.loop.met.line": Text("  {title} ({kata}): ", "  {title}（{kata}）："),
        "dash.katas.more": Text(" and {n} more", " 等另外 {n} 个"),
        "dash.title.until": Text(" · interview on {date}, {left}", " · 面试日期 {date}，{left}"),
        "dash.on_the_day": Text("On {date}", "{date} 当天"),
        "dash.on_the_day.how": Text(
            "On the day: FSRS's predicted recall of each topic's questions and cards on {date} if you stop now "
            "({recall} overall); normkata plan aims at it.",
            "当天：若现在停下，FSRS 预计到 {date} 你对各主题题目与卡片的记忆程度（总体 {recall}）；"
            "normkata plan 以此为目标。",
        ),
        "dash.compact.loop": Text(
            "Katas to write again: {katas} · mistakes graded this week: {met}, {open} not reviewed since",
            "需要再写一遍的编程练习：{katas} · 本周评测指出的误区：{met} 个，其中 {open} 个之后未复习",
        ),
        "dash.compact.none": Text("none due", "暂无到期"),
        "dash.compact.more": Text(
            "A window of {rows} rows shows the whole dashboard.", "窗口有 {rows} 行时显示完整的进度面板。"
        ),
        "dash.loop.met.more": Text("and {n} more (normkata history)", "另有 {n} 个（normkata history）"),
        "advice.start": Text("a short quiz shows where you stand", "先做一个简短测验，看看自己的水平"),
        "advice.leech": Text(
            "{item} was forgotten {n} times after you had learnt it (a leech): read its explanation, "
            "then answer it in your own words",
            "{item} 在学会后又遗忘了 {n} 次（顽固项）：先读解析，再用自己的话作答",
        ),
        "advice.review": Text(
            "{n} item(s) due: their review day has come, while you still remember most of them",
            "{n} 项已到期：复习日已到，趁大部分还记得时复习",
        ),
        "advice.kata_retry": Text("{kata} is not passed yet (best score {best})", "{kata} 尚未通过（最佳得分 {best}）"),
        "advice.topic_quiz": Text(
            "{topic}: {recall} expected recall on the {seen} item(s) you answered or rated, "
            "{unseen} question(s) never answered",
            "{topic}：已做过或自评的 {seen} 项预计记得 {recall}，有 {unseen} 道题从未做过",
        ),
        "advice.topic_new": Text(
            "{topic}: not studied yet ({unseen} question(s)), next in the order of study",
            "{topic}：尚未学习（{unseen} 道题），按学习顺序轮到它",
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
        "plan.title": Text(
            "A plan for {minutes} minutes: what is due first, then your topics weakest first",
            "{minutes} 分钟的计划：先做到期的，再按主题从最薄弱处开始",
        ),
        "plan.col.command": Text("Command", "命令"),
        "plan.col.minutes": Text("Minutes", "分钟"),
        "plan.col.why": Text("Why", "原因"),
        "plan.step": Text("{minutes} min · {why}", "{minutes} 分钟 · {why}"),
        "plan.total": Text("{used} of {minutes} minutes planned.", "已安排 {minutes} 分钟中的 {used} 分钟。"),
        "plan.nothing": Text(
            "Nothing fits in {minutes} minute(s): try normkata next.",
            "{minutes} 分钟内安排不下任何练习：试试 normkata next。",
        ),
        "advice.kata_again": Text(
            "{kata}: write it again from a fresh starter (passed before; FSRS says it is due since {when})",
            "{kata}：用新的起始代码再写一遍（之前已通过；FSRS 判定自 {when} 起到期）",
        ),
        "advice.lesson": Text(
            "your last {kata} grade named a mistake, {title}: {this} explains it",
            "你上次 {kata} 的评分指出了一个错误（{title}）：{this}讲清了原因",
        ),
        "advice.lesson.passed": Text(
            "{kata} passes now, but an earlier grade named a mistake, {title}: {this} explains it",
            "{kata} 现在已通过，但之前的一次评分指出过一个错误（{title}）：{this}讲清了原因",
        ),
        "advice.kind.card": Text("card", "卡片"),
        "advice.this.card": Text("this card", "这张卡片"),
        "advice.this.question": Text("this question", "这道题"),
        "advice.kind.question": Text("question", "题目"),
        # -- a plan toward the interview date (plan --until) --
        "dated.review": Text(
            "{n} item(s) FSRS has due that day; without a review they would be at {recall} on {date}",
            "当天 FSRS 判定到期的 {n} 项；不复习的话，到 {date} 预计只记得 {recall}",
        ),
        "dated.kata_again": Text(
            "{kata}: write it again from a fresh starter (passed; without it {recall} on {date})",
            "{kata}：用新的起始代码再写一遍（已通过；不重写的话 {date} 预计为 {recall}）",
        ),
        "dated.last_look": Text(
            "{n} item(s) not due yet that would be under {target} on {date} (at {recall}): one last look",
            "{n} 项尚未到期、但到 {date} 会低于 {target}（预计 {recall}）：最后再看一遍",
        ),
        "dated.new_questions": Text(
            "{topic}: {n} question(s) never answered, met early enough to be reviewed before the day",
            "{topic}：{n} 道从未做过的题，尽早接触，面试前还来得及复习",
        ),
        "dated.new_cards": Text(
            "{topic}: {n} interview card(s) never rated, met early enough to be reviewed before the day",
            "{topic}：{n} 张从未自评的面试卡片，尽早接触，面试前还来得及复习",
        ),
        "dated.mock": Text(
            "the last session before the interview: rehearse under time (following the plan, {recall} of what "
            "you studied is predicted on {date})",
            "面试前的最后一次练习：限时演练一次（按计划进行，预计到 {date} 你能记得所学内容的 {recall}）",
        ),
        "dated.new_questions.late": Text(
            "{topic}: {n} question(s) never answered (no session is left to review them before the interview)",
            "{topic}：{n} 道从未做过的题（面试前已没有复习它们的时间）",
        ),
        "dated.new_cards.late": Text(
            "{topic}: {n} interview card(s) never rated (no session is left to review them before the interview)",
            "{topic}：{n} 张从未自评的面试卡片（面试前已没有复习它们的时间）",
        ),
        "deadline.bad_date": Text(
            "--until {value}: not a date; give it as YYYY-MM-DD (or none to forget the date)",
            "--until {value}：不是日期；请写成 YYYY-MM-DD（或用 none 清除日期）",
        ),
        "deadline.past": Text(
            "--until {value}: that day has passed (today is {today})",
            "--until {value}：这一天已经过去了（今天是 {today}）",
        ),
        "deadline.too_far": Text(
            "--until {value}: more than {days} days ahead; plan the first months and run it again later",
            "--until {value}：超过 {days} 天之后；先规划前几个月，之后再运行",
        ),
        "deadline.needs": Text(
            "plan needs --minutes N (one sitting) or --until YYYY-MM-DD (every day to your interview)",
            "plan 需要 --minutes N（一次练习）或 --until YYYY-MM-DD（到面试前的每一天）",
        ),
        "deadline.forgotten": Text(
            "The interview date is forgotten: plans and advice no longer aim at a day.",
            "已清除面试日期：计划和建议不再针对某一天。",
        ),
        "deadline.none_to_forget": Text("No interview date was set.", "此前没有设置面试日期。"),
        "deadline.title": Text(
            "Interview on {date} ({left}): {minutes} min a day ({source})",
            "面试日期 {date}（{left}）：每天 {minutes} 分钟（{source}）",
        ),
        "deadline.left.today": Text("today", "就在今天"),
        "deadline.left.days": Text("in {n} day(s)", "还有 {n} 天"),
        "deadline.source.given": Text("as you set it", "按你的设置"),
        "deadline.source.habit": Text("your habit over the last two weeks", "按你最近两周的习惯"),
        "deadline.source.default": Text(
            "the default; --minutes-per-day changes it", "默认值；可用 --minutes-per-day 修改"
        ),
        "deadline.day": Text(
            "{weekday} {date}{today} · {planned} of {minutes} min",
            "{date}（{weekday}{today}）· {minutes} 分钟中安排 {planned} 分钟",
        ),
        "deadline.day.today": Text(" (today)", "，今天"),
        "deadline.day.empty": Text("  nothing planned: today's minutes are spent", "  没有安排：今天的时间已用完"),
        "deadline.day.empty.later": Text(
            "  nothing planned: nothing falls due under {target} on the day and no new material fits",
            "  没有安排：没有到期且当天会低于 {target} 的内容，也放不下新内容",
        ),
        "deadline.today_part": Text(
            "Today's part of the plan toward {date}, within {minutes} min (`normkata plan` shows every day):",
            "面向 {date} 的计划中今天的部分，共 {minutes} 分钟以内（`normkata plan` 显示每一天）：",
        ),
        "deadline.needs_date": Text(
            "--{option} belongs to the plan toward an interview: give --until YYYY-MM-DD with it",
            "--{option} 属于面向面试的计划：请同时给出 --until YYYY-MM-DD",
        ),
        "deadline.col.recall": Text("On the day", "当天记得"),
        "deadline.weekday.0": Text("Mon", "周一"),
        "deadline.weekday.1": Text("Tue", "周二"),
        "deadline.weekday.2": Text("Wed", "周三"),
        "deadline.weekday.3": Text("Thu", "周四"),
        "deadline.weekday.4": Text("Fri", "周五"),
        "deadline.weekday.5": Text("Sat", "周六"),
        "deadline.weekday.6": Text("Sun", "周日"),
        "deadline.step": Text(
            "{minutes} min · {recall} on the day · {why}", "{minutes} 分钟 · 当天记得 {recall} · {why}"
        ),
        "deadline.summary": Text(
            "Predicted recall on {date} of every question and card: {now} if you stop now, {planned} with this plan. "
            "{solid} studied item(s) are solid ({target} or more on the day) and left alone.",
            "{date} 当天对全部题目与卡片的预计记忆：现在停下为 {now}，按此计划为 {planned}。"
            "已学的 {solid} 项足够牢固（当天 {target} 以上），不再安排。",
        ),
        "deadline.left_over": Text(
            "{n} item(s) would still be under {target} on the day: more minutes a day would reach them.",
            "仍有 {n} 项到当天会低于 {target}：每天多留些时间才能顾及。",
        ),
        "deadline.new_left": Text(
            "{n} new piece(s) (questions, cards, katas) do not fit before the day.",
            "还有 {n} 项新内容（题目、卡片、编程练习）在面试前安排不下。",
        ),
        "deadline.set": Text(
            "Remembered: interview on {date}. normkata plan --until none forgets it.",
            "已记住：面试日期 {date}。normkata plan --until none 可清除。",
        ),
        "dash.loop.katas_due": Text("Katas to write again: {katas}", "需要再写一遍的编程练习：{katas}"),
        "dash.loop.katas_due.none": Text("Katas to write again: none due", "需要再写一遍的编程练习：暂无到期"),
        "dash.loop.met": Text("Misconceptions met this week:", "本周遇到的误区："),
        "dash.loop.met.none": Text("Misconceptions met this week: none", "本周遇到的误区：无"),
        "dash.loop.reviewed": Text("reviewed since", "之后已复习"),
        "dash.loop.not_reviewed": Text("not reviewed since", "之后未复习"),
        "dash.loop.no_items": Text("no item teaches it yet", "暂无讲解它的题目或卡片"),
        # -- a duration on the dashboard --
        "dash.duration.hours": Text("{hours} h {minutes:02d} min", "{hours} 小时 {minutes:02d} 分钟"),
        "dash.duration.minutes": Text("{minutes} min", "{minutes} 分钟"),
        "dash.duration.seconds": Text("{seconds} s", "{seconds} 秒"),
    },
)
