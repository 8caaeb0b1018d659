"""One bilingual text type, and the language chosen in one place.

Outside normkata/i18n/ no code compares a language with "zh" or "en": a string that differs by
language is a `Text` (or a catalog entry), and `Text.in_` picks it. And `Text` is the one class
with fields `en` and `zh`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "normkata"
I18N = PACKAGE / "i18n"
LANG_CODES = {"zh", "en"}
#: Files let off while they still picked a language by hand (none now: the suites' case names and
#: the shared misconceptions became data). Each must still need its place here:
#: `test_each_file_let_off_still_branches` fails once one no longer does.
LET_OFF: tuple[str, ...] = ()


def _is_lang(node: ast.expr) -> bool:
    """`lang`, `self.lang`, `result.lang`, `target_lang`: a variable that holds a language."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name == "lang" or name.endswith("_lang")


def _is_code(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in LANG_CODES


def language_branches(source: str, where: str) -> list[str]:
    """`where:line` of each comparison of a language variable with "zh" or "en" (==, !=, is)."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, operands[:-1], operands[1:], strict=True):
            if not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                continue
            if (_is_lang(left) and _is_code(right)) or (_is_code(left) and _is_lang(right)):
                found.append(node.lineno)
    return [f"{where}:{line}" for line in sorted(found)]


def bilingual_classes(source: str, where: str) -> list[str]:
    """`where:Class` of each class that declares fields named `en` and `zh`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            fields = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
            if LANG_CODES <= fields:
                found.append(f"{where}:{node.name}")
    return found


def _package_files() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 100  # the package was found
    return files


def _where(file: Path) -> str:
    return str(file.relative_to(PACKAGE.parent))


def test_no_language_branch_outside_i18n() -> None:
    found = [
        branch
        for file in _package_files()
        if I18N not in file.parents and _where(file) not in LET_OFF
        for branch in language_branches(file.read_text(encoding="utf-8"), _where(file))
    ]
    assert found == [], "compare with a language only in normkata/i18n/: use a Text or a catalog key"


@pytest.mark.parametrize("where", LET_OFF)
def test_each_file_let_off_still_branches(where: str) -> None:
    file = PACKAGE.parent / where
    assert file.is_file() and language_branches(file.read_text(encoding="utf-8"), where), (
        f"{where} no longer compares a language by hand: take it out of LET_OFF"
    )


def test_the_branch_check_names_file_and_line_of_each_form() -> None:
    sample = "\n".join(
        [
            "a = zh if lang == 'zh' else en",  # 1
            "if self.lang != 'zh':",  # 2
            "    pass",
            "b = words[lang == 'zh']",  # 4
            "c = 'en' == result.lang",  # 5
            "d = 'now' if target_lang == 'en' else '现在'",  # 6
            "e = lang in ('zh', 'en')",  # 7: membership (validation), not a branch
            "f = kind == 'zh'",  # 8: not a language variable
        ]
    )
    assert language_branches(sample, "normkata/x.py") == [f"normkata/x.py:{n}" for n in (1, 2, 4, 5, 6)]


def test_the_one_class_with_en_and_zh_fields_is_i18n_text() -> None:
    found = [
        name for file in _package_files() for name in bilingual_classes(file.read_text(encoding="utf-8"), _where(file))
    ]
    assert found == ["normkata/i18n/text.py:Text"]


def test_the_class_check_finds_a_second_pair_type() -> None:
    sample = "\n".join(
        [
            "class TextList:",
            "    en: tuple[str, ...]",
            "    zh: tuple[str, ...]",
            "class Hint(NamedTuple):",
            "    level: int",
            "    en: str",
            "    zh: str",
            "class Words:",
            "    title_en: str",
            "    title_zh: str",
        ]
    )
    assert bilingual_classes(sample, "normkata/y.py") == ["normkata/y.py:TextList", "normkata/y.py:Hint"]
