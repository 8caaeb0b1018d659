"""Text that wraps like the language it is written in.

Rich breaks lines only at spaces, so a Chinese sentence (which has none) is pushed whole onto
the next line, leaving ragged short lines. A Paragraph breaks between any two CJK characters,
keeps closing punctuation off the start of a line and opening punctuation off its end
(the usual kinsoku rules), and leaves code lines (indented by four spaces) as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions

#: Characters a line may break before or after: CJK ideographs, kana, full-width forms and
#: their punctuation. Ranges compared by hand: compiling them as a regex costs ~2 ms at start-up.
_CJK_RANGES = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x3000, 0x303F))
_CJK_SINGLES = frozenset("\u201c\u201d\u2014\u2026")


def _is_cjk(char: str) -> bool:
    code = ord(char[0])
    return char[0] in _CJK_SINGLES or any(low <= code <= high for low, high in _CJK_RANGES)


#: Never at the start of a line.
_CLOSING = set("，。、；：！？）」』】》〉”’…—%")
#: Never at the end of a line.
_OPENING = set("（「『【《〈“‘")


def _units(line: str) -> list[str]:
    """Break opportunities: each CJK character alone, other text by word, spaces kept."""
    units: list[str] = []
    for token in re.findall(r"\s+|[^\s]", line):
        if token.isspace():
            units.append(token)
        elif _is_cjk(token) or not units or units[-1].isspace() or _is_cjk(units[-1][-1]):
            units.append(token)
        else:
            units[-1] += token
    glued: list[str] = []
    for unit in units:
        if glued and (unit[0] in _CLOSING or glued[-1][-1] in _OPENING) and not unit.isspace():
            glued[-1] += unit
        else:
            glued.append(unit)
    return glued


def wrap(text: str, width: int) -> list[str]:
    """`text` as lines no wider than `width` cells (a single unit wider than that stays whole)."""
    lines: list[str] = []
    for source in text.split("\n"):
        if source.startswith("    ") or cell_len(source) <= width:
            lines.append(source)
            continue
        current = ""
        for unit in _units(source):
            if unit.isspace():
                if current:
                    current += " "
                continue
            if current and cell_len(current + unit) > width:
                lines.append(current.rstrip())
                current = unit
            else:
                current += unit
        lines.append(current.rstrip())
    return lines


def spans(line: str, width: int) -> list[tuple[int, int]]:
    """Where `wrap` breaks one line of `text`, as (start, end) offsets into it: a renderer that
    keeps styles (CJKText) cuts its Text there. Spaces inside a line are kept as they are, and a
    break drops the spaces it falls on."""
    if cell_len(line) <= width:
        return [(0, len(line))]
    found: list[tuple[int, int]] = []
    start = end = -1
    position = 0
    for unit in _units(line):
        begin, position = position, position + len(unit)
        if unit.isspace() and start >= 0:
            continue
        if start < 0:
            start, end = begin, position  # the first line keeps its indentation
        elif cell_len(line[start:position]) > width:
            found.append((start, end))
            start, end = begin, position
        else:
            end = position
    if start >= 0:
        found.append((start, end))
    return found


def has_cjk(text: str) -> bool:
    return any(_is_cjk(char) for char in text)


class CJKText:
    """A Rich Text (markup already read: its styles kept) wrapped as `wrap` wraps: between any
    two CJK characters, at spaces elsewhere, never at a space inside Chinese text alone."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        for part in self.text.split("\n", allow_blank=True):
            for start, end in spans(part.plain, max(options.max_width, 8)):
                line = part[start:end]
                line.overflow, line.no_wrap = "fold", False
                yield line


class Paragraph:
    """A Rich renderable: `text` in `style`, wrapped to the space it is given.

    A `prefix` (such as "  A) ") starts the first line in `prefix_style`; the lines after it are
    indented to match.
    """

    def __init__(self, text: str, style: str = "", *, prefix: str = "", prefix_style: str = "") -> None:
        self.text, self.style, self.prefix, self.prefix_style = text, style, prefix, prefix_style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        indent = cell_len(self.prefix)
        for index, line in enumerate(wrap(self.text, max(options.max_width - indent, 8))):
            text = Text(self.prefix if index == 0 else " " * indent, style=self.prefix_style, overflow="fold")
            text.append(line, style=self.style)
            yield text


def for_prompt(text: str, width: int, room: int = 8) -> str:
    """`text` broken into lines for a prompt that a terminal of `width` columns shows as it is
    (click's confirm), leaving `room` on the last line for what follows it (" [y/N]: ")."""
    lines = wrap(text, max(width, 16))
    if len(lines) > 0 and cell_len(lines[-1]) + room > width:
        lines[-1:] = wrap(lines[-1], max(width - room, 8))
    return "\n".join(lines)
