"""Read a learner's typed answer for a question, mark it, and show the expected one."""

from __future__ import annotations

import re

from normkata.content.model import Question, letter

_TRUE = {"a", "t", "true", "y", "yes", "1", "对", "是", "正确"}
_FALSE = {"b", "f", "false", "n", "no", "0", "错", "否", "错误"}


class UnreadableAnswer(ValueError):
    """The text is not an answer of the question's type; the message says why."""


def letters_for(question: Question) -> str:
    return "".join(letter(i) for i in range(len(question.choices)))


def parse_answer(question: Question, raw: str) -> object:
    """The typed text as a value comparable with `question.answer`."""
    text = raw.strip()
    if question.type == "true_false":
        word = text.lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise UnreadableAnswer("expected t or f")
    if question.type == "numeric":
        try:
            return float(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise UnreadableAnswer(f"{text!r} is not a number") from None
    letters = _read_letters(question, text)
    if question.type == "single":
        if len(letters) != 1:
            raise UnreadableAnswer("expected one letter")
        return letters[0]
    if len(set(letters)) != len(letters):
        raise UnreadableAnswer("a letter is repeated")
    if question.type == "multiple":
        return tuple(sorted(letters))
    if sorted(letters) != list(letters_for(question)):
        raise UnreadableAnswer(f"list every letter {letters_for(question)} once")
    return tuple(letters)


def _read_letters(question: Question, text: str) -> list[str]:
    valid = letters_for(question)
    tokens = [t for t in re.split(r"[\s,;]+", text.upper()) if t]
    if all(t.isdigit() for t in tokens) and tokens:
        # Numbers 1..n are accepted too: "2" means B.
        indices = [int(t) for t in tokens]
        if any(not 1 <= i <= len(valid) for i in indices):
            raise UnreadableAnswer(f"numbers go from 1 to {len(valid)}")
        return [letter(i - 1) for i in indices]
    letters = [c for token in tokens for c in token]
    if not letters:
        raise UnreadableAnswer("no letter given")
    bad = [c for c in letters if c not in valid]
    if bad:
        raise UnreadableAnswer(f"{bad[0]!r} is not one of {valid}")
    return letters


def is_correct(question: Question, value: object) -> bool:
    if question.type == "numeric":
        assert isinstance(value, float)
        return abs(value - float(question.answer)) <= question.tolerance  # type: ignore[arg-type]
    return value == question.answer


def format_value(question: Question, value: object, lang: str) -> str:
    """An answer value as the learner would type it, with the choice text for one letter."""
    from normkata.i18n import t

    if question.type == "true_false":
        return t("quiz.true" if value else "quiz.false", lang)
    if question.type == "numeric":
        return f"{value:g}"
    if question.type == "single":
        index = ord(str(value)) - ord("A")
        return f"{value}) {question.choices[index].get(lang)}"
    return "".join(value)  # type: ignore[arg-type]


def expected_text(question: Question, lang: str) -> str:
    text = format_value(question, question.answer, lang)
    if question.type == "numeric" and question.tolerance > 1e-6:  # tinier ones mean "exact"
        text += f" (± {question.tolerance:g})"
    return text
