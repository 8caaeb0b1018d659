"""katas/<id>/cases.yaml is what the suite collects: `grade --list` reads it and starts no grader.

`.venv/bin/python -m pytest tests/test_case_lists.py --update-golden` rewrites the lists from the
suites (after a suite gains or loses a case)."""

from __future__ import annotations

import pytest

from normkata.content.case_list import case_list_path, case_list_text, case_names, read_case_list
from normkata.content.katas import load_katas
from normkata.content.suite_names import suite_names
from normkata.i18n.text import Text
from tests.conftest import invoke

KATAS = [kata.id for kata in load_katas()[0]]


@pytest.mark.slow
@pytest.mark.one_off_runner  # a runner of its own per kata: one runner listing a second suite mixes them up
@pytest.mark.parametrize("kata", KATAS)
def test_each_case_list_is_the_suites_collection(kata: str, golden) -> None:  # type: ignore[no-untyped-def]
    from normkata.grading.client import collect_cases
    from normkata.grading.contract import Category

    collected = collect_cases(kata, "en")
    names = suite_names(kata)
    listing: dict[str, tuple[Text, list[Text]]] = {}
    for category, name in collected:  # grouped by category, each in the suite's order
        label = Text(category, Category(category).label("zh"))
        listing.setdefault(category, (label, []))[1].append(Text(name, names.case(names.case_id(name), "zh")))
    golden(case_list_path(kata), case_list_text(kata, list(listing.values())))
    assert read_case_list(kata) == list(listing.values())
    assert sorted(case_names(kata, "en") or []) == sorted(collected)


@pytest.mark.one_off_runner  # nothing patched: a grader started here would be a real one
def test_grade_list_starts_no_grader(runner, monkeypatch: pytest.MonkeyPatch) -> None:
    """`grade rmsnorm_backward --list` took 15 s: a runner importing torch and pytest to collect names."""
    from normkata.grading.client import Grader

    def refuse(self: Grader) -> None:
        raise AssertionError("grade --list started a grader")

    monkeypatch.setattr(Grader, "start", refuse)
    for lang, heading, category in (
        ("en", "Cases of rmsnorm_backward", "gradients ("),
        ("zh", "rmsnorm_backward 的用例", "梯度（"),
    ):
        result = invoke(runner, ["grade", "rmsnorm_backward", "--list", "--lang", lang])
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith(heading)
        assert f"\n{category}" in result.stdout
    listed = case_names("rmsnorm_backward", "zh")
    assert listed is not None and [f"  {name}" for _, name in listed] == [
        line for line in result.stdout.splitlines() if line.startswith("  ")
    ]
