"""Load every question-bank file of a folder into one validated Bank."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from normkata.content.model import Card, ContentIssue, Question, Topic
from normkata.content.schema import validate_file
from normkata.content.yamlnodes import YamlSyntaxError, decode, load_yaml
from normkata.errors import InputError


@dataclass
class Bank:
    topics: dict[str, Topic] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def question(self, item_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == item_id), None)

    def card(self, item_id: str) -> Card | None:
        return next((c for c in self.cards if c.id == item_id), None)

    def topic_title(self, topic: str, lang: str) -> str:
        return self.topics[topic].title.get(lang) if topic in self.topics else topic


def bank_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError(f"{path}: no such file or folder")
    return sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def load_bank_checked(path: Path) -> tuple[Bank, list[ContentIssue]]:
    """Load what is valid and return every issue found, across files too (duplicate ids)."""
    bank, issues = Bank(), []
    seen_ids: dict[str, str] = {}
    for file in bank_files(path):
        shown = _display(file)
        try:
            text = decode(file.read_bytes())  # not UTF-8, binary: an error with its line
            data = load_yaml(text)
        except YamlSyntaxError as exc:
            issues.append(ContentIssue(shown, exc.line, "", exc.message))
            continue
        except (OSError, UnicodeDecodeError) as exc:
            issues.append(ContentIssue(shown, 1, "", f"cannot read: {exc}"))
            continue
        topic, questions, cards, file_issues = validate_file(data, shown, text.splitlines())
        issues.extend(file_issues)
        bank.files.append(file)
        if topic is None:
            continue
        if topic.id in bank.topics:
            other = bank.topics[topic.id].file
            issues.append(
                ContentIssue(
                    shown,
                    data.key_lines.get("topic", 1),
                    "topic",
                    f"topic {topic.id!r} is already defined in {other}",
                )
            )
            continue
        bank.topics[topic.id] = topic
        items: list[Question | Card] = [*questions, *cards]
        for item in items:
            if item.id in seen_ids:
                issues.append(
                    ContentIssue(
                        shown,
                        item.line,
                        "id",
                        f"duplicate id {item.id!r} (first used in {seen_ids[item.id]})",
                    )
                )
                continue
            seen_ids[item.id] = f"{shown}:{item.line}"
            if isinstance(item, Question):
                bank.questions.append(item)
            else:
                bank.cards.append(item)
    return bank, sorted(issues, key=lambda i: (i.file, i.line))


def load_bank(path: Path | None = None) -> Bank:
    """The bank, or an InputError naming the first problem when any file is invalid."""
    from normkata.paths import quizzes_dir

    bank, issues = load_bank_checked(path or quizzes_dir())
    issues = [i for i in issues if not i.style]  # typography is fixed at load; `content check` reports it
    if issues:
        more = f" (and {len(issues) - 1} more: run `normkata content check`)" if len(issues) > 1 else ""
        raise InputError(f"{issues[0]}{more}")
    return bank


def _display(file: Path) -> str:
    """A path as short as it can be while still naming the file unambiguously."""
    try:
        return str(file.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(file)


def check_topic(bank: Bank, topic: str | None) -> None:
    if topic is not None and topic not in bank.topics:
        known = ", ".join(sorted(bank.topics))
        raise InputError(f"--topic: unknown topic {topic!r} (known: {known})")


def select(
    items: Iterable[Question | Card],
    *,
    topic: str | None = None,
    difficulty: str | None = None,
    count: int | None = None,
    seed: int | None = None,
) -> list:
    """Filter by topic and difficulty, then draw `count` in a random order fixed by `seed`."""
    chosen = [
        item
        for item in items
        if (topic is None or item.topic == topic) and (difficulty is None or item.difficulty == difficulty)
    ]
    random.Random(seed).shuffle(chosen)
    return chosen if count is None else chosen[:count]
