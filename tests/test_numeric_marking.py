"""Numeric answers are read as people type them and marked by the precision the question asks for."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from normkata.content.bank import load_bank
from normkata.content.model import Question
from normkata.i18n import Text
from normkata.practice.answers import (
    UnreadableAnswer,
    expected_text,
    format_number,
    is_correct,
    parse_answer,
    parse_number,
    precision_hint,
)

BANK = load_bank()
NUMERIC = [q for q in BANK.questions if q.type == "numeric"]
#: Exact answers with more than 4 significant digits: 65504 is fp16's maximum, and 65500 is not.
#: Exact answers with more than four significant digits (65504, a byte count): four digits are wrong there.
EXACT_LONG = {"prec-fp16-max", "kern-persistent-partial-bytes", "cond-modulation-params"}  # exact counts


def _numeric(answer: float, precision: tuple[str, int] | None, tolerance: float = 0.0) -> Question:
    text = Text("q", "q")
    return Question(
        id="q",
        type="numeric",
        topic="t",
        difficulty="easy",
        prompt=text,
        explanation=text,
        source="beyond",
        answer=answer,
        tolerance=tolerance,
        precision=precision,
    )


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("6.1e-5", 6.1e-5),
        ("6.10352e-05", 6.10352e-05),
        ("6.1E-05", 6.1e-5),
        ("2^-23", 2**-23),
        ("2**-23", 2**-23),
        ("2 ^ -7", 2**-7),
        ("1/8", 0.125),
        ("-1/8", -0.125),
        ("6.1×10^-5", 6.1e-5),
        ("6.1*10^-5", 6.1e-5),
        ("65,504", 65504.0),
        ("8.7%", 8.7),
        ("−1.342", -1.342),  # the minus sign U+2212
        ("１.５", 1.5),  # full-width digits
        (".5", 0.5),
        ("-2^2", -4.0),
        ("(1 + 2) * 3", 9.0),
    ],
)
def test_numbers_are_read_as_typed(typed: str, value: float) -> None:
    assert parse_number(typed) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    "typed",
    ["four", "", "1/0", "2^1000", "(-8)^(1/3)", "1e400", "1,5", "__import__('os')", "2^", "(1", "x", "1" * 80],
)
def test_what_is_not_a_number_is_refused_without_eval(typed: str) -> None:
    assert parse_number(typed) is None


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_any_float_written_by_python_reads_back(value: float) -> None:
    assert parse_number(repr(value)) == (value if value != 0 else 0.0)


@pytest.mark.parametrize("question", NUMERIC, ids=[q.id for q in NUMERIC])
def test_every_numeric_question_states_its_precision(question: Question) -> None:
    assert question.precision is not None
    assert precision_hint(question, "en") and precision_hint(question, "zh")


@pytest.mark.parametrize("question", NUMERIC, ids=[q.id for q in NUMERIC])
def test_answer_at_four_significant_digits_is_accepted(question: Question) -> None:
    answer = float(question.answer)  # type: ignore[arg-type]
    typed = f"{answer:.4g}"
    if question.id in EXACT_LONG:
        assert not is_correct(question, parse_answer(question, typed))  # 65500 is not the answer
        typed = f"{answer:.0f}"
    assert is_correct(question, parse_answer(question, typed)), (typed, question.answer, question.precision)


@pytest.mark.parametrize("question", NUMERIC, ids=[q.id for q in NUMERIC])
def test_the_displayed_answer_is_accepted(question: Question) -> None:
    for lang in ("en", "zh"):
        shown = expected_text(question, lang).split("（")[0].split(" (")[0]
        assert is_correct(question, parse_answer(question, shown)), (shown, question.answer)
    assert is_correct(question, parse_answer(question, format_number(question)))


def _bank(item_id: str) -> Question:
    question = BANK.question(item_id)
    assert question is not None
    return question


@pytest.mark.parametrize("typed", ["1.19e-7", "1.192e-7", "2^-23", "1.1920928955078125e-07", "0.000000119"])
def test_torch_rmsnorm_default_eps_as_people_type_it(typed: str) -> None:
    assert is_correct(_bank("rms-torch-eps-value"), parse_answer(_bank("rms-torch-eps-value"), typed))


@pytest.mark.parametrize("typed", ["6.1e-5", "6.10e-5", "6.10352e-05", "2^-14", "0.000061"])
def test_fp16_tiny_as_people_type_it(typed: str) -> None:
    assert is_correct(_bank("prec-fp16-tiny"), parse_answer(_bank("prec-fp16-tiny"), typed))


def test_wrong_values_are_still_wrong() -> None:
    assert not is_correct(_bank("rms-torch-eps-value"), 1e-5)
    assert not is_correct(_bank("prec-fp16-tiny"), 5.96e-8)
    assert not is_correct(_bank("prec-fp16-max"), 65505.0)
    assert not is_correct(_bank("ln-example-value"), -1.162)  # the unbiased-variance answer


def test_precision_kinds() -> None:
    sig = _numeric(0.01679616, ("sig", 2))
    assert is_correct(sig, 0.017) and is_correct(sig, 0.0168) and not is_correct(sig, 0.018)
    decimals = _numeric(-1.3416354, ("decimals", 3))
    assert is_correct(decimals, -1.342) and is_correct(decimals, -1.3416) and not is_correct(decimals, -1.34)
    exact = _numeric(8704, ("exact", 0))
    assert is_correct(exact, 8704.0) and not is_correct(exact, 8703.0)
    legacy = _numeric(65504, None, tolerance=0.5)
    assert is_correct(legacy, 65504.4) and not is_correct(legacy, 65505.0)
    assert format_number(_numeric(6.103515625e-05, ("sig", 3))) == "6.1e-5"
    assert format_number(_numeric(-1.3416354, ("decimals", 3))) == "-1.342"
    assert expected_text(_numeric(2**-23, ("sig", 3)), "zh") == "1.19e-7（精确值 1.19209289551e-07）"


def test_unreadable_number_says_why() -> None:
    with pytest.raises(UnreadableAnswer, match="'four' is not a number"):
        parse_answer(_numeric(1.0, ("sig", 2)), "four")
    assert math.isclose(parse_answer(_numeric(1.0, ("sig", 2)), "1/8"), 0.125)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("typed", "value"),
    [
        ("sqrt(128)", math.sqrt(128)),
        ("√128", math.sqrt(128)),
        ("1/√2", 1 / math.sqrt(2)),
        ("√(2*64)", math.sqrt(128)),
        ("8 704", 8704.0),
        ("2 000 000", 2e6),
        ("８ ７０４", 8704.0),
    ],
)
def test_square_roots_and_grouped_digits_are_read(typed: str, value: float) -> None:
    assert parse_number(typed) == pytest.approx(value)


@pytest.mark.parametrize("typed", ["√-1", "sqrt()", "1 2", "sqrt"])
def test_what_is_not_a_number_stays_unread(typed: str) -> None:
    assert parse_number(typed) is None


def test_an_answer_right_to_fewer_digits_than_asked_is_told_so() -> None:
    from normkata.practice.answers import short_of_precision

    three_places = _numeric(1.1313708498984762, ("decimals", 3))
    assert short_of_precision(three_places, "1.13", 1.13) == 2
    assert short_of_precision(three_places, "1.1", 1.1) == 1
    assert short_of_precision(three_places, "1.12", 1.12) is None  # wrong at two places too
    assert short_of_precision(three_places, "1.131", 1.131) is None  # right: nothing to say
    sig = _numeric(0.181019, ("sig", 3))
    assert short_of_precision(sig, "0.18", 0.18) == 2
    assert short_of_precision(sig, "0.19", 0.19) is None


def test_quiz_says_precision_and_reads_a_square_root(runner) -> None:
    from tests.conftest import invoke

    result = invoke(runner, ["quiz", "--id", "rms-example-value", "--id", "rms-example-value"], "1.13\nsqrt(1.28)\n")
    assert "1.13 is right to 2 decimal place(s), but the question asks for 3." in result.stdout
    assert result.stdout.count("Correct") >= 1 or "✓" in result.stdout


def test_one_decimal_place_is_singular_in_both_languages() -> None:
    """A learner read "(1 decimal places)"."""
    from normkata.content.bank import load_bank

    question = next(q for q in load_bank().questions if q.precision == ("decimals", 1))
    assert precision_hint(question, "en") == "(1 decimal place)"
    assert precision_hint(question, "zh") == "（保留 1 位小数）"
    two = next(q for q in load_bank().questions if q.precision == ("decimals", 2))
    assert precision_hint(two, "en") == "(2 decimal places)"
