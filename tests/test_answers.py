"""Reading typed answers: every way a learner may write the right answer is accepted."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from normkata.content.model import Question
from normkata.i18n import Text
from normkata.practice.answers import UnreadableAnswer, is_correct, parse_answer


def _question(qtype: str, answer: object, n_choices: int = 4, tolerance: float = 0.0) -> Question:
    text = Text("q", "q")
    choices = (
        tuple(Text(f"c{i}", f"c{i}") for i in range(n_choices)) if qtype in ("single", "multiple", "order") else ()
    )
    return Question(
        id="q",
        type=qtype,
        topic="t",
        difficulty="easy",
        prompt=text,
        explanation=text,
        source="beyond",
        answer=answer,
        choices=choices,
        tolerance=tolerance,
    )


@given(st.permutations("ABCDE"), st.sampled_from(["", ",", " ", ", "]), st.booleans())
def test_any_order_written_any_way_is_read(order: list[str], separator: str, lower: bool) -> None:
    question = _question("order", tuple("CAEBD"), n_choices=5)
    typed = separator.join(order)
    value = parse_answer(question, typed.lower() if lower else typed)
    assert value == tuple(order)
    assert is_correct(question, value) == (tuple(order) == tuple("CAEBD"))


@given(st.sets(st.sampled_from("ABCD"), min_size=1), st.sampled_from(["", ",", " "]))
def test_multiple_choice_ignores_order_and_separators(letters: set[str], separator: str) -> None:
    question = _question("multiple", ("A", "C"))
    value = parse_answer(question, separator.join(sorted(letters, reverse=True)))
    assert value == tuple(sorted(letters))
    assert is_correct(question, value) == (letters == {"A", "C"})


@pytest.mark.parametrize(
    ("qtype", "typed", "why"),
    [
        ("single", "E", "'E' is not one of ABCD"),
        ("single", "AB", "expected one letter"),
        ("single", "7", "numbers go from 1 to 4"),
        ("order", "ABC", "list every letter ABCD once"),
        ("multiple", "AA", "a letter is repeated"),
        ("numeric", "four", "'four' is not a number"),
        ("true_false", "maybe", "expected t or f"),
    ],
)
def test_unreadable_answers_say_why(qtype: str, typed: str, why: str) -> None:
    question = _question(qtype, "A" if qtype == "single" else ("A",))
    with pytest.raises(UnreadableAnswer, match=why.replace("(", r"\(")):
        parse_answer(question, typed)


def test_unreadable_answers_say_why_in_chinese() -> None:
    question = _question("single", "A")
    with pytest.raises(UnreadableAnswer) as info:
        parse_answer(question, "Z")
    assert info.value.text("zh") == "“Z”不在 ABCD 之中"
    assert str(info.value) == "'Z' is not one of ABCD"


def test_full_width_and_chinese_separators_are_read() -> None:
    assert parse_answer(_question("multiple", ("A", "C")), "Ａ，Ｃ") == ("A", "C")
    assert parse_answer(_question("order", tuple("ABCD")), "A、B、C、D") == tuple("ABCD")


def test_numbers_true_false_and_tolerance() -> None:
    assert parse_answer(_question("single", "B"), "2") == "B"
    assert parse_answer(_question("true_false", True), "对") is True
    assert parse_answer(_question("true_false", True), "B") is False
    numeric = _question("numeric", 65504.0, tolerance=0.5)
    assert is_correct(numeric, parse_answer(numeric, "65,504"))
    assert not is_correct(numeric, parse_answer(numeric, "65505"))
