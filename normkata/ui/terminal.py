"""The terminal: one Rich theme, the console, and reading a line from the learner."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console

#: Semantic style names; colours live here only.
THEME = {
    "heading": "bold",
    "muted": "dim",
    "quiz.meta": "dim cyan",
    "quiz.prompt": "bold",
    "quiz.choice": "cyan",
    "quiz.ask": "bold cyan",
    "quiz.correct": "bold green",
    "quiz.wrong": "bold red",
    "quiz.explain": "default",
    "card.points": "yellow",
    "warn": "bold yellow",
    "kata.pass": "bold green",
    "kata.fail": "bold red",
    "next": "bold magenta",
}


def make_console(*, quiet: bool = False, stderr: bool = False) -> Console:
    """The console every command prints with: a line of Chinese text wraps between characters
    (ui/paragraph.py), never at a space inside it, as Rich alone would."""
    from rich.console import Console
    from rich.theme import Theme

    class _Console(Console):
        def print(self, *objects: Any, **options: Any) -> None:
            objects = tuple(unquoted(o) if isinstance(o, str) else o for o in objects)
            if objects and all(isinstance(o, str) for o in objects) and not _shaped(options):
                from normkata.ui.paragraph import CJKText, has_cjk

                joined = str(options.get("sep", " ")).join(objects)
                if has_cjk(joined):
                    text = self.render_str(
                        joined,
                        markup=options.get("markup"),
                        emoji=options.get("emoji"),
                        highlight=options.get("highlight"),
                    )
                    kept = {k: v for k, v in options.items() if k in _PASSED_ON}
                    super().print(CJKText(text), **kept)
                    return
            super().print(*objects, **options)

    return _Console(theme=Theme(THEME), quiet=quiet, stderr=stderr, highlight=False)


#: The options of a print that still apply to wrapped Chinese text.
_PASSED_ON = ("style", "end", "width", "crop", "new_line_start")


#: A command quoted in a text (`normkata review`, `pip install "x"`): the data marks it so (the
#: MCP door shows Markdown, `with_lang_flags` finds it); a terminal shows it without the quotes.
_QUOTED = re.compile(r"`((?:normkata|pip) [^`]*)`")


def unquoted(text: str) -> str:
    """`text` as a terminal shows it: a quoted command without its backticks."""
    return _QUOTED.sub(r"\1", text) if "`" in text else text


def _shaped(options: dict[str, Any]) -> bool:
    """A print that asks for a shape of its own (soft wrap, no wrap, an overflow, a justification)."""
    return any(options.get(key) for key in ("soft_wrap", "no_wrap", "overflow", "justify"))


#: Columns left after a prompt's last line for what the learner types (a key, a number, a word).
_ROOM = 8


class Prompter:
    """Reads one answer at a time from a terminal, or one line at a time from a pipe.

    Piped answers are echoed after the prompt so that a transcript reads like a session.
    `ask` returns None at end of input; Ctrl-C propagates as KeyboardInterrupt.
    """

    def __init__(self, console: Console, lang: str = "en") -> None:
        self.console = console
        from normkata.i18n import t

        # Chinese ends a prompt with a full-width colon, which carries its own spacing: the
        # colon is styled with the prompt, the space after it is not.
        end = t("prompt.end", lang)
        self.colon = end.rstrip()
        self.space = end[len(self.colon) :]
        self.stdin: TextIO | None = sys.stdin
        self.interactive = _isatty(self.stdin) and _isatty(sys.stdout)
        self._ahead: str | None = None  # a piped line read by has_more() and not yet answered

    def ask(self, prompt: str) -> str | None:
        return self.read(self._label(prompt))

    def _label(self, prompt: str) -> str:
        """The prompt as the markup of an input label, its colon styled with it. A prompt wider
        than the terminal is broken at words (CJK-aware) before it is shown: the terminal alone
        would break it anywhere ("4 Easy (7" / "days):"); the last line stays the label, with
        room after it for the answer."""
        from rich.cells import cell_len

        width = self.console.width
        if cell_len(prompt + self.colon + self.space) + _ROOM <= width:
            return f"[quiz.ask]{prompt}{self.colon}[/]{self.space}"
        from normkata.ui.paragraph import wrap

        lines = wrap(prompt + self.colon, max(width - _ROOM, 16))
        for line in lines[:-1]:
            self.console.print(f"[quiz.ask]{line}[/]", soft_wrap=True)
        return f"[quiz.ask]{lines[-1]}[/]{self.space}"

    def has_more(self) -> bool:
        """Whether input can still come; a pipe is read one line ahead to know, a terminal always can."""
        if self.interactive:
            return True
        if self._ahead is None and self.stdin is not None:
            self._ahead = self.stdin.readline()
        return bool(self._ahead)

    def read(self, label: str) -> str | None:
        """One line after `label` (Rich markup); None at end of input."""
        if self.interactive:
            try:
                return self.console.input(label)
            except EOFError:
                self.console.print()
                return None
        if self.stdin is None:  # stdin closed (`<&-`): there is nothing to read
            return None
        line = self._ahead if self._ahead is not None else self.stdin.readline()
        self._ahead = None
        if not line:
            return None
        answer = line.rstrip("\r\n")
        from rich.markup import escape

        self.console.print(label + escape(answer))
        return answer

    def key(self, prompt: str) -> str | None:
        """One key press in a terminal (no Enter needed), echoed; a line from a pipe. None at
        end of input (Ctrl-D); Ctrl-C propagates as KeyboardInterrupt."""
        if not self.interactive or self.stdin is None:
            return self.ask(prompt)
        import os

        try:
            import termios
            import tty
        except ImportError:  # Windows: a line, as before
            return self.ask(prompt)
        fd = self.stdin.fileno()
        self.console.print(self._label(prompt), end="")
        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)  # one key at a time; Ctrl-C still raises
            raw = os.read(fd, 8)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        text = raw.decode("utf-8", "replace")
        if not text or text.startswith("\x04"):
            self.console.print()
            return None
        from rich.markup import escape

        shown = text.strip() or ""
        self.console.print(escape(shown))
        return shown


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False
