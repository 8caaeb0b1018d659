"""The bundled bank as a whole: size, variety, and choices that do not give the answer away."""

from __future__ import annotations

from collections import Counter

import pytest

from normkata.content.bank import load_bank
from normkata.content.model import Question

BANK = load_bank()
SINGLES = [q for q in BANK.questions if q.type == "single"]


def test_size_and_variety() -> None:
    assert len(BANK.questions) >= 100
    assert len(BANK.cards) >= 30
    assert sum(q.type != "single" for q in BANK.questions) >= 25
    assert sum("spot-the-bug" in q.tags for q in BANK.questions) >= 15
    expected_topics = {"why", "batchnorm", "layernorm", "rmsnorm", "prenorm", "precision", "cost"}
    assert set(BANK.topics) == expected_topics
    assert {q.topic for q in BANK.questions} == expected_topics
    assert {c.topic for c in BANK.cards} == expected_topics


def test_every_document_is_used() -> None:
    sources = Counter(item.source for item in [*BANK.questions, *BANK.cards])
    assert {"000", "001", "002", "003", "004", "beyond"} <= set(sources)


def test_single_choice_answers_are_spread_over_letters() -> None:
    letters = Counter(q.answer for q in SINGLES if len(q.choices) == 4)
    total = sum(letters.values())
    assert set(letters) == set("ABCD")
    assert max(letters.values()) <= 0.35 * total, letters


def _right_is_longest(question: Question, lang: str) -> bool:
    lengths = [len(choice.get(lang)) for choice in question.choices]
    right = lengths[ord(question.answer) - ord("A")]
    return right == max(lengths) and lengths.count(right) == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_right_answer_is_rarely_the_longest(lang: str) -> None:
    longest = [q.id for q in SINGLES if _right_is_longest(q, lang)]
    assert len(longest) <= len(SINGLES) / 3, longest


def test_multiple_choice_answers_vary() -> None:
    answers = ["".join(q.answer) for q in BANK.questions if q.type == "multiple"]
    assert len(set(answers)) >= len(answers) / 2
    assert not all("A" in a for a in answers)


def counts_table() -> str:
    """The README's table of questions per topic and type (and cards), as it must read."""
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
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert counts_table() in readme, "update README.md's bank table:\n" + counts_table()
