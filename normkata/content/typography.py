"""Chinese typography: no stray spaces between CJK characters, full-width punctuation.

YAML folds a long text's lines with a space, which is right in English and wrong in Chinese
("为 1.5。 之后"). `tidy_zh` removes such spaces when a bank is loaded; `zh_problems` names
what `normkata content check` reports so the source gets fixed too. Code (an indented block
or text in backticks) is left alone.
"""

from __future__ import annotations

import re

from normkata.content.model import Message

#: CJK ideographs, CJK symbols and punctuation, full-width forms.
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
#: Full-width punctuation, around which a space is never wanted.
_CJK_PUNCT = "\u3000-\u303f\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f\u2014\u2026\u201c\u201d"
_IDEOGRAPH = "\u3400-\u4dbf\u4e00-\u9fff"

_BETWEEN_CJK = re.compile(f"(?<=[{_CJK}])[ \t]+(?=[{_CJK}])")
_AFTER_PUNCT = re.compile(f"(?<=[{_CJK_PUNCT}])[ \t]+")
_BEFORE_PUNCT = re.compile(f"(?<=\\S)[ \t]+(?=[{_CJK_PUNCT}])")  # not a line's indentation
_HALF_WIDTH = re.compile(f"(?<=[{_IDEOGRAPH}])([,;?!]|:(?=\\s|$)|\\.(?=\\s|$))")
_OPEN_PAREN = re.compile(f"\\((?=[{_IDEOGRAPH}])")
_CLOSE_PAREN = re.compile(f"(?<=[{_IDEOGRAPH}])\\)")
_CODE_SPAN = re.compile(r"`[^`]*`")
_ASCII_QUOTE = re.compile(f'(?<=[{_IDEOGRAPH}{_CJK_PUNCT}])"|"(?=[{_IDEOGRAPH}{_CJK_PUNCT}])')

_FULL_WIDTH = {",": "，", ";": "；", "?": "？", "!": "！", ":": "：", ".": "。", "(": "（", ")": "）"}


def _prose_parts(text: str) -> list[tuple[bool, str]]:
    """The text cut into (is_code, part): indented lines and `code spans` are code."""
    parts: list[tuple[bool, str]] = []
    for line in text.split("\n"):
        if parts:
            parts.append((True, "\n"))
        if line.startswith("    "):
            parts.append((True, line))
            continue
        last = 0
        for match in _CODE_SPAN.finditer(line):
            parts.append((False, line[last : match.start()]))
            parts.append((True, match.group()))
            last = match.end()
        parts.append((False, line[last:]))
    return parts


def tidy_zh(text: str) -> str:
    """Remove spaces between CJK characters and around full-width punctuation."""
    out = []
    for is_code, part in _prose_parts(text):
        if not is_code:
            part = _BETWEEN_CJK.sub("", part)
            part = _AFTER_PUNCT.sub("", part)
            part = _BEFORE_PUNCT.sub("", part)
        out.append(part)
    return "".join(out)


def zh_problems(text: str) -> list[tuple[str, Message]]:
    """Each typography problem in a Chinese text as (snippet, message); the message's `snippet`
    field is for the caller to fill in (the check shows where it is)."""
    found: list[tuple[str, Message]] = []
    for is_code, part in _prose_parts(text):
        if is_code:
            continue
        spaces = {m.start(): m for p in (_BETWEEN_CJK, _AFTER_PUNCT, _BEFORE_PUNCT) for m in p.finditer(part)}
        for start in sorted(spaces):
            found.append((_around(part, spaces[start]), Message("check.stray_space")))
        for match in _ASCII_QUOTE.finditer(part):
            found.append((_around(part, match), Message("check.ascii_quote")))
        for pattern in (_HALF_WIDTH, _OPEN_PAREN, _CLOSE_PAREN):
            for match in pattern.finditer(part):
                wanted = _FULL_WIDTH[match.group()[0]]
                said = Message.of("check.half_width", char=repr(match.group()[0]), wanted=repr(wanted))
                found.append((_around(part, match), said))
    return found


def _around(text: str, match: re.Match[str]) -> str:
    return text[max(0, match.start() - 4) : match.end() + 4]
