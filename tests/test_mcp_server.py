"""`normkata mcp` as an assistant meets it: a process of its own, driven over stdio by the SDK's own
client (mcp.client.stdio), and by hand to prove stdout carries nothing but protocol messages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from normkata.paths import solutions_dir
from tests.conftest import invoke
from tests.grading.test_fixtures import fixture_source

pytestmark = pytest.mark.extra("mcp")

TOOLS = [
    "list_katas",
    "instructions",
    "start_kata",
    "grade",
    "hint",
    "solution",
    "quiz_question",
    "check_answer",
    "standing",
    "interview_card",
    "rate_card",
    "due",
    "next_step",
    "plan",
]
PROMPTS = ["tutor", "mock_interview", "review", "explain_mistake"]
#: Seconds one call may take: a grade starts the grading service (torch imported twice) on a busy machine.
CALL_TIMEOUT = 300.0


def server_environment() -> dict[str, str]:
    """The test's home and workspace (conftest's tmp dirs), for the server process."""
    names = ("NORMKATA_HOME", "NORMKATA_WORKSPACE", "NORMKATA_LANG", "COLUMNS")
    return {name: os.environ[name] for name in names}


def text_of(result: Any) -> str:
    return " ".join(block.text for block in result.content if block.type == "text")


@pytest.mark.slow
def test_an_assistant_grades_hints_and_gets_the_solution_only_after_a_pass(runner, tmp_path: Path, db) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    workspace = Path(os.environ["NORMKATA_WORKSPACE"])
    wrong = tmp_path / "wrong_rmsnorm.py"
    wrong.write_text(fixture_source("rmsnorm", "buggy_eps_outside_sqrt"))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "normkata", "mcp"], env=server_environment(), cwd=tmp_path
    )

    async def session() -> None:
        with (tmp_path / "server-stderr.txt").open("w") as errors:
            async with stdio_client(params, errlog=errors) as (read, write), ClientSession(read, write) as client:
                started = await client.initialize()
                assert "not a solution generator" in (started.instructions or "")
                listed = {tool.name: tool for tool in (await client.list_tools()).tools}
                assert sorted(listed) == sorted(TOOLS)
                assert all(listed[name].output_schema for name in ("grade", "hint", "next_step", "plan", "due"))
                prompts = {prompt.name for prompt in (await client.list_prompts()).prompts}
                assert sorted(prompts) == sorted(PROMPTS)
                tutoring = await client.get_prompt("tutor")
                assert "not a solution generator" in tutoring.messages[0].content.text
                assert "Do not write the fix or the solution" in (listed["grade"].description or "")
                assert "in this order" in (listed["hint"].description or "")
                assert "give_up" in listed["solution"].input_schema["properties"]

                async def call(name: str, **arguments: Any) -> Any:
                    return await client.call_tool(name, arguments, read_timeout_seconds=CALL_TIMEOUT)

                assert not (await call("start_kata", kata="rmsnorm")).is_error
                graded = await call("grade", kata="rmsnorm", file=str(wrong), seed=3)
                assert not graded.is_error and graded.structured_content["passed"] is False
                said["grade"] = graded
                assert [m["id"] for m in graded.structured_content["mistakes"]] == ["rms-eps-outside-sqrt"]
                assert "Recognised mistake: eps added outside the square root" in " ".join(text_of(graded).split())

                refused = await call("solution", kata="rmsnorm")
                assert refused.is_error and "opens after a pass" in text_of(refused)
                assert "class RMSNorm" not in text_of(refused) and "\n" not in text_of(refused)

                hinted = await call("hint", kata="rmsnorm")
                said["hint"] = hinted
                # As `normkata hint` after that grade: the hint for the mistake it named comes first.
                assert not hinted.is_error and hinted.structured_content["misconception"] == "rms-eps-outside-sqrt"
                assert "eps added outside the square root" in text_of(hinted).splitlines()[0]

                shutil.copy(solutions_dir() / "rmsnorm.py", workspace / "rmsnorm.py")
                read_back = await client.read_resource("normkata://katas/rmsnorm/file")
                assert read_back.contents[0].text == (solutions_dir() / "rmsnorm.py").read_text()
                passed = await call("grade", kata="rmsnorm")
                assert not passed.is_error and passed.structured_content["passed"] is True
                said["passed"] = passed
                # After a pass, no step about "your last grade named a mistake".
                assert "your last rmsnorm grade named a mistake" not in text_of(passed)
                for tool in ("standing", "next_step", "quiz_question", "due", "plan"):
                    said[tool] = await call(tool)
                    assert not said[tool].is_error, text_of(said[tool])
                step = said["next_step"].structured_content
                assert step["tool"] in {name for name in TOOLS} | set(PROMPTS)
                shown = await call("solution", kata="rmsnorm")
                assert not shown.is_error and shown.structured_content["gave_up"] is False
                assert "class RMSNorm" in shown.structured_content["solution"]

    said: dict[str, Any] = {}
    anyio.run(session)
    # The tools speak in tools: no reply names a shell command.
    for tool, reply in said.items():
        assert "normkata " not in text_of(reply), tool
        assert "normkata " not in json.dumps(reply.structured_content, ensure_ascii=False), tool
    assert "Traceback" not in (tmp_path / "server-stderr.txt").read_text()
    kinds = [r["kind"] for r in db.execute("SELECT kind FROM kata_events WHERE kata = 'rmsnorm' ORDER BY id")]
    assert kinds == ["started", "hint"]  # no giving up: the solution opened after the pass
    # The same file, with the same seed, graded by `normkata grade`: the same row but for when and how long,
    # and the same result object, key by key, but for the file's name and the seconds it took.
    cli = invoke(runner, ["grade", "rmsnorm", "--file", str(wrong), "--seed", "3", "--json"])
    assert cli.exit_code == 1
    by_json = json.loads(cli.stdout)
    by_mcp = said["grade"].structured_content
    for key in by_json:
        if key not in ("file", "duration_s"):
            assert by_mcp[key] == by_json[key], key
    rows = db.execute("SELECT * FROM kata_attempts ORDER BY id").fetchall()
    by_tool, by_command = (
        {key: row[key] for key in row.keys() if key not in ("id", "at", "duration_s")} for row in (rows[0], rows[2])
    )
    assert by_tool == by_command and by_tool["passed"] == 0 and rows[1]["passed"] == 1


def test_stdout_carries_only_protocol_messages(tmp_path: Path) -> None:
    """Every line the server writes on stdout is a JSON-RPC message, whatever the tools do; an
    error is a tool error of one line; nothing reaches stderr as a traceback."""
    server = subprocess.Popen(
        [sys.executable, "-m", "normkata", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **server_environment()},
        cwd=tmp_path,
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert server.stdin is not None
        server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        server.stdin.flush()

    def ask(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        send({"id": number, "method": method, "params": params})
        assert server.stdout is not None
        reply = json.loads(server.stdout.readline())
        assert reply["jsonrpc"] == "2.0" and reply["id"] == number
        return reply

    def tool(number: int, name: str, **arguments: Any) -> dict[str, Any]:
        return ask(number, "tools/call", {"name": name, "arguments": arguments})["result"]

    try:
        ask(
            1,
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
        )
        send({"method": "notifications/initialized"})
        assert "RMSNorm from scratch" in tool(2, "start_kata", kata="rmsnorm")["content"][0]["text"]
        assert not tool(3, "list_katas")["isError"]
        assert not tool(4, "hint")["isError"]  # the kata worked on last
        assert not tool(5, "standing")["isError"]
        for number, (name, arguments, said) in enumerate(
            [
                ("instructions", {"kata": "rmsnrom"}, "unknown kata 'rmsnrom' (did you mean rmsnorm?)"),
                ("grade", {"kata": "rmsnorm", "seed": -1}, "greater than or equal to 0"),
                ("grade", {"kata": "rmsnorm", "file": str(tmp_path / "missing.py")}, "missing.py: no such file"),
                ("check_answer", {"id": "no-such-question", "answer": "A"}, "no question 'no-such-question'"),
                ("solution", {"kata": "layernorm"}, "opens after a pass"),
            ],
            start=6,
        ):
            failed = tool(number, name, **arguments)
            shown = failed["content"][0]["text"]
            assert failed["isError"] and said in shown and "\n" not in shown and "Traceback" not in shown, shown
    finally:
        rest, errors = server.communicate(timeout=60)
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in rest.splitlines() if line.strip()), rest
    assert "Traceback" not in errors, errors
    assert server.returncode == 0


TORCH_PROBE = """
import sys
from pathlib import Path

import anyio

from mcp.server.mcpserver.exceptions import ToolError

from normkata.agent.server import build_server
from normkata.agent.tutor import Tutor

server = build_server(Tutor(Path(sys.argv[1]), "en"))


async def every_tool_but_grade():
    for name, arguments in [("list_katas", {}), ("start_kata", {"kata": "rmsnorm"}), ("instructions", {"kata": "dyt"}),
                            ("hint", {}), ("solution", {}), ("standing", {}), ("quiz_question", {})]:
        try:
            await server.call_tool(name, arguments)
        except ToolError as refused:  # the solution, before a pass
            assert name == "solution", refused


anyio.run(every_tool_but_grade)
print("TORCH-LOADED=%s" % ("torch" in sys.modules))
"""


def test_the_server_answers_without_importing_torch(tmp_path: Path) -> None:
    """Torch runs in the grader's processes; the server stays light (its start is the assistant's wait)."""
    run = subprocess.run(
        [sys.executable, "-c", TORCH_PROBE, str(tmp_path / "workspace")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **server_environment()},
    )
    assert run.stdout.strip() == "TORCH-LOADED=False", run.stdout + run.stderr


def test_a_bug_is_one_line_for_the_assistant_and_a_traceback_on_stderr(caplog: pytest.LogCaptureFixture) -> None:
    from normkata.agent.server import one_line
    from normkata.errors import InputError

    assert one_line(InputError("first\n  second"), "en") == "first second"
    try:
        raise RuntimeError("boom\nat line 2")
    except RuntimeError as bug:
        said = one_line(bug, "en")
    assert said == "normkata failed (RuntimeError: boom at line 2); the server's stderr has the details"
    assert [record.exc_info[0] for record in caplog.records if record.exc_info] == [RuntimeError]


def test_a_database_failure_is_said_as_the_record_says_it_not_as_a_bug(caplog: pytest.LogCaptureFixture) -> None:
    import sqlite3

    from normkata.agent.server import one_line
    from normkata.paths import database_path

    said = one_line(sqlite3.OperationalError("disk I/O error"), "en")
    assert said == f"The progress database {database_path()} could not be used (disk I/O error): nothing was moved."
    assert one_line(sqlite3.OperationalError("disk I/O error"), "zh").startswith("无法使用进度数据库")
    assert not [record for record in caplog.records if record.exc_info]  # no traceback: not a bug
