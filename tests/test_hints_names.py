"""Hints recalled and jumped to, the last kata by default, did-you-mean for every name the
learner types, case-insensitive topics, full-width answers, prompts and the quiz summary."""

from __future__ import annotations

import json

import pytest

from tests.conftest import FIXTURES, invoke


@pytest.fixture
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


def _hint_events(db) -> list[str]:  # type: ignore[no-untyped-def]
    return [r["kind"] for r in db.execute("SELECT kind FROM kata_events WHERE kind = 'hint'")]


def test_the_last_hint_says_so_in_both_languages(runner) -> None:
    invoke(runner, ["hint", "rmsnorm"])
    second = invoke(runner, ["hint", "rmsnorm"]).stdout
    assert "Hint 2/3 for rmsnorm\n" in second and "last hint" not in second
    assert "Hint 3/3 for rmsnorm (last hint)" in invoke(runner, ["hint", "rmsnorm"]).stdout
    assert (
        "rmsnorm 的提示 3/3（最后一条）" in invoke(runner, ["hint", "rmsnorm", "--lang", "zh", "--level", "3"]).stdout
    )


def test_all_recalls_every_hint_taken_and_takes_nothing_new(runner, db) -> None:
    invoke(runner, ["hint", "layernorm"])
    invoke(runner, ["hint", "layernorm"])
    recalled = invoke(runner, ["hint", "layernorm", "--all"])
    assert recalled.exit_code == 0
    assert "Hint 1/3" in recalled.stdout and "Hint 2/3" in recalled.stdout and "Hint 3/3" not in recalled.stdout
    assert len(_hint_events(db)) == 2


def test_all_before_any_hint_shows_the_first(runner, db) -> None:
    result = invoke(runner, ["hint", "batchnorm", "--all"])
    assert "Hint 1/3 for batchnorm" in result.stdout and "Hint 2/3" not in result.stdout
    assert len(_hint_events(db)) == 1


def test_level_recalls_or_jumps_ahead_and_counts_each_hint_once(runner, db) -> None:
    jumped = invoke(runner, ["hint", "rmsnorm", "--level", "2"]).stdout
    assert "Hint 2/3" in jumped and "Hint 1/3" not in jumped
    assert len(_hint_events(db)) == 2  # levels 1 and 2 now count as taken
    assert "Hint 1/3" in invoke(runner, ["hint", "rmsnorm", "--level", "1"]).stdout
    assert len(_hint_events(db)) == 2
    assert "Hint 3/3 for rmsnorm (last hint)" in invoke(runner, ["hint", "rmsnorm"]).stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["hint", "rmsnorm", "--level", "4"], "Error: --level: rmsnorm has hints 1 to 3\n"),
        (["hint", "rmsnorm", "--level", "0"], "Invalid value for '--level'"),
        (["hint", "rmsnorm", "--all", "--level", "1"], "Error: --all and --level: give one or the other\n"),
        (["hint"], "Error: No kata started yet: name one (normkata hint rmsnorm)"),
        (["solution"], "Error: No kata started yet: name one (normkata solution rmsnorm)"),
    ],
)
def test_bad_hint_and_solution_input_is_one_line_exit_2(runner, args: list[str], message: str) -> None:
    result = invoke(runner, args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_hint_and_solution_default_to_the_last_kata(runner) -> None:
    invoke(runner, ["kata", "rmsnorm"])
    invoke(runner, ["kata", "layernorm"])
    assert "Hint 1/3 for layernorm" in invoke(runner, ["hint"]).stdout
    invoke(runner, ["hint", "rmsnorm"])  # a hint is kata activity too: rmsnorm is now the last
    shown = invoke(runner, ["solution", "--yes"])
    assert shown.exit_code == 0 and "class RMSNorm" in shown.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["kata", "rmsnrom"], "Error: unknown kata 'rmsnrom' (did you mean rmsnorm?) (known: "),
        (["hint", "layrnorm"], "(did you mean layernorm?)"),
        (["quizz"], "Error: No such command 'quizz' (did you mean quiz?).\n"),
        (["--lang", "zh", "quizz"], "Error: 没有命令 'quizz'（你是不是想输入 quiz？）。\n"),
        (["nothing-like-it"], "Error: No such command 'nothing-like-it'.\n"),
        (["lab", "vanshing"], "Error: No such command 'vanshing' (did you mean vanishing?).\n"),
        (["quiz", "--topic", "mnii"], "Error: --topic: unknown topic 'mnii' (did you mean mini?) (known: mini)\n"),
        (["quiz", "--id", "mini-singel"], "(did you mean mini-single?)"),
    ],
)
def test_unknown_names_suggest_close_ones(runner, mini_bank, args: list[str], message: str) -> None:
    result = invoke(runner, args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_kata_names_ignore_case(runner) -> None:
    result = invoke(runner, ["hint", "RMSNorm"])
    assert result.exit_code == 0 and "Hint 1/3 for rmsnorm" in result.stdout


def test_topics_ignore_case(runner) -> None:
    from normkata.content.bank import load_bank

    rms = {q.id for q in load_bank().questions if q.topic == "rmsnorm"}
    result = invoke(runner, ["quiz", "-t", "RMSNorm", "-n", "3", "--seed", "1", "--json"], "\n" * 3)
    assert result.exit_code == 0, result.output
    asked = [a["id"] for a in json.loads(result.stdout)["answers"]]
    assert len(asked) == 3 and set(asked) <= rms


def test_full_width_answers_in_the_chinese_quiz(runner, db, mini_bank) -> None:
    # mini-single's answer is B; Ｂ and ２ are how a Chinese input method types B and 2.
    for typed in ("Ｂ", "２"):
        result = invoke(runner, ["quiz", "--id", "mini-single", "--lang", "zh"], f"{typed}\n")
        assert "回答正确。" in result.stdout, typed
    assert [bool(r[0]) for r in db.execute("SELECT correct FROM answers")] == [True, True]


def test_normalize_typed_is_the_one_way_answers_are_read() -> None:
    from normkata.practice.answers import normalize_typed

    assert normalize_typed(" Ａ，Ｃ\u3000") == "A,C"
    assert normalize_typed("３") == "3"


def test_prompts_show_letters_and_numbers(runner, mini_bank) -> None:
    out = invoke(runner, ["quiz", "--id", "mini-single", "--id", "mini-tf", "--id", "mini-order"], "\n\n\n").stdout
    assert "Your answer (A-C or 1-3):" in out
    assert "True or false (A/t/1 or B/f/2):" in out
    assert "The right order (A-C or 1-3, e.g. CBA):" in out
    zh = invoke(runner, ["quiz", "--id", "mini-single", "--lang", "zh"], "\n").stdout
    assert "你的答案（A-C 或 1-3）：" in zh


def test_numbers_answer_every_lettered_type(runner, mini_bank) -> None:
    # mini-multiple is A and C, mini-order B C A, mini-tf true: typed as choice numbers.
    stdin = "1 3\n231\n1\n"
    ids = ["--id", "mini-multiple", "--id", "mini-order", "--id", "mini-tf"]
    summary = json.loads(invoke(runner, ["quiz", *ids, "--json"], stdin).stdout)
    assert [a["correct"] for a in summary["answers"]] == [True, True, True]


def test_summary_counts_skipped_apart_from_answered(runner, mini_bank) -> None:
    ids = ["--id", "mini-single", "--id", "mini-tf", "--id", "mini-numeric"]
    summary = json.loads(invoke(runner, ["quiz", *ids, "--json"], "B\n\nf\n").stdout)
    assert (summary["answered"], summary["skipped"], summary["correct"]) == (2, 1, 1)
    assert summary["score"] == round(1 / 3, 4)
    assert summary["topics"] == {"mini": {"correct": 1, "answered": 2, "skipped": 1}}
    table = invoke(runner, ["quiz", *ids], "B\n\nf\n").stdout
    assert "┃ Topic ┃ Correct ┃ Answered ┃ Skipped ┃ Score ┃" in table
    assert "│ All   │       1 │        2 │       1 │   33% │" in table


def test_stopping_early_names_the_skipped(runner, mini_bank) -> None:
    ids = ["--id", "mini-single", "--id", "mini-tf", "--id", "mini-numeric"]
    result = invoke(runner, ["quiz", *ids], "B\n\n")
    assert "Stopped early: 1 of 3 answered and 1 skipped, all of them saved." in result.stdout
    zh = invoke(runner, ["quiz", *ids, "--lang", "zh"], "B\n\n")
    assert "提前结束：共 3 题，已答 1 题、跳过 1 题，均已保存。" in zh.stdout


def test_full_width_rating(runner, db, mini_bank) -> None:
    result = invoke(runner, ["interview", "--lang", "zh"], "它们很小\n\n３\n")
    assert result.exit_code == 0
    assert db.execute("SELECT rating FROM ratings").fetchone()[0] == 3
