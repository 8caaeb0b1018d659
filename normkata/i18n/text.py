"""One string in two languages (`Text`), and the one lookup every catalog joins (`catalog`).

The bottom of the i18n package: the catalogs (normkata/i18n/catalogs/) import only this, and
normkata.i18n gathers them and looks keys up.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    """One string in English and Chinese: a catalog's entry, a pair written where it is used, or a
    text of the question bank or a kata (a list in both languages is a tuple of Text, one per item).
    The package's one bilingual type: `in_(lang)` is the one way to pick the language."""

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


def catalog(owner: str, entries: dict[str, Text]) -> dict[str, Text]:
    """Declare a catalog: `owner`'s (a module's `__name__`) entries join the one lookup."""
    _CATALOGS.add(owner, entries)
    return entries
