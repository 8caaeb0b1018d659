"""Parse YAML into plain dicts and lists that remember the line each value came from.

Validation errors must name the line, so values are built straight from the parser's events,
each beside the line it starts on. Building from events rather than from PyYAML's composed
node tree also makes every hostile input an error with a line instead of a crash: libyaml's
composer recurses in C (deep nesting overflows the stack), and aliases let a few lines expand
into billions of values. A question bank needs neither, so nesting is capped and aliases,
anchors' only use, are refused.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from normkata.content.model import Message
from normkata.content.reading import MAX_YAML_BYTES
from normkata.files import Refused, read_file

try:  # libyaml is several times faster when present
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

#: Deeper than any real bank (a question is four levels down) and far below a stack overflow.
MAX_DEPTH = 64
#: A bank is a few hundred kilobytes; anything this big is not one (checked before it is read).
MAX_BYTES = MAX_YAML_BYTES
#: Digits in an integer: far more than any answer, far fewer than Python's conversion limit.
MAX_DIGITS = 100

_STR = "tag:yaml.org,2002:str"
_TOO_DEEP = Message.of("check.yaml.too_deep", depth=MAX_DEPTH)


class YamlSyntaxError(ValueError):
    """A file that is no YAML a bank can hold, at `line`; `said` is the message (`check.yaml.*`)."""

    def __init__(self, line: int, said: Message) -> None:
        super().__init__(str(said))
        self.line = line
        self.said = said

    @property
    def message(self) -> str:
        return str(self.said)


class LineDict(dict):
    """A mapping whose `line` is where it starts and `key_lines[k]` where key k stands."""

    line: int
    key_lines: dict[str, int]


class LineList(list):
    """A sequence whose `line` is where it starts and `item_lines[i]` where item i starts."""

    line: int
    item_lines: list[int]


def read_yaml_file(path: Path) -> Any:
    """Read and parse a bank file; every problem, decoding included, is a YamlSyntaxError with a line."""
    return load_yaml(decode(read_yaml_bytes(path)))


def read_yaml_bytes(path: Path) -> bytes:
    """A YAML file's bytes, its type and size checked before a byte is read (a FIFO never waited on,
    a 1.5 GB file never loaded); OSError when it cannot be opened."""
    try:
        return read_file(path, MAX_BYTES, follow_links=True)
    except Refused as exc:
        if exc.key == "files.too_large":
            raise YamlSyntaxError(
                1, Message.of("check.yaml.too_large", size=exc.fields["size"], limit=MAX_BYTES)
            ) from None
        raise YamlSyntaxError(1, Message(exc.key, exc.fields)) from None  # a FIFO, a device, a file of /proc


def decode(data: bytes) -> str:
    """UTF-8 text (a BOM is allowed), or an error naming the first line that is not."""
    if len(data) > MAX_BYTES:
        raise YamlSyntaxError(1, Message.of("check.yaml.too_large", size=len(data), limit=MAX_BYTES))
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise YamlSyntaxError(1, Message("check.yaml.utf16"))
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise YamlSyntaxError(line, Message("check.yaml.binary"))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start]
        raise YamlSyntaxError(line, Message.of("check.yaml.not_utf8", byte=f"0x{byte:02x}", column=column)) from None


def load_yaml(text: str) -> Any:
    """Parse one YAML document into LineDict/LineList/scalars (None for an empty file)."""
    loader = _Loader(text)
    try:
        return _Builder(loader).build()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        if "nesting depth" in str(exc.problem):  # PyYAML >= 6.0.4 caps depth itself, before our cap is reached
            raise YamlSyntaxError(line, _TOO_DEEP) from None
        problem = f"{exc.problem or exc}"
        if exc.context and exc.context_mark and exc.context_mark.line + 1 != line:
            problem += f" ({exc.context} started on line {exc.context_mark.line + 1})"
        raise YamlSyntaxError(line, _syntax(problem)) from None
    except yaml.reader.ReaderError as exc:  # a control character, or text the reader cannot take
        raise YamlSyntaxError(_reader_line(text, exc), _syntax(_reader_problem(exc))) from None
    except yaml.YAMLError as exc:  # anything else PyYAML can raise, still on one line
        raise YamlSyntaxError(1, _syntax((str(exc).splitlines() or [""])[0])) from None
    finally:
        loader.dispose()


class _Builder:
    """Turns the parser's event stream into LineDict/LineList/scalars, without recursion."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.stack: list[LineDict | LineList] = []
        self.keys: list[str | None] = []  # per open mapping: the key waiting for its value
        self.root: Any = None
        self.documents = 0

    def build(self) -> Any:
        while self.loader.check_event():
            self._on(self.loader.get_event())
        return self.root

    def _on(self, event: yaml.Event) -> None:
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, yaml.ScalarEvent):  # most events: checked first
            self._add(self._scalar(event, line), line, is_text=True)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self._open(event, line)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.stack.pop()
            self.keys.pop()
        elif isinstance(event, yaml.AliasEvent):
            raise YamlSyntaxError(line, Message.of("check.yaml.alias", anchor=event.anchor))
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise YamlSyntaxError(line, _syntax("one document per file (found a second '---')"))

    def _open(self, event: yaml.CollectionStartEvent, line: int) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise YamlSyntaxError(line, _TOO_DEEP)
        if event.tag is not None and not event.implicit:
            raise YamlSyntaxError(line, Message.of("check.yaml.tag", tag=event.tag))
        container: LineDict | LineList
        if isinstance(event, yaml.MappingStartEvent):
            container = LineDict()
            container.key_lines = {}
        else:
            container = LineList()
            container.item_lines = []
        container.line = line
        self._add(container, line, is_text=False)
        self.stack.append(container)
        self.keys.append(None)

    def _add(self, value: Any, line: int, *, is_text: bool) -> None:
        if not self.stack:
            self.root = value
            return
        parent = self.stack[-1]
        if isinstance(parent, LineList):
            parent.append(value)
            parent.item_lines.append(line)
            return
        key = self.keys[-1]
        if key is None:
            self._set_key(parent, value, line, is_text)
            return
        parent[key] = value
        self.keys[-1] = None

    def _set_key(self, parent: LineDict, key: Any, line: int, is_text: bool) -> None:
        if not is_text or not isinstance(key, str):
            raise YamlSyntaxError(line, Message.of("check.yaml.key_type", got=_short(key)))
        if key in parent:
            raise YamlSyntaxError(line, Message.of("check.yaml.duplicate_key", key=repr(key)))
        parent.key_lines[key] = line
        self.keys[-1] = key

    def _scalar(self, event: yaml.ScalarEvent, line: int) -> Any:
        tag = event.tag
        if tag is None or tag == "!":  # untagged: YAML's rules decide (text, number, bool, null)
            tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _STR:  # most scalars: what SafeConstructor would return anyway
            return event.value
        if tag == "tag:yaml.org,2002:int" and sum(c.isdigit() for c in event.value) > MAX_DIGITS:
            raise YamlSyntaxError(line, Message.of("check.yaml.long_number", n=len(event.value)))
        node = yaml.ScalarNode(tag, event.value, style=event.style)  # marks: the line is reported by us
        try:
            value = self.loader.construct_object(node)
        except (ValueError, OverflowError) as exc:  # e.g. a date that does not exist
            raise YamlSyntaxError(
                line, Message.of("check.yaml.unreadable_value", value=repr(event.value[:40]), why=exc)
            ) from None
        if isinstance(value, float) and not math.isfinite(value) and _finite_literal(event.value):
            raise YamlSyntaxError(line, Message.of("check.yaml.out_of_range", value=event.value[:40]))
        return value


def _syntax(problem: str) -> Message:
    """A YAML syntax error, in PyYAML's own (English) words."""
    return Message.of("check.yaml.syntax", problem=problem)


def _reader_line(text: str, exc: yaml.reader.ReaderError) -> int:
    """The line of a reader error: libyaml counts its position in UTF-8 bytes, PyYAML in characters."""
    position = max(exc.position, 0)
    if _Loader is not yaml.SafeLoader:
        return text.encode("utf-8", "replace")[:position].count(b"\n") + 1
    return text.count("\n", 0, position) + 1


def _reader_problem(exc: yaml.reader.ReaderError) -> str:
    code = exc.character if isinstance(exc.character, int) else ord(exc.character)
    return f"{exc.reason or 'unacceptable character'} #x{code:04x}"


def _finite_literal(text: str) -> bool:
    """True for a number written with digits (1e999), False for YAML's own .inf and .nan."""
    return not text.strip().lower().lstrip("+-").startswith((".inf", ".nan"))


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."
