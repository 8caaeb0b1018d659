"""Where normkata keeps state, where the learner works, and where its content lives."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def state_dir() -> Path:
    """NORMKATA_HOME, else the platform's user data directory."""
    env = os.environ.get("NORMKATA_HOME")
    if env:
        return _home_found(Path(env).expanduser(), "NORMKATA_HOME")
    import platformdirs

    return _home_found(Path(platformdirs.user_data_dir("normkata", appauthor=False)), "NORMKATA_HOME")


def _home_found(path: Path, variable: str) -> Path:
    """`path`, unless the home folder could not be found and "~" was left in it.

    With HOME unset and no password entry, "~" stays as it is: progress would silently land
    in whatever folder the command ran from.
    """
    if str(path).startswith("~"):
        from normkata.errors import InputError

        raise InputError(f"Cannot find your home folder (HOME is not set): set {variable} to a folder.")
    return path


def database_path() -> Path:
    return state_dir() / "normkata.db"


def workspace_dir(option: str | None = None) -> Path:
    """--workspace, else NORMKATA_WORKSPACE, else ~/normkata-workspace."""
    chosen = option or os.environ.get("NORMKATA_WORKSPACE")
    if chosen:
        return _home_found(Path(chosen).expanduser(), "NORMKATA_WORKSPACE")
    return _home_found(Path("~/normkata-workspace").expanduser(), "NORMKATA_WORKSPACE")


def content_root() -> Path:
    """The folder holding quizzes/, katas/ and solutions/.

    An installed wheel carries them in normkata/_content; a source checkout has them at the
    repository root, beside the package.
    """
    bundled = _PACKAGE_DIR / "_content"
    if (bundled / "quizzes").is_dir():
        return bundled
    return _PACKAGE_DIR.parent


def quizzes_dir() -> Path:
    """NORMKATA_QUIZZES (an author's own bank), else the bundled quizzes/."""
    env = os.environ.get("NORMKATA_QUIZZES")
    return Path(env).expanduser() if env else content_root() / "quizzes"


def katas_dir() -> Path:
    """NORMKATA_KATAS (an author's own katas, `solutions/` beside it), else the bundled katas/."""
    env = os.environ.get("NORMKATA_KATAS")
    return Path(env).expanduser() if env else content_root() / "katas"


def solutions_dir() -> Path:
    """The reference solutions: `solutions/` beside the katas, as in a checkout and in the wheel."""
    return katas_dir().parent / "solutions"
