"""Every `verify` snippet in the bundled bank recomputes its question's answer key with torch."""

from __future__ import annotations

import pytest

from normkata.content.bank import load_bank
from normkata.content.model import Question
from normkata.practice.answers import is_correct

QUESTIONS = [q for q in load_bank().questions if q.verify]


def _as_key(question: Question, value: object) -> object:
    if question.type == "multiple":
        return tuple(sorted(value))  # type: ignore[arg-type]
    if question.type == "order":
        return tuple(value)  # type: ignore[arg-type]
    return value


@pytest.mark.parametrize("question", QUESTIONS, ids=[q.id for q in QUESTIONS])
def test_verify_code_reproduces_the_answer_key(question: Question) -> None:
    namespace: dict[str, object] = {}
    exec(compile(question.verify, f"{question.file}:{question.id}", "exec"), namespace)  # noqa: S102
    assert "result" in namespace, "verify code must set `result`"
    computed = namespace["result"]
    if question.type == "numeric":
        assert isinstance(computed, (int, float)) and not isinstance(computed, bool)
        # The recomputed value must be accepted as an answer typed at full precision.
        assert is_correct(question, float(computed)), (computed, question.answer)
    else:
        assert _as_key(question, computed) == question.answer


def test_most_questions_carry_verify_code() -> None:
    # Conceptual questions (why Pre-Norm is stable, ...) cannot be computed; the rest must be.
    assert len(QUESTIONS) >= 0.75 * len(load_bank().questions)
