"""Quizzes, interview cards, reviews, the mock interview, exporting the bank, fitting FSRS.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        # key: (English, Chinese)
        "quiz.header": Text("Question {i}/{n}", "第 {i}/{n} 题"),
        "quiz.prompt.single": Text("Your answer ({letters} or {numbers})", "你的答案（{letters} 或 {numbers}）"),
        "quiz.prompt.multiple": Text(
            "Your answers, all that apply ({letters} or {numbers}, e.g. AC)",
            "选出所有正确项（{letters} 或 {numbers}，例如 AC）",
        ),
        "quiz.prompt.true_false": Text("True or false (A/t/1 or B/f/2)", "对还是错（对：A/t/1/对；错：B/f/2/错）"),
        "quiz.prompt.numeric": Text(
            "Your number (e.g. 6.1e-5, 2^-7, 1/8, sqrt(2))",
            "你的数值（例如 6.1e-5、2^-7、1/8、sqrt(2)）",
        ),
        "quiz.prompt.order": Text(
            "The right order ({letters} or {numbers}, e.g. {example})",
            "按正确顺序写出字母或序号（{letters} 或 {numbers}，例如 {example}）",
        ),
        "quiz.invalid": Text("Not an answer I can read: {why}. Try again.", "无法识别这个答案：{why}。请再试一次。"),
        "quiz.invalid.recorded": Text(
            "Unreadable answer ({why}): counted as wrong.",
            "无法识别的答案（{why}）：按答错记录。",
        ),
        "quiz.correct": Text("Correct.", "回答正确。"),
        "quiz.numeric.exact": Text("{shown} (exactly {exact})", "{shown}（精确值 {exact}）"),
        "quiz.precision.exact": Text("(exact value)", "（给出精确值）"),
        "quiz.precision.sig": Text(
            "({n} significant digits; forms such as 1.5e-3, 2^-7 or 1/8 are fine)",
            "（保留 {n} 位有效数字；可以写成 1.5e-3、2^-7 或 1/8 这样的形式）",
        ),
        "quiz.precision.decimals": Text("({n} decimal places)", "（保留 {n} 位小数）"),
        "quiz.precision.decimals.one": Text("(1 decimal place)", "（保留 1 位小数）"),
        "quiz.precision.sig.one": Text(
            "(1 significant digit; forms such as 2e-3, 2^-7 or 1/8 are fine)",
            "（保留 1 位有效数字；可以写成 2e-3、2^-7 或 1/8 这样的形式）",
        ),
        "quiz.short.decimals": Text(
            "{typed} is right to {n} decimal place(s), but the question asks for {asked}.",
            "{typed} 精确到 {n} 位小数是对的，但题目要求 {asked} 位。",
        ),
        "quiz.short.sig": Text(
            "{typed} is right to {n} significant digit(s), but the question asks for {asked}.",
            "{typed} 保留 {n} 位有效数字是对的，但题目要求 {asked} 位。",
        ),
        "quiz.short.again": Text(" Try again with more digits.", "请多写几位再试一次。"),
        "answer.true_false": Text("expected t or f", "请输入 t（对）或 f（错）"),
        "answer.not_number": Text("'{text}' is not a number", "“{text}”不是一个数"),
        "answer.one_letter": Text("expected one letter", "只能选一个字母"),
        "answer.repeated": Text("a letter is repeated", "有字母重复"),
        "answer.every_letter": Text("list every letter {letters} once", "{letters} 每个字母都要列出，且只列一次"),
        "answer.number_range": Text("numbers go from 1 to {n}", "序号只能是 1 到 {n}"),
        "answer.no_letter": Text("no letter given", "没有给出字母"),
        "answer.bad_letter": Text("'{letter}' is not one of {letters}", "“{letter}”不在 {letters} 之中"),
        "difficulty.easy": Text("easy", "简单"),
        "difficulty.medium": Text("medium", "中等"),
        "difficulty.hard": Text("hard", "困难"),
        "rating.1": Text("Again", "重来"),
        "rating.2": Text("Hard", "困难"),
        "rating.3": Text("Good", "良好"),
        "rating.4": Text("Easy", "简单"),
        "quiz.wrong": Text("Not quite. The answer is {answer}.", "不对。正确答案是 {answer}。"),
        "quiz.skipped": Text("Skipped. The answer is {answer}.", "已跳过。正确答案是 {answer}。"),
        "quiz.source": Text("Source: {source}", "出处：{source}"),
        "quiz.true": Text("true", "对"),
        "quiz.false": Text("false", "错"),
        "quiz.none": Text("No questions match those filters.", "没有符合条件的题目。"),
        "quiz.unknown_id": Text("{arg}: no question {id!r} in the bank{hint}", "{arg}：题库中没有题目 {id!r}{hint}"),
        "summary.title": Text("Summary", "小结"),
        "summary.topic": Text("Topic", "主题"),
        "summary.correct": Text("Correct", "答对"),
        "summary.total": Text("Answered", "已答"),
        "summary.score": Text("Score", "得分"),
        "summary.all": Text("All", "合计"),
        "summary.skipped": Text("Skipped", "跳过"),
        "summary.stopped": Text(
            "Stopped early: {answered} of {asked} answered, all of them saved.",
            "提前结束：已答 {answered}/{asked} 题，均已保存。",
        ),
        "summary.stopped.skipped": Text(
            "Stopped early: {answered} of {asked} answered and {skips} skipped, all of them saved.",
            "提前结束：共 {asked} 题，已答 {answered} 题、跳过 {skips} 题，均已保存。",
        ),
        "card.header": Text("Card {i}/{n}", "卡片 {i}/{n}"),
        "card.your_answer": Text(
            "Your answer (an empty line or Ctrl-D ends it; Enter alone skips)",
            "你的回答（空行或 Ctrl-D 结束；直接回车跳过）",
        ),
        "card.key_points": Text("Key points", "要点"),
        "card.model_answer": Text("Model answer", "参考答案"),
        "card.follow_ups": Text("Follow-ups an interviewer may ask", "面试官可能的追问"),
        "card.rate": Text(
            "How did you do? 1 Again  2 Hard  3 Good  4 Easy",
            "自评：1 重来  2 困难  3 良好  4 简单",
        ),
        "back.line": Text(
            "Comes back in {review}: {groups}.",
            "在 {review} 中再次出现：{groups}。",
        ),
        "back.group": Text("{n} {when}", "{when} {n} 项"),
        # -- when an item is due again (srs.when) --
        "when.now": Text("now", "现在"),
        "when.day.one": Text("in {count} day", "{count} 天后"),
        "when.day.many": Text("in {count} days", "{count} 天后"),
        "when.hour.one": Text("in {count} hour", "{count} 小时后"),
        "when.hour.many": Text("in {count} hours", "{count} 小时后"),
        "when.min.one": Text("in {count} min", "{count} 分钟后"),
        "when.min.many": Text("in {count} min", "{count} 分钟后"),
        "list.sep": Text(", ", "，"),
        "review.more": Text(
            "For more practice now: {cmd}  ({why})",
            "现在想多练一些：{cmd}（{why}）",
        ),
        "card.rate.choice": Text("{r} {name} ({interval})", "{r} {name}（{interval}）"),
        "card.rate.with": Text("How did you do? {choices}", "自评：{choices}"),
        "card.rate.invalid": Text("Type 1, 2, 3 or 4.", "请输入 1、2、3 或 4。"),
        "card.next_due": Text("Next review: {when}", "下次复习：{when}"),
        "card.skipped": Text("Skipped: not rated, it comes back as it was.", "已跳过：不评分，保持原来的复习安排。"),
        "card.none": Text("No interview cards match those filters.", "没有符合条件的面试卡片。"),
        "card.done": Text(
            "{rated} card(s) rated and saved.",
            "已自评并保存 {rated} 张卡片。",
        ),
        "review.none": Text(
            "Nothing is due. Next item due: {when}.",
            "目前没有到期的内容。下一项到期时间：{when}。",
        ),
        "review.empty": Text(
            "Nothing to review yet: answer a quiz or rate a card first.",
            "还没有可复习的内容：先做一次测验或面试卡片。",
        ),
        "review.header": Text("{n} item(s) due", "{n} 项到期"),
        "review.header.some": Text("{n} of the {due} item(s) due", "到期的 {due} 项中的 {n} 项"),
        "review.summary.still": Text(
            "Still due: {n} item(s) (normkata review).", "仍有 {n} 项到期（normkata review）。"
        ),
        "review.on_the_day": Text(
            "Interview on {date} ({left}): what you reviewed is predicted at {recall} on the day.",
            "面试日期 {date}（{left}）：刚复习的内容当天预计记得 {recall}。",
        ),
        "card.unknown_id": Text(
            "{arg}: no interview card {id!r} in the bank{hint}", "{arg}：题库中没有面试卡片 {id!r}{hint}"
        ),
        "review.summary.done": Text("Reviewed all {done} due item(s).", "已复习全部 {done} 项到期内容。"),
        "review.summary.stopped": Text(
            "Reviewed {done} of {due} due item(s).",
            "已复习 {due} 项到期内容中的 {done} 项。",
        ),
        "review.summary.questions": Text("Questions: {right} of {n} right.", "题目：{n} 道中答对 {right} 道。"),
        "review.summary.cards": Text("Cards: {n} rated ({ratings}).", "卡片：已自评 {n} 张（{ratings}）。"),
        "review.summary.next": Text("Next item due: {when}.", "下一项到期：{when}。"),
        "review.summary.again": Text(
            "What you missed ({n}) is due again in a minute: run normkata review once more to fix it.",
            "刚才答错的 {n} 项一分钟后再次到期：再运行一次 normkata review 巩固。",
        ),
        "mock.on_the_day": Text(
            "Interview on {date} ({left}): the cards predicted lowest on that day come first.",
            "面试日期 {date}（{left}）：按当天预计记忆从低到高出题。",
        ),
        "mock.title": Text(
            "Mock interview: {minutes} min, {n} question(s) planned and more while time is left. Answer as you "
            "would aloud; an empty line or Ctrl-D ends an answer.",
            "模拟面试：{minutes} 分钟，计划 {n} 道题，时间有余会继续出题。"
            "像面试时口头回答那样作答；空行或 Ctrl-D 结束一个回答。",
        ),
        "mock.question": Text("Question {i}", "第 {i} 题"),
        "mock.follow_up": Text("Follow-up", "追问"),
        "mock.clock": Text("{left} left", "剩余 {left}"),
        "mock.answer": Text("Your answer ({clock})", "你的回答（{clock}）"),
        "mock.time_up": Text("Time is up.", "时间到。"),
        "mock.debrief": Text("Debrief: your answers beside the key points", "复盘：你的回答与要点对照"),
        "mock.you_said": Text("You said", "你的回答"),
        "mock.no_answer": Text("(no answer)", "（未作答）"),
        "mock.tick": Text(
            "Key points you made (numbers such as 1 3, a for all, Enter for none)",
            "你答到的要点（输入序号如 1 3，a 表示全部，直接回车表示没有）",
        ),
        "mock.tick.invalid": Text(
            "Type numbers from 1 to {n}, a, or Enter.", "请输入 1 到 {n} 之间的序号、a，或直接回车。"
        ),
        "mock.scorecard": Text("Scorecard", "评分卡"),
        "mock.col.question": Text("Question", "题目"),
        "mock.col.points": Text("Key points made", "答到的要点"),
        "mock.col.rating": Text("Rating", "评分"),
        "mock.total": Text(
            "{made} of {points} key points ({share}) in {used}; saved as mock interview #{id}.",
            "共答到 {points} 个要点中的 {made} 个（{share}），用时 {used}；已保存为第 {id} 次模拟面试。",
        ),
        "mock.stopped": Text(
            "Stopped early: {answered} answer(s) and {scored} score(s) saved.",
            "提前结束：已保存 {answered} 个回答、{scored} 个评分。",
        ),
        "mock.history.title": Text("Mock interviews", "模拟面试记录"),
        "mock.history.when": Text("When (UTC)", "时间（UTC）"),
        "mock.history.topic": Text("Topic", "主题"),
        "mock.history.time": Text("Time used", "用时"),
        "mock.history.answered": Text("Answers", "回答数"),
        "mock.history.empty": Text(
            "No mock interviews yet: try normkata mock --minutes 20.",
            "还没有模拟面试记录：试试 normkata mock --minutes 20。",
        ),
        "mock.all_topics": Text("all", "全部"),
        "mock.nothing": Text("No answer was given: nothing to score.", "没有作答：无可评分的内容。"),
        "export.written": Text(
            "Wrote {questions} questions and {cards} interview cards ({language}) to {path}",
            "已将 {questions} 道题和 {cards} 张面试卡片（{language}）写入 {path}",
        ),
        "export.deck": Text("normkata: normalization layers", "normkata：归一化层"),
        "export.answer": Text("Answer", "答案"),
        "export.explanation": Text("Why", "解析"),
        "interrupted": Text("Interrupted: what you answered is saved.", "已中断：已作答的内容均已保存。"),
        "optimize.too_few": Text(
            "Fitting your own FSRS parameters needs {need} reviews on a later day than the item's previous review; "
            "you have {have}: {more} more. Until then the default parameters are used.",
            "拟合你自己的 FSRS 参数需要 {need} 次与上次复习不在同一天的复习；你现在有 {have} 次，还差 {more} 次。"
            "在此之前使用默认参数。",
        ),
        "optimize.missing": Text(
            'Fitting FSRS parameters needs the optimizer extra: pip install "normkata[optimizer]" ({why}).',
            '拟合 FSRS 参数需要优化器依赖：`pip install "normkata[optimizer]"`（{why}）。',
        ),
        "optimize.fitting": Text("Fitting FSRS parameters on {n} reviews...", "正在用 {n} 次复习拟合 FSRS 参数……"),
        "optimize.result": Text(
            "Fitted on your first {train} reviews, tested on the {n} after them: log loss {loss_before} with the "
            "default parameters, {loss_after} with yours (lower is better). You recalled {recalled} of those; "
            "the defaults predicted {before}, yours {after}.",
            "用你前 {train} 次复习拟合，再用之后的 {n} 次检验：默认参数的对数损失为 {loss_before}，你的参数为 "
            "{loss_after}（越低越好）。这些复习你实际记住了 {recalled}；默认参数预测 {before}，你的参数预测 {after}。",
        ),
        "optimize.saved": Text(
            "Yours predict your later reviews better: saved, and used from now on for every schedule.",
            "你的参数对之后复习的预测更准：已保存，此后所有排期都将使用它们。",
        ),
        "optimize.kept_defaults": Text(
            "Yours do not predict your later reviews better than the defaults, so the defaults stay; "
            "try again after more reviews.",
            "你的参数对之后复习的预测不比默认参数更准，因此继续使用默认参数；复习更多之后再试。",
        ),
    },
)
