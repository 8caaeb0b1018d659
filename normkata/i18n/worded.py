"""Bad input worded from the catalogs where it is shown: a message deep in the code that does not
know the reader's language carries its key and fields, and the CLI's edge (cli.py, `in_`) words
it in the language of the command (`normkata --lang zh gradebook merge ...`)."""

from __future__ import annotations

from normkata.errors import InputError
from normkata.i18n import t


class Phrase:
    """A catalog key with its fields, worded when read; a field may be a Phrase of its own (the
    reason inside a refusal), worded in the same language."""

    def __init__(self, key: str, /, **fields: object) -> None:
        self.key, self.fields = key, fields

    def in_(self, lang: str) -> str:
        filled = {name: value.in_(lang) if isinstance(value, Phrase) else value for name, value in self.fields.items()}
        return t(self.key, lang, **filled)

    def __str__(self) -> str:
        return self.in_("en")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Phrase) and (self.key, self.fields) == (other.key, other.fields)

    def __hash__(self) -> int:
        return hash(self.key)


class Worded(InputError):
    """One line of bad input, exit code 2, in the reader's language: `Worded(key, **fields)`."""

    def __init__(self, key: str, /, **fields: object) -> None:
        self.phrase = Phrase(key, **fields)
        super().__init__(str(self.phrase))

    def in_(self, lang: str) -> str:
        return self.phrase.in_(lang)
