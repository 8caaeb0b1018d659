"""Kernel katas: the optional extra, and what the worker reports about a launch (without a grade).

The guard patches the interpreter process-wide and TRITON_INTERPRET must be set before a kernel
is made, so the launchers of kernel_scenarios.py run in one fresh interpreter per module and the
tests read its reply. What the runner concludes from those facts (kernel_checks) is tested with
replies built here, and graded end to end through the katas' fixtures (test_fixtures.py).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from normkata.content.katas import get_kata
from normkata.grading.checks.wording import CaseFailure
from normkata.grading.messages import GuardState, GuardStatus, KernelMargin, StepReply
from tests.conftest import invoke

SENTINEL = -16384.0
SCENARIOS = [
    "unmasked_store",
    "primitives",
    "raw_interpreter_read",
    "plain_torch",
    "partial_sums",
    "misses_a_row",
    "writes_margin_in_torch",
    "autotuned",
    "autotuned_without_reset",
    "pruned_heuristics",
    "libdevice_math",
    "unsupported_libdevice",
    "block_pointers",
    "asks_torch_cuda",
    "asks_triton_driver",
    "returns_none",
]


@pytest.fixture(scope="module")
def replies(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if importlib.util.find_spec("triton") is None:
        pytest.skip('needs the optional triton extra: pip install -e ".[triton]"')
    scratch = tmp_path_factory.mktemp("kernels")
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    root = Path(__file__).parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "tests.grading.kernel_scenarios", str(scratch), *SCENARIOS],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def only_step(replies: dict, name: str) -> dict:
    steps = replies[name]["steps"]
    assert len(steps) == 1, steps
    return steps[0]


@pytest.mark.extra("triton")
def test_the_guard_checks_itself_and_reports_an_unmasked_store(replies: dict) -> None:
    assert replies["status"] == "active"
    step = only_step(replies, "unmasked_store")
    # Every program writes 3 lanes past its row: the last program's land past the end of y and
    # are switched off; nothing crashes, y's margins are intact, and the runner gets them.
    assert ["write", "y", "2", 3, "after"] in step["out_of_bounds"]
    assert step["nan_filled"] == 9  # 3 masked-off lanes per program, no other=
    assert step["guard"] == "active"
    assert step["outputs"][0][2] == [5.0, 5.5, 6.0, 6.5, 7.0]  # 2 * x, x = arange(15) / 4
    assert step["launches"] == ["double_unmasked_store"]
    names = [m[0] for m in step["margins"]]
    assert names == ["y", "second"]  # the allocations, named by the outputs they became
    assert all(v == SENTINEL for m in step["margins"] for v in m[1] + m[2])


@pytest.mark.extra("triton")
def test_every_memory_primitive_goes_through_the_guard(replies: dict) -> None:
    """atomic_cas (no mask at all), xchg, add, max and a tensor descriptor whose shape lies:
    each out-of-bounds lane is switched off and counted against the tensor it ran past."""
    step = only_step(replies, "primitives")
    # 16 lanes on an 8-element x: 8 past it by atomic_cas, 8 by the descriptor's load; on a
    # 4-element lock, 12 past it by each of xchg, add and max.
    assert sorted(step["out_of_bounds"]) == [
        ["atomic", "lock_ptr", "0", 36, "after"],
        ["atomic", "x", "0", 8, "after"],
        ["read", "x", "0", 8, "after"],
    ]
    assert step["outputs"][0] == replies["primitives"]["x"]  # nothing was written through the stray lanes


@pytest.mark.extra("triton")
def test_the_interpreters_own_functions_are_the_guarded_ones(replies: dict) -> None:
    """The C module's load called by hand, past the end of x, is refused like a kernel's."""
    assert ["read", "x", "0", 1, "after"] in only_step(replies, "raw_interpreter_read")["out_of_bounds"]


@pytest.mark.extra("triton")
def test_which_kernels_ran_and_what_they_wrote(replies: dict) -> None:
    plain = only_step(replies, "plain_torch")
    assert plain["launches"] == []
    assert not any(any(row) if isinstance(row, list) else row for w in plain["written"] for row in w)
    partial = only_step(replies, "partial_sums")
    assert partial["launches"] == ["copy_rows"]
    # partial.sum(0) is the kernel's work reduced in torch; rsqrt of the input is not.
    assert partial["written"][0] == [True] * 5 and partial["written"][1] == [False] * 3
    missed = only_step(replies, "misses_a_row")
    assert missed["written"][0] == [[True] * 5, [True] * 5, [False] * 5]


@pytest.mark.extra("triton")
def test_margins_are_sent_as_they_are_and_judged_by_the_runner(replies: dict) -> None:
    step = only_step(replies, "writes_margin_in_torch")
    after = step["margins"][0][2]
    assert after[:2] == [0.0, 0.0] and all(v == SENTINEL for v in after[2:])


@pytest.mark.extra("triton")
def test_autotune_runs_every_config_a_gpu_could_pick(replies: dict) -> None:
    steps = replies["autotuned"]["steps"]
    # Four configs, two of which differ only in num_warps: three distinct passes, each named.
    assert [s["config"] for s in steps] == ["tuned_sum: BLOCK=4", "tuned_sum: BLOCK=8", "tuned_sum: BLOCK=64"]
    sums = [sum(row) for row in [[v / 4 for v in range(r * 5, r * 5 + 5)] for r in range(3)]]
    for step in steps:  # reset_to_zero held through the benchmark the GPU runs first
        assert step["outputs"][0] == pytest.approx(sums)
        assert step["launches"] == ["tuned_sum"]  # the replayed benchmark is not a launch of the launcher


@pytest.mark.extra("triton")
def test_a_benchmark_without_reset_to_zero_adds_as_on_a_gpu(replies: dict) -> None:
    steps = replies["autotuned_without_reset"]["steps"]
    assert len(steps) == 2
    sums = [sum(v / 4 for v in range(r * 5, r * 5 + 5)) for r in range(3)]
    for step in steps:
        assert step["outputs"][0] == pytest.approx([2 * s for s in sums])


@pytest.mark.extra("triton")
def test_pruned_configs_and_heuristics(replies: dict) -> None:
    steps = replies["pruned_heuristics"]["steps"]
    assert [s["config"] for s in steps] == ["pruned_copy: BLOCK=4", "pruned_copy: BLOCK=8"]
    x = [[v / 4 for v in range(r * 5, r * 5 + 5)] for r in range(3)]
    assert all(s["outputs"][0] == x for s in steps)


@pytest.mark.extra("triton")
def test_libdevice_and_float_scalars_compute_as_on_a_gpu(replies: dict) -> None:
    out = torch.tensor(only_step(replies, "libdevice_math")["outputs"][0]).view(7, 8)
    x = torch.tensor(replies["libdevice_math"]["x"])
    eps = torch.tensor(1e-3, dtype=torch.float32)  # a float argument arrives as float32
    expected = [torch.rsqrt(x + eps), torch.tanh(x), x**1.5, torch.exp(x), x / 3, torch.ones(8), eps.expand(8)]
    for row, want in zip(out, expected, strict=True):
        assert torch.allclose(row, want.float(), rtol=1e-6, atol=1e-7)


@pytest.mark.extra("triton")
def test_what_cannot_run_is_said_in_one_line(replies: dict) -> None:
    bessel = replies["unsupported_libdevice"]
    assert bessel["raised"] == "TritonUnsupported" and bessel["stage"] == "kernel"
    assert "__nv_cyl_bessel_i0f" in bessel["message"] and "interpreter" in bessel["message"]
    blocks = replies["block_pointers"]
    assert blocks["raised"] == "TritonUnsupported"
    assert blocks["message"].startswith("Triton 3.9.0 cannot run this: Block pointers have been removed")
    gpu = replies["asks_torch_cuda"]
    assert gpu["raised"] == "TritonUnsupported" and gpu["stage"] == "launcher"
    assert "asked torch.cuda or Triton's driver about a GPU" in gpu["message"] and "CPU tensors" in gpu["message"]
    driver = replies["asks_triton_driver"]  # without a GPU Triton says "0 active drivers"
    assert driver["raised"] == "TritonUnsupported" and "0 active drivers" in driver["message"]


@pytest.mark.extra("triton")
def test_an_output_that_is_not_a_tensor_is_named(replies: dict) -> None:
    assert replies["returns_none"] == {
        "raised": "TypeError",
        "stage": "launcher",
        "message": "returns_none returned None for second: expected (y, second), each a tensor",
    }


# -- what the runner concludes -----------------------------------------------------------------


class _Harness:
    """Enough of a Harness for kernel_checks: it records what is named."""

    def __init__(self) -> None:
        self.named: list[str] = []

    def diagnose(self, misconception: object) -> str:
        self.named.append(str(getattr(misconception, "id", misconception)))
        return "named"


def _check(reply: StepReply) -> tuple[str, list[str]]:
    from normkata.grading.checks import Misconception
    from normkata.grading.kernel_checks import check_findings
    from normkata.i18n.text import Text

    mistake = Misconception("no-mask", Text("t", "t"), Text("h", "h"))
    harness = _Harness()
    with pytest.raises(CaseFailure) as failed:
        check_findings(
            harness,
            reply,
            "launch(x)",
            "x",
            5,
            no_mask=mistake,
            off_by_one=mistake,  # type: ignore[arg-type]
            missed_rows=Misconception("missed-rows", Text("t", "t"), Text("h", "h")),
            output_names=("y",),
        )
    return str(failed.value), harness.named


def _margin(before: list[float], after: list[float]) -> KernelMargin:
    return KernelMargin("y", torch.tensor(before), torch.tensor(after))


def test_the_runner_reads_the_margins() -> None:
    intact = [SENTINEL] * 4
    reply = StepReply(
        outputs=[torch.zeros(2, 5)],
        launches=["k"],
        written=[torch.ones(2, 5, dtype=torch.bool)],
        margins=[_margin(intact, [0.0, math.nan, SENTINEL, SENTINEL])],
    )
    message, named = _check(reply)
    assert "2 value(s) written past the end of y" in message and named == ["no-mask"]


def test_a_launch_without_a_kernel_fails_whatever_its_numbers() -> None:
    reply = StepReply(outputs=[torch.zeros(2, 5)], launches=[], written=[torch.zeros(2, 5, dtype=torch.bool)])
    message, named = _check(reply)
    assert "no @triton.jit kernel ran" in message and named == []


def test_kernels_that_loaded_none_of_the_inputs_fail_though_they_wrote_every_output() -> None:
    """A result computed in torch and copied by a kernel: "written by a kernel" holds, "computed
    by a kernel" does not (katas/triton_rmsnorm/fixtures/bug_copies_a_torch_result.py end to end)."""
    written = torch.ones(2, 5, dtype=torch.bool)
    reply = StepReply(outputs=[torch.zeros(2, 5)], launches=["_copy", "_copy"], written=[written], loaded=[])
    message, named = _check(reply)
    assert "the kernels that ran (_copy) loaded none of the inputs" in message and named == []
    from normkata.grading.kernel_checks import check_findings

    for loaded in (["x"], None):  # one input read, or the guard could not tell: nothing to say
        reply = StepReply(outputs=[torch.zeros(2, 5)], launches=["k"], written=[written], loaded=loaded)
        check_findings(_Harness(), reply, "launch(x)", "x", 5, no_mask=None, off_by_one=None)  # type: ignore[arg-type]


def test_rows_no_kernel_wrote_are_named() -> None:
    written = torch.ones(3, 5, dtype=torch.bool)
    written[2] = False
    message, named = _check(StepReply(outputs=[torch.zeros(3, 5)], launches=["k"], written=[written]))
    assert "5 of 15 value(s) of y were written by no kernel" in message and "Rows never written: [2]" in message
    assert named == ["missed-rows"]


def test_without_the_guard_only_what_it_can_know_is_checked() -> None:
    from normkata.grading.kernel_checks import check_findings

    unavailable = GuardStatus(GuardState.UNAVAILABLE, "cannot run: triton moved")
    reply = StepReply(outputs=[torch.zeros(2, 5)], guard=unavailable, written=[None])
    check_findings(_Harness(), reply, "launch(x)", "x", 5, no_mask=None, off_by_one=None)  # type: ignore[arg-type]


# -- the extra ----------------------------------------------------------------------------------


@pytest.mark.extra("triton")
def test_kata_lists_and_grades_with_the_extra(runner) -> None:
    assert get_kata("triton_rmsnorm").missing_extras() == []
    result = invoke(runner, ["kata"])
    assert "triton_rmsnorm" in result.stdout and "(needs" not in result.stdout


def test_without_the_extra_grade_says_how_to_install_it(runner, monkeypatch, tmp_path: Path) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "triton" else real(name, *a))
    assert get_kata("triton_rmsnorm").missing_extras() == ["normkata[triton]"]
    listed = invoke(runner, ["kata"])
    assert "needs triton" in listed.stdout  # the status column of the list's one-line-a-kata shape
    learner = tmp_path / "triton_rmsnorm.py"
    learner.write_text("x = 1\n", encoding="utf-8")
    result = invoke(runner, ["grade", "triton_rmsnorm", "--file", str(learner)])
    assert result.exit_code == 2
    assert 'pip install "normkata[triton]"' in result.output


@pytest.mark.extra("triton")
def test_describe_names_the_version_and_the_hooks() -> None:
    from normkata.grading.worker import kernels

    line = kernels.describe()
    assert line.startswith("triton ") and "hooks are present" in line
