"""IPython's side of the notebook door: the magics `%load_ext normkata` registers, their options,
and their output as display data (normkata.notebook.door does the work).

Bad input and refusals (an unknown kata, the solution before a pass, a link where the kata file
should be) are one line: IPython's UsageError, shown without a traceback. A failing grade is no
error: the cell's output is its report.
"""

from __future__ import annotations

import argparse
import atexit
import shlex
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class

from normkata.errors import InputError
from normkata.i18n import t
from normkata.notebook.door import Notebook
from normkata.notebook.page import Page

R = TypeVar("R")

#: The plan's minutes: one sitting of at most a day.
MAX_MINUTES = 24 * 60


class _Parser(argparse.ArgumentParser):
    """A magic's options: a mistake is one line naming the magic, never an exit of the kernel."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog=prog, add_help=False, allow_abbrev=False)

    def error(self, message: str) -> NoReturn:
        raise InputError(t("notebook.usage.args", _lang_in_env(), magic=self.prog, why=message))

    def read(self, line: str) -> argparse.Namespace:
        try:
            words = shlex.split(line)
        except ValueError as exc:  # an unclosed quote
            self.error(str(exc))
        return self.parse_args(words)


def _seed(value: str) -> int:
    from normkata.record.values import INT64_MAX  # the largest seed the record keeps

    try:
        seed = int(value)
    except ValueError:
        seed = -1
    if not 0 <= seed <= INT64_MAX:
        raise argparse.ArgumentTypeError(t("notebook.usage.seed", _lang_in_env(), value=value, high=INT64_MAX))
    return seed


def _minutes(value: str) -> int:
    try:
        minutes = int(value)
    except ValueError:
        minutes = 0
    if not 1 <= minutes <= MAX_MINUTES:
        raise argparse.ArgumentTypeError(t("notebook.usage.minutes", _lang_in_env(), value=value, high=MAX_MINUTES))
    return minutes


def _lang_in_env() -> str:
    """The language of a usage error (said before --lang is read): the learner's, else English."""
    from normkata.i18n import resolve_lang

    try:
        return resolve_lang(None)
    except InputError:
        return "en"


def _parsers() -> dict[str, _Parser]:
    grade = _Parser("%%kata")
    grade.add_argument("name", nargs="?")
    grade.add_argument("--seed", type=_seed, default=None)
    grade.add_argument("-k", dest="select", action="append", default=[], metavar="PATTERN")
    grade.add_argument("--all", dest="every", action="store_true")
    grade.add_argument("--lang", default=None)
    kata = _Parser("%kata")
    kata.add_argument("name", nargs="?")
    kata.add_argument("--lang", default=None)
    hint = _Parser("%kata_hint")
    hint.add_argument("name", nargs="?")
    hint.add_argument("--lang", default=None)
    solution = _Parser("%kata_solution")
    solution.add_argument("name", nargs="?")
    solution.add_argument("--give-up", dest="give_up", action="store_true")
    solution.add_argument("--lang", default=None)
    advice = _Parser("%normkata")
    advice.add_argument("what", nargs="?", default="")
    advice.add_argument("--minutes", type=_minutes, default=None)
    advice.add_argument("--lang", default=None)
    return {"grade": grade, "kata": kata, "hint": hint, "solution": solution, "normkata": advice}


def one_line(call: Callable[[], R]) -> R:
    """`call`, with what the learner should read instead of a traceback raised as a UsageError:
    bad input, a grader without a verdict, the progress database failing, a file-system error."""
    import sys

    try:
        return call()
    except InputError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # looked up, not imported: an error of a module never loaded never happened
        grader_errors = sys.modules.get("normkata.grading.errors")
        record = sys.modules.get("normkata.record.store")
        if grader_errors is not None and isinstance(exc, grader_errors.GraderError):
            raise UsageError(str(exc)) from None
        if record is not None and record.is_database_error(exc):
            raise UsageError(str(record.explain(exc, lang=_lang_in_env()))) from None
        if isinstance(exc, OSError):
            where = f"{exc.filename}: " if exc.filename else ""
            raise UsageError(f"{where}{exc.strerror or exc}") from None
        raise


@magics_class
class KataMagics(Magics):
    """`%%kata`, `%kata`, `%kata_hint`, `%kata_solution` and `%normkata` over one `Notebook`."""

    def __init__(self, shell: Any, door: Notebook) -> None:
        super().__init__(shell)
        self.door = door
        self.parsers = _parsers()

    @line_cell_magic
    def kata(self, line: str, cell: str | None = None) -> None:
        """Grade a kata, or start one.

        %%kata NAME [--seed S] [-k PATTERN] [--all] [--lang en|zh]
            The cell is your file for kata NAME: saved as the workspace's file (watch, hint and
            solution see it), graded by normkata's confined grader (never in this kernel) and
            recorded as `normkata grade` records it. -k: only the matching cases (not recorded);
            --all: every failing case.
        %kata [NAME] [--lang en|zh]
            NAME: its instructions, its starter written (never over your file) and a new cell
            below to grade it. No NAME: every kata and its status.
        """
        if cell is None:
            args = one_line(lambda: self.parsers["kata"].read(line))
            page, next_cell = one_line(lambda: self.door.kata(args.name, args.lang))
            _show(page)
            if next_cell is not None and self.shell is not None:
                self.shell.set_next_input(next_cell, replace=False)
            return
        args = one_line(lambda: self.parsers["grade"].read(line))
        if not args.name:
            raise UsageError(t("notebook.kata.name", _lang_in_env(), magic="%%kata"))
        graded = one_line(
            lambda: self.door.grade_cell(
                args.name,
                cell,
                seed=args.seed,
                select=tuple(args.select),
                every=args.every,
                lang=args.lang,
                say=_say,
            )
        )
        _show(graded.page)

    @line_magic
    def kata_hint(self, line: str) -> None:
        """%kata_hint [NAME] [--lang en|zh]: the next hint (the named mistake's first), counted as taken."""
        args = one_line(lambda: self.parsers["hint"].read(line))
        _show(one_line(lambda: self.door.hint(args.name, args.lang)))

    @line_magic
    def kata_solution(self, line: str) -> None:
        """%kata_solution [NAME] [--give-up] [--lang en|zh]: the reference solution once the kata
        passed; before a pass only with --give-up (recorded as giving up)."""
        args = one_line(lambda: self.parsers["solution"].read(line))
        _show(one_line(lambda: self.door.solution(args.name, give_up=args.give_up, lang=args.lang)))

    @line_magic
    def normkata(self, line: str) -> None:
        """%normkata next | plan [--minutes N] | standing  [--lang en|zh]: what to do next, a
        plan, where you stand (the notebook's magics named where it has them)."""
        args = one_line(lambda: self.parsers["normkata"].read(line))
        shown: dict[str, Callable[[], Page]] = {
            "next": lambda: self.door.next_step(args.lang),
            "plan": lambda: self.door.plan(args.minutes, args.lang),
            "standing": lambda: self.door.standing(args.lang),
        }
        if args.what not in shown:
            raise UsageError(t("notebook.usage.normkata", _lang_in_env(), what=args.what))
        _show(one_line(shown[args.what]))


def _show(page: Page) -> None:
    from IPython.display import display

    display(page.bundle(), raw=True)


def _say(text: str) -> None:
    print(text, flush=True)


# -- loading and unloading -------------------------------------------------------------------------

_LOADED: dict[int, tuple[KataMagics, Callable[[], None]]] = {}  # id(shell) -> its magics and exit hook


def load(shell: Any) -> None:
    """Register the magics on `shell`; the grading service stops when the kernel exits."""
    if id(shell) in _LOADED:
        return
    door = Notebook()
    magics = KataMagics(shell, door)
    shell.register_magics(magics)
    atexit.register(door.close)
    _LOADED[id(shell)] = (magics, door.close)


def unload(shell: Any) -> None:
    """`%unload_ext normkata`: the grading service stopped, the magics gone."""
    loaded = _LOADED.pop(id(shell), None)
    if loaded is None:
        return
    magics, close = loaded
    atexit.unregister(close)
    close()
    for kind, names in magics.magics.items():
        for name in names:
            shell.magics_manager.magics[kind].pop(name, None)
