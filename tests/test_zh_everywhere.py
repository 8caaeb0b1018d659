"""With --lang zh, no English reaches the learner except code, identifiers and formulas.

English is recognised by vocabulary: a word that occurs in the English texts (interface
strings and the bank) but in no Chinese text is an English word. Terms that Chinese text
itself uses (RMSNorm, batch, token, kernel, eps, ...) are allowed; code lines (indented by four
spaces) and `code spans` are skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from normkata.content.bank import load_bank
from normkata.i18n import strings
from tests.conftest import invoke

WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
BANK = load_bank()


def _texts(lang: str) -> list[str]:
    texts = [text.in_(lang) for text in strings().values()]
    for q in BANK.questions:
        texts += [q.prompt.in_(lang), q.explanation.in_(lang), *(c.in_(lang) for c in q.choices)]
    for c in BANK.cards:
        texts += [c.prompt.in_(lang), c.answer.in_(lang), *(p.in_(lang) for p in (*c.key_points, *c.follow_ups))]
        texts += [point.in_(lang) for points in c.follow_up_points for point in points]
    texts += [t.title.in_(lang) for t in BANK.topics.values()]
    return texts


def _words(texts: list[str]) -> set[str]:
    return {w.lower() for text in texts for w in WORD.findall(_prose(text))}


def _prose(text: str) -> str:
    lines = [line for line in text.splitlines() if not line.startswith("    ")]
    text = re.sub(r"`[^`]*`", " ", "\n".join(lines))
    text = re.sub(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b", " ", text)  # a snake_case identifier (a kata id) is code
    return re.sub(r"normkata( [a-z][\w-]*| --?[\w-]+)*", " ", text)  # a command to type is code


ENGLISH_ONLY = _words(_texts("en")) - _words(_texts("zh"))


def english_in(output: str) -> set[str]:
    # Rich draws code lines of a prompt at their own indentation, and tables with box characters.
    return {w for w in WORD.findall(_prose(output)) if w.lower() in ENGLISH_ONLY}


def test_the_detector_sees_english() -> None:
    assert {"the", "correct", "skipped", "medium", "again"} <= ENGLISH_ONLY
    assert english_in("✓ Correct. Skipped: the") == {"Correct", "Skipped", "the"}
    assert english_in("下一步：normkata review --topic why（3 项已到期）") == set()
    assert english_in("回答正确。RMSNorm 的 eps 在 batch 维上") == set()


def _zh(runner, args: list[str], stdin: str | None = None):  # type: ignore[no-untyped-def]
    result = invoke(runner, ["--lang", "zh", *args], stdin)
    assert result.exit_code in (0, 2), result.output
    return result


def test_quiz_over_the_whole_bank_in_chinese(runner) -> None:
    n = len(BANK.questions)
    # Wrong, unreadable, skipped and right answers in turn: every kind of feedback is printed.
    answers = ["Z", "???", "", "A", "2^-23", "t"] * (n // 6 + 1)
    result = _zh(runner, ["quiz", "-n", str(n), "--seed", "0"], "\n".join(answers[:n]) + "\n")
    assert english_in(result.output) == set()
    assert "困难" in result.output and "出处：" in result.output and "小结" in result.output


def test_interview_review_progress_and_dashboard_in_chinese(runner) -> None:
    n = len(BANK.cards)
    result = _zh(runner, ["interview", "-n", str(n)], "我的回答\n\n3\n" * n)
    assert english_in(result.output) == set()
    _zh(runner, ["quiz", "-n", "5", "--seed", "1"], "A\nA\nA\nA\nA\n")
    for args in (["review", "-n", "50"], ["progress"], []):
        result = _zh(runner, args, "A\n1\n" * 60)
        assert english_in(result.output) == set(), args


def test_content_commands_in_chinese(runner) -> None:
    result = _zh(runner, ["content", "check", "quizzes"])
    assert result.exit_code == 0 and english_in(result.output) == set()
    exported = json.loads(_zh(runner, ["content", "export", "--format", "json"]).stdout)
    texts = [q["prompt"] + q["explanation"] + q["answer_text"] + q["source"]["title"] for q in exported["questions"]]
    assert english_in("\n".join(texts)) == set()


@pytest.mark.parametrize("key", sorted(strings()))
def test_every_interface_string_has_chinese(key: str) -> None:
    zh = strings()[key].zh
    assert zh and english_in(re.sub(r"\{[^}]*\}", " ", zh)) == set()


def test_lab_tables_in_chinese(runner) -> None:
    pytest.importorskip("torch")
    result = _zh(runner, ["lab", "precision"])
    assert result.exit_code == 0
    assert "低精度的具体数值" in result.output and english_in(result.output) == set()


def test_lab_plots_and_written_files_in_chinese(runner, tmp_path) -> None:
    pytest.importorskip("torch")
    result = _zh(runner, ["lab", "vanishing", "--layers", "3", "--width", "16", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0
    shown, written = result.output.split("\n已写入：\n")  # the files written come last: names, not prose
    assert "vanishing.json" in [Path(line.strip()).name for line in written.splitlines()]
    assert "无归一化" in shown and "每层激活标准差" in shown  # legend and title of the terminal plot
    assert english_in(shown) == set()


def test_content_check_problems_in_chinese(runner, monkeypatch) -> None:
    from tests.conftest import FIXTURES

    monkeypatch.chdir(FIXTURES.parent)
    result = _zh(runner, ["content", "check", "fixtures/broken"])
    assert result.exit_code == 2
    assert "fixtures/broken/a_errors.yaml:10: questions[0].answer: 答案 'E' 超出范围：选项为 A-B" in result.stderr
    assert "缺少翻译" in result.stderr and "重复的 id 'shared-id'" in result.stderr
    assert "发现 6 处错误。" in result.stderr


def test_every_content_check_message_is_a_catalog_key() -> None:
    """The checks emit keys (`check.*`) and fields, worded by t() when shown: each key they use is declared."""
    import ast

    root = Path(__file__).resolve().parents[1] / "normkata"
    files = [root / "content" / name for name in ("schema.py", "bank.py", "katas.py", "yamlnodes.py", "typography.py")]
    used = {
        node.value
        for file in [*files, root / "workbench" / "lessons.py"]
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("check.")
    }
    assert len(used) > 60
    assert sorted(used - set(strings())) == []


# -- every catalog and every kata suite's words, in both languages ----------------------------------


def _fields(text: str) -> set[str]:
    import string

    return {name for _literal, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("key", sorted(strings()))
def test_every_catalog_entry_is_whole_in_both_languages(key: str) -> None:
    """Each wing's catalog: English and Chinese both there, the same {fields}, Chinese punctuation full-width."""
    from normkata.content.typography import zh_problems

    text = strings()[key]
    assert text.en.strip() and text.zh.strip()
    assert _fields(text.en) == _fields(text.zh)
    assert [snippet for snippet, _why in zh_problems(text.zh)] == []


def _suite_words() -> list[tuple[str, str, str]]:
    """(where, English, Chinese) of every kata suite's case names and misconceptions, and the glossary's."""
    from normkata.content.katas import load_katas
    from normkata.content.names import shared
    from normkata.content.suite_names import suite_names

    words = [(f"glossary {case}", text.en, text.zh) for case, text in shared().cases.items()]
    words += [(f"grader case {case}", text.en, text.zh) for case, text in shared().grader_cases.items()]
    katas = load_katas()[0]
    assert katas
    for kata in katas:
        names = suite_names(kata.id)
        assert names.cases, kata.id
        words += [(f"{kata.id} case {case}", text.en, text.zh) for case, text in names.cases.items()]
        for mid, mistake in names.misconceptions.items():
            words.append((f"{kata.id} misconception {mid}", mistake.title.en, mistake.title.zh))
            words.append((f"{kata.id} misconception hint {mid}", mistake.hint.en, mistake.hint.zh))
        for m in kata.misconceptions:
            words.append((f"{kata.id} hint {m.id}", m.hint.en, m.hint.zh))
    return words


def test_every_kata_suite_names_its_cases_and_misconceptions_in_both_languages() -> None:
    from normkata.content.typography import zh_problems

    words = _suite_words()
    assert len(words) > 100
    assert [where for where, en, zh in words if not en.strip() or not zh.strip()] == []
    assert [(where, snippet) for where, _en, zh in words for snippet, _why in zh_problems(zh)] == []


def test_the_console_breaks_chinese_between_characters_not_at_its_spaces() -> None:
    """Rich alone breaks only at spaces: "下一步：normkata review --lang zh（2" then "项已到期：……"
    on the next line, the number parted from its measure word."""
    import io

    from normkata.ui.terminal import make_console

    console = make_console()
    console.file, console.width = io.StringIO(), 40
    console.print("[next]下一步：normkata review --lang zh（2 项已到期：复习日已到，趁大部分还记得时复习）[/]")
    lines = console.file.getvalue().splitlines()
    assert lines[0] == "下一步：normkata review --lang zh（2 项"  # 39 cells: the next character would not fit
    assert "".join(lines) == "下一步：normkata review --lang zh（2 项已到期：复习日已到，趁大部分还记得时复习）"


def _bank_texts() -> list[tuple[str, str]]:
    """(item id, text) for every text of the bank a learner reads, in both languages."""
    from normkata.content.bank import load_bank
    from normkata.i18n.text import Text

    def walk(value: object) -> list[str]:
        if isinstance(value, Text):
            return [value.en, value.zh]
        if isinstance(value, (list, tuple)):
            return [text for item in value for text in walk(item)]
        return []

    bank = load_bank()
    found = []
    for item in [*bank.questions, *bank.cards]:
        for name in ("prompt", "explanation", "choices", "key_points", "answer", "follow_ups", "follow_up_points"):
            found += [(item.id, text) for text in walk(getattr(item, name, None))]
    return found


def test_the_bank_names_no_internals() -> None:
    """A learner read "document 000's MiniMind code" and "a question of its own, rms-torch-eps-value":
    a source is named by its title (the item's source line), another item by what it asks."""
    import re

    from normkata.content.bank import load_bank

    bank = load_bank()
    ids = {item.id for item in [*bank.questions, *bank.cards]}
    found = []
    for item_id, text in _bank_texts():
        found += [(item_id, m) for m in re.findall(r"(?:document|文档) ?\d{3}", text)]
        found += [(item_id, word) for word in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+){2,}", text) if word in ids]
    assert found == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_prompt_wider_than_the_terminal_breaks_at_words_before_it_is_shown(lang: str) -> None:
    """The terminal broke the rating prompt anywhere: "… 4 Easy (7" / "days):"."""
    import io

    from rich.cells import cell_len

    from normkata.practice.cards import rating_prompt
    from normkata.ui.terminal import Prompter, make_console

    console = make_console()
    console.file, console.width = io.StringIO(), 80
    prompter = Prompter(console, lang)
    prompter.interactive = True
    labels: list[str] = []
    console.input = lambda label: labels.append(label) or "3"  # type: ignore[method-assign]
    from datetime import datetime, timedelta, timezone

    now = datetime(2026, 12, 7, 9, 0, tzinfo=timezone.utc)
    later = [timedelta(minutes=1), timedelta(minutes=10), timedelta(days=2), timedelta(days=7)]
    prompt = rating_prompt(lang, {r: (now + d).isoformat() for r, d in enumerate(later, start=1)}, now)
    assert cell_len(prompt) > 70
    assert prompter.ask(prompt) == "3"
    shown = console.file.getvalue().splitlines() + [console.render_str(labels[0]).plain]
    assert all(cell_len(line) <= 80 - 8 for line in shown)
    assert " ".join(shown).replace(" ", "") == (prompt + prompter.colon).replace(" ", "")
    if lang == "en":
        assert all(not line.endswith("(7") for line in shown)
