"""Learner-derived text made safe to show: in a terminal, JSON, JUnit XML or Gradescope."""

from __future__ import annotations

import re

from normkata.files import escape_name

__all__ = ["MAX_MESSAGE", "after_call", "escape_name", "sanitize"]  # escape_name: normkata.files shows names

#: The longest message a case may carry; a flood is cut, not shown.
MAX_MESSAGE = 2000

# C0 and C1 control characters except newline and tab: escape sequences start with ESC (0x1b)
# or CSI (0x9b), and XML 1.0 forbids most of the rest.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def sanitize(text: str, limit: int = MAX_MESSAGE) -> str:
    """Control characters shown escaped (`\\x1b`), lone surrogates replaced, length capped."""
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate becomes "?"
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def after_call(message: str, call: str | None) -> str:
    """`message` without the call it starts with and the colon after it: what came back."""
    if not call or not message.startswith(call) or message[len(call) : len(call) + 1] not in (":", "："):
        return message
    return message[len(call) + 1 :].lstrip()
