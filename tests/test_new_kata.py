"""A kata is its folder and its solution: a throwaway kata, built in a temporary tree from those
alone, is listed by the catalog and `normkata kata`, graded (its reference passes, its starter
fails) and deep-checked (its one mistake is named for its one mutant)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from normkata.content.katas import load_katas
from normkata.grading.client import Grader
from normkata.grading.selfcheck import deep_check
from tests.conftest import invoke

pytestmark = pytest.mark.slow

KATA_YAML = """\
format_version: 1
id: centre
order: 99
title: {en: Centre each row, zh: 每行减去均值}
difficulty: easy
minutes: 5
topics: [layernorm]
file: centre.py
classes: [Centre]
forbidden: []
hints:
  en: ["Subtract the mean.", "Over the last dimension.", "x - x.mean(-1, keepdim=True)"]
  zh: ["减去均值。", "在最后一维上。", "x - x.mean(-1, keepdim=True)"]
misconceptions:
  - id: centre-wrong-axis
    title: {en: the mean is taken over the batch, zh: 在批次维度上求了均值}
    hint: {en: "Reduce over dim=-1.", zh: "在 dim=-1 上归约。"}
"""

SUITE = '''\
"""Hidden suite of a throwaway kata."""

import pytest

from normkata.grading.checks import DEVICES, Harness, Input, misconceptions, randn
from normkata.grading.contract import Category

# "forward" is titled in katas/shared.yaml: the kata.yaml needs no `cases:`.
WRONG_AXIS = misconceptions("centre")["centre-wrong-axis"]


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
def test_forward(harness: Harness, device: str) -> None:
    harness.forward_case(
        "Centre", [6], {}, Input(randn((4, 6), 1), "N(0,1)"),
        expected=lambda x, _: x.double() - x.double().mean(-1, keepdim=True),
        suspects=lambda x, _: [(WRONG_AXIS, x.double() - x.double().mean(0, keepdim=True))],
    )
'''

SOLUTION = '''\
"""Reference solution of a throwaway kata."""

import torch
from torch import nn


class Centre(nn.Module):
    def __init__(self, hidden_size: int) -> None:
        super().__init__()
        self.hidden_size = hidden_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x - x.mean(-1, keepdim=True)
'''

STARTER = '''\
"""Centre each row: subtract its mean over the last dimension."""

from torch import nn


class Centre(nn.Module):
    def __init__(self, hidden_size: int) -> None:
        super().__init__()

    def forward(self, x):
        raise NotImplementedError
'''

MUTANTS = """\
- name: mean_over_the_batch
  expect: fail diagnosis=centre-wrong-axis
  what: the mean over dim 0
  from: solution
  edits:
    - {old: "x.mean(-1, keepdim=True)", new: "x.mean(0, keepdim=True)"}
"""


def build(root: Path) -> Path:
    """katas/centre/ and solutions/centre.py, nothing else; returns the katas folder."""
    folder = root / "katas" / "centre"
    (folder / "fixtures").mkdir(parents=True)
    (root / "solutions").mkdir()
    files = {
        folder / "kata.yaml": KATA_YAML,
        folder / "suite.py": SUITE,
        folder / "starter.py": STARTER,
        folder / "instructions.en.md": "# Centre\n\nWrite `Centre(hidden_size)`.\n",
        folder / "instructions.zh.md": "# 中心化\n\n写出 `Centre(hidden_size)`。\n",
        folder / "fixtures" / "mutants.yaml": MUTANTS,
        root / "solutions" / "centre.py": SOLUTION,
    }
    for path, text in files.items():
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root / "katas"


def test_a_kata_is_its_folder_and_its_solution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    katas = build(tmp_path / "tree")
    monkeypatch.setenv("NORMKATA_KATAS", str(katas))

    found, issues = load_katas()
    assert issues == [] and [k.id for k in found] == ["centre"]
    listed = json.loads(invoke(CliRunner(), ["kata", "--json"]).output)
    assert [k["id"] for k in listed] == ["centre"]

    with Grader() as service:
        learner = tmp_path / "work" / "centre.py"
        learner.parent.mkdir()
        learner.write_text(SOLUTION, encoding="utf-8")
        assert service.grade("centre", learner, seed=3).passed
        learner.write_text(STARTER, encoding="utf-8")
        assert not service.grade("centre", learner, seed=3).passed

    problems, had_fixtures = deep_check(found, lambda what: None)
    assert problems == [] and had_fixtures


def test_an_authors_tree_without_solutions_is_an_issue_then_read_again_once_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog is read once per version of each kata's files (a warm grader looks its kata up on
    every grade): a missing solutions/ folder is reported as a content issue, and adding it, or
    editing kata.yaml, is seen at the next look-up."""
    katas = build(tmp_path / "tree")
    monkeypatch.setenv("NORMKATA_KATAS", str(katas))
    solutions = katas.parent / "solutions"
    kept = tmp_path / "kept"
    solutions.rename(kept)
    found, issues = load_katas()
    assert found == [] and [(Path(i.file).name, i.field) for i in issues] == [("kata.yaml", "id")]
    kept.rename(solutions)
    found, issues = load_katas()
    assert issues == [] and [k.id for k in found] == ["centre"]
    meta = katas / "centre" / "kata.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + "unknown_key: 1\n", encoding="utf-8")
    assert [i.field for i in load_katas()[1]] == ["unknown_key"], "an edited kata.yaml was not read again"


def test_a_suite_case_no_yaml_titles_is_a_deep_check_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case a suite defines has a title in both languages (kata.yaml's `cases:` or
    katas/shared.yaml): the deep check collects the suite and names the one that has none."""
    katas = build(tmp_path / "tree")
    monkeypatch.setenv("NORMKATA_KATAS", str(katas))
    suite = katas / "centre" / "suite.py"
    suite.write_text(
        suite.read_text(encoding="utf-8")
        + textwrap.dedent("""

        @pytest.mark.category(Category.FORWARD)
        def test_centre_twice(harness: Harness) -> None:
            pass
        """),
        encoding="utf-8",
    )
    problems, _had_fixtures = deep_check(load_katas()[0], lambda what: None)
    assert [str(p) for p in problems] == [
        "centre: the grader failed: the hidden suite breaks the grading contract: test_centre_twice: no title in "
        "kata.yaml's cases nor in katas/shared.yaml"
    ]
    meta = katas / "centre" / "kata.yaml"
    meta.write_text(meta.read_text(encoding="utf-8") + "cases:\n  centre_twice: {en: centre twice, zh: 两次居中}\n")
    with Grader() as service:
        assert ("forward fp32", "两次居中") in service.list_cases("centre", "zh")
