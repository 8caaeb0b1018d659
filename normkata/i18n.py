"""Interface strings in English and Chinese, and how the language is chosen."""

from __future__ import annotations

import os

LANGS = ("en", "zh")

_STRINGS: dict[str, tuple[str, str]] = {
    # key: (English, Chinese)
    "quiz.header": ("Question {i}/{n}", "第 {i}/{n} 题"),
    "quiz.prompt.single": ("Your answer ({letters} or {numbers})", "你的答案（{letters} 或 {numbers}）"),
    "quiz.prompt.multiple": (
        "Your answers, all that apply ({letters} or {numbers}, e.g. AC)",
        "选出所有正确项（{letters} 或 {numbers}，例如 AC）",
    ),
    "quiz.prompt.true_false": ("True or false (A/t/1 or B/f/2)", "对还是错（对：A/t/1/对；错：B/f/2/错）"),
    "quiz.prompt.numeric": (
        "Your number (e.g. 6.1e-5, 2^-7, 1/8, sqrt(2))",
        "你的数值（例如 6.1e-5、2^-7、1/8、sqrt(2)）",
    ),
    "quiz.prompt.order": (
        "The right order ({letters} or {numbers}, e.g. {example})",
        "按正确顺序写出字母或序号（{letters} 或 {numbers}，例如 {example}）",
    ),
    "quiz.invalid": ("Not an answer I can read: {why}. Try again.", "无法识别这个答案：{why}。请再试一次。"),
    "quiz.invalid.recorded": (
        "Unreadable answer ({why}): counted as wrong.",
        "无法识别的答案（{why}）：按答错记录。",
    ),
    "quiz.correct": ("Correct.", "回答正确。"),
    "quiz.numeric.exact": ("{shown} (exactly {exact})", "{shown}（精确值 {exact}）"),
    "quiz.precision.exact": ("(exact value)", "（给出精确值）"),
    "quiz.precision.sig": (
        "({n} significant digits; forms such as 1.5e-3, 2^-7 or 1/8 are fine)",
        "（保留 {n} 位有效数字；可以写成 1.5e-3、2^-7 或 1/8 这样的形式）",
    ),
    "quiz.precision.decimals": ("({n} decimal places)", "（保留 {n} 位小数）"),
    "quiz.short.decimals": (
        "{typed} is right to {n} decimal place(s), but the question asks for {asked}.",
        "{typed} 精确到 {n} 位小数是对的，但题目要求 {asked} 位。",
    ),
    "quiz.short.sig": (
        "{typed} is right to {n} significant digit(s), but the question asks for {asked}.",
        "{typed} 保留 {n} 位有效数字是对的，但题目要求 {asked} 位。",
    ),
    "quiz.short.again": (" Try again with more digits.", "请多写几位再试一次。"),
    "answer.true_false": ("expected t or f", "请输入 t（对）或 f（错）"),
    "answer.not_number": ("'{text}' is not a number", "“{text}”不是一个数"),
    "answer.one_letter": ("expected one letter", "只能选一个字母"),
    "answer.repeated": ("a letter is repeated", "有字母重复"),
    "answer.every_letter": ("list every letter {letters} once", "{letters} 每个字母都要列出，且只列一次"),
    "answer.number_range": ("numbers go from 1 to {n}", "序号只能是 1 到 {n}"),
    "answer.no_letter": ("no letter given", "没有给出字母"),
    "answer.bad_letter": ("'{letter}' is not one of {letters}", "“{letter}”不在 {letters} 之中"),
    "difficulty.easy": ("easy", "简单"),
    "difficulty.medium": ("medium", "中等"),
    "difficulty.hard": ("hard", "困难"),
    "rating.1": ("Again", "重来"),
    "rating.2": ("Hard", "困难"),
    "rating.3": ("Good", "良好"),
    "rating.4": ("Easy", "简单"),
    "quiz.wrong": ("Not quite. The answer is {answer}.", "不对。正确答案是 {answer}。"),
    "quiz.skipped": ("Skipped. The answer is {answer}.", "已跳过。正确答案是 {answer}。"),
    "quiz.source": ("Source: {source}", "出处：{source}"),
    "quiz.true": ("true", "对"),
    "quiz.false": ("false", "错"),
    "quiz.none": ("No questions match those filters.", "没有符合条件的题目。"),
    "quiz.unknown_id": ("--id: no question {id!r} in the bank{hint}", "--id：题库中没有题目 {id!r}{hint}"),
    "summary.title": ("Summary", "小结"),
    "summary.topic": ("Topic", "主题"),
    "summary.correct": ("Correct", "答对"),
    "summary.total": ("Answered", "已答"),
    "summary.score": ("Score", "得分"),
    "summary.all": ("All", "合计"),
    "summary.skipped": ("Skipped", "跳过"),
    "summary.stopped": (
        "Stopped early: {answered} of {asked} answered, all of them saved.",
        "提前结束：已答 {answered}/{asked} 题，均已保存。",
    ),
    "summary.stopped.skipped": (
        "Stopped early: {answered} of {asked} answered and {skips} skipped, all of them saved.",
        "提前结束：共 {asked} 题，已答 {answered} 题、跳过 {skips} 题，均已保存。",
    ),
    "card.header": ("Card {i}/{n}", "卡片 {i}/{n}"),
    "card.your_answer": (
        "Your answer (an empty line or Ctrl-D ends it; Enter alone skips)",
        "你的回答（空行或 Ctrl-D 结束；直接回车跳过）",
    ),
    "card.key_points": ("Key points", "要点"),
    "card.model_answer": ("Model answer", "参考答案"),
    "card.follow_ups": ("Follow-ups an interviewer may ask", "面试官可能的追问"),
    "card.rate": (
        "How did you do? 1 Again  2 Hard  3 Good  4 Easy",
        "自评：1 重来  2 困难  3 良好  4 简单",
    ),
    "back.line": (
        "Comes back in `normkata review`: {groups}.",
        "在 `normkata review` 中再次出现：{groups}。",
    ),
    "back.group": ("{n} {when}", "{when} {n} 项"),
    "list.sep": (", ", "，"),
    "review.more": (
        "For more practice now: {cmd}  ({why})",
        "现在想多练一些：{cmd}（{why}）",
    ),
    "card.rate.with": ("How did you do? {choices}", "自评：{choices}"),
    "card.rate.invalid": ("Type 1, 2, 3 or 4.", "请输入 1、2、3 或 4。"),
    "card.next_due": ("Next review: {when}", "下次复习：{when}"),
    "card.none": ("No interview cards match those filters.", "没有符合条件的面试卡片。"),
    "card.done": (
        "{rated} card(s) rated and saved.",
        "已自评并保存 {rated} 张卡片。",
    ),
    "review.none": (
        "Nothing is due. Next item due: {when}.",
        "目前没有到期的内容。下一项到期时间：{when}。",
    ),
    "review.empty": (
        "Nothing to review yet: answer a quiz or rate a card first.",
        "还没有可复习的内容：先做一次测验或面试卡片。",
    ),
    "review.header": ("{n} item(s) due", "{n} 项到期"),
    "dash.title": ("normkata: where you stand", "normkata：你的进度"),
    "dash.topic": ("Topic", "主题"),
    "dash.questions": ("Questions", "题目"),
    "dash.seen": ("Seen", "做过"),
    "dash.mastery": ("Mastery", "掌握度"),
    "dash.cards": ("Cards rated", "已评卡片"),
    "dash.due": ("Due for review: {n}", "待复习：{n}"),
    "dash.katas": ("Katas: {status}", "编程练习：{status}"),
    "dash.katas.none": ("none yet", "暂无"),
    "dash.next": ("Next: {cmd}  ({why})", "下一步：{cmd}（{why}）"),
    # -- next, plan, mock, history, review summary, mastery (issue 12) --
    "dash.mastery.how": (
        "Mastery: the share of a topic's questions last answered right and cards last rated Good or Easy; "
        "in a topic with katas, passed katas make up {share} of it.",
        "掌握度：某主题中最近一次答对的题目与最近自评为良好或简单的卡片所占比例；"
        "若该主题有编程练习，已通过的练习占其中的 {share}。",
    ),
    "dash.studied": (
        "Time studied: {time} answering (mock interviews: {mock}).",
        "学习时长：作答共 {time}（其中模拟面试 {mock}）。",
    ),
    "dash.mocks": (
        "Mock interviews: {n}; the last one made {share} of its key points (normkata mock --history).",
        "模拟面试：{n} 次；最近一次答到 {share} 的要点（normkata mock --history）。",
    ),
    "dash.mocks.none": ("Mock interviews: none yet.", "模拟面试：暂无。"),
    "dash.katas.passed": ("Katas passed: {passed} of {total}", "已通过的编程练习：{passed}/{total}"),
    "advice.start": ("a short quiz shows where you stand", "先做一个简短测验，看看自己的水平"),
    "advice.leech": (
        "{item} was forgotten {n} times after you had learnt it (a leech): read its explanation, "
        "then answer it in your own words",
        "{item} 在学会后又遗忘了 {n} 次（顽固项）：先读解析，再用自己的话作答",
    ),
    "advice.review": (
        "{n} item(s) due: FSRS expects you to forget these first",
        "{n} 项已到期：按 FSRS 的估计，这些最先被遗忘",
    ),
    "advice.kata_retry": ("{kata} is not passed yet (best score {best})", "{kata} 尚未通过（最佳得分 {best}）"),
    "advice.topic_quiz": (
        "{topic}: {recall} expected recall, {unseen} question(s) never answered",
        "{topic}：预计记得 {recall}，有 {unseen} 道题从未做过",
    ),
    "advice.topic_cards": (
        "{topic}: {good} of {cards} interview card(s) rated Good or Easy",
        "{topic}：{cards} 张面试卡片中有 {good} 张自评为良好或简单",
    ),
    "advice.kata_new": (
        "{kata}: not started, and interviewers ask you to write it from scratch",
        "{kata}：尚未开始，而面试官会让你从零写出它",
    ),
    "advice.mock": ("every topic is strong: rehearse under time", "各主题都已掌握：限时演练一次"),
    "plan.title": ("A plan for {minutes} minutes, weakest first", "{minutes} 分钟的计划，从最薄弱处开始"),
    "plan.col.command": ("Command", "命令"),
    "plan.col.minutes": ("Minutes", "分钟"),
    "plan.col.why": ("Why", "原因"),
    "plan.total": ("{used} of {minutes} minutes planned.", "已安排 {minutes} 分钟中的 {used} 分钟。"),
    "plan.nothing": (
        "Nothing fits in {minutes} minute(s): try `normkata next`.",
        "{minutes} 分钟内安排不下任何练习：试试 `normkata next`。",
    ),
    "card.unknown_id": ("--id: no interview card {id!r} in the bank{hint}", "--id：题库中没有面试卡片 {id!r}{hint}"),
    "answer.editor_help": (
        "Write your answer above; lines starting with # are dropped. Save and close the editor to go on.",
        "在上方写下回答；以 # 开头的行会被删去。保存并关闭编辑器后继续。",
    ),
    "review.summary.done": ("Reviewed all {done} due item(s).", "已复习全部 {done} 项到期内容。"),
    "review.summary.stopped": (
        "Reviewed {done} of {due} due item(s); the rest stay due.",
        "已复习 {due} 项到期内容中的 {done} 项；其余仍待复习。",
    ),
    "review.summary.questions": ("Questions: {right} of {n} right.", "题目：{n} 道中答对 {right} 道。"),
    "review.summary.cards": ("Cards: {n} rated ({ratings}).", "卡片：已自评 {n} 张（{ratings}）。"),
    "review.summary.next": ("Next item due: {when}.", "下一项到期：{when}。"),
    "review.summary.again": (
        "What you missed is due again in a minute: run `normkata review` once more to fix it.",
        "刚才答错的内容一分钟后再次到期：再运行一次 `normkata review` 巩固。",
    ),
    "mock.title": (
        "Mock interview: {minutes} min, {n} question(s) planned and more while time is left. Answer as you "
        "would aloud; an empty line or Ctrl-D ends an answer.",
        "模拟面试：{minutes} 分钟，计划 {n} 道题，时间有余会继续出题。"
        "像面试时口头回答那样作答；空行或 Ctrl-D 结束一个回答。",
    ),
    "mock.question": ("Question {i}", "第 {i} 题"),
    "mock.follow_up": ("Follow-up", "追问"),
    "mock.clock": ("{left} left", "剩余 {left}"),
    "mock.answer": ("Your answer ({clock})", "你的回答（{clock}）"),
    "mock.time_up": ("Time is up.", "时间到。"),
    "mock.debrief": ("Debrief: your answers beside the key points", "复盘：你的回答与要点对照"),
    "mock.you_said": ("You said", "你的回答"),
    "mock.no_answer": ("(no answer)", "（未作答）"),
    "mock.tick": (
        "Key points you made (numbers such as 1 3, a for all, Enter for none)",
        "你答到的要点（输入序号如 1 3，a 表示全部，直接回车表示没有）",
    ),
    "mock.tick.invalid": ("Type numbers from 1 to {n}, a, or Enter.", "请输入 1 到 {n} 之间的序号、a，或直接回车。"),
    "mock.scorecard": ("Scorecard", "评分卡"),
    "mock.col.question": ("Question", "题目"),
    "mock.col.points": ("Key points made", "答到的要点"),
    "mock.col.rating": ("Rating", "评分"),
    "mock.total": (
        "{made} of {points} key points ({share}) in {used}; saved as mock interview #{id}.",
        "共答到 {points} 个要点中的 {made} 个（{share}），用时 {used}；已保存为第 {id} 次模拟面试。",
    ),
    "mock.stopped": (
        "Stopped early: {answered} answer(s) and {scored} score(s) saved.",
        "提前结束：已保存 {answered} 个回答、{scored} 个评分。",
    ),
    "mock.history.title": ("Mock interviews", "模拟面试记录"),
    "mock.history.when": ("When (UTC)", "时间（UTC）"),
    "mock.history.topic": ("Topic", "主题"),
    "mock.history.time": ("Time used", "用时"),
    "mock.history.answered": ("Answers", "回答数"),
    "mock.history.empty": (
        "No mock interviews yet: try `normkata mock --minutes 20`.",
        "还没有模拟面试记录：试试 `normkata mock --minutes 20`。",
    ),
    "mock.all_topics": ("all", "全部"),
    "mock.nothing": ("No answer was given: nothing to score.", "没有作答：无可评分的内容。"),
    "history.title": ("Kata attempts", "编程练习评测记录"),
    "history.col.kata": ("Kata", "练习"),
    "history.col.when": ("When (UTC)", "时间（UTC）"),
    "history.col.score": ("Score", "得分"),
    "history.col.seed": ("Seed", "种子"),
    "history.col.misconceptions": ("Misconceptions named", "识别出的常见错误"),
    "history.empty": (
        "No kata attempts yet: start one with `normkata kata rmsnorm`, then `normkata grade`.",
        "还没有评测记录：先运行 `normkata kata rmsnorm`，再运行 `normkata grade`。",
    ),
    "history.diff.needs_kata": (
        "--diff needs a kata: give NAME, or grade one first.",
        "--diff 需要指定练习：请给出 NAME，或先评测一个练习。",
    ),
    "history.diff.one": ("{kata} has one attempt: nothing to compare yet.", "{kata} 只有一次评测：暂无可比较的内容。"),
    "history.diff.against_pass": (
        "{kata}: attempt #{id} ({when}, {score}) against the last pass, #{base} ({base_when}, {base_score}); "
        "{verdict}",
        "{kata}：第 {id} 次评测（{when}，{score}）对比最近一次通过的第 {base} 次（{base_when}，{base_score}）；"
        "{verdict}",
    ),
    "history.diff.against_previous": (
        "{kata}: attempt #{id} ({when}, {score}) against the one before, #{base} ({base_when}, {base_score}); "
        "{verdict}",
        "{kata}：第 {id} 次评测（{when}，{score}）对比上一次第 {base} 次（{base_when}，{base_score}）；{verdict}",
    ),
    "history.diff.verdict.passed": ("passed", "已通过"),
    "history.diff.verdict.not_passed": ("not passed", "未通过"),
    "history.diff.verdict.no_pass": ("no pass yet", "尚未通过"),
    "history.status.failed": ("failed", "失败"),
    "history.status.error": ("error", "出错"),
    "history.diff.unknown": (
        "Attempt #{id} was graded before case results were kept: grade again to compare.",
        "第 {id} 次评测早于逐个用例的记录：请重新评测后再比较。",
    ),
    "history.diff.failing": ("Newly failing ({n}):", "新出现的失败（{n}）："),
    "history.diff.passing": ("Newly passing ({n}):", "新通过的用例（{n}）："),
    "history.diff.same": ("No case changed its verdict.", "没有用例的结果发生变化。"),
    "history.diff.still": ("Still failing: {n}", "仍未通过：{n}"),
    "history.diff.named_now": ("Misconceptions named now: {names}", "新识别出的常见错误：{names}"),
    "history.diff.no_longer": ("No longer named: {names}", "不再出现的常见错误：{names}"),
    "content.ok": (
        "OK: {questions} questions and {cards} interview cards in {files} file(s).",
        "通过：{files} 个文件，共 {questions} 道题、{cards} 张面试卡片。",
    ),
    "content.katas": ("OK: {n} kata(s): {names}.", "通过：{n} 个编程练习：{names}。"),
    "content.deep.running": ("Grading references, starters and fixtures", "正在评测参考实现、初始代码和样例"),
    "content.deep.ok": (
        "OK: {n} kata(s) prove their suites (references pass, starters fail, every fixture and misconception "
        "checks out).",
        "通过：{n} 个编程练习的评测套件自证无误（参考实现通过、初始代码失败、每个样例和常见错误都得到验证）。",
    ),
    "content.deep.no_fixtures": (
        "No kata here has fixtures (katas/<id>/fixtures/): references and starters were checked, fixtures were not.",
        "这里的练习都没有样例（katas/<id>/fixtures/）：已检查参考实现和初始代码，未检查样例。",
    ),
    "content.errors": ("{n} error(s) found.", "发现 {n} 处错误。"),
    "export.written": (
        "Wrote {questions} questions and {cards} interview cards ({language}) to {path}",
        "已将 {questions} 道题和 {cards} 张面试卡片（{language}）写入 {path}",
    ),
    "export.anki_needs_out": (
        "--format anki writes a file: give --out PATH.apkg",
        "--format anki 会生成文件：请用 --out 指定 .apkg 路径",
    ),
    "export.deck": ("normkata: normalization layers", "normkata：归一化层"),
    "export.answer": ("Answer", "答案"),
    "export.explanation": ("Why", "解析"),
    "store.damaged": (
        "The progress database {path} is damaged ({why}); it was moved to {moved} and a fresh one was started.",
        "进度数据库 {path} 已损坏（{why}）；已移至 {moved}，并新建了一个数据库。",
    ),
    "grade.running": ("Grading {kata}…", "正在评测 {kata}…"),
    # What grade and watch count: the scored cases that pass, out of all scored cases.
    "grade.count": ("{passed} of {total} cases pass", "{total} 个用例中 {passed} 个通过"),
    "grade.written": ("Wrote {path}", "已写入 {path}"),
    "grade.list.title": ("Cases of {kata} (inputs are drawn from each run's seed)",
                         "{kata} 的用例（输入由每次运行的种子生成）"),  # fmt: skip
    "watch.starting": ("Starting the grader…", "正在启动评测器…"),
    "watch.start": (
        "Watching {file} (kata {kata}): save to re-grade.",
        "正在监视 {file}（练习 {kata}）：保存即重新评测。",
    ),
    "watch.keys": (
        "Keys: h hint · n next kata · l list · s solution · r re-run · q quit",
        "按键：h 提示 · n 下一个练习 · l 列表 · s 参考答案 · r 重新评测 · q 退出",
    ),
    "watch.silent": (
        "{file} changed but no file event arrived: this filesystem may not send any. "
        "Restart with --manual and press r to re-grade.",
        "{file} 已改动，但没有收到文件事件：这个文件系统可能不发送事件。请加 --manual 重新启动，按 r 重新评测。",
    ),
    "watch.missing": ("{file} is gone: save it again to re-grade.", "{file} 不见了：再保存一次即可重新评测。"),
    "watch.passed": (
        "Passed. n: the next kata · s: the reference solution · q: quit",
        "已通过。n：下一个练习 · s：参考答案 · q：退出",
    ),
    "watch.solution_locked": (
        "The solution opens after a pass (or run `normkata solution {kata}` to give up).",
        "通过之后才能查看参考答案（或运行 `normkata solution {kata}` 放弃本练习）。",
    ),
    "watch.stopped": ("Stopped watching.", "已停止监视。"),
    "classroom.running": ("Grading {kata}", "正在评测 {kata}"),
    "classroom.none": (
        "{dir}: no submission matches {pattern} (a .py file, or a folder holding {file})",
        "{dir}：没有与 {pattern} 匹配的提交（一个 .py 文件，或含有 {file} 的文件夹）",
    ),
    "classroom.summary": (
        "{kata}: {n} submissions in {seconds:.0f} s, {jobs} at a time: {passed} passed, {failed} not yet, "
        "{errors} could not be graded.",
        "{kata}：{n} 个提交，用时 {seconds:.0f} 秒，同时评测 {jobs} 个：{passed} 个通过，{failed} 个尚未通过，"
        "{errors} 个无法评测。",
    ),
    "classroom.reused": (
        "{n} unchanged since the last run kept their grade (--force grades them again).",
        "{n} 个提交自上次评测以来未改动，沿用原成绩（--force 重新评测）。",
    ),
    "classroom.mean": ("Mean score: {percent:.0%} of the cases.", "平均得分：用例的 {percent:.0%}。"),
    "classroom.common": ("Most common mistakes", "最常见的错误"),
    "classroom.col.mistake": ("Mistake", "错误"),
    "classroom.col.id": ("Id", "编号"),
    "classroom.col.submissions": ("Submissions", "提交数"),
    "classroom.error": ("Could not grade {name}: {error}", "无法评测 {name}：{error}"),
    "classroom.written": ("Wrote {gradebook} and the reports in {reports}", "已写入 {gradebook}，报告在 {reports}"),
    "classroom.bundle.written": (
        "Wrote {path}: upload it as the autograder of a Gradescope programming assignment.",
        "已写入 {path}：将它上传为 Gradescope 编程作业的自动评分器。",
    ),
    "grade.no_kata": (
        "No kata to grade yet: start one with `normkata kata rmsnorm`.",
        "还没有可评测的练习：先运行 `normkata kata rmsnorm`。",
    ),
    "grade.no_file": (
        "{path} not found: run `normkata kata {kata}` first, or pass --file.",
        "找不到 {path}：请先运行 `normkata kata {kata}`，或用 --file 指定文件。",
    ),
    "grade.needs_extra": (
        "{kata} needs an optional extra that is not installed: pip install \"{package}\" (then grade again).",
        "{kata} 需要尚未安装的可选依赖：`pip install \"{package}\"`（然后再评测）。",
    ),
    "kata.needs_extra": ("needs the {extra} extra", "需要 {extra} 可选依赖"),
    "grade.no_file.given": (
        "--file {path}: no such file (looked in {cwd}). Check the path{hint}.",
        "--file {path}：没有这个文件（在 {cwd} 中查找）。请检查路径{hint}。",
    ),
    "grade.no_file.similar": (", or grade {near}", "，或改为评测 {near}"),
    "kata.list.title": ("Katas", "编程练习"),
    "kata.col.kata": ("Kata", "练习"),
    "kata.col.title": ("Title", "标题"),
    "kata.col.level": ("Level", "难度"),
    "kata.col.time": ("Time", "用时"),
    "kata.col.status": ("Status", "状态"),
    "kata.col.best": ("Best", "最佳"),
    "kata.status.not started": ("not started", "未开始"),
    "kata.status.in progress": ("in progress", "进行中"),
    "kata.status.passed": ("passed", "已通过"),
    "kata.written": ("Starter written to {path}", "初始代码已写入 {path}"),
    "kata.exists": (
        "{path} already exists: kept as it is (use --force to start over).",
        "{path} 已存在，保持不变（使用 --force 重新开始）。",
    ),
    "kata.next": ("Edit the file, then run: normkata grade {kata}", "编辑该文件，然后运行：normkata grade {kata}"),
    "hint.title": ("Hint {level}/{total} for {kata}", "{kata} 的提示 {level}/{total}"),
    "hint.title.last": ("Hint {level}/{total} for {kata} (last hint)", "{kata} 的提示 {level}/{total}（最后一条）"),
    "hint.none_left": (
        "That was the last hint. Still stuck? `normkata solution {kata}`",
        "提示已用完。仍然卡住？运行 `normkata solution {kata}`",
    ),
    "solution.confirm": (
        "You have not passed {kata} yet. Show the reference solution anyway? (recorded as giving up)",
        "你还没有通过 {kata}。仍然查看参考答案吗？（将记录为放弃）",
    ),
    "solution.heading": ("Reference solution: {kata} ({title})", "参考答案：{kata}（{title}）"),
    "solution.diff": (
        "Your passing file ({path}) against the reference: - yours, + reference",
        "你通过的文件（{path}）与参考答案对照：- 你的，+ 参考答案",
    ),
    "solution.same": ("Your file is the reference, line for line.", "你的文件与参考答案逐行相同。"),
    "solution.kept": ("Solution not shown. Keep going!", "未显示答案。继续加油！"),
    "interrupted": ("Interrupted: what you answered is saved.", "已中断：已作答的内容均已保存。"),
    # -- labs: tables, titles and terminal plots (data files keep English keys) --------------
    "lab.written": ("Wrote:", "已写入："),
    "lab.vanishing.title": (
        "Activation std and weight-gradient norm per layer (width {width}, gain {gain})",
        "每层的激活标准差与权重梯度范数（宽度 {width}，增益 {gain}）",
    ),
    "lab.vanishing.layer": ("layer", "层"),
    "lab.vanishing.ratio": ("std layer {last} / layer 1 = {ratio}", "第 {last} 层 / 第 1 层的标准差 = {ratio}"),
    "lab.variant.none": ("no norm", "无归一化"),
    "lab.vanishing.col.std": ("std {v}", "标准差 {v}"),
    "lab.vanishing.col.grad": ("|grad| {v}", "|grad| {v}"),
    "lab.short.none": ("none", "无"),
    "lab.short.layernorm": ("LN", "LN"),
    "lab.short.rmsnorm": ("RMS", "RMS"),
    "lab.line": ("{name}: {text}", "{name}：{text}"),
    "lab.look": ("What to look for:", "看点："),
    "lab.vanishing.look.1": (
        "Without a norm the std shrinks about {shrink}× per layer ({first} → {last}): PyTorch's default init "
        "gives each Linear a gain near 1/√3, and tanh is nearly linear for small inputs.",
        "无归一化时，标准差每层约缩小到 {shrink} 倍（{first} → {last}）：PyTorch 默认初始化让每个 Linear "
        "的增益约为 1/√3，而 tanh 在小输入上近似线性。",
    ),
    "lab.vanishing.look.2": (
        "With either norm the std stays at {std}, not 1: the norm makes tanh's input unit-variance, and tanh "
        "of a unit-variance Gaussian has std 0.63 (it squashes the tails).",
        "两种归一化下标准差都稳定在 {std}，而不是 1：归一化让 tanh 的输入方差为 1，而方差为 1 的高斯经过 "
        "tanh 后标准差是 0.63（尾部被压扁）。",
    ),
    "lab.vanishing.look.3": (
        "The no-norm gradient is flat near {grad} at every layer, about {gap} below the norms: a weight's gradient "
        "is its input (shrunk once per layer going forward) times the gradient from above (shrunk once per "
        "layer going back), so the two shrinkages cancel across layers, and what is left is tiny because the "
        "loss itself sits on an output that has all but vanished.",
        "无归一化时梯度在每一层都平坦地停在 {grad} 附近，比有归一化时低约 {gap}：权重的梯度等于它的输入"
        "（前向每层缩小一次）乘以上游梯度（反向每层缩小一次），两者的缩小在层间相互抵消；剩下的值很小，"
        "是因为损失建立在一个几乎消失的输出上。",
    ),
    "lab.orders": ("{n} orders of magnitude", "{n} 个数量级"),
    "lab.compare.look.1": (
        "A run that diverges draws to huge losses: the second plot leaves it out, so the normed runs' gap "
        "(Post-LN above Pre-LN) can be seen.",
        "发散的运行会把损失画到极大：第二张图去掉了它，这样才能看出有归一化的各配置之间的差距（Post-LN 高于 Pre-LN）。",
    ),
    "lab.compare.look.2": (
        "Pre-LN keeps an identity path from the input to the output, so a larger learning rate stays stable; "
        "Post-LN normalizes that path too and trains slower or less stably without warmup.",
        "Pre-LN 从输入到输出保留一条恒等路径，所以更大的学习率也能稳定；"
        "Post-LN 把这条路径也归一化了，没有 warmup 时训练更慢或更不稳定。",
    ),
    "lab.depth.look.1": (
        "Post − Pre > 0 means Post-LN ends with a higher loss; the gap tends to grow with depth without warmup.",
        "Post − Pre 大于 0 表示 Post-LN 的最终损失更高；没有 warmup 时，这个差距通常随深度增大。",
    ),
    "lab.precision.look.1": (
        "fp16 overflows above 65504 (so 300² is already inf) and bf16 keeps fp32's range but only 8 bits of "
        "mantissa: that is why norms take their statistic in float32.",
        "fp16 超过 65504 就溢出（所以 300² 已经是 inf），bf16 保留 fp32 的范围却只有 8 位尾数："
        "这就是归一化要在 float32 中计算统计量的原因。",
    ),
    "lab.plot.same": (
        "{names} coincide (within {pct} of the plot's height): drawn one over the other, see the table.",
        "{names} 几乎重合（相差不到图高的 {pct}）：相互覆盖，请看表格。",
    ),
    "lab.plot.and": (" and ", "与"),
    "lab.plot.normed": ("training loss at lr {lr}, normed runs only", "学习率 {lr} 下的训练损失（仅有归一化的配置）"),
    "lab.variant.layernorm": ("LayerNorm", "LayerNorm"),
    "lab.variant.rmsnorm": ("RMSNorm", "RMSNorm"),
    "lab.compare.title": (
        "Final training loss after {steps} steps (✗ did not converge, NaN@k diverged at step k)",
        "训练 {steps} 步后的最终损失（✗ 未收敛，NaN@k 表示第 k 步发散）",
    ),
    "lab.compare.config": ("configuration", "配置"),
    "lab.compare.stable": ("stable up to", "最大稳定学习率"),
    "lab.compare.first_nan": ("first NaN", "首次 NaN"),
    "lab.depth.title": (
        "Pre-LN vs Post-LN, lr {lr} without warmup, {steps} steps",
        "Pre-LN 与 Post-LN：学习率 {lr}，无 warmup，{steps} 步",
    ),
    "lab.depth.layers": ("layers", "层数"),
    "lab.depth.pre": ("Pre-LN final loss", "Pre-LN 最终损失"),
    "lab.depth.post": ("Post-LN final loss", "Post-LN 最终损失"),
    "lab.precision.title": ("Low precision in numbers", "低精度的具体数值"),
    "lab.precision.what": ("what", "内容"),
    "lab.precision.why": ("why it matters", "为什么重要"),
    "lab.prec.max": ("largest finite value", "最大有限值"),
    "lab.prec.max.note": ("fp16 has 5 exponent bits, bf16 fp32's 8", "fp16 有 5 位指数，bf16 与 fp32 一样有 8 位"),
    "lab.prec.tiny": ("smallest normal value", "最小正规格化数"),
    "lab.prec.tiny.note": ("below it: subnormals, then 0", "再往下是非规格化数，然后是 0"),
    "lab.prec.eps": ("machine epsilon (step at 1.0)", "机器精度（1.0 处的步长）"),
    "lab.prec.eps.note": ("bf16 keeps 7 mantissa bits, fp16 10", "bf16 保留 7 位尾数，fp16 有 10 位"),
    "lab.prec.square": ("300² (the Pre-Norm document)", "300²（Pre-Norm 文档中的例子）"),
    "lab.prec.square.note": ("fp16: 90000 ≥ 65520 rounds to inf", "fp16：90000 ≥ 65520，舍入为 inf"),
    "lab.prec.naive": ("naive RMSNorm of a row of 300s (true: 1)", "朴素 RMSNorm 作用于一行 300（真值为 1）"),
    "lab.prec.naive.note": ("x · rsqrt(inf) = 0: the signal is wiped out", "x · rsqrt(inf) = 0：信号被清零"),
    "lab.prec.upcast": ("RMSNorm with fp32 upcast, same row", "先升到 fp32 的 RMSNorm，同一行"),
    "lab.prec.upcast.note": ("x.float() before squaring fixes it", "平方之前调用 x.float() 即可解决"),
    "lab.prec.eps_stored": ("eps {eps} stored", "存储 eps {eps}"),
    "lab.prec.eps_stored.note": ("fp16's smallest subnormal is ~5.96e-8", "fp16 最小的非规格化数约为 5.96e-8"),
    "lab.prec.eps_zero": ("naive RMSNorm of a zero row, eps {eps}", "朴素 RMSNorm 作用于全零行，eps {eps}"),
    "lab.prec.eps_zero.note": (
        "0 is right; NaN means eps became 0 (0 · rsqrt(0))",
        "0 是对的；NaN 表示 eps 变成了 0（0 · rsqrt(0)）",
    ),
    "lab.prec.swamp": ("sum of 4096 squares, one add at a time (÷ exact)", "逐个累加 4096 个平方（÷ 精确值）"),
    "lab.prec.swamp.note": (
        "the sum stalls once it dwarfs each term: accumulate in fp32",
        "总和远大于每一项后就停止增长：应在 fp32 中累加",
    ),
    "lab.prec.cancel": ("fp32 one-pass variance at mean 1000: max error", "均值 1000 时 fp32 单遍方差的最大误差"),
    "lab.prec.cancel.note": (
        "E[x²] − E[x]² loses its digits; two-pass error is ~1e-6",
        "E[x²] − E[x]² 丢失有效数字；两遍法的误差约为 1e-6",
    ),
    "lab.prec.yours": ("your RMSNorm on the row of 300s (true: 1)", "你的 RMSNorm 作用于一行 300（真值为 1）"),
    "lab.prec.yours.note": ("from your workspace's rmsnorm.py", "来自你工作区的 rmsnorm.py"),
    "lab.bench.title": (
        "RMSNorm vs LayerNorm on {shape} {dtype} ({device}); memory copy: {copy} GB/s",
        "RMSNorm 与 LayerNorm：{shape} {dtype}（{device}）；内存拷贝 {copy} GB/s",
    ),
    "lab.bench.implementation": ("implementation", "实现"),
    "lab.bench.forward": ("fwd ms\nmedian", "前向 ms\n中位数"),
    "lab.bench.backward": ("bwd ms\nmedian", "反向 ms\n中位数"),
    "lab.bench.iqr": ("ms\nIQR", "ms\n四分位距"),
    "lab.bench.copy": ("% copy", "占拷贝 %"),
    "lab.bench.summary": (
        "On this machine torch's RMSNorm takes {fwd}× LayerNorm's time forward and {bwd}× backward "
        "(the MiniMind code walkthrough, MiniMind-small on a GPU: 0.91× and 0.89×).",
        "在这台机器上，torch 的 RMSNorm 前向耗时是 LayerNorm 的 {fwd} 倍，反向是 {bwd} 倍"
        "（《Normalization 代码导读》中 MiniMind-small 在 GPU 上为 0.91 倍和 0.89 倍）。",
    ),
    "lab.bench.skipped": ("{owner} {cls} skipped: {why}", "跳过 {owner} 的 {cls}：{why}"),
    "lab.bench.failing": ("✗ fails kata {score}", "✗ 未通过 {score}"),
    "lab.bench.failing.note": (
        "Rows marked ✗ come from files that fail their kata: a wrong kernel's speed means nothing.",
        "标 ✗ 的行来自未通过练习的文件：错误实现的速度没有比较意义。",
    ),
    "lab.bench.ungraded": ("? not graded", "? 未能评分"),
    "lab.bench.noisy": (
        "Too noisy to trust: {count} of {total} timings still varied more than {pct}% (IQR / median) "
        "after {cap} s each. Close other programs and run again.",
        "机器太忙，结果不可信：{total} 项计时中有 {count} 项在各计时 {cap} 秒后波动仍超过 {pct}%"
        "（四分位距 / 中位数）。请关闭其他程序后重试。",
    ),
    "lab.plot.activation std per layer": ("activation std per layer", "每层激活标准差"),
    "lab.plot.weight-gradient norm per layer": ("weight-gradient norm per layer", "每层权重梯度范数"),
    "lab.plot.training loss by depth": ("training loss by depth", "不同深度的训练损失"),
    "lab.plot.training loss at lr": ("training loss at lr {lr}", "学习率 {lr} 下的训练损失"),
    "lab.legend.none": ("no norm", "无归一化"),
    "lab.legend.no norm": ("no norm", "无归一化"),
    "lab.legend.depth": ("{placement}-LN, {depth} layers", "{placement}-LN，{depth} 层"),
    "lab.bench.timing": ("timing…", "正在计时…"),
    "lab.axis.layer": ("layer", "层"),
    "lab.axis.step": ("step", "训练步"),
    "lab.axis.loss": ("loss", "损失"),
    "lab.axis.std": ("std", "标准差"),
    "lab.axis.|grad|": ("|grad|", "|grad|"),
    "lab.axis.log": ("{label} (log scale)", "{label}（对数坐标）"),
    # -- names: did-you-mean for commands, katas, topics; hint and solution ------------------
    "name.did_you_mean": (" (did you mean {names}?)", "（你是不是想输入 {names}？）"),
    "cli.unknown_command": ("No such command {name!r}{hint}.", "没有命令 {name!r}{hint}。"),
    "kata.unknown": ("unknown kata {name!r}{hint} (known: {known})", "没有编程练习 {name!r}{hint}（可选：{known}）"),
    "topic.unknown": (
        "--topic: unknown topic {topic!r}{hint} (known: {known})",
        "--topic：没有主题 {topic!r}{hint}（可选：{known}）",
    ),
    "kata.none_yet": (
        "No kata started yet: name one (`normkata {command} rmsnorm`) or start one with `normkata kata rmsnorm`.",
        "还没有开始任何编程练习：请指定一个（`normkata {command} rmsnorm`），或先运行 `normkata kata rmsnorm`。",
    ),
    "hint.level_range": ("--level: {kata} has hints 1 to {n}", "--level：{kata} 的提示编号为 1 到 {n}"),
    "hint.all_or_level": ("--all and --level: give one or the other", "--all 和 --level 只能选一个"),
}


def resolve_lang(option: str | None = None) -> str:
    """--lang, else NORMKATA_LANG, else the locale; English when nothing says Chinese."""
    for candidate in (option, os.environ.get("NORMKATA_LANG")):
        if candidate:
            return _normalise(candidate)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    import locale

    code = locale.getlocale()[0] or ""
    return "zh" if code.lower().startswith("zh") else "en"


def _normalise(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("zh"):
        return "zh"
    if value.startswith("en"):
        return "en"
    from normkata.errors import InputError

    raise InputError(f"Unknown language {value!r}: use en or zh.")


def has(key: str) -> bool:
    return key in _STRINGS


def t(key: str, lang: str, **fields: object) -> str:
    """The interface string `key` in `lang`, formatted with `fields`."""
    en, zh = _STRINGS[key]
    text = zh if lang == "zh" else en
    text = text.format(**fields) if fields else text
    return with_lang_flags(text) if lang == "zh" and "`normkata " in text else text


def default_is_zh() -> bool:
    """Whether a bare command would answer in Chinese (NORMKATA_LANG, then the locale). An
    unknown NORMKATA_LANG says no: options.py warns about it once, and --lang still decides."""
    from normkata.errors import InputError

    try:
        return resolve_lang(None) == "zh"
    except InputError:
        return False


def with_lang_flags(text: str) -> str:
    """Each `normkata ...` command quoted in a Chinese text, with `--lang zh` added when the
    learner's default language (NORMKATA_LANG, then the locale) is not Chinese: typed as
    shown, the command then answers in the language the suggestion was read in."""
    import re

    if default_is_zh():
        return text

    def add(match: re.Match[str]) -> str:
        command = match.group(1)
        return match.group(0) if "--lang" in command else f"`{command} --lang zh`"

    return re.sub(r"`(normkata [^`]*)`", add, text)


def _merge_loop_strings() -> None:
    from normkata._loop_strings import STRINGS

    _STRINGS.update(STRINGS)


_merge_loop_strings()
