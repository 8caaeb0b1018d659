"""The record keeps ids: a kata graded in Chinese, then in English, reads right in either language."""

from __future__ import annotations

import re
from pathlib import Path

from normkata.content.suite_names import suite_names
from normkata.paths import solutions_dir
from tests.conftest import invoke

#: A Llama-style RMSNorm without keepdim: most cases fail, and the suite names the mistake.
WRONG = Path(__file__).parent.parent / "katas" / "rmsnorm" / "fixtures" / "realworld" / "missing_keepdim.py"
MISTAKE = "rms-missing-keepdim"
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def test_history_after_a_grade_in_chinese_then_one_in_english(runner, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # a misconception's title on one line of the table
    wrong, right = tmp_path / "wrong.py", tmp_path / "right.py"
    wrong.write_text(WRONG.read_text(encoding="utf-8"), encoding="utf-8")
    # The reference is unreadable to submissions where it lies: graded as a learner's copy.
    right.write_text((solutions_dir() / "rmsnorm.py").read_text(encoding="utf-8"), encoding="utf-8")
    assert invoke(runner, ["--lang", "zh", "grade", "rmsnorm", "--file", str(wrong)]).exit_code == 1
    assert invoke(runner, ["grade", "rmsnorm", "--file", str(right)]).exit_code == 0
    en_title, zh_title = (suite_names("rmsnorm").misconception(MISTAKE, lang) for lang in ("en", "zh"))
    assert en_title and zh_title

    listed = invoke(runner, ["history", "rmsnorm"]).stdout
    assert en_title in listed and not CHINESE.search(listed)  # the Chinese grade, in English
    listed_zh = invoke(runner, ["--lang", "zh", "history", "rmsnorm"]).stdout
    assert zh_title in listed_zh and en_title not in listed_zh

    diff = invoke(runner, ["history", "rmsnorm", "--diff"]).stdout
    assert "against the one before, #1 (" in diff and "; passed\n" in diff and "no pass yet" not in diff
    passing = re.search(r"Newly passing \((\d+)\):", diff)
    assert passing and int(passing.group(1)) > 0, diff
    assert "No case changed its verdict." not in diff and "  ✓ forward [" in diff
    assert f"No longer named: {en_title}\n" in diff and "named now" not in diff
    assert not CHINESE.search(diff)

    diff_zh = invoke(runner, ["--lang", "zh", "history", "rmsnorm", "--diff"]).stdout
    assert "；已通过\n" in diff_zh and "尚未通过" not in diff_zh
    assert f"新通过的用例（{passing.group(1)}）：" in diff_zh and "  ✓ 前向 [" in diff_zh
    assert f"不再出现的常见错误：{zh_title}\n" in diff_zh and "新识别出的常见错误" not in diff_zh
    assert "forward [" not in diff_zh and en_title not in diff_zh


def test_every_case_name_reads_back_to_one_id(runner) -> None:
    """Both languages' names of every case of every suite give back its id (the record's key)."""
    from normkata.content.katas import load_katas

    for kata in load_katas()[0]:
        names = suite_names(kata.id)
        assert names.cases, kata.id
        for base in names.cases:
            case_id = f"{base}[3x4-cpu]"
            english, chinese = names.case(case_id, "en"), names.case(case_id, "zh")
            assert english == base.replace("_", " ") + " [3x4-cpu]"
            assert names.case_id(english) == names.case_id(chinese) == case_id, (kata.id, base)
            assert names.case_id(names.case(base, "zh")) == base
        for grader_case in ("import", "forbidden_api", "global_defaults"):
            assert names.case_id(names.case(grader_case, "zh")) == names.case_id(names.case(grader_case, "en"))
    assert suite_names("nosuchkata").case("forward[1]", "zh") == "forward[1]"  # unknown: shown as kept


def test_shared_misconceptions_have_titles_in_both_languages() -> None:
    """Mistakes the shared checks define (not a kata.yaml) still read as words in the record."""
    names = suite_names("rmsnorm")
    assert names.misconception("stateful-forward", "en") == "forward depends on earlier calls"
    assert names.misconception("stateful-forward", "zh") == "forward 的结果依赖之前的调用"
    assert suite_names("layernorm_backward").misconception("autograd-in-backward", "zh")
