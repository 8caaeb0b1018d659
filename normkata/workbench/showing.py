"""The reference solution as `normkata solution` and watch's `s` show it: one rendering for both."""

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
    console.rule(f"[heading]{t('solution.heading', lang, kata=kata.id, title=kata.title.in_(lang))}[/]")
    console.print(Syntax(reference, "python", line_numbers=True))
    mine = mine or bench.file(kata)
    if bench.passed(kata) and mine.is_file():
        _show_diff(console, mine, reference, lang)


def _show_diff(console: Console, mine: Path, reference: str, lang: str) -> None:
    """Your passing file beside the reference, as a unified diff: what they did differently."""
    import difflib

    from rich.markup import escape
    from rich.syntax import Syntax

    from normkata.errors import InputError
    from normkata.workbench import files

    try:
        yours = files.read(mine, lang)  # never through a link
    except (OSError, InputError):
        return
    diff = list(
        difflib.unified_diff(
            yours.splitlines(), reference.splitlines(), fromfile=f"yours: {mine}", tofile="reference", lineterm=""
        )
    )
    console.print()
    console.print(f"[heading]{escape(t('solution.diff', lang, path=mine))}[/]", soft_wrap=True)
    if not diff:
        console.print(t("solution.same", lang))
        return
    console.print(Syntax("\n".join(diff), "diff"))
