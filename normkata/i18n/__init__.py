"""Interface strings in English and Chinese, and how the language is chosen.

One voice: every pair of strings in code is a `Text(en, zh)`. The interface strings live in
catalogs, one per wing (`normkata/i18n/catalogs/<wing>.py`: `CATALOG = catalog(__name__,
{key: Text(...)})`); `t(key, lang, **fields)` looks a key up in all of them at once. A key two
catalogs declare is an error when the second is imported (`DuplicateKey`).

The language is an argument: commands resolve it (`resolve_lang`, ui/options.py) and pass it
down; nothing below them asks the command line for it.
"""

from __future__ import annotations

import os

from normkata.i18n.text import _CATALOGS, Catalogs, DuplicateKey, Text, catalog

__all__ = [
    "LANGS",
    "Catalogs",
    "DuplicateKey",
    "Text",
    "catalog",
    "default_is_zh",
    "has",
    "resolve_lang",
    "strings",
    "t",
    "with_lang",
    "with_lang_flags",
]

LANGS = ("en", "zh")


_loaded = False


def strings() -> dict[str, Text]:
    """Every catalog's entries, by key (the catalogs are imported at the first call)."""
    global _loaded
    if not _loaded:
        _import_catalogs()
        _loaded = True
    return _CATALOGS.entries


def _import_catalogs() -> None:
    """Import each wing's catalog (normkata/i18n/catalogs/<wing>.py); each adds itself (`catalog`)
    as it is imported. They stand inside this package, below it: plain data on `text`."""
    from normkata.i18n.catalogs import (  # noqa: F401
        advice,
        agent,
        classroom,
        content,
        files,
        grading,
        labs,
        notebook,
        practice,
        record,
        ui,
        workbench,
    )


def resolve_lang(option: str | None = None) -> str:
    """--lang, else NORMKATA_LANG, else the locale; English when nothing says Chinese."""
    for candidate in (option, os.environ.get("NORMKATA_LANG")):
        if candidate:
            return _normalise(candidate)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    import locale

    code = locale.getlocale()[0] or ""
    return "zh" if code.lower().startswith("zh") else "en"


def _normalise(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("zh"):
        return "zh"
    if value.startswith("en"):
        return "en"
    from normkata.errors import InputError

    raise InputError(f"Unknown language {value!r}: use en or zh.")


def has(key: str) -> bool:
    return key in strings()


def t(key: str, lang: str, /, **fields: object) -> str:
    """The interface string `key` in `lang`, formatted with `fields`."""
    text = strings()[key].format(lang, **fields)
    return with_lang_flags(text) if lang == "zh" and "`normkata " in text else text


def default_is_zh() -> bool:
    """Whether a bare command would answer in Chinese (NORMKATA_LANG, then the locale). An
    unknown NORMKATA_LANG says no: options.py warns about it once, and --lang still decides."""
    from normkata.errors import InputError

    try:
        return resolve_lang(None) == "zh"
    except InputError:
        return False


def with_lang(command: str, lang: str) -> str:
    """`command` with `--lang zh` when the learner works in Chinese but a bare command would
    not: NORMKATA_LANG (or the locale) does not already say Chinese."""
    if lang != "zh" or default_is_zh() or not command.startswith("normkata ") or "--lang" in command:
        return command
    return f"{command} --lang zh"


def with_lang_flags(text: str) -> str:
    """Each `normkata ...` command quoted in a Chinese text, with `--lang zh` added when the
    learner's default language (NORMKATA_LANG, then the locale) is not Chinese: typed as
    shown, the command then answers in the language the suggestion was read in."""
    import re

    if default_is_zh():
        return text

    def add(match: re.Match[str]) -> str:
        command = match.group(1)
        return match.group(0) if "--lang" in command else f"`{command} --lang zh`"

    return re.sub(r"`(normkata [^`]*)`", add, text)
