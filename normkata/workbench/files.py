"""The workspace opened as the grader opens submissions: never through a link, regular files only.

The workspace is the learner's folder, but what stands in it may have come from anywhere (a
cloned repository, a shared folder): a kata file that is a link would have `review --kata` write
the fresh starter into whatever it points to, and keep that file's text in the record; a
`history` folder that is a link would be written into; a dangling link would have `normkata
kata` create its target. So every kata file and the history folder are opened here, without
following links (normkata.files, within the grader's size: normkata.grading.source), and anything
that is not a regular file (a folder for `history`) is refused with one line, before anything is
written. The workspace folder itself is
where the learner said it is (`--workspace`, NORMKATA_WORKSPACE), link or not.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from normkata.errors import InputError
from normkata.files import escape_name, open_folder, write_file
from normkata.grading.source import check_source, read_source
from normkata.i18n import t


def existing(path: Path, lang: str) -> bool:
    """Whether a regular file is at `path` (False: nothing is); an InputError for anything else,
    a link first of all, dangling or not."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InputError(f"{escape_name(str(path))}: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(t("workspace.link", lang, path=escape_name(str(path))))
    if not stat.S_ISREG(info.st_mode):
        check_source(path)  # says what it is instead: a FIFO, a device, a folder
    return True


def read(path: Path, lang: str) -> str:
    """A kata file's text (at most the grader's size), read without following a link."""
    existing(path, lang)
    return read_source(path).decode("utf-8", errors="replace")


def write(path: Path, text: str, lang: str, *, replace: bool) -> None:
    """Write a kata file: a new one, or with `replace` over the learner's regular file; never through a link."""
    existing(path, lang)
    write_file(path, text.encode("utf-8"), replace=replace, mode=0o644)


def write_in_folder(folder: Path, name: str, text: str, lang: str) -> Path:
    """A new file `name` in `folder` (created when absent), neither of them reached through a link."""
    try:
        os.mkdir(folder)
    except FileExistsError:
        pass
    except OSError as exc:
        raise InputError(f"{escape_name(str(folder))}: {exc.strerror}") from None
    try:
        fd = open_folder(folder)
    except OSError:  # Refused: a link, a file
        check_folder(folder, lang)
        raise InputError(t("workspace.not_folder", lang, path=escape_name(str(folder)))) from None
    try:
        write_file(name, text.encode("utf-8"), dir_fd=fd, mode=0o644)
    finally:
        os.close(fd)
    return folder / name


def check_folder(folder: Path, lang: str) -> None:
    """An InputError when something other than a folder (a link above all) stands at `folder`; nothing is written."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{escape_name(str(folder))}: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(t("workspace.link", lang, path=escape_name(str(folder))))
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(t("workspace.not_folder", lang, path=escape_name(str(folder))))
