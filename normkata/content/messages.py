"""Content-check messages in Chinese.

The schema writes its messages in English, the language of the YAML keys they name. For a
learner or author working in Chinese, `normkata content check --lang zh` shows each one through
this table: a pattern of the English message and its Chinese form. Names, values and file paths
inside a message are kept as they are.
"""

from __future__ import annotations

import re

_ZH: list[tuple[str, str]] = [
    (r"unknown key \(known: (?P<a>.*)\)", "未知的键（可用的键：{a}）"),
    (r"missing required key", "缺少必需的键"),
    (r"expected a mapping with 'en' and 'zh' texts", "应为包含 en 和 zh 两种文本的映射"),
    (r"expected a mapping with 'en' and 'zh' lists", "应为包含 en 和 zh 两个列表的映射"),
    (r"unknown language \(use en and zh\)", "未知语言（请使用 en 和 zh）"),
    (r"missing translation", "缺少翻译"),
    (r"expected non-empty text", "应为非空文本"),
    (r"expected a non-empty list of texts", "应为非空的文本列表"),
    (r"expected text \(quote text that contains ': '\)", "应为文本（含有 ': ' 的文本请加引号）"),
    (
        r"en has (?P<a>\d+) items but zh has (?P<b>\d+): each item needs a translation",
        "en 有 {a} 项而 zh 有 {b} 项：每一项都需要翻译",
    ),
    (
        r"(?P<a>.*) is not a valid id \(lowercase letters, digits, - _ \.\)",
        "{a} 不是合法的 id（小写字母、数字、- _ .）",
    ),
    (r"(?P<a>.*) is not one of (?P<b>.*)", "{a} 不在 {b} 之中"),
    (
        r"missing: each of the (?P<a>\d+) follow-up\(s\) needs its key points, in order",
        "缺失：{a} 个追问都需要各自的要点，按追问的顺序排列",
    ),
    (
        r"expected one list of key points per follow-up: (?P<a>\d+) follow-up\(s\), got (?P<b>\d+)",
        "每个追问应有一组要点：共 {a} 个追问，实际为 {b}",
    ),
    (r"expected a list of texts", "应为文本列表"),
    (r"expected a mapping with format_version, topic, title", "应为包含 format_version、topic、title 的映射"),
    (r"expected (?P<a>\d+), got (?P<b>.*)", "应为 {a}，实际为 {b}"),
    (r"expected a list", "应为列表"),
    (r"expected a mapping", "应为映射"),
    (r"expected Python code as text", "应为 Python 代码文本"),
    (r"a numeric answer must carry verify code that computes it", "数值题必须带有计算答案的 verify 代码"),
    (r"a (?P<a>\w+) question takes no choices", "{a} 题不接受 choices"),
    (r"expected a list of (?P<a>\d+) to (?P<b>\d+) choices", "应为 {a} 到 {b} 个选项的列表"),
    (r"two choices have the same text", "有两个选项文本相同"),
    (r"expected true or false", "应为 true 或 false"),
    (r"expected a number >= 0", "应为大于等于 0 的数"),
    (r"expected a number", "应为数字"),
    (r"expected choice letters \((?P<a>.*)\)", "应为选项字母（{a}）"),
    (r"answer (?P<a>.*) is out of range: choices are (?P<b>.*)", "答案 {a} 超出范围：选项为 {b}"),
    (r"a letter is repeated", "有字母重复"),
    (r"a single-choice question has exactly one answer", "单选题只能有一个答案"),
    (r"an order answer lists every choice once \((?P<a>.*)\)", "排序题的答案要把每个选项列出且只列一次（{a}）"),
    (
        r"a numeric question needs a precision \(exact, \{sig: N\} or \{decimals: N\}\) or a tolerance",
        "数值题需要 precision（exact、{{sig: N}} 或 {{decimals: N}}）或 tolerance",
    ),
    (r"only numeric questions take a tolerance", "只有数值题才能设置 tolerance"),
    (r"only numeric questions take a precision", "只有数值题才能设置 precision"),
    (r"expected exact, \{sig: N\} or \{decimals: N\}", "应为 exact、{{sig: N}} 或 {{decimals: N}}"),
    (r"at least 1 significant digit", "有效数字至少为 1 位"),
    (r"topic (?P<a>.*) is already defined in (?P<b>.*)", "主题 {a} 已在 {b} 中定义"),
    (r"duplicate id (?P<a>.*) \(first used in (?P<b>.*)\)", "重复的 id {a}（首次出现在 {b}）"),
    (r"cannot read: (?P<a>.*)", "无法读取：{a}"),
    (r"YAML syntax: (?P<a>.*)", "YAML 语法错误：{a}"),
    (r"stray space in Chinese text: (?P<a>.*)", "中文文本中有多余的空格：{a}"),
    (r"half-width (?P<a>.*) in Chinese text: use (?P<b>'.*?'): (?P<c>.*)", "中文文本中使用了半角 {a}：应改为 {b}：{c}"),
    (r"ASCII quote in Chinese text: use “ ”: (?P<a>.*)", "中文文本中使用了英文引号：应改为 “ ”：{a}"),
]
_COMPILED = [(re.compile(pattern), template) for pattern, template in _ZH]


def message_in(message: str, lang: str) -> str:
    """`message` (a schema message in English) in `lang`; unknown messages stay as they are."""
    if lang != "zh":
        return message
    for pattern, template in _COMPILED:
        match = pattern.fullmatch(message)
        if match:
            return template.format(**match.groupdict())
    return message
