"""What a magic shows: printed as the terminal prints it (the same renderers, theme and words),
kept as text/html for notebooks and text/plain for consoles.

One rendering, two forms: Rich records what is printed and exports it, the HTML with its styles
inline and every text escaped (a failing case's message or a file name is the learner's text).
"""

from __future__ import annotations

from io import StringIO
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

#: Columns a page is laid out in: what `grade` prints in a wide terminal.
WIDTH = 100
#: A notebook output's block: the font and spacing Rich's own notebook output uses, wrapped lines.
HTML_BLOCK = (
    '<pre class="normkata" style="white-space:pre-wrap;overflow-x:auto;line-height:normal;'
    "font-family:Menlo,'DejaVu Sans Mono',consolas,'Courier New',monospace\">{code}</pre>"
)


class Page:
    """Rich renderables printed one after another; `bundle()` is the display's MIME bundle."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.theme import Theme

        from normkata.ui.terminal import THEME

        self.console: Console = Console(
            file=StringIO(),
            record=True,
            width=WIDTH,
            theme=Theme(THEME),
            color_system="truecolor",
            force_terminal=True,
            force_jupyter=False,
            highlight=False,
        )

    def print(self, *things: Any, **options: Any) -> None:
        self.console.print(*things, **options)

    def line(self, markup: str) -> None:
        """One line of markup, never broken inside (a path stays one word to copy): the notebook
        wraps it where its window ends, a console where the terminal's does."""
        self.console.print(markup, soft_wrap=True)

    def text(self) -> str:
        return self.console.export_text(clear=False).rstrip() + "\n"

    def html(self) -> str:
        return self.console.export_html(clear=False, inline_styles=True, code_format=HTML_BLOCK)

    def bundle(self) -> dict[str, str]:
        """{"text/plain": ..., "text/html": ...}: a notebook shows the HTML, a console the text."""
        return {"text/plain": self.text(), "text/html": self.html()}
