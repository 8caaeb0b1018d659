"""What the grader calls cases and mistakes, as YAML writes them: each kata's own in its
kata.yaml (`cases:`, `misconceptions:`), and in katas/shared.yaml what belongs to no single kata
(the grader's own cases, the case names several suites share, the misconceptions normkata's
checks name). Parsed and validated here; normkata.content.suite_names looks them up.

A case is named by its pytest name without `test_` (`forward[2x5x8-cpu]`); its base
(`forward`) has a title in each language, the parameters are shown as they are.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from normkata.content.misconception import Misconception
from normkata.content.model import ContentIssue, Message
from normkata.content.reading import file_version
from normkata.content.yamlnodes import LineDict, LineList, YamlSyntaxError, read_yaml_file
from normkata.errors import InputError
from normkata.i18n.text import Text

SHARED_FORMAT_VERSION = 1
SHARED_FILE = "shared.yaml"
_SHARED_KEYS = ("format_version", "grader_cases", "cases", "misconceptions")
#: A case's base is a test function's name without `test_`.
_CASE_BASE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: (line, field, message key, message fields) -> the exception to raise.
Fail = Callable[..., Exception]


def case_titles(table: Any, line: int, where: str, fail: Fail) -> dict[str, Text]:
    """`cases:` (case base -> {en, zh}); each entry's problem names its own line."""
    if not isinstance(table, LineDict):
        raise fail(line, where, "check.mapping")
    titles: dict[str, Text] = {}
    for base, value in table.items():
        at, field_ = table.key_lines.get(base, table.line), f"{where}.{base}"
        if not _CASE_BASE.match(str(base)):
            raise fail(at, field_, "check.names.case_base", value=repr(base))
        titles[str(base)] = pair(value, at, field_, fail)
    return titles


def misconceptions(entries: Any, line: int, where: str, fail: Fail) -> tuple[Misconception, ...]:
    """`misconceptions:`, a list of {id, title, hint}; an id listed twice is an error."""
    if not isinstance(entries, LineList):
        raise fail(line, where, "check.kata.misconception_list")
    found: list[Misconception] = []
    for index, entry in enumerate(entries):
        at = entries.item_lines[index]
        if not isinstance(entry, LineDict) or set(entry) != {"id", "title", "hint"} or not isinstance(entry["id"], str):
            raise fail(at, f"{where}[{index}]", "check.kata.misconception_keys")
        if entry["id"] in {m.id for m in found}:
            raise fail(at, f"{where}[{index}].id", "check.kata.misconception_twice", id=repr(entry["id"]))
        title = pair(entry["title"], entry.key_lines["title"], f"{where}[{index}].title", fail)
        hint = pair(entry["hint"], entry.key_lines["hint"], f"{where}[{index}].hint", fail)
        found.append(Misconception(entry["id"], title, hint))
    return tuple(found)


def pair(value: Any, line: int, where: str, fail: Fail) -> Text:
    """{en: ..., zh: ...}, both non-empty text: a missing language is named."""
    if not isinstance(value, LineDict):
        raise fail(line, where, "check.kata.texts")
    for key in value:
        if key not in ("en", "zh"):
            raise fail(value.key_lines[key], f"{where}.{key}", "check.unknown_lang")
    for lang in ("en", "zh"):
        if lang not in value:
            raise fail(value.line, f"{where}.{lang}", "check.missing_translation")
        if not isinstance(value[lang], str) or not value[lang].strip():
            raise fail(value.key_lines[lang], f"{where}.{lang}", "check.empty_text")
    return Text(value["en"].strip(), value["zh"].strip())


class _Problem(Exception):
    def __init__(self, issue: ContentIssue) -> None:
        self.issue = issue


@dataclass(frozen=True)
class Shared:
    """katas/shared.yaml: what belongs to no single kata."""

    grader_cases: dict[str, Text] = field(default_factory=dict)  # the grader's own cases, by id
    cases: dict[str, Text] = field(default_factory=dict)  # case names several suites share
    misconceptions: dict[str, Misconception] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # "cases.<base>", "misconceptions.<id>" -> line


def shared_path() -> Path:
    """The tool's own shared file: the checks and the grader name what it holds, so an author's
    NORMKATA_KATAS tree shares the bundled one."""
    from normkata.paths import content_root

    return content_root() / "katas" / SHARED_FILE


def load_shared(path: Path | None = None) -> tuple[Shared, list[ContentIssue]]:
    """The shared file, and its problems (an empty Shared when it has any)."""
    path = path or shared_path()
    return _load_shared(path, file_version(path))


def shared() -> Shared:
    """The shared file, or an InputError naming its first problem (run `normkata content check`)."""
    found, issues = load_shared()
    if issues:
        raise InputError(str(issues[0]))
    return found


def shared_misconception(misconception_id: str) -> Misconception:
    """A misconception the shared file words, by the id a check names it with."""
    found = shared().misconceptions.get(misconception_id)
    if found is None:
        raise InputError(f"{shared_path()}: no misconception {misconception_id!r} (normkata's checks name it)")
    return found


@functools.lru_cache(maxsize=4)
def _load_shared(path: Path, _version: tuple[int, ...]) -> tuple[Shared, list[ContentIssue]]:
    """Read once per version of the file: every grade names its cases."""
    try:
        return _read_shared(path), []
    except _Problem as problem:
        return Shared(), [problem.issue]


def _read_shared(path: Path) -> Shared:
    def fail(line: int, where: str, key: str, **fields: Any) -> _Problem:
        return _Problem(ContentIssue(str(path), line, where, Message(key, fields)))

    if not path.is_file():
        raise fail(1, "", "check.kata.missing_file")
    try:
        data = read_yaml_file(path)
    except YamlSyntaxError as exc:
        raise _Problem(ContentIssue(str(path), exc.line, "", exc.said)) from None
    if not isinstance(data, LineDict):
        raise fail(1, "", "check.mapping")
    for key in data:
        if key not in _SHARED_KEYS:
            raise fail(data.key_lines[key], key, "check.unknown_key", known=", ".join(_SHARED_KEYS))
    for key in _SHARED_KEYS:
        if key not in data:
            raise fail(data.line, key, "check.missing_key")
    if data["format_version"] != SHARED_FORMAT_VERSION:
        raise fail(data.key_lines["format_version"], "format_version", "check.version.bare", want=SHARED_FORMAT_VERSION)
    grader = case_titles(data["grader_cases"], data.key_lines["grader_cases"], "grader_cases", fail)
    cases = case_titles(data["cases"], data.key_lines["cases"], "cases", fail)
    found = misconceptions(data["misconceptions"], data.key_lines["misconceptions"], "misconceptions", fail)
    lines = {f"cases.{base}": data["cases"].key_lines[base] for base in cases}
    entries = data["misconceptions"]
    lines |= {f"misconceptions.{m.id}": entries.item_lines[i] for i, m in enumerate(found)}
    return Shared(grader, cases, {m.id: m for m in found}, lines)
