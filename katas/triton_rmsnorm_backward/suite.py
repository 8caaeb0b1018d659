"""Hidden suite for the Triton RMSNorm backward kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. As in the
forward kata, without a GPU the kernels run under Triton's interpreter in the confined worker,
where normkata.grading.worker.kernels watches every load, store and atomic add. The interpreter runs
programs one after another: a dweight updated without atomics is caught only because each
program's plain store overwrites the previous one (the GPU would lose updates at random).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    Harness,
    Input,
    LearnerError,
    Misconception,
    call_on,
    draw,
    fail,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance, dtype_name
from normkata.grading.kernel_checks import check_findings, skip_unless_guarded, strided, under_config
from normkata.grading.messages import Launch, ProgramKind, StepReply

LAUNCHER = "rmsnorm_backward"


MISTAKES = misconceptions("triton_rmsnorm_backward")  # titles and hints: kata.yaml
NO_MASK = MISTAKES["triton-bwd-no-mask"]
OFF_BY_ONE = MISTAKES["triton-bwd-mask-off-by-one"]
STRIDE_IGNORED = MISTAKES["triton-bwd-row-stride-ignored"]
NO_MEAN_TERM = MISTAKES["triton-bwd-missing-rstd-path"]
DY_NOT_WEIGHTED = MISTAKES["triton-bwd-dy-not-weighted"]
MEAN_OVER_BLOCK = MISTAKES["triton-bwd-mean-over-block-size"]
DW_OVERWRITTEN = MISTAKES["triton-bwd-dweight-not-accumulated"]
DW_NO_RSTD = MISTAKES["triton-bwd-dweight-without-rstd"]
DX_FP32 = MISTAKES["triton-bwd-dx-in-float32"]
DW_FP32 = MISTAKES["triton-bwd-dweight-in-float32"]
MISSING_OTHER = MISTAKES["triton-bwd-missing-other"]
OUTPUTS = ("dx", "dweight")
#: The misconception a wrong dtype names, by output.
IN_FLOAT32 = {"dx": DX_FP32, "dweight": DW_FP32}

#: Gradients in half precision go through more rounding than a forward: the block tolerances.
HALF_TOL = {torch.bfloat16: TOLERANCES["block bfloat16"], torch.float16: TOLERANCES["block float16"]}


def rstd_of(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """What the forward pass saved: float32, from the (quantised) input."""
    return torch.rsqrt(x.double().pow(2).mean(-1) + eps).float()


def reference(
    dy: torch.Tensor, x: torch.Tensor, w: torch.Tensor, rstd: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """dx and dweight in float64 from the saved rstd."""
    dy64, x64, w64, r = dy.double(), x.double(), w.double(), rstd.double()[:, None]
    g = dy64 * w64
    dx = r * g - x64 * r**3 * (x64 * g).mean(-1, keepdim=True)
    return dx, (dy64 * x64 * r).sum(0)


Found = list[tuple[Misconception, torch.Tensor]]


def suspects(dy: torch.Tensor, x: torch.Tensor, w: torch.Tensor, rstd: torch.Tensor) -> tuple[Found, Found]:
    """Mistaken dx and dweight, for fp32 cases."""
    if x.dtype != torch.float32:
        return [], []
    dy64, x64, w64, r = dy.double(), x.double(), w.double(), rstd.double()[:, None]
    d = x.shape[-1]
    block = 1 << max(d - 1, 0).bit_length()
    g = dy64 * w64
    dx_found = [(NO_MEAN_TERM, r * g), (DY_NOT_WEIGHTED, r * dy64 - x64 * r**3 * (x64 * dy64).mean(-1, keepdim=True))]
    if block != d:
        dx_found.append((MEAN_OVER_BLOCK, r * g - x64 * r**3 * (x64 * g).sum(-1, keepdim=True) / block))
    rows = dy64 * x64 * r
    dw_found = [(DW_NO_RSTD, (dy64 * x64).sum(0))]
    if x.shape[0] > 1:
        dw_found += [(DW_OVERWRITTEN, rows[i]) for i in (x.shape[0] - 1, 0)]  # the interpreter: last program wins
    return dx_found, dw_found


def random_weight(d: int, key: int) -> torch.Tensor:
    return randn([d], key, scale=0.5, shift=1.0)


def launch(
    harness: Harness, dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor
) -> list[StepReply]:
    """One reply per autotune config the launcher's kernels list (one without autotune)."""
    from normkata.grading.messages import Step

    program = harness.program(
        LAUNCHER,
        [],
        steps=[Step([dy, x, weight, rstd])],
        kind=ProgramKind.LAUNCHER,
        launch=Launch(("dy", "x", "weight", "rstd"), OUTPUTS),
    )
    call = f"{LAUNCHER}(dy, x, weight, rstd)"
    return harness.submit(program, call).steps


def _skip_cpu_on_gpu(device: str) -> None:
    from normkata.grading.messages import compiles_on_gpu

    if device == "cpu" and compiles_on_gpu():
        pytest.skip(
            say(
                "kernels are compiled for the GPU in this run: the CUDA cases make these checks",
                "本次评测中内核按 GPU 编译：这些检查由 CUDA 用例完成",
            )
        )


def backward_case(harness: Harness, x: Input, *, dy_key: int, weight_key: int = 100, pad: int = 0) -> None:
    """Launch on (dy, x) (as strided views with NaN gaps when pad > 0) and check dx, dweight and every access."""
    _skip_cpu_on_gpu(harness.device)
    n, d = x.tensor.shape
    dtype = x.tensor.dtype
    weight = random_weight(d, weight_key).to(dtype)
    dy = randn((n, d), dy_key).to(dtype)
    rstd = rstd_of(x.tensor)
    sent_dy, sent_x = (strided(dy, pad + 2), strided(x.tensor, pad)) if pad else (dy, x.tensor)
    on = x.describe(harness.device) + (
        say(
            ", rows of dy and x strided by {a} and {b} with NaN in the gaps",
            "，dy 与 x 的行步长分别为 {a} 和 {b}，间隔中为 NaN",
            a=d + pad + 2,
            b=d + pad,
        )
        if pad
        else ""
    )
    for got in launch(harness, sent_dy, sent_x, weight, rstd):
        check_reply(harness, got, Sent(dy, x.tensor, weight, rstd, sent_dy, sent_x), on + under_config(got))


@dataclass
class Sent:
    """A case's inputs: the values, and dy and x as the launcher got them (strided or not)."""

    dy: torch.Tensor
    x: torch.Tensor
    weight: torch.Tensor
    rstd: torch.Tensor
    sent_dy: torch.Tensor
    sent_x: torch.Tensor


def check_reply(harness: Harness, got: StepReply, sent: Sent, on: str) -> None:
    """One config's reply: every access, who wrote the outputs, each output's dtype, NaN, values."""
    call = f"{LAUNCHER}(dy, x, weight, rstd)"
    d, dtype = sent.x.shape[1], sent.x.dtype
    check_findings(harness, got, call, on, d, no_mask=NO_MASK, off_by_one=OFF_BY_ONE, output_names=OUTPUTS)
    if len(got.outputs) != 2:
        fail(
            say(
                "{call} on {on}: returned {k} tensor(s), expected (dx, dweight)",
                "{call}，{on}：返回了 {k} 个张量，应返回 (dx, dweight)",
                call=call,
                on=on,
                k=len(got.outputs),
            ),
            call=call_on(call, on),
        )
    for name, tensor in zip(OUTPUTS, got.outputs, strict=True):
        if tensor.dtype != dtype:
            want = (
                say("{dtype}, x's dtype", "{dtype}，即 x 的数据类型", dtype=dtype_name(dtype))
                if name == "dx"
                else say("{dtype}, weight's dtype", "{dtype}，即 weight 的数据类型", dtype=dtype_name(dtype))
            )
            message = say(
                "{call} on {on}: {name} is {got}, expected {want}.",
                "{call}，{on}：{name} 是 {got}，应为 {want}。",
                call=call,
                on=on,
                name=name,
                got=dtype_name(tensor.dtype),
                want=want,
            )
            named = " " + harness.diagnose(IN_FLOAT32[name]) if tensor.dtype == torch.float32 else ""
            fail(message + named, call=call_on(call, on))
    dx, dweight = got.outputs
    expected_dx, expected_dw = reference(sent.dy, sent.x, sent.weight, sent.rstd)
    explain_nan(harness, got, sent, call, on)
    dx_suspects, dw_suspects = suspects(sent.dy, sent.x, sent.weight, sent.rstd)
    tol: Tolerance = HALF_TOL.get(dtype, TOLERANCES["gradient"])
    harness.assert_close(dx, expected_dx, tol=tol, call=call, on=on, what="dx", suspects=dx_suspects)
    harness.assert_close(dweight, expected_dw, tol=tol, call=call, on=on, what="dweight", suspects=dw_suspects)


def explain_nan(harness: Harness, got: StepReply, sent: Sent, call: str, on: str) -> None:
    """NaN where the reference is finite has a few causes; name the one the evidence shows.

    Rows read at the wrong stride pick up the NaN in the gaps (its signature: the output
    computed from rows read that way); a masked load without other= gives NaN in every row's
    reduction (the guard says it filled masked-off lanes with NaN). Neither is guessed from NaN alone.
    """
    expected = reference(sent.dy, sent.x, sent.weight, sent.rstd)
    for name, tensor, truth in zip(OUTPUTS, got.outputs, expected, strict=True):
        if tuple(tensor.shape) != tuple(truth.shape):
            continue
        bad = torch.isnan(tensor) & torch.isfinite(truth)
        if not bool(bad.any()):
            continue
        message = say(
            "{call} on {on}: {name} holds NaN where the reference is finite.",
            "{call}，{on}：{name} 在参考结果为有限值的位置出现 NaN。",
            call=call,
            on=on,
            name=name,
        )
        cause: Misconception | None = None
        if name == "dx" and _read_at_wrong_stride(tensor, sent):
            cause = STRIDE_IGNORED
        elif got.nan_filled:
            cause = MISSING_OTHER
        fail(message + (" " + harness.diagnose(cause) if cause else ""), call=call_on(call, on))


def _read_at_wrong_stride(dx: torch.Tensor, sent: Sent) -> bool:
    """dx matches rows of dy and x read at a stride other than their own (packed, or x's for dy)."""
    n, d = sent.x.shape
    if sent.sent_x.stride(0) == d and sent.sent_dy.stride(0) == d:
        return False

    def rows(view: torch.Tensor, stride: int) -> torch.Tensor:
        return torch.as_strided(view, (n, d), (stride, 1)).double()

    x_stride = sent.sent_x.stride(0)
    for dy_rows, x_rows in (
        (rows(sent.sent_dy, d), rows(sent.sent_x, d)),
        (rows(sent.sent_dy, x_stride), rows(sent.sent_x, x_stride)),
    ):
        wrong, _ = reference(dy_rows, x_rows, sent.weight, sent.rstd)
        if bool(torch.isclose(dx.double(), wrong, rtol=1e-3, atol=1e-3, equal_nan=True).all()):
            return True
    return False


SHAPES = [(2, 8), (3, 300), (3, 1), (3, 7), (2, 33)]


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_backward(harness: Harness, shape: tuple[int, int], device: str) -> None:
    key = 2000 + sum(shape) * 7
    backward_case(
        harness, Input(randn(shape, key, scale=2.0, shift=0.5), "2·N(0,1)+0.5"), dy_key=key + 2, weight_key=key + 1
    )


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("k", range(2))
def test_backward_drawn_width(harness: Harness, k: int) -> None:
    shape = (draw(210 + k, 2, 4), draw(220 + k, 9, 200))
    backward_case(harness, Input(randn(shape, 240 + k, scale=1.5), "1.5·N(0,1)"), dy_key=250 + k, weight_key=260 + k)


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(3, 100), (3, 5)], ids=lambda s: "x".join(map(str, s)))
def test_strided_rows_with_nan_gaps(harness: Harness, shape: tuple[int, int], device: str) -> None:
    backward_case(harness, Input(randn(shape, 270 + shape[1]), "N(0,1)"), dy_key=280 + shape[1], pad=draw(271, 3, 29))


@pytest.mark.category(Category.GRADIENTS)
def test_dweight_over_many_rows(harness: Harness) -> None:
    backward_case(harness, Input(randn((17, 12), 290), "N(0,1)"), dy_key=291)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
def test_half_precision(harness: Harness, dtype: torch.dtype, device: str) -> None:
    backward_case(harness, Input(randn((5, 96), 300).to(dtype), "N(0,1)"), dy_key=301, weight_key=302)


@pytest.mark.category(Category.INTEGRITY)
def test_bounds_guard(harness: Harness) -> None:
    """The guard checked itself on a known-bad kernel in the worker: say plainly if it could not run."""
    _skip_cpu_on_gpu(harness.device)
    x = randn((1, 4), 310)
    try:
        got = launch(harness, randn((1, 4), 311), x, torch.ones(4), rstd_of(x))
    except LearnerError:
        pytest.skip(say("your launcher raised: the other cases say why", "你的启动函数抛出了异常：其他用例会说明原因"))
    skip_unless_guarded(got[0])
