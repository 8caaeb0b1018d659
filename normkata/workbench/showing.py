"""The reference solution as `normkata solution` and watch's `s` show it: one rendering for both.

No line of code is ever cut: in a terminal a line wider than the screen wraps (at a space where
it can) under its own number; written to a pipe or a file, the reference is the file itself, so
`normkata solution rmsnorm --yes > ref.py` runs, and the words around it become comments.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from normkata.i18n import t

if TYPE_CHECKING:
    from rich.console import Console

    from normkata.content.katas import Kata
    from normkata.workbench.workflow import Workbench


def show_solution(console: Console, bench: Workbench, kata: Kata, lang: str, mine: Path | None = None) -> None:
    """The reference under a heading; after a pass, the learner's file (`mine`, else the
    workspace's) beside it as a diff."""
    from rich.syntax import Syntax

    reference = kata.solution.read_text(encoding="utf-8")
    heading = t("solution.heading", lang, kata=kata.id, title=kata.title.in_(lang))
    mine = mine or bench.file(kata)
    diff = solution_diff(mine, reference, lang) if bench.passed(kata) and mine.is_file() else None
    if not console.is_terminal:
        _print_plain(console, heading, reference, mine, diff, lang)
        return
    from rich.markup import escape

    console.rule(f"[heading]{escape(heading)}[/]")
    console.print(Syntax(reference, "python", line_numbers=True, word_wrap=True))
    if diff is None:
        return
    console.print()
    console.print(f"[heading]{escape(t('solution.diff', lang, path=mine))}[/]", soft_wrap=True)
    if not diff:
        console.print(t("solution.same", lang))
        return
    console.print(Syntax("\n".join(diff), "diff", word_wrap=True))


def _print_plain(console: Console, heading: str, reference: str, mine: Path, diff: list[str] | None, lang: str) -> None:
    """For a pipe or a file: the reference as it is, every other line a Python comment."""
    out = [f"# {heading}", reference.rstrip("\n")]
    if diff is not None:
        out += ["", f"# {t('solution.diff', lang, path=mine)}"]
        out += [f"# {line}" for line in diff] if diff else [f"# {t('solution.same', lang)}"]
    console.out("\n".join(out), highlight=False)


def solution_diff(mine: Path, reference: str, lang: str) -> list[str] | None:
    """Your passing file against the reference, as a unified diff: what they did differently.
    None when your file cannot be read (a link, say): no diff is shown."""
    import difflib

    from normkata.errors import InputError
    from normkata.workbench import files

    try:
        yours = files.read(mine, lang)  # never through a link
    except (OSError, InputError):
        return None
    return list(
        difflib.unified_diff(
            yours.splitlines(), reference.splitlines(), fromfile=f"yours: {mine}", tofile="reference", lineterm=""
        )
    )
