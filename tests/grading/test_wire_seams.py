"""The contract's typed seams on the wire: what the worker reports about a kernel launch, and the
Program it is sent, are dataclasses the wire reads back field by field and refuses when malformed.

A reply comes from the learner's process: a finding it forges must be an error naming the
field (the proxy then fails the case as an unreadable reply), never a finding the runner reads.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from normkata.grading import codec
from normkata.grading.messages import (
    Access,
    GuardState,
    GuardStatus,
    Launch,
    LauncherTiming,
    OutOfBounds,
    Program,
    ProgramKind,
    Request,
    RunReply,
    Side,
    Step,
    StepReply,
)
from normkata.grading.wire import WireError, from_wire, to_wire


def a_launch_reply() -> RunReply:
    step = StepReply(
        outputs=[torch.arange(6.0).reshape(2, 3)],
        out_of_bounds=[OutOfBounds(Access.WRITE, "y", (2, 0, 0), 3, Side.AFTER)],
        nan_filled=9,
        guard=GuardStatus(GuardState.OFF, "off: kernels are compiled for the GPU (the interpreter is not in use)"),
        timing=LauncherTiming(0.25, 0.2, 0.5),
    )
    return RunReply(True, [step])


def through_the_pipe(value: object) -> object:
    return codec.decode(codec.encode(to_wire(value)))


def test_a_launch_reply_crosses_whole_and_typed() -> None:
    sent = a_launch_reply()
    got = from_wire(RunReply, through_the_pipe(sent)).steps[0]
    finding = got.out_of_bounds[0]
    assert finding == sent.steps[0].out_of_bounds[0]
    assert finding.access is Access.WRITE and finding.side is Side.AFTER and finding.program_text == "2"
    assert got.nan_filled == 9 and got.timing == LauncherTiming(0.25, 0.2, 0.5)
    assert got.guard is not None and got.guard.state is GuardState.OFF and got.guard.records_launches


def test_a_program_names_its_grid_index_as_the_report_does() -> None:
    assert OutOfBounds(Access.READ, "x", (0, 1, 0), 1, Side.BEFORE).program_text == "(0, 1, 0)"


def forged(**finding: object) -> dict:
    reply = to_wire(a_launch_reply())
    reply["steps"][0]["out_of_bounds"][0].update(finding)
    return reply


@pytest.mark.parametrize(
    ("finding", "said"),
    [
        ({"lanes": -3}, "RunReply.steps[].out_of_bounds[]: lanes must be at least 1, not -3"),
        ({"lanes": "3"}, "RunReply.steps[].out_of_bounds[].lanes: expected a whole number"),
        ({"lanes": True}, "RunReply.steps[].out_of_bounds[].lanes: expected a whole number"),
        ({"access": "exec"}, "RunReply.steps[].out_of_bounds[].access: unknown Access 'exec'"),
        ({"side": "inside"}, "RunReply.steps[].out_of_bounds[].side: unknown Side 'inside'"),
        ({"program": [0, 0]}, "RunReply.steps[].out_of_bounds[]: program must be a grid index"),
        ({"program": [0, -1, 0]}, "RunReply.steps[].out_of_bounds[]: program must be a grid index"),
        ({"tensor": 7}, "RunReply.steps[].out_of_bounds[].tensor: expected str"),
    ],
)
def test_a_malformed_finding_is_refused_naming_the_field(finding: dict, said: str) -> None:
    with pytest.raises(WireError) as refused:
        from_wire(RunReply, through_the_pipe(forged(**finding)))
    assert str(refused.value).startswith(said)


def test_a_missing_field_of_a_finding_is_refused() -> None:
    reply = to_wire(a_launch_reply())
    del reply["steps"][0]["out_of_bounds"][0]["lanes"]
    with pytest.raises(WireError, match=r"^RunReply\.steps\[\]\.out_of_bounds\[\]: missing lanes$"):
        from_wire(RunReply, reply)


@pytest.mark.parametrize(
    ("step", "said"),
    [
        ({"nan_filled": -1}, "RunReply.steps[]: nan_filled must be a count >= 0, not -1"),
        ({"guard": {"state": "active", "reason": "trust me"}}, "RunReply.steps[].guard: reason is given when"),
        ({"guard": {"state": "off"}}, "RunReply.steps[].guard: reason is given when"),
        ({"guard": {"state": "asleep", "reason": "x"}}, "RunReply.steps[].guard.state: unknown GuardState 'asleep'"),
        (
            {"timing": {"launcher_ms": float("nan"), "copy_ms": 1.0, "eager_ms": 1.0}},
            "RunReply.steps[].timing: launcher_ms must be a finite time >= 0, not nan",
        ),
        (
            {"timing": {"launcher_ms": 1.0, "copy_ms": -2.0, "eager_ms": 1.0}},
            "RunReply.steps[].timing: copy_ms must be a finite time >= 0, not -2.0",
        ),
        ({"timing": {"launcher_ms": 1.0, "copy_ms": 1.0}}, "RunReply.steps[].timing: missing eager_ms"),
    ],
)
def test_a_malformed_guard_status_count_or_timing_is_refused(step: dict, said: str) -> None:
    reply = to_wire(a_launch_reply())
    reply["steps"][0].update(step)
    with pytest.raises(WireError) as refused:
        from_wire(RunReply, reply)
    assert str(refused.value).startswith(said)


def a_launcher_program(**changes: object) -> Program:
    program = Program(
        "rmsnorm_forward",
        [],
        {},
        steps=[Step([torch.ones(2, 4)])],
        kind=ProgramKind.LAUNCHER,
        launch=Launch(("x", "weight"), ("y", "rstd"), timed=True),
    )
    return dataclasses.replace(program, **changes)


def test_a_programs_kind_is_fixed_when_it_is_made() -> None:
    program = a_launcher_program()
    with pytest.raises(dataclasses.FrozenInstanceError):
        program.kind = ProgramKind.MODULE  # type: ignore[misc]
    with pytest.raises(ValueError, match="kind must be a ProgramKind"):
        a_launcher_program(kind="launcher")
    with pytest.raises(ValueError, match="launch is given for a launcher's Program, and only for it"):
        a_launcher_program(launch=None)
    with pytest.raises(ValueError, match="launch is given for a launcher's Program, and only for it"):
        a_launcher_program(kind=ProgramKind.MODULE)


def test_a_launcher_program_crosses_with_its_inputs_outputs_and_timing() -> None:
    request = Request("run", program=a_launcher_program())
    got = from_wire(Request, through_the_pipe(request)).program
    assert got is not None and got.kind is ProgramKind.LAUNCHER
    assert got.launch == Launch(("x", "weight"), ("y", "rstd"), timed=True) and got.kwargs == {}
    wire = to_wire(request)
    wire["program"]["kind"] = "shell"
    with pytest.raises(WireError, match=r"^Request\.program\.kind: unknown ProgramKind 'shell'$"):
        from_wire(Request, wire)
    wire["program"]["kind"] = "module"
    with pytest.raises(WireError, match=r"^Request\.program: launch is given for a launcher's Program"):
        from_wire(Request, wire)
