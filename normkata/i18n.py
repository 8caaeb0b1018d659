"""Interface strings in English and Chinese, and how the language is chosen.

One voice: every pair of strings in code is a `Text(en, zh)`. The interface strings live in
catalogs that each wing declares (`normkata/<wing>/catalog.py`: `CATALOG = catalog(__name__,
{key: Text(...)})`); `t(key, lang, **fields)` looks a key up in all of them at once. A key two
catalogs declare is an error when the second is imported (`DuplicateKey`).

The language is an argument: commands resolve it (`resolve_lang`, ui/options.py) and pass it
down; nothing below them asks the command line for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

LANGS = ("en", "zh")


@dataclass(frozen=True)
class Text:
    """One string in English and Chinese: a catalog's entry, or a pair written where it is used."""

    en: str
    zh: str

    @classmethod
    def neutral(cls, text: str) -> Text:
        """A text the same in both languages (a name, a message that came from elsewhere)."""
        return cls(text, text)

    def in_(self, lang: str) -> str:
        """The string in `lang` (Chinese for "zh", English otherwise), unformatted."""
        return self.zh if lang == "zh" else self.en

    def format(self, lang: str, /, **fields: object) -> str:
        """The string in `lang`, its `{fields}` filled in (formatted only when fields are given)."""
        text = self.in_(lang)
        return text.format(**fields) if fields else text


class DuplicateKey(ValueError):
    """Two catalogs declare the same key."""


class Catalogs:
    """Every catalog's entries in one lookup; adding a key that is there already is an error."""

    def __init__(self) -> None:
        self.entries: dict[str, Text] = {}
        self.owners: dict[str, str] = {}

    def add(self, owner: str, entries: dict[str, Text]) -> None:
        for key, text in entries.items():  # all checked before any is added
            if key in self.entries:
                raise DuplicateKey(f"interface string {key!r} is declared by both {self.owners[key]} and {owner}")
            if not isinstance(text, Text):
                raise TypeError(f"{owner}: {key!r} is not a Text")
        self.entries.update(entries)
        self.owners.update(dict.fromkeys(entries, owner))


_CATALOGS = Catalogs()
_loaded = False


def catalog(owner: str, entries: dict[str, Text]) -> dict[str, Text]:
    """Declare a catalog: `owner`'s (a module's `__name__`) entries join the one lookup."""
    _CATALOGS.add(owner, entries)
    return entries


def strings() -> dict[str, Text]:
    """Every catalog's entries, by key (the catalogs are imported at the first call)."""
    global _loaded
    if not _loaded:
        _import_catalogs()
        _loaded = True
    return _CATALOGS.entries


def _import_catalogs() -> None:
    """Import each wing's catalog; each adds itself (`catalog`) as it is imported.

    i18n stands below every wing, yet it names their catalogs here: plain data that import
    only `Text` and `catalog` from this module. pyproject.toml's import contract lists these
    imports as its one exception (`normkata.i18n -> normkata.*.catalog`).
    """
    import normkata.advice.catalog  # noqa: F401
    import normkata.classroom.catalog  # noqa: F401
    import normkata.content.catalog  # noqa: F401
    import normkata.grading.catalog  # noqa: F401
    import normkata.labs.catalog  # noqa: F401
    import normkata.practice.catalog  # noqa: F401
    import normkata.record.catalog  # noqa: F401
    import normkata.ui.catalog  # noqa: F401
    import normkata.workbench.catalog  # noqa: F401


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

