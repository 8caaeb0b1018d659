"""Golden files of the doors the learner's loop serves beyond the terminal's grade report (those are
tests/test_golden.py's): the mock interview from its first question to its scorecard, and what the
MCP tutor answers an assistant, text and structured content, in English and Chinese.

Rewritten by the command tests/test_golden.py names (`--update-golden`). What varies from run to
run is pinned: the mock's clock reads a counter, a grade is a result made by hand, the workspace's
path and ISO times are replaced by placeholders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from normkata.agent.tutor import Reply, Tutor
from normkata.errors import InputError
from tests.conftest import FIXTURES, invoke
from tests.grades import grade_result
from tests.test_golden import GOLDEN, LANGS

#: An ISO time with its zone, as the record writes them: pinned in the golden text.
WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)")


@pytest.fixture
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


@pytest.mark.parametrize("lang", LANGS)
def test_a_mock_interview_from_question_to_scorecard(  # type: ignore[no-untyped-def]
    lang: str, runner, golden, mini_bank, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticks = iter(range(0, 10_000, 7))  # each reading of the mock's clock moves it on 7 s
    monkeypatch.setattr("normkata.practice.mock.clock", lambda: float(next(ticks)))
    result = invoke(runner, ["mock", "--minutes", "5", "--lang", lang], "small\ntidy too\n\nbecause\n\n1\n")
    assert result.exit_code == 0, result.output
    golden(GOLDEN / f"mock.{lang}.txt", result.stdout)


def _graded_with_a_named_mistake(kata: str, file: Path, **options: object) -> object:
    named = {"rms-eps-outside-sqrt": "eps added outside the square root"}
    cases = {"forward fp32": "failed", "shapes": "passed"}
    return grade_result(kata, cases, seed=3, named=named, file="rmsnorm.py", lang=str(options["lang"]))


def _shown(reply: Reply, workspace: Path) -> str:
    """A reply as the assistant gets it: its text, then its structured content; machine paths and times pinned."""
    data = json.dumps(reply.data, ensure_ascii=False, indent=2, sort_keys=True)
    text = f"{reply.text}\n---\n{data}\n"
    return WHEN.sub("<time>", text.replace(str(workspace), "<workspace>"))


@pytest.fixture
def tutors(mini_bank, tmp_path: Path) -> Iterator[dict[str, Tutor]]:  # type: ignore[no-untyped-def]
    made = {lang: Tutor(tmp_path / "workspace", lang, grade=_graded_with_a_named_mistake) for lang in LANGS}
    yield made
    for tutor in made.values():
        tutor.close()


@pytest.mark.parametrize("lang", LANGS)
def test_what_the_tutor_answers_an_assistant(lang: str, tutors, golden, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Each tool's reply after a grade that named a mistake: every suggestion a tool to call."""
    tutor, workspace = tutors[lang], tmp_path / "workspace"
    tutor.start_kata("rmsnorm")
    replies = {
        "grade": tutor.grade("rmsnorm"),
        "hint": tutor.hint("rmsnorm"),
        "quiz-question": tutor.quiz_question(id="mini-single"),
        "check-answer": tutor.check_answer("mini-single", "A"),
        "interview-card": tutor.interview_card(id="mini-card"),
        "next-step": tutor.next_step(),
        "standing": tutor.standing(),
        "plan": tutor.plan(20),
    }
    shown = "".join(f"## {tool}\n{_shown(reply, workspace)}\n" for tool, reply in replies.items())
    with pytest.raises(InputError) as refused:
        tutor.solution("rmsnorm")
    shown += f"## solution (refused)\n{refused.value}\n"
    assert "normkata " not in shown.replace("`normkata mcp`", "")
    golden(GOLDEN / f"mcp.{lang}.txt", shown)
