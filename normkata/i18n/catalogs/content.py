"""Content: `content check` and the names a learner types for topics and katas.

This wing's interface strings: one of the catalogs that normkata.i18n.t looks up.
"""

from __future__ import annotations

from normkata.i18n.text import Text, catalog

CATALOG = catalog(
    __name__,
    {
        "content.ok": Text(
            "OK: {questions} questions and {cards} interview cards in {files} file(s).",
            "通过：{files} 个文件，共 {questions} 道题、{cards} 张面试卡片。",
        ),
        "content.katas": Text("OK: {n} kata(s): {names}.", "通过：{n} 个编程练习：{names}。"),
        "content.katas.sep": Text(", ", "、"),
        "content.deep.running": Text("Grading references, starters and fixtures", "正在评测参考实现、初始代码和样例"),
        "content.deep.ok": Text(
            "OK: {n} kata(s) prove their suites (references pass, starters fail, every fixture and misconception "
            "checks out).",
            "通过：{n} 个编程练习的评测套件自证无误（参考实现通过、初始代码失败、每个样例和常见错误都得到验证）。",
        ),
        "content.deep.no_fixtures": Text(
            "No kata here has fixtures (katas/<id>/fixtures/): references and starters were checked, "
            "fixtures were not.",
            "这里的练习都没有样例（katas/<id>/fixtures/）：已检查参考实现和初始代码，未检查样例。",
        ),
        "content.errors": Text("{n} error(s) found.", "发现 {n} 处错误。"),
        "kata.unknown": Text(
            "unknown kata {name!r}{hint} (known: {known})", "没有编程练习 {name!r}{hint}（可选：{known}）"
        ),
        "topic.unknown": Text(
            "{arg}: unknown topic {topic!r}{hint} (known: {known})",
            "{arg}：没有主题 {topic!r}{hint}（可选：{known}）",
        ),
        "content.links.unlinked": Text(
            "Misconceptions no question or card teaches yet ({n}): {ids}",
            "尚无题目或卡片讲解的误区（{n} 个）：{ids}",
        ),
        # -- content check's messages: ContentIssue(file, line, field, Message(key, fields)) ------
        # Names, values and paths in the fields are shown as they are. A text without fields is not
        # formatted: its braces are literal ({sig: N}).
        "check.unknown_key": Text("unknown key (known: {known})", "未知的键（可用的键：{known}）"),
        "check.unknown_key.bare": Text("unknown key", "未知的键"),
        "check.missing_key": Text("missing required key", "缺少必需的键"),
        "check.text_mapping": Text("expected a mapping with 'en' and 'zh' texts", "应为包含 en 和 zh 两种文本的映射"),
        "check.list_mapping": Text("expected a mapping with 'en' and 'zh' lists", "应为包含 en 和 zh 两个列表的映射"),
        "check.unknown_lang": Text("unknown language (use en and zh)", "未知语言（请使用 en 和 zh）"),
        "check.missing_translation": Text("missing translation", "缺少翻译"),
        "check.empty_text": Text("expected non-empty text", "应为非空文本"),
        "check.empty_list": Text("expected a non-empty list of texts", "应为非空的文本列表"),
        "check.item_text": Text(
            "expected text (quote text that contains ': ')", "应为文本（含有 ': ' 的文本请加引号）"
        ),
        "check.item_counts": Text(
            "en has {en} items but zh has {zh}: each item needs a translation",
            "en 有 {en} 项而 zh 有 {zh} 项：每一项都需要翻译",
        ),
        "check.bad_id": Text(
            "{value} is not a valid id (lowercase letters, digits, - _ .)",
            "{value} 不是合法的 id（小写字母、数字、- _ .）",
        ),
        "check.not_one_of": Text("{value} is not one of {allowed}", "{value} 不在 {allowed} 之中"),
        "check.follow_up_points.missing": Text(
            "missing: each of the {n} follow-up(s) needs its key points, in order",
            "缺失：{n} 个追问都需要各自的要点，按追问的顺序排列",
        ),
        "check.follow_up_points.count": Text(
            "expected one list of key points per follow-up: {n} follow-up(s), got {got}",
            "每个追问应有一组要点：共 {n} 个追问，实际为 {got}",
        ),
        "check.text_list": Text("expected a list of texts", "应为文本列表"),
        "check.file_mapping": Text(
            "expected a mapping with format_version, topic, title", "应为包含 format_version、topic、title 的映射"
        ),
        "check.version": Text("expected {want}, got {got}", "应为 {want}，实际为 {got}"),
        "check.version.bare": Text("expected {want}", "应为 {want}"),
        "check.list": Text("expected a list", "应为列表"),
        "check.mapping": Text("expected a mapping", "应为映射"),
        "check.code": Text("expected Python code as text", "应为 Python 代码文本"),
        "check.verify_needed": Text(
            "a numeric answer must carry verify code that computes it", "数值题必须带有计算答案的 verify 代码"
        ),
        "check.no_choices": Text("a {type} question takes no choices", "{type} 题不接受 choices"),
        "check.choice_count": Text("expected a list of {low} to {high} choices", "应为 {low} 到 {high} 个选项的列表"),
        "check.same_choices": Text("two choices have the same text", "有两个选项文本相同"),
        "check.bool": Text("expected true or false", "应为 true 或 false"),
        "check.non_negative": Text("expected a number >= 0", "应为大于等于 0 的数"),
        "check.number": Text("expected a number", "应为数字"),
        "check.letters": Text("expected choice letters ({span})", "应为选项字母（{span}）"),
        "check.out_of_range": Text(
            "answer {letter} is out of range: choices are {span}", "答案 {letter} 超出范围：选项为 {span}"
        ),
        "check.repeated": Text("a letter is repeated", "有字母重复"),
        "check.single": Text("a single-choice question has exactly one answer", "单选题只能有一个答案"),
        "check.order": Text(
            "an order answer lists every choice once ({span})", "排序题的答案要把每个选项列出且只列一次（{span}）"
        ),
        "check.precision_needed": Text(
            "a numeric question needs a precision (exact, {sig: N} or {decimals: N}) or a tolerance",
            "数值题需要 precision（exact、{sig: N} 或 {decimals: N}）或 tolerance",
        ),
        "check.tolerance_numeric": Text("only numeric questions take a tolerance", "只有数值题才能设置 tolerance"),
        "check.precision_numeric": Text("only numeric questions take a precision", "只有数值题才能设置 precision"),
        "check.precision_form": Text(
            "expected exact, {sig: N} or {decimals: N}", "应为 exact、{sig: N} 或 {decimals: N}"
        ),
        "check.sig_min": Text("at least 1 significant digit", "有效数字至少为 1 位"),
        "check.topic_twice": Text("topic {topic} is already defined in {other}", "主题 {topic} 已在 {other} 中定义"),
        "check.duplicate_id": Text("duplicate id {id} (first used in {first})", "重复的 id {id}（首次出现在 {first}）"),
        "check.unreadable": Text("cannot read: {why}", "无法读取：{why}"),
        "check.stray_space": Text("stray space in Chinese text: {snippet}", "中文文本中有多余的空格：{snippet}"),
        "check.half_width": Text(
            "half-width {char} in Chinese text: use {wanted}: {snippet}",
            "中文文本中使用了半角 {char}：应改为 {wanted}：{snippet}",
        ),
        "check.ascii_quote": Text(
            "ASCII quote in Chinese text: use “ ”: {snippet}", "中文文本中使用了英文引号：应改为中文引号“”：{snippet}"
        ),
        # The YAML reader's (yamlnodes.py); PyYAML's own wording of a problem stays as it is.
        "check.yaml.syntax": Text("YAML syntax: {problem}", "YAML 语法错误：{problem}"),
        "check.yaml.too_large": Text(
            "file too large ({size} bytes; a question bank is well under {limit})",
            "文件过大（{size} 字节；题库文件远小于 {limit} 字节）",
        ),
        "check.yaml.utf16": Text("the file is UTF-16 text: save it as UTF-8", "文件是 UTF-16 文本：请另存为 UTF-8"),
        "check.yaml.binary": Text(
            "binary data (a NUL byte): a question bank is UTF-8 text", "二进制数据（含 NUL 字节）：题库应为 UTF-8 文本"
        ),
        "check.yaml.not_utf8": Text(
            "not UTF-8 (byte {byte} at column {column}): save the file as UTF-8",
            "不是 UTF-8（第 {column} 列的字节 {byte}）：请把文件另存为 UTF-8",
        ),
        "check.yaml.too_deep": Text("nested more than {depth} levels deep", "嵌套超过 {depth} 层"),
        "check.yaml.alias": Text(
            "aliases (*{anchor}) are not allowed in a question bank", "题库中不允许使用别名（*{anchor}）"
        ),
        "check.yaml.tag": Text(
            "tags such as {tag} are not allowed in a question bank", "题库中不允许使用 {tag} 这样的标签"
        ),
        "check.yaml.key_type": Text("keys must be text, got {got}", "键必须是文本，实际为 {got}"),
        "check.yaml.duplicate_key": Text("duplicate key {key}", "重复的键 {key}"),
        "check.yaml.long_number": Text("number too long ({n} characters)", "数字过长（{n} 个字符）"),
        "check.yaml.unreadable_value": Text("cannot read {value}: {why}", "无法读取 {value}：{why}"),
        "check.yaml.out_of_range": Text("number out of range: {value}", "数字超出范围：{value}"),
        # A kata's kata.yaml (content/katas.py) and the misconception links (workbench/lessons.py).
        "check.kata.folder": Text("must match the folder name {name}", "必须与文件夹名 {name} 一致"),
        "check.kata.missing_file": Text("missing file", "缺少文件"),
        "check.kata.no_solution": Text("no reference solution {path}", "没有参考答案 {path}"),
        "check.kata.hint_lists": Text("expected en and zh lists", "应为 en 和 zh 两个列表"),
        "check.kata.hint_levels": Text(
            "expected exactly three hint levels in each language", "每种语言应恰好有三级提示"
        ),
        "check.kata.unknown_extra": Text(
            "unknown extra {name} (known: {known})", "未知的可选依赖 {name}（可用的：{known}）"
        ),
        "check.kata.misconception_list": Text("expected a list of {id, title, hint}", "应为 {id, title, hint} 的列表"),
        "check.kata.misconception_keys": Text(
            "each misconception has exactly an id, a title and a hint", "每个误区恰好有 id、title 和 hint 三项"
        ),
        "check.kata.misconception_twice": Text("misconception {id} is listed twice", "误区 {id} 列出了两次"),
        "check.kata.texts": Text("expected en and zh texts", "应为 en 和 zh 两种文本"),
        "check.kata.home": Text("must be one of the kata's topics ({topics})", "必须是本练习的主题之一（{topics}）"),
        "check.kata.core": Text(
            "must be a whole number from 1 to 99: the kata's place among the core katas, 1 asked likeliest",
            "必须是 1 到 99 的整数：本练习在核心练习中的位置，1 表示面试最可能考",
        ),
        "check.kata.home_unknown": Text("home topic {topic} is no topic of the bank", "主题 {topic} 不在题库中"),
        "check.names.case_base": Text(
            "{value} is no case name (a test's name without test_)", "{value} 不是用例名（去掉 test_ 的测试函数名）"
        ),
        "check.names.case_shared": Text(
            "already titled in katas/shared.yaml (line {at})", "已在 katas/shared.yaml 中命名（第 {at} 行）"
        ),
        "check.names.misconception_shared": Text(
            "misconception {id} is already defined in katas/shared.yaml (line {at})",
            "误区 {id} 已在 katas/shared.yaml 中定义（第 {at} 行）",
        ),
        "check.names.misconception_elsewhere": Text(
            "misconception {id} is already defined in {other}", "误区 {id} 已在 {other} 中定义"
        ),
        "check.topic.order": Text("expected a whole number", "应为整数"),
        "check.topic.core": Text("expected true or false", "应为 true 或 false"),
        "check.topic.order_twice": Text("order {order} is already {other}'s", "顺序 {order} 已被 {other} 使用"),
        "check.topic.requires_unknown": Text("no topic {topic} in the bank", "题库中没有主题 {topic}"),
        "check.topic.requires_later": Text(
            "requires {topic}, which comes later in the order of study",
            "依赖的 {topic} 在学习顺序中排在后面",
        ),
        "check.topic.cycle": Text("prerequisites run in a circle: {cycle}", "先修关系形成了循环：{cycle}"),
        "check.topic.core_unordered": Text(
            "a core topic needs its place in the order (order:)", "核心主题需要在学习顺序中有位置（order:）"
        ),
        "check.links.shape": Text("expected format_version and links", "应为包含 format_version 和 links 的映射"),
        "check.links.ids": Text("expected a list of item ids", "应为题目或卡片 id 的列表"),
        "check.links.no_suite": Text("no kata suite names this misconception", "没有任何练习的评测套件定义了这个误区"),
        "check.links.no_item": Text("no question or card {item}", "没有题目或卡片 {item}"),
    },
)
