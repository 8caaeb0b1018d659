"""Load every question-bank file of a folder into one validated Bank."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from normkata.content.model import Bank, Card, ContentIssue, Message, Question
from normkata.errors import InputError
from normkata.i18n.text import Text


def bank_files(path: Path) -> list[Path]:
    if path.exists() and not path.is_dir():  # a FIFO or a device too: its reader says what it is, unopened
        return [path]
    if not path.is_dir():
        raise InputError(f"{path}: no such file or folder")
    return sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


def load_bank_checked(path: Path) -> tuple[Bank, list[ContentIssue]]:
    """Load what is valid and return every issue found, across files too (duplicate ids)."""
    # Imported here: a cached bank (load_bank) needs neither YAML nor the schema.
    from normkata.content.schema import validate_file
    from normkata.content.yamlnodes import YamlSyntaxError, decode, load_yaml, read_yaml_bytes

    bank, issues = Bank(), []
    seen_ids: dict[str, str] = {}
    for file in bank_files(path):
        shown = _display(file)
        try:
            text = decode(read_yaml_bytes(file))  # sized first; not UTF-8, binary: an error with its line
            data = load_yaml(text)
        except YamlSyntaxError as exc:
            issues.append(ContentIssue(shown, exc.line, "", exc.said))
            continue
        except (OSError, UnicodeDecodeError) as exc:
            issues.append(ContentIssue(shown, 1, "", Message.of("check.unreadable", why=exc)))
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
                    Message.of("check.topic_twice", topic=repr(topic.id), other=other),
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
                        Message.of("check.duplicate_id", id=repr(item.id), first=seen_ids[item.id]),
                    )
                )
                continue
            seen_ids[item.id] = f"{shown}:{item.line}"
            if isinstance(item, Question):
                bank.questions.append(item)
            else:
                bank.cards.append(item)
    if bank.topics:
        issues.extend(_study_issues(path, bank))
    return bank, sorted(issues, key=lambda i: (i.file, i.line))


def _study_issues(path: Path, bank: Bank) -> list[ContentIssue]:
    """The order of study's problems. One file of a bank names prerequisites and places that other
    files hold: it is checked against the bank files beside it, and only its own problems are told."""
    from normkata.content.study_checks import check_study_order

    if path.is_dir() or not path.parent.is_dir():
        return check_study_order(bank)
    beside, _ = load_bank_checked(path.parent)
    own = {topic.file for topic in bank.topics.values()}
    whole = Bank(topics={**beside.topics, **bank.topics})
    return [issue for issue in check_study_order(whole) if issue.file in own]


#: Banks this process has loaded, by where they are cached and their cache key (the files' bytes
#: and the parsing code): a quiz asks for the bank three times (the session, the order of study,
#: the closing advice). The cache file's path is part of the key: another home has its own cache.
_LOADED: dict[tuple[Path, bytes], Bank] = {}


def load_bank(path: Path | None = None) -> Bank:
    """The bank, or an InputError naming the first problem when any file is invalid.

    A valid bank is cached (normkata.content.cache) and read back while no bank file and no
    parsing code has changed; within one process it is read once per version of its files.
    """
    from normkata.content import cache
    from normkata.paths import quizzes_dir

    folder = path or quizzes_dir()
    try:
        before = cache.key(folder, bank_files(folder))
    except OSError:
        before = None
    if before is not None:
        loaded = (cache.file_for(folder), before)
        cached = _LOADED.get(loaded) or cache.read(folder, before)
        if cached is not None:
            _LOADED[loaded] = cached
            return cached
    bank, issues = load_bank_checked(folder)
    issues = [i for i in issues if not i.style]  # typography is fixed at load; `content check` reports it
    if issues:
        more = f" (and {len(issues) - 1} more: run `normkata content check`)" if len(issues) > 1 else ""
        raise InputError(f"{issues[0]}{more}")
    if before is not None:
        try:
            unchanged = cache.key(folder, bank_files(folder)) == before
        except OSError:
            unchanged = False
        if unchanged:  # a file edited while it was parsed is not cached under the old key
            cache.write(folder, before, bank)
            _LOADED[loaded] = bank
    return bank


def _display(file: Path) -> str:
    """A path as short as it can be while still naming the file unambiguously."""
    try:
        return str(file.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(file)


def question_named(bank: Bank, item_id: str, lang: str = "en") -> Question:
    """The question called `item_id`, or an InputError naming the argument (as the door serving the
    call spells it) and close ids."""
    found = bank.question(item_id)
    if found is None:
        raise _unknown("quiz.unknown_id", item_id, [q.id for q in bank.questions], lang)
    return found


def card_named(bank: Bank, item_id: str, lang: str = "en") -> Card:
    """The interview card called `item_id`, or an InputError as `question_named` says it."""
    found = bank.card(item_id)
    if found is None:
        raise _unknown("card.unknown_id", item_id, [c.id for c in bank.cards], lang)
    return found


def _unknown(key: str, item_id: str, known: list[str], lang: str) -> InputError:
    from normkata.actions import argument
    from normkata.i18n import t
    from normkata.ui.names import did_you_mean

    return InputError(t(key, lang, arg=argument("id"), id=item_id, hint=did_you_mean(item_id, known, lang)))


def check_topic(bank: Bank, topic: str | None, lang: str = "en") -> str | None:
    """The topic id `topic` names, by its id or its title in either language (any case,
    full-width letters too; "Pre-Norm vs Post-Norm" as `progress` shows it), or an InputError
    that suggests close ids and titles."""
    if topic is None:
        return None
    from normkata.ui import names

    found = names.find(topic, bank.topics)
    if found is None:
        titles = {title: tid for tid, info in bank.topics.items() for title in _title_forms(info.title)}
        title = names.find(topic, titles)
        found = titles[title] if title is not None else None
    if found is None:
        from normkata.i18n import t

        ids = {names.fold(tid) for tid in bank.topics}
        shown = [info.title.in_(lang) for info in bank.topics.values()]
        known = [*bank.topics, *(title for title in shown if names.fold(title) not in ids)]
        hint = names.did_you_mean(topic, known, lang)
        from normkata.actions import argument

        known_ids = ", ".join(sorted(bank.topics))
        raise InputError(t("topic.unknown", lang, arg=argument("topic"), topic=topic, hint=hint, known=known_ids))
    return found


def _title_forms(title: Text) -> list[str]:
    """A topic's titles as a learner may type them: "RMSNorm（均方根归一化）" also as "RMSNorm" and
    "均方根归一化", "Inference: fused add + RMSNorm" with or without its quotes."""
    import re

    forms = []
    for text in (title.en, title.zh):
        forms.append(text)
        forms.extend(part.strip() for part in re.split(r"[（）()]", text) if part.strip())
    return list(dict.fromkeys(forms))


def select(
    items: Iterable[Question | Card],
    *,
    topic: str | None = None,
    difficulty: str | None = None,
    count: int | None = None,
    seed: int | None = None,
) -> list:
    """Filter by topic (any case) and difficulty, then draw `count` in a random order fixed by `seed`."""
    from normkata.ui.names import fold

    wanted = None if topic is None else fold(topic)
    chosen = [
        item
        for item in items
        if (wanted is None or fold(item.topic) == wanted) and (difficulty is None or item.difficulty == difficulty)
    ]
    random.Random(seed).shuffle(chosen)
    return chosen if count is None else chosen[:count]
