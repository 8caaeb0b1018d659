"""Knowledge as data: case titles, misconceptions, the order of study and each kata's home are
YAML, validated by `content check` with one line per problem naming file and line; nothing under
content/, practice/, advice/ or workbench/ reads Python source."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from normkata.content.bank import load_bank
from normkata.content.katas import load_katas
from normkata.content.names import load_shared, shared_path
from normkata.content.study import study_order
from normkata.content.study_checks import check_homes
from normkata.content.suite_names import suite_names
from normkata.practice import curriculum
from tests.conftest import invoke
from tests.test_new_kata import build

PACKAGE = Path(__file__).resolve().parent.parent / "normkata"


def _shared_line(key: str) -> int:
    """The line of `key` in the bundled katas/shared.yaml (`  forward:`, `  - id: stateful-forward`)."""
    lines = shared_path().read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith(key))


# -- kata.yaml: the suite's own cases, its misconceptions, its home ---------------------------


@pytest.fixture
def kata_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway katas/ tree holding the one kata `centre`; returns its kata.yaml."""
    katas = build(tmp_path / "tree")
    monkeypatch.setenv("NORMKATA_KATAS", str(katas))
    return katas / "centre" / "kata.yaml"


def _with(meta: Path, old: str, new: str) -> None:
    text = meta.read_text(encoding="utf-8")
    assert old in text
    meta.write_text(text.replace(old, new), encoding="utf-8")


def _issues() -> list[str]:
    return [str(issue) for issue in load_katas()[1]]


def test_a_kata_titles_its_own_cases_in_both_languages(kata_tree: Path) -> None:
    kata_tree.write_text(
        kata_tree.read_text(encoding="utf-8") + "cases:\n  centre_rows: {en: centre rows, zh: 每行居中}\n",
        encoding="utf-8",
    )
    assert _issues() == []
    names = suite_names("centre")
    assert names.case("centre_rows[4x6-cpu]", "zh") == "每行居中 [4x6-cpu]"
    assert names.case("forward[4x6-cpu]", "zh") == "前向 [4x6-cpu]"  # the shared file's
    assert names.case_id("每行居中 [4x6-cpu]") == names.case_id("centre rows [4x6-cpu]") == "centre_rows[4x6-cpu]"


def test_a_case_title_missing_a_language(kata_tree: Path) -> None:
    kata_tree.write_text(kata_tree.read_text(encoding="utf-8") + "cases:\n  centre_rows: {en: centre rows}\n")
    line = len(kata_tree.read_text().splitlines())
    assert _issues() == [f"{kata_tree}:{line}: cases.centre_rows.zh: missing translation"]


def test_a_case_the_shared_file_already_titles(kata_tree: Path) -> None:
    kata_tree.write_text(kata_tree.read_text(encoding="utf-8") + "cases:\n  forward: {en: forward, zh: 前向}\n")
    line = len(kata_tree.read_text().splitlines())
    shared = _shared_line("  forward:")
    assert _issues() == [f"{kata_tree}:{line}: cases.forward: already titled in katas/shared.yaml (line {shared})"]


def test_two_cases_may_share_a_title(kata_tree: Path) -> None:
    """A grade carries each case's id: the record never reads a title back, so a title need not be unique."""
    kata_tree.write_text(kata_tree.read_text(encoding="utf-8") + "cases:\n  centre_rows: {en: forward, zh: 前向}\n")
    assert _issues() == []


def test_a_misconception_the_shared_file_defines(kata_tree: Path) -> None:
    _with(kata_tree, "  - id: centre-wrong-axis", "  - id: stateful-forward")
    line = kata_tree.read_text().splitlines().index("  - id: stateful-forward") + 1
    shared = _shared_line("  - id: stateful-forward")
    assert _issues() == [
        f"{kata_tree}:{line}: misconceptions[0].id: misconception 'stateful-forward' is already defined in "
        f"katas/shared.yaml (line {shared})"
    ]


def test_a_misconception_defined_by_two_katas(kata_tree: Path) -> None:
    other = kata_tree.parent.parent / "centre_again"
    other.mkdir()
    for file in kata_tree.parent.iterdir():
        if file.is_file():
            (other / file.name).write_bytes(file.read_bytes())
    (kata_tree.parents[2] / "solutions" / "centre_again.py").write_bytes(
        (kata_tree.parents[2] / "solutions" / "centre.py").read_bytes()
    )
    _with(other / "kata.yaml", "id: centre\n", "id: centre_again\n")
    line = kata_tree.read_text().splitlines().index("  - id: centre-wrong-axis") + 1
    found, issues = load_katas()
    assert [k.id for k in found] == ["centre"]
    assert [str(i) for i in issues] == [
        f"{other / 'kata.yaml'}:{line}: misconceptions: misconception 'centre-wrong-axis' is already defined in "
        f"{kata_tree}:{line}"
    ]


def test_a_home_that_is_not_one_of_the_katas_topics(kata_tree: Path) -> None:
    _with(kata_tree, "topics: [layernorm]\n", "topics: [layernorm]\nhome: rmsnorm\n")
    line = kata_tree.read_text().splitlines().index("home: rmsnorm") + 1
    assert _issues() == [f"{kata_tree}:{line}: home: must be one of the kata's topics (layernorm)"]


def test_a_home_the_bank_does_not_have(kata_tree: Path, runner) -> None:
    _with(kata_tree, "topics: [layernorm]\n", "topics: [layernorm, nosuch]\nhome: nosuch\n")
    line = kata_tree.read_text().splitlines().index("home: nosuch") + 1
    expected = f"{kata_tree}:{line}: home: home topic 'nosuch' is no topic of the bank"
    assert [str(i) for i in check_homes(load_bank(), load_katas()[0])] == [expected]
    result = invoke(runner, ["content", "check"])
    assert result.exit_code == 2
    assert expected in result.stderr.splitlines()


def test_the_bundled_katas_state_their_homes() -> None:
    homes = {k.id: curriculum.kata_home(k.home, k.topics) for k in load_katas()[0]}
    assert homes["rmsnorm"] == "rmsnorm"  # it also covers precision, but is studied with RMSNorm
    assert homes["rmsnorm_backward"] == homes["welford"].replace("statistics", "backward") == "backward"
    assert homes["dyt"] == "normfree"  # no home: the last of its topics in the order of study


# -- katas/shared.yaml -----------------------------------------------------------------------

SHARED = """\
format_version: 1
grader_cases:
  import: {en: import, zh: import}
cases:
  forward: {en: forward, zh: 前向}
misconceptions:
  - id: stateful-forward
    title: {en: forward depends on earlier calls, zh: forward 的结果依赖之前的调用}
    hint: {en: Compute from this call's input., zh: 只用本次调用的输入计算。}
"""


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("  forward: {en: forward, zh: 前向}", "  forward: {zh: 前向}", "5: cases.forward.en: missing translation"),
        (
            "  forward: {en: forward, zh: 前向}",
            "  forward: {en: forward, zh: 前向, fr: avant}",
            "5: cases.forward.fr: unknown language (use en and zh)",
        ),
        (
            "  forward: {en: forward, zh: 前向}",
            "  forward one: {en: forward, zh: 前向}",
            "5: cases.forward one: 'forward one' is no case name (a test's name without test_)",
        ),
        (
            "misconceptions:\n",
            "misconceptions:\n  - id: stateful-forward\n    title: {en: a, zh: 甲}\n    hint: {en: b, zh: 乙}\n",
            "10: misconceptions[1].id: misconception 'stateful-forward' is listed twice",
        ),
        (
            "format_version: 1\n",
            "format_version: 1\nglossary: {}\n",
            "2: glossary: unknown key (known: format_version, grader_cases, cases, misconceptions)",
        ),
    ],
)
def test_the_shared_file_reports_each_problem_at_its_line(tmp_path: Path, old: str, new: str, expected: str) -> None:
    path = tmp_path / "shared.yaml"
    path.write_text(SHARED, encoding="utf-8")
    assert load_shared(path)[1] == []
    path.write_text(SHARED.replace(old, new), encoding="utf-8")
    shared, issues = load_shared(path)
    assert [str(i) for i in issues] == [f"{path}:{expected}"]
    assert shared.cases == {}  # a broken file titles nothing


def test_content_check_reports_the_shared_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner) -> None:
    path = tmp_path / "shared.yaml"
    path.write_text(SHARED.replace("{en: forward, zh: 前向}", "{en: forward}"), encoding="utf-8")
    monkeypatch.setattr("normkata.content.names.shared_path", lambda: path)
    result = invoke(runner, ["content", "check"])
    assert result.exit_code == 2
    assert f"{path}:5: cases.forward.zh: missing translation" in result.stderr.splitlines()


def test_every_shared_name_and_misconception_is_in_both_languages() -> None:
    shared, issues = load_shared()
    assert issues == []
    assert {"import", "forbidden_api", "global_defaults"} == set(shared.grader_cases)
    assert shared.cases["forward"].zh == "前向"
    assert {"autograd-in-backward", "stateful-forward"} <= set(shared.misconceptions)


def test_the_plugin_refuses_a_case_no_yaml_titles() -> None:
    from normkata.grading.plugin import SuiteError, _case_name

    class Item:
        name = "test_untitled[cpu]"

    names = suite_names("rmsnorm")
    with pytest.raises(
        SuiteError, match=r"test_untitled\[cpu\]: no title in kata.yaml's cases nor in katas/shared.yaml"
    ):
        _case_name(Item(), names, "zh")  # type: ignore[arg-type]
    Item.name = "test_all_zero_rows_stay_finite[cpu]"
    assert _case_name(Item(), names, "zh") == "全零行保持有限 [cpu]"  # type: ignore[arg-type]


# -- the order of study: quizzes/<topic>.yaml ------------------------------------------------


def _bank(folder: Path, topics: dict[str, str]) -> Path:
    """A bank folder of topic files: id -> the lines after its title."""
    folder.mkdir()
    for topic, extra in topics.items():
        head = f"format_version: 1\ntopic: {topic}\ntitle: {{en: {topic.upper()}, zh: {topic}}}\n"
        (folder / f"{topic}.yaml").write_text(head + textwrap.dedent(extra), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("topics", "expected"),
    [
        ({"a": "order: 10\n", "b": "order: 10\n"}, ["b.yaml:4: order: order 10 is already 'a''s"]),
        ({"a": "order: 10\nrequires: [nosuch]\n"}, ["a.yaml:5: requires: no topic 'nosuch' in the bank"]),
        (
            {"a": "order: 20\n", "b": "order: 10\nrequires: [a]\n"},
            ["b.yaml:5: requires: requires 'a', which comes later in the order of study"],
        ),
        (
            {"a": "order: 10\nrequires: [b]\n", "b": "order: 20\nrequires: [a]\n"},
            ["a.yaml:5: requires: prerequisites run in a circle: a -> b -> a"],
        ),
        ({"a": "core: true\n"}, ["a.yaml:4: core: a core topic needs its place in the order (order:)"]),
        ({"a": "order: first\n"}, ["a.yaml:4: order: expected a whole number"]),
        ({"a": "order: 10\ncore: yes please\n"}, ["a.yaml:5: core: expected true or false"]),
    ],
)
def test_the_order_of_study_reports_each_problem_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner, topics: dict[str, str], expected: list[str]
) -> None:
    folder = _bank(tmp_path / "bank", topics)
    monkeypatch.chdir(tmp_path)
    result = invoke(runner, ["content", "check", "bank"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[:-1] == [f"bank/{line}" for line in expected]
    assert folder.is_dir()


def test_one_file_is_checked_against_the_bank_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner
) -> None:
    """`content check quizzes/b.yaml`: b's prerequisite lives in a.yaml beside it, and a.yaml's own
    missing prerequisite is a.yaml's to tell, not b.yaml's."""
    _bank(tmp_path / "bank", {"a": "order: 10\nrequires: [nosuch]\n", "b": "order: 20\nrequires: [a]\n"})
    monkeypatch.chdir(tmp_path)
    alone = invoke(runner, ["content", "check", "bank/b.yaml"])
    assert alone.exit_code == 0, alone.stderr
    (tmp_path / "bank" / "b.yaml").write_text(
        "format_version: 1\ntopic: b\ntitle: {en: B, zh: b}\norder: 10\nrequires: [aa]\n", encoding="utf-8"
    )
    typo = invoke(runner, ["content", "check", "bank/b.yaml"])
    assert typo.exit_code == 2
    assert typo.stderr.splitlines()[:-1] == [
        "bank/b.yaml:4: order: order 10 is already 'a''s",
        "bank/b.yaml:5: requires: no topic 'aa' in the bank",
    ]


def test_a_topic_the_order_does_not_name_comes_after_every_named_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _bank(tmp_path / "bank", {"a": "order: 20\nrequires: [b]\n", "b": "order: 10\ncore: true\n", "c": ""})
    monkeypatch.setenv("NORMKATA_QUIZZES", str(folder))
    assert study_order().order == ("b", "a")
    assert study_order().requires == {"a": ("b",)}
    assert curriculum.ordered(["c", "a", "b"]) == ["b", "a", "c"]
    assert curriculum.core_topics() == ("b",)
    assert curriculum.rank("c", ["a", "b", "c"]) == 2 + 2


def test_the_bundled_order_of_study() -> None:
    plan = study_order()
    assert plan.order[:5] == plan.core == ("why", "batchnorm", "layernorm", "rmsnorm", "prenorm")
    assert plan.order[-3:] == ("outliers", "kernels", "conditioning")
    assert plan.requires["kernels"] == ("rmsnorm", "precision", "backward", "cost")
    assert plan.requires["conditioning"] == ("layernorm", "prenorm", "placement")


# -- nothing below the commands parses Python ------------------------------------------------


#: What reading Python source takes: a parser (ast, tokenize, the compile builtin) or another
#: module's source (inspect.getsource, runpy). Naming a suite's file to hand it to the grader is not.
PARSES_PYTHON = re.compile(
    r"^\s*(?:import|from) (?:ast|tokenize|runpy)\b|\b(?:ast|tokenize|runpy)\.\w+|(?<![.\w])compile\("
    r"|\bgetsource\(",
    re.MULTILINE,
)


@pytest.mark.parametrize("package", ["content", "practice", "advice", "workbench"])
def test_no_module_of_the_package_parses_python_source(package: str) -> None:
    """Knowledge is read as data: a module that needs another's words reads its YAML, never its code."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if PARSES_PYTHON.search(line)
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "import ast",
        "from ast import literal_eval",
        "tree = ast.parse(text)",
        "import tokenize",
        "code = compile(text, 'suite.py', 'exec')",
        "text = inspect.getsource(module)",
        "runpy.run_path(path)",
        "import runpy",
    ],
)
def test_the_guard_finds_each_way_of_reading_python(source: str) -> None:
    assert PARSES_PYTHON.search(source), source


def test_the_guard_lets_a_regex_and_a_file_name_pass() -> None:
    assert not PARSES_PYTHON.search("WORD = re.compile(r'[a-z]+')") and not PARSES_PYTHON.search('folder / "suite.py"')
