"""A `%%kata` cell written to the workspace's file for its kata, so that `watch`, `hint`,
`solution` and the record see what the notebook graded.

The file is opened as every kata file is (normkata.workbench.files): never through a link, a
regular file only. A file that holds something else than this cell, the kata's starter or what
this notebook last wrote there (the learner's work from an editor, a notebook run yesterday) is
not overwritten silently: its text is kept under the workspace's history/ folder first (where
`review --kata` keeps earlier files), and the
cell's report says where.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from normkata.errors import InputError
from normkata.i18n import t

if TYPE_CHECKING:
    from normkata.content.katas import Kata

#: How many history names one second may take before giving up (a cell run in a loop).
MAX_SAME_SECOND = 100


@dataclass(frozen=True)
class Saved:
    file: Path
    written: bool  # False: the file held the cell already
    kept: Path | None = None  # where a different file's text was kept before it was replaced


def cell_text(cell: str) -> str:
    """The file a cell makes: its text, ending with one newline."""
    return cell.rstrip("\n") + "\n"


def save_cell(workspace: Path, kata: Kata, cell: str, lang: str, *, last_written: str | None = None) -> Saved:
    """Write `cell` to the workspace's file for `kata`; a different file's text is kept first."""
    from normkata.workbench import files

    target = workspace / kata.file
    text = cell_text(cell)
    if not files.existing(target, lang):  # a link, a folder or a FIFO there: one line, nothing written
        workspace.mkdir(parents=True, exist_ok=True)
        files.write(target, text, lang, replace=False)
        return Saved(target, True)
    current = files.read(target, lang)
    if current == text:
        return Saved(target, False)
    kept = None
    if current not in (last_written, kata.starter.read_text(encoding="utf-8")):
        kept = _keep(workspace, target, current, lang)
    files.write(target, text, lang, replace=True)
    return Saved(target, True, kept)


def _keep(workspace: Path, target: Path, text: str, lang: str) -> Path:
    """`text` as a new file history/<stem>.<time>.py (a suffix when that second is taken)."""
    from normkata.workbench import files
    from normkata.workbench.due import HISTORY  # the folder `review --kata` keeps earlier files in

    stamp = f"{target.stem}.{datetime.now():%Y%m%dT%H%M%S}"
    for n in range(MAX_SAME_SECOND):
        name = f"{stamp}.py" if n == 0 else f"{stamp}-{n + 1}.py"
        if (workspace / HISTORY / name).exists():
            continue
        try:
            return files.write_in_folder(workspace / HISTORY, name, text, lang)
        except FileExistsError:  # taken between the look and the write: the next name
            continue
    raise InputError(t("notebook.history.full", lang, folder=workspace / HISTORY, name=f"{stamp}.py"))
