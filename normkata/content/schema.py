"""Strict validation of one question-bank file into the content model.

Every problem becomes a ContentIssue naming the file, the line and the field. Unknown keys,
missing translations, answers out of range and malformed values are all errors; the loader
keeps going so that `normkata content check` reports every problem at once.
"""

from __future__ import annotations

import re
from typing import Any

from normkata.content.model import (
    DIFFICULTIES,
    QUESTION_TYPES,
    SOURCES,
    Card,
    ContentIssue,
    Message,
    Question,
    Topic,
)
from normkata.content.typography import tidy_zh, zh_problems
from normkata.content.yamlnodes import LineDict, LineList
from normkata.i18n.text import Text

FORMAT_VERSION = 1
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")

_FILE_KEYS = {
    "format_version": True,
    "topic": True,
    "title": True,
    # The order of study (normkata.content.study): its place, the topics it builds on, and
    # whether a first, diagnostic quiz asks about it.
    "order": False,
    "requires": False,
    "core": False,
    "questions": False,
    "cards": False,
}
_QUESTION_KEYS = {
    "id": True,
    "type": True,
    "difficulty": True,
    "prompt": True,
    "explanation": True,
    "source": True,
    "answer": True,
    "choices": False,
    "tolerance": False,
    "precision": False,
    "verify": False,
    "tags": False,
}
_CARD_KEYS = {
    "id": True,
    "difficulty": True,
    "prompt": True,
    "key_points": True,
    "answer": True,
    "follow_ups": False,
    "follow_up_key_points": False,
    "source": True,
    "tags": False,
}
_CHOICE_COUNTS = {"single": (2, 6), "multiple": (2, 8), "order": (2, 8)}


class _Invalid(Exception):
    """Raised inside one item's validation after its issue has been recorded."""


class _Checker:
    def __init__(self, file: str, lines: list[str] | None = None) -> None:
        self.file = file
        self.lines = lines or []
        self.issues: list[ContentIssue] = []

    def zh(self, text: str, line: int, field: str) -> str:
        """A Chinese text tidied for the learner; each typography problem of the source is reported."""
        for snippet, problem in zh_problems(text):
            where = _locate(self.lines, line, snippet)
            said = Message(problem.key, {**problem.fields, "snippet": repr(snippet.strip())})
            self.issues.append(ContentIssue(self.file, where, field, said, style=True))
        return tidy_zh(text)

    def fail(self, line: int, field: str, key: str, **fields: Any) -> _Invalid:
        """Record the problem `key` (a `check.*` message of i18n/catalogs/content.py) with its fields."""
        self.issues.append(ContentIssue(self.file, line, field, Message(key, fields)))
        return _Invalid()

    # -- structure -------------------------------------------------------------------------

    def keys(self, data: LineDict, spec: dict[str, bool], where: str) -> bool:
        ok = True
        for key in data:
            if key not in spec:
                known = ", ".join(spec)
                self.fail(data.key_lines[key], _join(where, key), "check.unknown_key", known=known)
                ok = False
        for key, required in spec.items():
            if required and key not in data:
                self.fail(data.line, _join(where, key), "check.missing_key")
                ok = False
        return ok

    def line_of(self, data: LineDict, key: str) -> int:
        return data.key_lines.get(key, data.line)

    def text(self, value: Any, line: int, field: str, *, neutral_ok: bool = False) -> Text:
        if isinstance(value, str) and neutral_ok:
            return Text(value, value)
        if not isinstance(value, LineDict):
            raise self.fail(line, field, "check.text_mapping")
        unknown = [k for k in value if k not in ("en", "zh")]
        if unknown:
            raise self.fail(value.key_lines[unknown[0]], _join(field, unknown[0]), "check.unknown_lang")
        for lang in ("en", "zh"):
            if lang not in value:
                raise self.fail(value.line, _join(field, lang), "check.missing_translation")
            text = value[lang]
            if not isinstance(text, str) or not text.strip():
                raise self.fail(value.key_lines[lang], _join(field, lang), "check.empty_text")
        zh = self.zh(value["zh"].strip(), value.key_lines["zh"], _join(field, "zh"))
        return Text(value["en"].strip(), zh)

    def text_list(self, value: Any, line: int, field: str) -> tuple[Text, ...]:
        """A list written once per language (`en: [...]`, `zh: [...]`, as long as each other):
        one Text per item."""
        if not isinstance(value, LineDict) or set(value) != {"en", "zh"}:
            raise self.fail(line, field, "check.list_mapping")
        for lang in ("en", "zh"):
            items = value[lang]
            if not isinstance(items, LineList) or not items:
                raise self.fail(value.key_lines[lang], _join(field, lang), "check.empty_list")
            for i, item in enumerate(items):
                if not isinstance(item, str) or not item.strip():
                    raise self.fail(
                        items.item_lines[i],
                        _join(_join(field, lang), i),
                        "check.item_text",
                    )
        en_items, zh_items = value["en"], value["zh"]
        en = [item.strip() for item in en_items]
        zh_field = _join(field, "zh")
        zh = [self.zh(item.strip(), zh_items.item_lines[i], _join(zh_field, i)) for i, item in enumerate(zh_items)]
        if len(en) != len(zh):
            raise self.fail(
                line,
                field,
                "check.item_counts",
                en=len(en),
                zh=len(zh),
            )
        return tuple(Text(en_item, zh_item) for en_item, zh_item in zip(en, zh, strict=True))

    def choice(self, value: Any, allowed: tuple[str, ...], line: int, field: str) -> str:
        if value not in allowed:
            raise self.fail(line, field, "check.not_one_of", value=repr(value), allowed=", ".join(allowed))
        return value

    def item_id(self, value: Any, line: int, field: str) -> str:
        if not isinstance(value, str) or not ID_PATTERN.match(value):
            raise self.fail(line, field, "check.bad_id", value=repr(value))
        return value

    def tags(self, data: LineDict, field: str) -> tuple[str, ...]:
        value = data.get("tags", [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(self.line_of(data, "tags"), _join(field, "tags"), "check.text_list")
        return tuple(value)


def _locate(lines: list[str], start: int, snippet: str) -> int:
    """The line of the file at or after `start` where `snippet` (maybe folded over two lines) stands."""
    window = range(max(start - 1, 0), min(start + 40, len(lines)))
    for k in window:
        if snippet in lines[k]:
            return k + 1
    left, _space, right = snippet.partition(" ")
    left, right = left.strip(), right.strip()
    for k in window:
        if k + 1 < len(lines) and lines[k].rstrip().endswith(left) and lines[k + 1].lstrip().startswith(right):
            return k + 1
    return start


def _join(base: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key


def validate_file(
    data: Any, file: str, lines: list[str] | None = None
) -> tuple[Topic | None, list[Question], list[Card], list[ContentIssue]]:
    """Validate one parsed question-bank file; returns what is valid and every issue found.

    `lines`, the file's text, lets a typography problem inside a folded text name its own line.
    """
    check = _Checker(file, lines)
    if not isinstance(data, LineDict):
        check.fail(getattr(data, "line", 1), "", "check.file_mapping")
        return None, [], [], check.issues
    check.keys(data, _FILE_KEYS, "")
    topic = _topic(check, data)
    if topic is None:
        return None, [], [], check.issues
    questions = _items(check, data, "questions", lambda d, f: _question(check, d, f, topic.id))
    cards = _items(check, data, "cards", lambda d, f: _card(check, d, f, topic.id))
    return topic, questions, cards, check.issues


def _topic(check: _Checker, data: LineDict) -> Topic | None:
    try:
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise check.fail(
                check.line_of(data, "format_version"),
                "format_version",
                "check.version",
                want=FORMAT_VERSION,
                got=repr(version),
            )
        topic_id = check.item_id(data.get("topic"), check.line_of(data, "topic"), "topic")
        title = check.text(data.get("title"), check.line_of(data, "title"), "title")
        order = data.get("order")
        if order is not None and (not isinstance(order, int) or isinstance(order, bool)):
            raise check.fail(check.line_of(data, "order"), "order", "check.topic.order")
        requires = data.get("requires", [])
        if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
            raise check.fail(check.line_of(data, "requires"), "requires", "check.text_list")
        core = data.get("core", False)
        if not isinstance(core, bool):
            raise check.fail(check.line_of(data, "core"), "core", "check.topic.core")
    except _Invalid:
        return None
    lines = (check.line_of(data, "order"), check.line_of(data, "requires"), check.line_of(data, "core"))
    return Topic(topic_id, title, check.file, order, tuple(requires), core, lines)


def _items(check: _Checker, data: LineDict, key: str, build: Any) -> list:
    if key not in data:
        return []
    raw = data[key]
    if not isinstance(raw, LineList):
        check.fail(check.line_of(data, key), key, "check.list")
        return []
    built = []
    for index, item in enumerate(raw):
        field = f"{key}[{index}]"
        if not isinstance(item, LineDict):
            check.fail(raw.item_lines[index], field, "check.mapping")
            continue
        try:
            built.append(build(item, field))
        except _Invalid:
            continue
    return built


def _common(check: _Checker, data: LineDict, field: str, spec: dict[str, bool]) -> dict[str, Any]:
    if not check.keys(data, spec, field):
        raise _Invalid()
    line = check.line_of
    source = data["source"]
    if isinstance(source, int) and not isinstance(source, bool):
        source = f"{source:03d}"  # YAML reads an unquoted 004 as the number 4
    if not isinstance(source, str) or source not in SOURCES:
        raise check.fail(
            line(data, "source"),
            _join(field, "source"),
            "check.not_one_of",
            value=repr(source),
            allowed=", ".join(SOURCES),
        )
    return {
        "id": check.item_id(data["id"], line(data, "id"), _join(field, "id")),
        "difficulty": check.choice(
            data["difficulty"], DIFFICULTIES, line(data, "difficulty"), _join(field, "difficulty")
        ),
        "prompt": check.text(data["prompt"], line(data, "prompt"), _join(field, "prompt")),
        "source": source,
        "tags": check.tags(data, field),
        "file": check.file,
        "line": data.line,
    }


def _question(check: _Checker, data: LineDict, field: str, topic: str) -> Question:
    common = _common(check, data, field, _QUESTION_KEYS)
    line = check.line_of
    qtype = check.choice(data["type"], QUESTION_TYPES, line(data, "type"), _join(field, "type"))
    explanation = check.text(data["explanation"], line(data, "explanation"), _join(field, "explanation"))
    choices = _choices(check, data, field, qtype)
    answer = _answer(check, data, field, qtype, len(choices))
    tolerance = _tolerance(check, data, field, qtype)
    precision = _precision(check, data, field, qtype)
    verify = data.get("verify")
    if verify is not None and (not isinstance(verify, str) or not verify.strip()):
        raise check.fail(line(data, "verify"), _join(field, "verify"), "check.code")
    if qtype == "numeric" and verify is None:
        raise check.fail(data.line, _join(field, "verify"), "check.verify_needed")
    return Question(
        type=qtype,
        topic=topic,
        explanation=explanation,
        answer=answer,
        choices=choices,
        tolerance=tolerance,
        precision=precision,
        verify=verify,
        **common,
    )


def _choices(check: _Checker, data: LineDict, field: str, qtype: str) -> tuple[Text, ...]:
    where = _join(field, "choices")
    raw = data.get("choices")
    if qtype not in _CHOICE_COUNTS:
        if raw is not None:
            raise check.fail(check.line_of(data, "choices"), where, "check.no_choices", type=qtype)
        return ()
    low, high = _CHOICE_COUNTS[qtype]
    if not isinstance(raw, LineList) or not low <= len(raw) <= high:
        raise check.fail(check.line_of(data, "choices"), where, "check.choice_count", low=low, high=high)
    choices = tuple(check.text(item, raw.item_lines[i], _join(where, i), neutral_ok=True) for i, item in enumerate(raw))
    if len({c.en for c in choices}) != len(choices):
        raise check.fail(raw.line, where, "check.same_choices")
    return choices


def _letters(value: Any) -> list[str] | None:
    """'AC', 'A,C' or ['A','C'] as a list of letters; None when it is none of those."""
    if isinstance(value, str):
        return [c for c in value.upper() if c not in ", "]
    if isinstance(value, list) and all(isinstance(v, str) and len(v) == 1 for v in value):
        return [v.upper() for v in value]
    return None


def _answer(check: _Checker, data: LineDict, field: str, qtype: str, n_choices: int) -> object:
    value, line, where = data["answer"], check.line_of(data, "answer"), _join(field, "answer")
    valid = [chr(ord("A") + i) for i in range(n_choices)]
    span = f"A-{valid[-1]}" if valid else ""
    if qtype == "true_false":
        if not isinstance(value, bool):
            raise check.fail(line, where, "check.bool")
        return value
    if qtype == "numeric":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise check.fail(line, where, "check.number")
        return float(value)
    letters = _letters(value)
    if not letters:
        raise check.fail(line, where, "check.letters", span=span)
    outside = [c for c in letters if c not in valid]
    if outside:
        raise check.fail(line, where, "check.out_of_range", letter=repr(outside[0]), span=span)
    if len(set(letters)) != len(letters):
        raise check.fail(line, where, "check.repeated")
    if qtype == "single":
        if len(letters) != 1:
            raise check.fail(line, where, "check.single")
        return letters[0]
    if qtype == "order" and sorted(letters) != valid:
        raise check.fail(line, where, "check.order", span=span)
    if qtype == "multiple":
        return tuple(sorted(letters))
    return tuple(letters)


def _tolerance(check: _Checker, data: LineDict, field: str, qtype: str) -> float:
    where = _join(field, "tolerance")
    if "tolerance" not in data:
        if qtype == "numeric" and "precision" not in data:
            raise check.fail(
                data.line,
                _join(field, "precision"),
                "check.precision_needed",
            )
        return 0.0
    value = data["tolerance"]
    if qtype != "numeric":
        raise check.fail(check.line_of(data, "tolerance"), where, "check.tolerance_numeric")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise check.fail(check.line_of(data, "tolerance"), where, "check.non_negative")
    return float(value)


def _precision(check: _Checker, data: LineDict, field: str, qtype: str) -> tuple[str, int] | None:
    """`exact`, `{sig: N}` or `{decimals: N}`: how precisely the answer is asked for."""
    if "precision" not in data:
        return None
    where, line = _join(field, "precision"), check.line_of(data, "precision")
    if qtype != "numeric":
        raise check.fail(line, where, "check.precision_numeric")
    value = data["precision"]
    if value == "exact":
        return ("exact", 0)
    if isinstance(value, LineDict) and len(value) == 1:
        ((kind, digits),) = value.items()
        whole = isinstance(digits, int) and not isinstance(digits, bool)
        if kind in ("sig", "decimals") and whole and 0 <= digits <= 12:
            if kind == "sig" and digits == 0:
                raise check.fail(line, where, "check.sig_min")
            return (kind, digits)
    raise check.fail(line, where, "check.precision_form")


def _card(check: _Checker, data: LineDict, field: str, topic: str) -> Card:
    common = _common(check, data, field, _CARD_KEYS)
    line = check.line_of
    key_points = check.text_list(data["key_points"], line(data, "key_points"), _join(field, "key_points"))
    answer = check.text(data["answer"], line(data, "answer"), _join(field, "answer"))
    follow_ups = (
        check.text_list(data["follow_ups"], line(data, "follow_ups"), _join(field, "follow_ups"))
        if "follow_ups" in data
        else ()
    )
    points = _follow_up_points(check, data, field, len(follow_ups))
    return Card(
        topic=topic, key_points=key_points, answer=answer, follow_ups=follow_ups, follow_up_points=points, **common
    )


def _follow_up_points(check: _Checker, data: LineDict, field: str, asked: int) -> tuple[tuple[Text, ...], ...]:
    """One list of key points per follow-up, in order: without them a mock's debrief has
    nothing to set a follow-up's answer against."""
    where = _join(field, "follow_up_key_points")
    if "follow_up_key_points" not in data:
        if asked:
            raise check.fail(
                check.line_of(data, "follow_ups"),
                where,
                "check.follow_up_points.missing",
                n=asked,
            )
        return ()
    raw, line = data["follow_up_key_points"], check.line_of(data, "follow_up_key_points")
    if not isinstance(raw, LineList):
        raise check.fail(line, where, "check.list")
    if len(raw) != asked:
        raise check.fail(line, where, "check.follow_up_points.count", n=asked, got=len(raw))
    return tuple(check.text_list(item, raw.item_lines[i], _join(where, i)) for i, item in enumerate(raw))
