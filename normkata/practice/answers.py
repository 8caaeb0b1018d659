"""Read a learner's typed answer for a question, mark it, and show the expected one."""

from __future__ import annotations

import math
import re
import unicodedata

from normkata.content.model import Question, letter

# A) true B) false: "1" and "2" number the choices as in any other question; "0" reads as false.
_TRUE = {"a", "t", "true", "y", "yes", "1", "对", "是", "正确"}
_FALSE = {"b", "f", "false", "n", "no", "2", "0", "错", "否", "错误"}

#: Slack on top of a numeric answer's tolerance: floating-point noise, never a real difference.
_REL_SLACK = 1e-9


class UnreadableAnswer(ValueError):
    """The text is not an answer of the question's type; `text(lang)` says why."""

    def __init__(self, key: str, **fields: object) -> None:
        self.key, self.fields = key, fields
        super().__init__(self.text("en"))

    def text(self, lang: str) -> str:
        from normkata.i18n import t

        return t(self.key, lang, **self.fields)


def normalize_typed(raw: str) -> str:
    """Typed text as plain ASCII where it can be: full-width letters, digits, spaces and
    punctuation (`Ｂ`, `１`, `，`) made half-width (NFKC), surrounding spaces removed.

    Every prompt that reads an answer (quiz, review, ratings) should read it through this.
    """
    return unicodedata.normalize("NFKC", raw).strip()


def letters_for(question: Question) -> str:
    return "".join(letter(i) for i in range(len(question.choices)))


def parse_answer(question: Question, raw: str) -> object:
    """The typed text as a value comparable with `question.answer`."""
    text = normalize_typed(raw)
    if question.type == "true_false":
        word = text.lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
        raise UnreadableAnswer("answer.true_false")
    if question.type == "numeric":
        value = parse_number(text)
        if value is None:
            raise UnreadableAnswer("answer.not_number", text=text)
        return value
    letters = _read_letters(question, text)
    if question.type == "single":
        if len(letters) != 1:
            raise UnreadableAnswer("answer.one_letter")
        return letters[0]
    if len(set(letters)) != len(letters):
        raise UnreadableAnswer("answer.repeated")
    if question.type == "multiple":
        return tuple(sorted(letters))
    if sorted(letters) != list(letters_for(question)):
        raise UnreadableAnswer("answer.every_letter", letters=letters_for(question))
    return tuple(letters)


def _read_letters(question: Question, text: str) -> list[str]:
    valid = letters_for(question)
    tokens = [t for t in re.split(r"[\s,;、，；]+", text.upper()) if t]
    if all(t.isdigit() for t in tokens) and tokens:
        # Numbers 1..n are accepted too: "2" means B; with at most 9 choices "13" means AC.
        indices = [int(c) for t in tokens for c in t] if len(valid) <= 9 else [int(t) for t in tokens]
        if any(not 1 <= i <= len(valid) for i in indices):
            raise UnreadableAnswer("answer.number_range", n=len(valid))
        return [letter(i - 1) for i in indices]
    letters = [c for token in tokens for c in token]
    if not letters:
        raise UnreadableAnswer("answer.no_letter")
    bad = [c for c in letters if c not in valid]
    if bad:
        raise UnreadableAnswer("answer.bad_letter", letter=bad[0], letters=valid)
    return letters


# -- numbers as people type them ------------------------------------------------------------

#: Compiled on the first number read (re caches it), not by every quiz before its first question.
_TOKEN = r"\s*(?:(\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?)|(\*\*|sqrt|√|[-+*/^()]))"
_MAX_LENGTH = 60
_MAX_EXPONENT = 400


def parse_number(text: str) -> float | None:
    """A number as typed: 6.1e-5, 6.10352e-05, 65,504, 8 704, 2^-23, 2**-23, 1/8, 6.1×10^-5, 8.7%,
    sqrt(128), √128, 1/√2.

    A small arithmetic grammar (numbers, + - * / ^ **, parentheses) read without eval; None
    when the text is not a finite number.
    """
    text = normalize_typed(text)
    text = text.replace("−", "-").replace("×", "*").replace("·", "*").replace("_", "")
    text = re.sub(r"(?<=\d)[,\s](?=\d{3}(?!\d))", "", text)  # thousands separators: 65,504 and 8 704
    percent = text.endswith("%")
    if percent:
        text = text[:-1]
    if not text or len(text) > _MAX_LENGTH:
        return None
    tokens: list[str] = []
    position = 0
    token = re.compile(_TOKEN, re.IGNORECASE)
    while position < len(text):
        match = token.match(text, position)
        if not match or match.end() == position:
            if text[position:].strip() == "":
                break
            return None
        tokens.append(match.group(1) or match.group(2))
        position = match.end()
    try:
        parser = _Parser(tokens)
        value = parser.expression()
        if parser.position != len(tokens):
            return None
    except (ValueError, ZeroDivisionError, OverflowError, IndexError, TypeError):
        return None
    if not math.isfinite(value):
        return None
    return value  # "8.7%" is read as 8.7: a percentage question asks for the number of percent


class _Parser:
    """expression := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
    unary := ('-'|'+') unary | power; power := atom (('^'|'**') unary)?; atom := NUMBER | '(' expression ')'."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.position = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expression(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self) -> float:
        value = self.unary()
        while self.peek() in ("*", "/"):
            value = value * self.unary() if self.take() == "*" else value / self.unary()
        return value

    def unary(self) -> float:
        if self.peek() in ("-", "+"):
            sign = -1.0 if self.take() == "-" else 1.0
            return sign * self.unary()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() in ("^", "**"):
            self.take()
            exponent = self.unary()
            if abs(exponent) > _MAX_EXPONENT or abs(base) > 1e300:
                raise ValueError("too large")
            result = base**exponent
            if not isinstance(result, float | int):
                raise ValueError("not a real number")
            return float(result)
        return base

    def atom(self) -> float:
        token = self.take()
        if token == "(":
            value = self.expression()
            if self.take() != ")":
                raise ValueError("unbalanced")
            return value
        if token in ("sqrt", "√"):  # sqrt(128), √128, √(2·64)
            value = self.atom()
            if value < 0:
                raise ValueError("not a real number")
            return math.sqrt(value)
        if token[0].isdigit() or token[0] == ".":
            return float(token)
        raise ValueError(f"unexpected {token!r}")


def numeric_tolerance(question: Question) -> float:
    """How far from the key an answer may be: the stated tolerance or half a unit of the precision asked."""
    answer = float(question.answer)  # type: ignore[arg-type]
    allowed = question.tolerance
    if question.precision is not None:
        kind, digits = question.precision
        if kind == "decimals":
            allowed = max(allowed, 0.5 * 10.0**-digits)
        elif kind == "sig" and answer != 0:
            exponent = math.floor(math.log10(abs(answer)))
            allowed = max(allowed, 0.5 * 10.0 ** (exponent - digits + 1))
    return allowed


def is_correct(question: Question, value: object) -> bool:
    if question.type == "numeric":
        assert isinstance(value, float)
        answer = float(question.answer)  # type: ignore[arg-type]
        slack = _REL_SLACK * max(abs(answer), 1e-300)
        return abs(value - answer) <= numeric_tolerance(question) + slack
    return value == question.answer


def short_of_precision(question: Question, raw: str, value: object) -> int | None:
    """The digits a wrong numeric answer was typed to, when it is right to those digits but the
    question asks for more ("1.13" for a key of 1.131 to 3 decimal places): None otherwise."""
    if question.type != "numeric" or question.precision is None or not isinstance(value, float):
        return None
    kind, asked = question.precision
    typed = normalize_typed(raw).strip().replace("−", "-")
    match = re.fullmatch(r"-?(\d+)(?:\.(\d+))?", typed)
    if kind not in ("decimals", "sig") or match is None:
        return None
    answer = float(question.answer)  # type: ignore[arg-type]
    whole, fraction = match.group(1), match.group(2) or ""
    if kind == "decimals":
        digits = len(fraction)
        unit = 10.0**-digits
    else:
        significant = (whole + fraction).lstrip("0")
        digits = len(significant)
        if digits == 0 or answer == 0:
            return None
        unit = 10.0 ** (math.floor(math.log10(abs(answer))) - digits + 1)
    if digits >= asked:
        return None
    return digits if abs(value - answer) <= 0.5 * unit * (1 + 1e-9) else None


def format_number(question: Question) -> str:
    """The answer as it is asked for: rounded to the precision (always accepted when typed back)."""
    answer = float(question.answer)  # type: ignore[arg-type]
    if question.precision is None or question.precision[0] == "exact":
        return f"{answer:.12g}"
    kind, digits = question.precision
    if kind == "decimals":
        return f"{answer:.{digits}f}"
    text = f"{answer:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def format_value(question: Question, value: object, lang: str) -> str:
    """An answer value as the learner would type it, with the choice text for one letter."""
    from normkata.i18n import t

    if question.type == "true_false":
        return t("quiz.true" if value else "quiz.false", lang)
    if question.type == "numeric":
        return f"{value:.12g}"
    if question.type == "single":
        index = ord(str(value)) - ord("A")
        return f"{value}) {question.choices[index].in_(lang)}"
    return "".join(value)  # type: ignore[arg-type]


def expected_text(question: Question, lang: str) -> str:
    """The right answer as shown after a question: for a number, rounded as asked, and the exact value."""
    if question.type != "numeric":
        return format_value(question, question.answer, lang)
    from normkata.i18n import t

    shown = format_number(question)
    exact = f"{float(question.answer):.12g}"  # type: ignore[arg-type]
    if shown != exact and float(shown) != float(exact):
        return t("quiz.numeric.exact", lang, shown=shown, exact=exact)
    if question.precision is None and question.tolerance > 0:
        return f"{shown} (± {question.tolerance:g})"
    return shown


def precision_hint(question: Question, lang: str) -> str:
    """What precision a numeric question asks for, as shown under its prompt."""
    from normkata.i18n import t

    if question.type != "numeric" or question.precision is None:
        return ""
    kind, digits = question.precision
    one = "" if digits != 1 or kind == "exact" else ".one"  # "(1 decimal place)", not "(1 decimal places)"
    return t(f"quiz.precision.{kind}{one}", lang, n=digits)
