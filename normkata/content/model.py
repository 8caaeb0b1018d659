"""The content model: quiz questions and interview cards, as validated, immutable objects."""

from __future__ import annotations

from dataclasses import dataclass

QUESTION_TYPES = ("single", "multiple", "true_false", "numeric", "order")
DIFFICULTIES = ("easy", "medium", "hard")
#: Source documents in ../shared/seeds, by their number, plus "beyond" for facts we added.
SOURCES = {
    "000": "MiniMind RMSNorm code walkthrough",
    "001": "Why normalize; RMSNorm; Pre-LN vs Post-LN",
    "002": "BatchNorm vs LayerNorm vs RMSNorm; interview Q1-Q4",
    "003": "Pre-Norm block; LayerNorm not BatchNorm; fp32 upcast",
    "004": "LayerNorm notes; gamma/beta; BatchNorm running statistics",
    "beyond": "beyond the source documents",
}


@dataclass(frozen=True)
class Text:
    """One text in both languages; a language-neutral text has en == zh."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class TextList:
    en: tuple[str, ...]
    zh: tuple[str, ...]

    def get(self, lang: str) -> tuple[str, ...]:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Question:
    id: str
    type: str
    topic: str
    difficulty: str
    prompt: Text
    explanation: Text
    source: str
    #: Letter, letters, bool or number depending on `type` (see normkata.quiz.answers).
    answer: object
    choices: tuple[Text, ...] = ()
    tolerance: float = 0.0
    verify: str | None = None
    tags: tuple[str, ...] = ()
    file: str = ""
    line: int = 0


@dataclass(frozen=True)
class Card:
    id: str
    topic: str
    difficulty: str
    prompt: Text
    key_points: TextList
    answer: Text
    follow_ups: TextList
    source: str
    tags: tuple[str, ...] = ()
    file: str = ""
    line: int = 0


@dataclass(frozen=True)
class Topic:
    id: str
    title: Text
    file: str


@dataclass(frozen=True)
class ContentIssue:
    """One problem in a content file, printed as `file:line: field: message`."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


def letter(index: int) -> str:
    return chr(ord("A") + index)
