"""`normkata content check` and the schema behind it."""

from __future__ import annotations

from pathlib import Path

import pytest

from normkata.content.bank import load_bank_checked
from normkata.content.schema import validate_file
from normkata.content.yamlnodes import load_yaml
from tests.conftest import FIXTURES, invoke

EXPECTED_BROKEN = """\
fixtures/broken/a_errors.yaml:10: questions[0].answer: answer 'E' is out of range: choices are A-B
fixtures/broken/a_errors.yaml:16: questions[1].prompt.zh: missing translation
fixtures/broken/a_errors.yaml:27: questions[2].hint: unknown key (known: id, type, difficulty, prompt, explanation, source, answer, choices, tolerance, precision, verify, tags)
fixtures/broken/b_duplicate.yaml:5: id: duplicate id 'shared-id' (first used in fixtures/broken/a_errors.yaml:28)
fixtures/broken/b_duplicate.yaml:18: questions[1].source: '009' is not one of 000, 001, 002, 003, 004, beyond
fixtures/broken/c_syntax.yaml:4: YAML syntax: did not find expected ',' or '}' (while parsing a flow mapping started on line 3)
6 error(s) found.
"""


def test_broken_banks_report_every_error_with_file_and_line(runner, monkeypatch) -> None:
    monkeypatch.chdir(FIXTURES.parent)
    result = invoke(runner, ["content", "check", "fixtures/broken"])
    assert result.exit_code == 2
    assert result.stderr == EXPECTED_BROKEN
    assert result.stdout == ""


def test_bundled_bank_is_valid(runner) -> None:
    result = invoke(runner, ["content", "check"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("OK: ")


def test_good_fixture_reports_counts(runner) -> None:
    result = invoke(runner, ["content", "check", str(FIXTURES / "good")])
    assert result.exit_code == 0
    assert result.stdout == "OK: 5 questions and 1 interview cards in 1 file(s).\n"


def test_missing_path_is_an_input_error(runner) -> None:
    result = invoke(runner, ["content", "check", "no/such/place"])
    assert result.exit_code == 2
    assert "no/such/place: no such file or folder" in result.stderr


def _issues(text: str) -> list[str]:
    _topic, _q, _c, issues = validate_file(load_yaml(text), "t.yaml")
    return [str(i) for i in issues]


HEADER = "format_version: 1\ntopic: t\ntitle: {en: T, zh: T}\nquestions:\n"
QUESTION = """\
  - id: q
    type: {type}
    difficulty: easy
    prompt: {{en: Q, zh: 问}}
    explanation: {{en: E, zh: 解}}
    source: beyond
"""


@pytest.mark.parametrize(
    ("extra", "qtype", "expected"),
    [
        (
            "    answer: [A, A]\n    choices: [a, b]\n",
            "multiple",
            "t.yaml:11: questions[0].answer: a letter is repeated",
        ),
        (
            "    answer: AB\n    choices: [a, b, c]\n",
            "order",
            "t.yaml:11: questions[0].answer: an order answer lists every choice once (A-C)",
        ),
        (
            "    answer: AB\n    choices: [a, b]\n",
            "single",
            "t.yaml:11: questions[0].answer: a single-choice question has exactly one answer",
        ),
        (
            "    answer: 3\n    tolerance: 0\n",
            "numeric",
            "t.yaml:5: questions[0].verify: a numeric answer must carry verify code that computes it",
        ),
        (
            "    answer: 3\n    verify: result = 3\n",
            "numeric",
            "t.yaml:5: questions[0].precision: a numeric question needs a precision (exact, {sig: N} or {decimals: N}) or a tolerance",
        ),
        ("    answer: yes please\n", "true_false", "t.yaml:11: questions[0].answer: expected true or false"),
        (
            "    answer: 3\n    verify: result = 3\n    precision: {sig: 0}\n",
            "numeric",
            "t.yaml:13: questions[0].precision: at least 1 significant digit",
        ),
        (
            "    answer: 3\n    verify: result = 3\n    precision: roughly\n",
            "numeric",
            "t.yaml:13: questions[0].precision: expected exact, {sig: N} or {decimals: N}",
        ),
        (
            "    answer: true\n    precision: exact\n",
            "true_false",
            "t.yaml:12: questions[0].precision: only numeric questions take a precision",
        ),
        (
            "    answer: true\n    choices: [a, b]\n",
            "true_false",
            "t.yaml:12: questions[0].choices: a true_false question takes no choices",
        ),
        (
            "    answer: A\n    choices: [a]\n",
            "single",
            "t.yaml:12: questions[0].choices: expected a list of 2 to 6 choices",
        ),
        (
            "    answer: A\n    choices: [a, a]\n",
            "single",
            "t.yaml:12: questions[0].choices: two choices have the same text",
        ),
        (
            "    answer: A\n",
            "essay",
            "t.yaml:6: questions[0].type: 'essay' is not one of single, multiple, true_false, numeric, order",
        ),
    ],
)
def test_schema_rejects(extra: str, qtype: str, expected: str) -> None:
    assert _issues(HEADER + QUESTION.format(type=qtype) + extra) == [expected]


def test_wrong_format_version_and_bad_id() -> None:
    text = "format_version: 2\ntopic: t\ntitle: {en: T, zh: T}\n"
    assert _issues(text) == ["t.yaml:1: format_version: expected 1, got 2"]
    text = HEADER + QUESTION.format(type="true_false").replace("id: q", "id: Bad Id") + "    answer: true\n"
    assert _issues(text) == ["t.yaml:5: questions[0].id: 'Bad Id' is not a valid id (lowercase letters, digits, - _ .)"]


def test_card_translations_must_pair_up() -> None:
    text = (
        HEADER.replace("questions:\n", "cards:\n")
        + """\
  - id: c
    difficulty: easy
    prompt: {en: Q, zh: 问}
    key_points: {en: [one, two], zh: [一]}
    answer: {en: A, zh: 答}
    source: beyond
"""
    )
    assert _issues(text) == [
        "t.yaml:8: cards[0].key_points: en has 2 items but zh has 1: each item needs a translation"
    ]


CARD_WITH_FOLLOW_UPS = """\
  - id: c
    difficulty: easy
    prompt: {en: Q, zh: 问}
    key_points: {en: [one], zh: [一]}
    answer: {en: A, zh: 答}
    follow_ups: {en: [Why?, How?], zh: [为什么？, 怎么做？]}
    source: beyond
"""


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        ("", "t.yaml:10: cards[0].follow_up_key_points: missing: each of the 2 follow-up(s) needs its key points"),
        (
            "    follow_up_key_points:\n      - {en: [because], zh: [因为]}\n",
            "t.yaml:12: cards[0].follow_up_key_points: expected one list of key points per follow-up: "
            "2 follow-up(s), got 1",
        ),
        (
            "    follow_up_key_points:\n      - {en: [because], zh: [因为]}\n      - {en: [like so]}\n",
            "t.yaml:14: cards[0].follow_up_key_points[1]: expected a mapping with 'en' and 'zh' lists",
        ),
    ],
)
def test_every_follow_up_needs_its_key_points(points: str, expected: str) -> None:
    """The mock's debrief sets a follow-up's answer beside these (it showed nothing)."""
    text = HEADER.replace("questions:\n", "cards:\n") + CARD_WITH_FOLLOW_UPS + points
    issues = _issues(text)
    assert len(issues) == 1 and issues[0].startswith(expected), issues


def test_content_check_names_the_file_and_line_of_a_follow_up_without_key_points(runner, tmp_path: Path) -> None:
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "t.yaml").write_text(HEADER.replace("questions:\n", "cards:\n") + CARD_WITH_FOLLOW_UPS, encoding="utf-8")
    result = invoke(runner, ["content", "check", str(folder)])
    assert result.exit_code == 2
    (line,) = [x for x in result.stderr.splitlines() if "follow_up_key_points" in x]
    assert line == (
        f"{folder / 't.yaml'}:10: cards[0].follow_up_key_points: "
        "missing: each of the 2 follow-up(s) needs its key points, in order"
    )


def test_follow_up_key_points_are_loaded_in_order() -> None:
    points = (
        "    follow_up_key_points:\n      - {en: [because], zh: [因为]}\n      - {en: [so, and so], zh: [这样, 那样]}\n"
    )
    text = HEADER.replace("questions:\n", "cards:\n") + CARD_WITH_FOLLOW_UPS + points
    _topic, _questions, cards, issues = validate_file(load_yaml(text), "t.yaml", text.splitlines())
    assert issues == []
    assert cards[0].follow_up_key_points(1, "en") == ("so", "and so")
    assert cards[0].follow_up_key_points(0, "zh") == ("因为",)


def test_duplicate_yaml_key_is_reported() -> None:
    text = "format_version: 1\ntopic: t\ntopic: u\n"
    with pytest.raises(Exception) as info:
        load_yaml(text)
    assert info.value.line == 3 and "duplicate key 'topic'" in info.value.message


def test_bundled_bank_size_and_shape() -> None:
    from normkata.paths import quizzes_dir

    bank, issues = load_bank_checked(quizzes_dir())
    assert issues == []
    assert len(bank.questions) >= 30
    assert len(bank.cards) >= 10
    assert {"why", "batchnorm", "layernorm", "rmsnorm", "prenorm", "precision"} <= set(bank.topics)
    assert all(q.verify for q in bank.questions if q.type == "numeric")
    assert {q.type for q in bank.questions} == {"single", "multiple", "true_false", "numeric", "order"}


def test_loading_the_bank_does_not_import_torch(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = "import sys; from normkata.content.bank import load_bank; load_bank(); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


FOLDED_ZH = """\
format_version: 1
topic: t
title: {en: T, zh: T}
questions:
  - id: q
    type: true_false
    difficulty: easy
    prompt:
      en: >-
        A long prompt folded
        over two lines.
      zh: >-
        这是一个很长的题目，
        折成了两行。它(真的)很长,对吧?
    explanation: {en: E, zh: "解释 “引号” 里"}
    source: beyond
    answer: true
"""


def test_chinese_typography_is_reported_with_its_line_and_fixed_at_load(tmp_path: Path, runner) -> None:
    from normkata.content.bank import load_bank

    bank_file = tmp_path / "t.yaml"
    bank_file.write_text(FOLDED_ZH, encoding="utf-8")
    _topic, questions, _cards, issues = validate_file(load_yaml(FOLDED_ZH), "t.yaml", FOLDED_ZH.splitlines())
    assert [str(i) for i in issues] == [
        "t.yaml:13: questions[0].prompt.zh: stray space in Chinese text: '的题目， 折成了两'",
        "t.yaml:14: questions[0].prompt.zh: half-width ',' in Chinese text: use '，': '的)很长,对吧?'",
        "t.yaml:14: questions[0].prompt.zh: half-width '?' in Chinese text: use '？': '长,对吧?'",
        "t.yaml:14: questions[0].prompt.zh: half-width '(' in Chinese text: use '（': '两行。它(真的)很'",
        "t.yaml:14: questions[0].prompt.zh: half-width ')' in Chinese text: use '）': '它(真的)很长,对'",
        "t.yaml:15: questions[0].explanation.zh: stray space in Chinese text: '解释 “引号”'",
        "t.yaml:15: questions[0].explanation.zh: stray space in Chinese text: '“引号” 里'",
    ]
    assert all(i.style for i in issues)
    # The learner never sees the stray spaces: the loader removes them.
    question = load_bank(bank_file).questions[0]
    assert question.prompt.zh == "这是一个很长的题目，折成了两行。它(真的)很长,对吧?"
    assert question.explanation.zh == "解释“引号”里"
    assert question.prompt.en == "A long prompt folded over two lines."
    result = invoke(runner, ["content", "check", str(bank_file)])
    assert result.exit_code == 2
    assert f"{bank_file}:13: questions[0].prompt.zh: stray space in Chinese text" in result.stderr


def test_code_in_chinese_text_is_left_alone() -> None:
    from normkata.content.typography import tidy_zh, zh_problems

    text = "找出错误：\n\n    x = torch.rsqrt(m + eps)  # 均值 , 方差\n\n用 `a , b` 写"
    assert zh_problems(text) == []
    assert tidy_zh(text) == text


def test_bundled_bank_has_no_typography_problems() -> None:
    from normkata.paths import quizzes_dir

    _bank, issues = load_bank_checked(quizzes_dir())
    assert [str(i) for i in issues if i.style] == []


def test_bundled_bank_chinese_has_no_stray_spaces() -> None:
    import re

    from normkata.content.bank import load_bank

    cjk = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
    stray = re.compile(f"[{cjk}][ \t]+[{cjk}]")
    bank = load_bank()
    texts = [t for q in bank.questions for t in (q.prompt.zh, q.explanation.zh, *(c.zh for c in q.choices))]
    texts += [t.zh for c in bank.cards for t in (c.prompt, c.answer, *c.key_points, *c.follow_ups)]
    texts += [t.zh for c in bank.cards for points in c.follow_up_points for t in points]
    assert [t for t in texts if stray.search(t)] == []


@pytest.mark.slow
def test_deep_check_proves_a_kata_suite(runner) -> None:
    """Reference passes, starter scores 0, every fixture gets its verdict, every misconception is reached."""
    # The kata with the fewest grades (about 18, rmsnorm needs 35): the command's whole path.
    result = invoke(runner, ["content", "check", "--deep", "--kata", "layernorm_backward"])
    assert result.exit_code == 0, result.stderr
    assert "OK: 1 kata(s) prove their suites" in result.stdout


def test_misconception_ids_are_read_from_a_suite_without_importing_it() -> None:
    from normkata.grading.fixtures import misconception_ids
    from normkata.paths import katas_dir

    ids = misconception_ids(katas_dir() / "rmsnorm" / "suite.py")
    assert {"rms-eps-outside-sqrt", "rms-one-plus-weight", "rms-missing-keepdim"} <= set(ids)


def _catalogs() -> dict[str, str]:
    """Every Chinese text outside the bank that a learner reads: the interface catalog, the
    grade report's, the doctor's and the command list's, the categories, the kata catalog."""
    from normkata.advice.doctor import PROTECTION_MEANS
    from normkata.cli import COMMANDS
    from normkata.content.katas import load_katas
    from normkata.grading.contract import _CATEGORY_ZH
    from normkata.i18n import strings

    texts = {f"i18n {key}": text.zh for key, text in strings().items()}  # the report's too (report.*)
    texts.update({f"doctor {key}": means.zh for key, means in PROTECTION_MEANS.items()})
    texts.update({f"cli {key}": zh for key, (_en, zh) in COMMANDS.items()})
    texts.update({f"category {key}": zh for key, zh in _CATEGORY_ZH.items()})
    for kata in load_katas()[0]:
        texts[f"kata {kata.id} title"] = kata.title.zh
        texts.update({f"kata {kata.id} hint {i}": hint.zh for i, hint in enumerate(kata.hints, start=1)})
        texts[f"kata {kata.id} instructions"] = kata.instructions("zh")
    return texts


def test_every_catalog_passes_the_banks_typography_check() -> None:
    """the same check as the bank's, over every other Chinese text."""
    from normkata.content.typography import zh_problems

    problems = [(where, snippet, why) for where, text in _catalogs().items() for snippet, why in zh_problems(text)]
    assert problems == []


def test_grade_report_lines_in_chinese_are_tidied() -> None:
    from normkata.grading.report import _paren, tidy

    assert tidy("多次调用同一模块 (fp32 前向)", "zh") == "多次调用同一模块（fp32 前向）"
    assert tidy("应为 1e-05）。 这符合预期", "zh") == "应为 1e-05）。这符合预期"
    assert tidy("(x) stays", "en") == "(x) stays"
    assert _paren("fp32 前向", "zh") == "（fp32 前向）"


def test_a_mutant_whose_edit_does_not_apply_is_one_line_naming_the_file(tmp_path: Path) -> None:
    """An author's mutants.yaml edit that no longer matches the solution is an input error (exit 2
    at `content check --deep`), not a traceback."""
    from normkata.errors import InputError
    from normkata.grading.fixtures import kata_fixtures

    folder = tmp_path / "rmsnorm" / "fixtures"
    folder.mkdir(parents=True)
    (folder / "mutants.yaml").write_text(
        "- name: gone\n  expect: fail\n  what: an edit of a line that is not there\n  from: solution\n"
        "  edits:\n    - old: 'this line is in no solution'\n      new: 'x'\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"mutants\.yaml: rmsnorm/gone: edit does not apply exactly once"):
        kata_fixtures("rmsnorm", tmp_path)
