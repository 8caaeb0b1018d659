"""Parse YAML into plain dicts and lists that remember the line each value came from.

Validation errors must name the line, so the loader composes PyYAML's node tree and keeps
each node's start line beside the value built from it.
"""

from __future__ import annotations

from typing import Any

import yaml

try:  # libyaml is several times faster when present
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


class YamlSyntaxError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class LineDict(dict):
    """A mapping whose `line` is where it starts and `key_lines[k]` where key k stands."""

    line: int
    key_lines: dict[str, int]


class LineList(list):
    """A sequence whose `line` is where it starts and `item_lines[i]` where item i starts."""

    line: int
    item_lines: list[int]


def load_yaml(text: str) -> Any:
    """Parse one YAML document into LineDict/LineList/scalars (None for an empty file)."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        return _build(node, loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        message = f"YAML syntax: {exc.problem or exc}"
        if exc.context and exc.context_mark and exc.context_mark.line + 1 != line:
            message += f" ({exc.context} started on line {exc.context_mark.line + 1})"
        raise YamlSyntaxError(line, message) from None
    finally:
        loader.dispose()


def _build(node: yaml.Node, loader: Any) -> Any:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        mapping = LineDict()
        mapping.line, mapping.key_lines = line, {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            key_line = key_node.start_mark.line + 1
            if not isinstance(key, str):
                raise YamlSyntaxError(key_line, f"keys must be text, got {key!r}")
            if key in mapping:
                raise YamlSyntaxError(key_line, f"duplicate key {key!r}")
            mapping[key] = _build(value_node, loader)
            mapping.key_lines[key] = key_line
        return mapping
    if isinstance(node, yaml.SequenceNode):
        items = LineList()
        items.line, items.item_lines = line, []
        for item in node.value:
            items.append(_build(item, loader))
            items.item_lines.append(item.start_mark.line + 1)
        return items
    return loader.construct_object(node, deep=True)
