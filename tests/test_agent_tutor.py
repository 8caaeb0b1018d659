"""What `normkata mcp`'s tools do, without the protocol (normkata.agent.tutor): the same rows in the
store as the commands write, the solution rule, the quiz's marking, AGENTS.md; and `normkata mcp`
without the extra. The server itself, over stdio with the SDK's client: tests/test_mcp_server.py."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from normkata.agent.tutor import Tutor
from normkata.errors import InputError
from normkata.paths import solutions_dir
from tests.conftest import FIXTURES, invoke
from tests.grading.test_fixtures import fixture_source

KATAS = Path(__file__).parents[1] / "katas"
#: Columns of an attempt that differ between two grades of the same file with the same seed.
WHEN = ("id", "at", "duration_s")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return tmp_path / "workspace"  # NORMKATA_WORKSPACE, set by conftest


@pytest.fixture
def tutor(workspace: Path) -> Tutor:
    return Tutor(workspace, "en")


def attempts(db) -> list[dict]:  # type: ignore[no-untyped-def]
    rows = db.execute("SELECT * FROM kata_attempts ORDER BY id").fetchall()
    return [{key: row[key] for key in row.keys() if key not in WHEN} for row in rows]


def events(db, kata: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [
        (r["kind"], r["detail"])
        for r in db.execute("SELECT kind, detail FROM kata_events WHERE kata = ? ORDER BY id", (kata,))
    ]


# -- grading: the same request, report and rows as `normkata grade` -------------------------------


@pytest.mark.slow
def test_a_grade_is_recorded_as_normkata_grade_records_it(runner, tmp_path: Path, db, grading_service) -> None:
    wrong = tmp_path / "wrong_rmsnorm.py"
    wrong.write_text(fixture_source("rmsnorm", "buggy_eps_outside_sqrt"))
    tutor = Tutor(tmp_path / "workspace", "en", grade=grading_service.grade)
    reply = tutor.grade("rmsnorm", str(wrong), seed=7)
    assert reply.data["passed"] is False and reply.data["seed"] == 7
    assert [m["id"] for m in reply.data["mistakes"]] == ["rms-eps-outside-sqrt"]
    assert reply.data["mistakes"][0]["hint"].startswith("Use x * rsqrt(mean(x²) + eps)")
    assert all(case["status"] in ("failed", "error") for case in reply.data["failing_cases"])
    text = " ".join(reply.text.split())
    assert "Recognised mistake: eps added outside the square root" in text and "NOT YET" in text
    cli = invoke(runner, ["grade", "rmsnorm", "--file", str(wrong), "--seed", "7"])
    assert cli.exit_code == 1
    tool_row, cli_row = attempts(db)
    assert tool_row == cli_row and tool_row["file"] == str(wrong) and tool_row["seed"] == 7
    assert '"rms-eps-outside-sqrt"' in tool_row["diagnosis"]
    assert [r["kind"] for r in db.execute("SELECT kind FROM kata_activity ORDER BY seq")] == ["attempt", "attempt"]
    # The report is the one `grade` prints (its first line holds the seconds the grade took).
    assert reply.text.splitlines()[1:8] == cli.stdout.splitlines()[1:8]


def test_grade_errors_are_one_liners_in_the_tools_words(tutor: Tutor, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r'No kata to grade yet: start one with start_kata \{"kata": "rmsnorm"\}\.'):
        tutor.grade()
    with pytest.raises(
        InputError,
        match=r'rmsnorm\.py not found: start the kata first \(start_kata \{"kata": "rmsnorm"\}\), or name a file with file\.$',
    ):
        tutor.grade("rmsnorm")
    with pytest.raises(InputError, match=r"^file /\S+/nowhere\.py: no such file"):
        tutor.grade("rmsnorm", str(tmp_path / "nowhere.py"))
    (tmp_path / "elsewhere.py").write_text("x = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "elsewhere.py")
    with pytest.raises(InputError, match="link.py is a symbolic link"):
        tutor.grade("rmsnorm", str(tmp_path / "link.py"))


# -- hints and the solution: recorded as `hint` and `solution` record them --------------------------


def test_hints_come_in_order_and_are_recorded_as_the_command_records_them(runner, tutor: Tutor, db) -> None:
    first = tutor.hint("layernorm")
    assert first.data["level"] == 1 and first.data["total"] == 3 and first.text.startswith("Hint 1/3 for layernorm")
    second_by_command = invoke(runner, ["hint", "layernorm"]).stdout
    third = tutor.hint("layernorm")
    assert "Hint 2/3" in second_by_command and third.data["level"] == 3 and third.data["last"] is True
    assert "That was the last hint for layernorm." in third.text
    assert events(db, "layernorm") == [("hint", "1"), ("hint", "2"), ("hint", "3")]
    assert tutor.hint().data["level"] == 3  # the last kata worked on, its last hint again, counted once
    assert events(db, "layernorm")[-1] == ("hint", "3") and len(events(db, "layernorm")) == 3


def test_the_solution_is_refused_before_a_pass_with_the_reason(tutor: Tutor, db) -> None:
    with pytest.raises(InputError) as refused:
        tutor.solution("batchnorm")
    said = str(refused.value)
    assert "opens after a pass" in said and "give_up: true" in said and "\n" not in said
    assert events(db, "batchnorm") == []


def test_giving_up_shows_it_and_is_recorded_as_solution_yes_records_it(runner, tutor: Tutor, db) -> None:
    reply = tutor.solution("batchnorm", give_up=True)
    assert reply.data["gave_up"] is True and "class BatchNorm1d" in reply.data["solution"]
    assert reply.text.startswith("Recorded as giving up on batchnorm.") and reply.data["diff"] is None
    invoke(runner, ["solution", "layernorm", "--yes"])
    assert events(db, "batchnorm") == events(db, "layernorm") == [("gave_up", "")]


@pytest.mark.slow
def test_after_a_pass_the_solution_comes_with_the_diff(workspace: Path, db, grading_service) -> None:
    tutor = Tutor(workspace, "en", grade=grading_service.grade)
    tutor.start_kata("rmsnorm")
    shutil.copy(KATAS / "rmsnorm" / "fixtures" / "correct_llama_style.py", workspace / "rmsnorm.py")
    assert tutor.grade("rmsnorm").data["passed"] is True
    reply = tutor.solution("rmsnorm")
    assert reply.data["gave_up"] is False and reply.data["solution"] == (solutions_dir() / "rmsnorm.py").read_text()
    assert reply.data["diff"].startswith(f"--- yours: {workspace / 'rmsnorm.py'}\n+++ reference")
    assert events(db, "rmsnorm") == [("started", str(workspace / "rmsnorm.py"))]


# -- katas and AGENTS.md -----------------------------------------------------------------------------


def test_start_kata_never_writes_over_the_learners_file(tutor: Tutor, workspace: Path, db) -> None:
    started = tutor.start_kata("rmsnorm")
    target = workspace / "rmsnorm.py"
    assert started.data["written"] is True and started.data["file"] == str(target)
    assert "# RMSNorm from scratch" in started.data["instructions"]
    target.write_text("# my work\n")
    again = tutor.start_kata("RMSNorm")
    assert again.data["written"] is False and target.read_text() == "# my work\n"
    assert "already exists: the learner's work is kept as it is" in again.text
    assert tutor.learner_file("rmsnorm") == "# my work\n"
    assert [kind for kind, _ in events(db, "rmsnorm")] == ["started", "started"]
    listed = {row["id"]: row for row in tutor.list_katas().data["katas"]}
    assert listed["rmsnorm"]["status"] == "in progress" and listed["layernorm"]["status"] == "not started"


def test_kata_writes_agents_md_once_and_never_over_the_learners_own(runner, workspace: Path) -> None:
    first = invoke(runner, ["kata", "rmsnorm"])
    guide = workspace / "AGENTS.md"
    assert f"Wrote {guide}" in " ".join(first.stdout.split())
    text = guide.read_text()
    assert "Be a teaching assistant, not a solution generator" in text and "normkata mcp" in text
    guide.write_text("# my own rules\n")
    second = invoke(runner, ["kata", "layernorm"])
    assert guide.read_text() == "# my own rules\n" and "AGENTS.md" not in second.stdout
    invoke(runner, ["kata", "rmsnorm", "--force"])
    assert guide.read_text() == "# my own rules\n"


def test_agents_md_is_not_written_through_a_link(runner, workspace: Path, tmp_path: Path) -> None:
    workspace.mkdir()
    (workspace / "AGENTS.md").symlink_to(tmp_path / "outside.md")
    assert invoke(runner, ["kata", "rmsnorm", "--lang", "zh"]).exit_code == 0
    assert not (tmp_path / "outside.md").exists() and (workspace / "AGENTS.md").is_symlink()


def test_agents_md_in_the_learners_language(tutor: Tutor, workspace: Path) -> None:
    Tutor(workspace, "zh").start_kata("rmsnorm")
    assert "请做助教，而不是答案生成器" in (workspace / "AGENTS.md").read_text()


# -- the quiz: marked and saved as `normkata quiz` marks and saves ------------------------------------


@pytest.fixture
def mini_bank(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMKATA_QUIZZES", str(FIXTURES / "good"))


def test_a_question_comes_without_its_answer(tutor: Tutor, mini_bank) -> None:
    reply = tutor.quiz_question(id="mini-single")
    assert reply.data["id"] == "mini-single" and reply.data["type"] == "single"
    assert [c["letter"] for c in reply.data["choices"]] == ["A", "B", "C"] and reply.data["answer_format"]
    assert not {"answer", "explanation", "expected"} & set(reply.data)
    assert tutor.quiz_question(topic="MINI").data["topic"] == "mini"
    with pytest.raises(InputError, match="no question 'mini-singel' in the bank"):
        tutor.quiz_question(id="mini-singel")


def test_an_answer_is_saved_with_its_review_in_a_quiz_session(tutor: Tutor, db, mini_bank) -> None:
    tutor.quiz_question(id="mini-single")
    right = tutor.check_answer("mini-single", "b")
    assert right.data["correct"] is True and right.data["given"] == "B" and right.text.startswith("✓ Correct.")
    wrong = tutor.check_answer("mini-tf", "f")
    assert wrong.data["correct"] is False and wrong.text.startswith("✗ Not quite. The answer is true.\nIt is true.")
    rows = db.execute("SELECT session_id, item_id, given, correct FROM answers ORDER BY id").fetchall()
    assert [(r["item_id"], r["given"], r["correct"]) for r in rows] == [
        ("mini-single", "B", 1),
        ("mini-tf", "false", 0),
    ]
    sessions = db.execute("SELECT id, kind, lang, ended_at FROM sessions").fetchall()
    assert (
        len(sessions) == 1 and sessions[0]["kind"] == "quiz" and {r["session_id"] for r in rows} == {sessions[0]["id"]}
    )
    logs = db.execute("SELECT item_id, rating, duration_ms FROM review_logs ORDER BY id").fetchall()
    assert [(r["item_id"], r["rating"]) for r in logs] == [("mini-single", 3), ("mini-tf", 1)]
    assert logs[0]["duration_ms"] is not None and logs[1]["duration_ms"] is None  # mini-tf was never asked
    assert db.execute("SELECT COUNT(*) FROM srs").fetchone()[0] == 2
    tutor.close()
    assert db.execute("SELECT ended_at FROM sessions").fetchone()[0] is not None


def test_an_unreadable_answer_is_refused_and_not_saved(tutor: Tutor, db, mini_bank) -> None:
    with pytest.raises(InputError, match="Not an answer I can read"):
        tutor.check_answer("mini-single", "Z")
    with pytest.raises(InputError, match="answer: empty"):
        tutor.check_answer("mini-single", "  ")
    assert not (db.path.exists() and db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])


def test_a_number_short_of_the_precision_asked_may_be_given_again(tutor: Tutor, db) -> None:
    from normkata.content.bank import load_bank
    from normkata.practice.quiz import mark

    def short(question) -> str | None:  # type: ignore[no-untyped-def]
        typed = f"{float(question.answer):.{question.precision[1] - 1}f}"
        return typed if mark(question, typed).short is not None else None

    numeric = [q for q in load_bank().questions if q.type == "numeric" and q.precision and q.precision[0] == "decimals"]
    question, typed = next((q, short(q)) for q in numeric if q.precision[1] > 1 and short(q))
    with pytest.raises(InputError, match="Try again with more digits"):
        tutor.check_answer(question.id, typed)
    assert not db.path.exists() or db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0


def test_standing_is_progress_json_with_the_next_step(runner, tutor: Tutor) -> None:
    import json

    reply = tutor.standing()
    progress = json.loads(invoke(runner, ["progress", "--json"]).stdout)
    step = reply.data.pop("next")
    assert progress.pop("next") == "normkata quiz -n 5" and progress.pop("next_why") == step["why"]
    assert reply.data == progress
    # The next step as a tool to call, not a shell command.
    assert (step["tool"], step["arguments"], step["calls"]) == ("quiz_question", {}, 5)
    assert reply.text.splitlines()[-1] == f"Next: quiz_question ×5  ({step['why']})"
    assert "RMSNorm: 0% mastered" in reply.text


# -- without the extra ---------------------------------------------------------------------------------


def test_mcp_without_the_extra_says_how_to_install_it(runner, monkeypatch: pytest.MonkeyPatch) -> None:
    # `import mcp` fails as it does where it is not installed, its submodules too (another test in
    # this process may have imported them, and a cached submodule is found without its parent).
    for name in [m for m in sys.modules if m == "mcp" or m.startswith("mcp.")] or ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "normkata.agent.server", raising=False)
    result = invoke(runner, ["mcp"])
    assert result.exit_code == 2
    assert result.stderr == 'Error: normkata mcp needs the optional mcp extra: pip install "normkata[mcp]"\n'
    assert result.stdout == ""


# -- the loop's result, in the tools' words; arguments bounded as the command line bounds them -----


def passing(kata: str, file: Path, **options) -> object:  # type: ignore[no-untyped-def]
    from tests.grades import grade_result

    return grade_result(kata, {"forward": "passed"}, seed=options["seed"] or 1, file=str(file))


def test_rows_a_reader_could_not_use_come_back_with_the_grade(workspace: Path, db) -> None:  # type: ignore[no-untyped-def]
    tutor = Tutor(workspace, "en", grade=passing)
    tutor.start_kata("rmsnorm")
    import sqlite3

    with sqlite3.connect(db.path) as edited:  # a row edited by hand
        edited.execute(
            "INSERT OR REPLACE INTO settings (name, value, set_at) VALUES "
            "('interview_date', 'soon', '2024-01-01T00:00:00+00:00')"
        )
    reply = tutor.grade("rmsnorm")
    assert reply.data["passed"] is True and reply.data["recorded"] is True
    assert any("interview_date" in warning for warning in reply.data["warnings"]), reply.data["warnings"]
    assert "could not be used" in reply.text
    assert reply.data["next"]["tool"] in {"quiz_question", "interview_card", "start_kata", "grade", "due"}
    # Every tool says so, not the grade alone: the row is met again by the next step's reader.
    step = tutor.next_step()
    assert any("interview_date" in warning for warning in step.data["warnings"]), step.data
    assert "could not be used" in step.text


def test_the_tools_arguments_are_bounded(workspace: Path, tmp_path: Path, db) -> None:  # type: ignore[no-untyped-def]
    tutor = Tutor(workspace, "en", grade=passing)
    tutor.start_kata("rmsnorm")
    with pytest.raises(InputError, match=r"^seed: a whole number from 0 to 9223372036854775807, got 1208925"):
        tutor.grade("rmsnorm", seed=2**80)  # the record keeps 64-bit integers: refused before any grade
    with pytest.raises(InputError) as long_id:
        tutor.instructions("x" * 100_000)
    assert len(str(long_id.value)) < 200 and "kata:" in str(long_id.value)
    with pytest.raises(InputError, match=r"^/proc/self/environ is a file of procfs, not of a regular file system"):
        tutor.grade("rmsnorm", "/proc/self/environ")
    with pytest.raises(InputError, match=r"^/dev/zero is a (character )?device"):
        tutor.grade("rmsnorm", "/dev/zero")
    link = tmp_path / "environ.py"
    link.symlink_to("/proc/self/environ")
    with pytest.raises(InputError, match="environ.py is a symbolic link"):
        tutor.grade("rmsnorm", str(link))
    with pytest.raises(InputError, match=r"^rating: 1 \(Again\)"):
        tutor.rate_card(load_card_id(), 5)
    assert db.execute("SELECT COUNT(*) FROM kata_attempts").fetchone()[0] == 0


def load_card_id() -> str:
    from normkata.content.bank import load_bank

    return load_bank().cards[0].id


def test_an_interview_card_is_asked_without_its_answer_and_rated_by_the_learner(workspace: Path, db) -> None:  # type: ignore[no-untyped-def]
    from normkata.content.bank import load_bank

    tutor = Tutor(workspace, "en")
    card = load_bank().cards[0]
    asked = tutor.interview_card(id=card.id)
    assert asked.data["prompt"] == card.prompt.en
    assert card.answer.en not in asked.text and "key_points" not in asked.data
    rated = tutor.rate_card(card.id, 3, "pre-norm keeps an identity path")
    assert rated.data["key_points"] == [p.en for p in card.key_points]
    row = db.execute("SELECT rating, response FROM ratings WHERE item_id = ?", (card.id,)).fetchone()
    assert tuple(row) == (3, "pre-norm keeps an identity path")
    assert db.execute("SELECT COUNT(*) FROM srs WHERE item_id = ?", (card.id,)).fetchone()[0] == 1
    due = tutor.due()
    assert due.data["items"] == [] or all(item["id"] != card.id for item in due.data["items"])
