"""What a next step asks the learner to do, as data: an action and its arguments.

The advisor, the dated plan and the notes after a grade say *what* to do (`Action("quiz",
{"id": ...})`); each door words it in its own vocabulary: the command line as the command to
type (`command`, the one table below), the MCP server as a tool and its arguments
(normkata/agent/vocabulary.py). No step carries a sentence with a command inside.

Messages written below the doors (an unknown topic, a missing file) name an argument or suggest
an action through `argument` and `spoken`: in the words of the door that is serving the call
(`speaking`), the command line's by default.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from normkata.i18n import with_lang

#: An argument's value: text, a count, a flag, or several ids.
Value = str | int | bool | tuple[str, ...]

#: Every action a step may ask for, and how the command line spells each argument: a flag
#: ("--topic"), a positional argument (""), or a repeated flag for several values ("--id").
COMMAND_LINE: dict[str, tuple[tuple[str, str], ...]] = {
    "quiz": (("id", "--id"), ("topic", "--topic"), ("new", "--new"), ("n", "-n")),
    "interview": (("id", "--id"), ("topic", "--topic"), ("new", "--new"), ("n", "-n")),
    "review": (("kata", "--kata"), ("n", "-n")),
    "kata": (("kata", ""),),
    "grade": (("kata", ""),),
    "hint": (("kata", ""),),
    "solution": (("kata", ""),),
    "mock": (("minutes", "--minutes"),),
}


@dataclass(frozen=True)
class Action:
    """One action and its arguments, in the order the command line spells them."""

    name: str
    args: tuple[tuple[str, Value], ...] = ()

    @classmethod
    def of(cls, name: str, **args: Value | None) -> Action:
        """`name` with the arguments given (None and False are left out); an unknown name or argument is a bug."""
        spelled = COMMAND_LINE[name]
        known = {key for key, _flag in spelled}
        unknown = set(args) - known
        if unknown:
            raise ValueError(f"action {name!r} takes no argument {sorted(unknown)[0]!r}")
        kept = tuple((key, value) for key, _flag in spelled if (value := args.get(key)) not in (None, False))
        return cls(name, kept)

    def with_(self, **args: Value | None) -> Action:
        """The same action with these arguments changed."""
        return Action.of(self.name, **{**self.arguments, **args})

    @property
    def arguments(self) -> dict[str, Value]:
        return dict(self.args)

    def command(self, lang: str = "en") -> str:
        """The command a learner types at the terminal (`--lang zh` added where a bare one would not be Chinese)."""
        flags = dict(COMMAND_LINE[self.name])
        words = ["normkata", self.name]
        for key, value in self.args:
            flag = flags[key]
            values = value if isinstance(value, tuple) else (value,)
            for one in values:
                if value is True:
                    words.append(flag)
                elif flag:
                    words += [flag, str(one)]
                else:
                    words.append(str(one))
        return with_lang(" ".join(words), lang)

    def to_json(self) -> dict[str, object]:
        return {"action": self.name, "arguments": {k: list(v) if isinstance(v, tuple) else v for k, v in self.args}}


class Vocabulary(Protocol):
    """How a door names an action and an argument to the learner (or to their assistant)."""

    def action(self, action: Action, lang: str) -> str: ...

    def argument(self, name: str) -> str: ...


class CommandLine:
    """The terminal's words: `normkata quiz --id X`, `--topic`."""

    def action(self, action: Action, lang: str) -> str:
        return f"`{action.command(lang)}`"

    def argument(self, name: str) -> str:
        return OPTIONS.get(name, f"--{name}")


#: How the command line spells an argument that is not `--NAME`.
OPTIONS = {"kata": "NAME", "n": "-n"}

COMMAND_LINE_WORDS = CommandLine()
_DOOR: ContextVar[Vocabulary | None] = ContextVar("normkata_door", default=None)


@contextmanager
def speaking(vocabulary: Vocabulary) -> Iterator[None]:
    """Word what is said inside in `vocabulary`'s terms (the MCP server around each call)."""
    token = _DOOR.set(vocabulary)
    try:
        yield
    finally:
        _DOOR.reset(token)


def spoken(action: Action, lang: str) -> str:
    """`action` as the door serving this call says it."""
    return (_DOOR.get() or COMMAND_LINE_WORDS).action(action, lang)


def argument(name: str) -> str:
    """The argument `name` as the door serving this call spells it (`--file` or `file`)."""
    return (_DOOR.get() or COMMAND_LINE_WORDS).argument(name)
