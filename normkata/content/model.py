"""The content model: quiz questions and interview cards, as validated, immutable objects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from normkata.i18n.text import Text

QUESTION_TYPES = ("single", "multiple", "true_false", "numeric", "order")
DIFFICULTIES = ("easy", "medium", "hard")
#: The five source documents the bank was written from (described in docs/sources.md), by
#: their number, with the title an item shows; "beyond" marks facts that go further.
SOURCES: dict[str, Text] = {
    "000": Text("Normalization code walkthrough (MiniMind)", "Normalization 代码导读（MiniMind）"),
    "001": Text("Normalization: a teaching document", "Normalization（归一化）教学文档"),
    "002": Text("Normalization techniques, with interview questions", "归一化技术（含面试问答）"),
    "003": Text("The Pre-Norm Transformer block and RMSNorm", "Pre-Norm Transformer Block 与 RMSNorm"),
    "004": Text("Normalization notes: LayerNorm and BatchNorm", "Normalization 笔记：LayerNorm 与 BatchNorm"),
    "beyond": Text("beyond the source documents", "超出源文档的补充内容"),
}

#: How precisely a numeric answer is asked for: ("exact", 0), ("sig", n) significant digits
#: or ("decimals", n) decimal places.
Precision = tuple[str, int]


@dataclass(frozen=True)
class Question:
    id: str
    type: str
    topic: str
    difficulty: str
    prompt: Text
    explanation: Text
    source: str
    #: Letter, letters, bool or number depending on `type` (see normkata.practice.answers).
    answer: object
    choices: tuple[Text, ...] = ()
    tolerance: float = 0.0
    precision: Precision | None = None
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
    #: A list in both languages: one Text per item, the two languages' lists of equal length.
    key_points: tuple[Text, ...]
    answer: Text
    follow_ups: tuple[Text, ...]
    source: str
    tags: tuple[str, ...] = ()
    file: str = ""
    line: int = 0
    #: The key points of each follow-up, in the follow-ups' order: what a debrief compares a
    #: follow-up's answer with (last, so that positional construction stays as it was).
    follow_up_points: tuple[tuple[Text, ...], ...] = ()

    def follow_up_key_points(self, index: int, lang: str) -> tuple[str, ...]:
        """The key points of follow-up `index`; none for a card built without them."""
        points = self.follow_up_points[index] if index < len(self.follow_up_points) else ()
        return tuple(point.in_(lang) for point in points)


@dataclass(frozen=True)
class Topic:
    id: str
    title: Text
    file: str
    #: Its place in the order of study (normkata.content.study); None: after every placed topic.
    order: int | None = None
    #: The topics it builds on.
    requires: tuple[str, ...] = ()
    #: Whether a first, diagnostic quiz spreads over it.
    core: bool = False
    #: The file's lines of `order`, `requires` and `core` (where the study order's checks point).
    lines: tuple[int, int, int] = (1, 1, 1)


@dataclass(frozen=True)
class Message:
    """What a content check says, worded when shown: a key of i18n/catalogs/content.py (`check.*`)
    and its fields (names, values and paths, shown as they are)."""

    key: str
    fields: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @classmethod
    def of(cls, key: str, /, **fields: Any) -> Message:
        return cls(key, fields)

    def in_(self, lang: str) -> str:
        from normkata.i18n import t

        return t(self.key, lang, **self.fields)

    def __str__(self) -> str:
        return self.in_("en")


@dataclass(frozen=True)
class ContentIssue:
    """One problem in a content file, shown as `file:line: field: message` (`text(lang)`;
    `str()` is the English)."""

    file: str
    line: int
    field: str
    said: Message

    #: A typography problem (stray space, half-width punctuation): fixed at load, so the bank
    #: still loads, but `normkata content check` reports it.
    style: bool = False

    @property
    def message(self) -> str:
        """The message in English."""
        return self.said.in_("en")

    def text(self, lang: str) -> str:
        where, message = f"{self.file}:{self.line}", self.said.in_(lang)
        return f"{where}: {self.field}: {message}" if self.field else f"{where}: {message}"

    def __str__(self) -> str:
        return self.text("en")


def letter(index: int) -> str:
    return chr(ord("A") + index)


@dataclass
class Bank:
    """Every topic, question and card of a bank folder, and the files they came from."""

    topics: dict[str, Topic] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def question(self, item_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == item_id), None)

    def card(self, item_id: str) -> Card | None:
        return next((c for c in self.cards if c.id == item_id), None)

    def topic_title(self, topic: str, lang: str) -> str:
        return self.topics[topic].title.in_(lang) if topic in self.topics else topic
