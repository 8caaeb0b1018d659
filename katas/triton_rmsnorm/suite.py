"""Hidden suite for the Triton RMSNorm forward kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Without a
GPU the learner's kernels run under Triton's interpreter in the confined worker, where
normkata.grading.worker.kernels watches every load and store; on a GPU they run compiled and the CPU
cases are skipped (the CUDA cases make the same checks). Inputs are drawn from the run's seed.
"""

from __future__ import annotations

import math

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
from normkata.grading.contract import TOLERANCES, Category, Tolerance, tolerance_for
from normkata.grading.kernel_checks import check_findings, skip_unless_guarded, strided, under_config
from normkata.grading.messages import Launch, ProgramKind, StepReply

LAUNCHER = "rmsnorm_forward"


MISTAKES = misconceptions("triton_rmsnorm")  # titles and hints: kata.yaml
NO_MASK = MISTAKES["triton-no-mask"]
OFF_BY_ONE = MISTAKES["triton-mask-off-by-one"]
STRIDE_IGNORED = MISTAKES["triton-row-stride-ignored"]
MEAN_OVER_BLOCK = MISTAKES["triton-mean-over-block-size"]
NON_NEUTRAL_OTHER = MISTAKES["triton-non-neutral-other"]
MISSING_OTHER = MISTAKES["triton-missing-other"]
NO_FP32 = MISTAKES["triton-no-float32-accumulation"]
OUTPUT_FP32 = MISTAKES["triton-output-in-float32"]
GRID_MISSES_ROWS = MISTAKES["triton-grid-misses-rows"]


def reference(x: torch.Tensor, weight: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    """y and rstd in float64 on the (already quantised) input."""
    x64 = x.double().cpu()
    rstd = torch.rsqrt(x64.pow(2).mean(-1) + eps)
    return x64 * rstd[:, None] * weight.double().cpu(), rstd


def suspects(x: torch.Tensor, weight: torch.Tensor, eps: float) -> list[tuple[Misconception, torch.Tensor]]:
    x64, w = x.double().cpu(), weight.double().cpu()
    d = x.shape[-1]
    block = 1 << max(d - 1, 0).bit_length()
    found = []
    if block != d and x.dtype == torch.float32:  # semantic mistakes are named from fp32 cases
        found.append((MEAN_OVER_BLOCK, x64 * torch.rsqrt(x64.pow(2).sum(-1, keepdim=True) / block + eps) * w))
        for other in (1.0, -math.inf):  # a weight's other=1.0 copied, or softmax's -inf
            ms = (x64.pow(2).sum(-1, keepdim=True) + (block - d) * other**2) / d
            found.append((NON_NEUTRAL_OTHER, x64 * torch.rsqrt(ms + eps) * w))
    if x.dtype == torch.float16:
        ms16 = (x.cpu() * x.cpu()).double().mean(-1, keepdim=True)  # squares overflow in fp16
        found.append((NO_FP32, x64 * torch.rsqrt(ms16 + eps) * w))
    return found


def random_weight(d: int, key: int) -> torch.Tensor:
    return randn([d], key, scale=0.5, shift=1.0)


def _skip_cpu_on_gpu(device: str) -> None:
    from normkata.grading.messages import compiles_on_gpu

    if device == "cpu" and compiles_on_gpu():
        pytest.skip(
            say(
                "kernels are compiled for the GPU in this run: the CUDA cases make these checks",
                "本次评测中内核按 GPU 编译：这些检查由 CUDA 用例完成",
            )
        )


OUTPUTS = ("y", "rstd")


def launch(harness: Harness, x: torch.Tensor, weight: torch.Tensor, eps: float, timed: bool = False) -> list[StepReply]:
    """One reply per autotune config the launcher's kernels list (one without autotune)."""
    from normkata.grading.messages import Step

    program = harness.program(
        LAUNCHER,
        [],
        steps=[Step([x, weight], extra=[eps])],
        kind=ProgramKind.LAUNCHER,
        launch=Launch(("x", "weight"), OUTPUTS, timed=timed),
    )
    call = f"{LAUNCHER}(x, weight, eps={eps:g})"
    return harness.submit(program, call).steps


def forward_case(
    harness: Harness, x: Input, *, eps: float = 1e-5, weight_key: int = 100, pad: int = 0, tol: Tolerance | None = None
) -> None:
    """Launch on x (as a strided view with NaN gaps when pad > 0) and check y, rstd and every access."""
    _skip_cpu_on_gpu(harness.device)
    d = x.tensor.shape[1]
    weight = random_weight(d, weight_key).to(x.tensor.dtype)
    sent = strided(x.tensor, pad) if pad else x.tensor
    for got in launch(harness, sent, weight, eps):
        check_reply(harness, got, x, weight, eps=eps, pad=pad, tol=tol)


def check_reply(
    harness: Harness, got: StepReply, x: Input, weight: torch.Tensor, *, eps: float, pad: int, tol: Tolerance | None
) -> None:
    """One config's reply: every access, who wrote the outputs, then y and rstd."""
    n, d = x.tensor.shape
    call = f"{LAUNCHER}(x, weight, eps={eps:g})"
    on = (
        x.describe(harness.device)
        + (say(", rows strided by {s} with NaN in the gaps", "，行步长 {s}，间隔中为 NaN", s=d + pad) if pad else "")
        + under_config(got)
    )
    check_findings(
        harness,
        got,
        call,
        on,
        d,
        no_mask=NO_MASK,
        off_by_one=OFF_BY_ONE,
        missed_rows=GRID_MISSES_ROWS,
        output_names=OUTPUTS,
    )
    if len(got.outputs) != 2:
        fail(
            say(
                "{call} on {on}: returned {k} tensor(s), expected (y, rstd)",
                "{call}，{on}：返回了 {k} 个张量，应返回 (y, rstd)",
                call=call,
                on=on,
                k=len(got.outputs),
            ),
            call=call_on(call, on),
        )
    y, rstd = got.outputs
    expected_y, expected_rstd = reference(x.tensor, weight, eps)
    if y.dtype != x.tensor.dtype:
        message = say(
            "{call} on {on}: y is {got}, expected {want} (x's dtype).",
            "{call}，{on}：y 是 {got}，应为 {want}（x 的数据类型）。",
            call=call,
            on=on,
            got=str(y.dtype).removeprefix("torch."),
            want=str(x.tensor.dtype).removeprefix("torch."),
        )
        named = " " + harness.diagnose(OUTPUT_FP32) if y.dtype == torch.float32 else ""
        fail(message + named, call=call_on(call, on))
    if tuple(rstd.shape) != (n,) or rstd.dtype != torch.float32:
        fail(
            say(
                "{call} on {on}: rstd is {dtype} of shape {shape}, expected float32 of shape ({n},)",
                "{call}，{on}：rstd 是形状 {shape} 的 {dtype}，应为形状 ({n},) 的 float32",
                call=call,
                on=on,
                dtype=str(rstd.dtype).removeprefix("torch."),
                shape=tuple(rstd.shape),
                n=n,
            ),
            call=call_on(call, on),
        )
    if tuple(y.shape) == (n, d):
        explain_nan(harness, got, y, expected_y, x.tensor, weight, eps, pad, call, on)
    tol = tol or tolerance_for(x.tensor.dtype)
    harness.assert_close(y, expected_y, tol=tol, call=call, on=on, what="y", suspects=suspects(x.tensor, weight, eps))
    harness.assert_close(rstd, expected_rstd, tol=tol.at_least(TOLERANCES["float32"]), call=call, on=on, what="rstd")


def explain_nan(
    harness: Harness,
    got: StepReply,
    y: torch.Tensor,
    expected: torch.Tensor,
    x: torch.Tensor,
    weight: torch.Tensor,
    eps: float,
    pad: int,
    call: str,
    on: str,
) -> None:
    """NaN where the reference is finite has a few causes; name the one the evidence shows."""
    bad = torch.isnan(y) & torch.isfinite(expected)
    if not bool(bad.any()):
        return
    rows = [int(r) for r in torch.nonzero(bad.all(-1)).flatten()]
    message = say(
        "{call} on {on}: y holds NaN in {k} row(s) where the reference is finite.",
        "{call}，{on}：y 有 {k} 行是 NaN，而参考结果是有限值。",
        call=call,
        on=on,
        k=int(bad.any(-1).sum()),
    )
    cause: Misconception | None = None
    if pad:
        n, d = x.shape
        packed = torch.as_strided(strided(x, pad), (n, d), (d, 1)).double()  # row r read at r * d
        wrong = packed * torch.rsqrt(packed.pow(2).mean(-1, keepdim=True) + eps) * weight.double()
        if bool(torch.isclose(y.double(), wrong, rtol=1e-3, atol=1e-3, equal_nan=True).all()):
            cause = STRIDE_IGNORED
    if cause is None and got.nan_filled and len(rows) == y.shape[0]:
        cause = MISSING_OTHER
    if cause is None and rows and len(rows) < y.shape[0]:
        written = [r for r in range(y.shape[0]) if r not in rows]
        if bool(torch.isclose(y[written].double(), expected[written], rtol=0.05, atol=0.05).all()):
            message += say(" Rows never written: {rows}.", " 从未写入的行：{rows}。", rows=rows[:8])
            cause = GRID_MISSES_ROWS
    fail(message + (" " + harness.diagnose(cause) if cause else ""), call=call_on(call, on))


# -- forward in fp32 ---------------------------------------------------------------------------

#: Small on purpose: the interpreter costs about 3 ms per program (row), and watch re-grades on every save.
SHAPES = [(2, 8), (3, 300), (3, 1), (3, 7), (2, 64), (2, 33)]


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_forward(harness: Harness, shape: tuple[int, int], device: str) -> None:
    key = 1000 + sum(shape) * 7
    forward_case(harness, Input(randn(shape, key, scale=2.0, shift=0.5), "2·N(0,1)+0.5"), weight_key=key + 1)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(2))
def test_forward_drawn_width(harness: Harness, k: int) -> None:
    shape = (draw(10 + k, 2, 4), draw(20 + k, 9, 200))
    forward_case(harness, Input(randn(shape, 40 + k, scale=1.5), "1.5·N(0,1)"), weight_key=50 + k)


# -- shapes and layouts ------------------------------------------------------------------------


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(3, 100), (3, 5), (3, 64)], ids=lambda s: "x".join(map(str, s)))
def test_strided_rows_with_nan_gaps(harness: Harness, shape: tuple[int, int], device: str) -> None:
    forward_case(harness, Input(randn(shape, 60 + shape[1]), "N(0,1)"), pad=draw(61, 3, 29))


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("rows", [1, 17])
def test_single_row_and_many_rows(harness: Harness, rows: int) -> None:
    forward_case(harness, Input(randn((rows, 12), 70 + rows), "N(0,1)"))


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
def test_all_zero_row_stays_finite(harness: Harness) -> None:
    x = randn((3, 20), 91)
    x[1] = 0.0
    forward_case(harness, Input(x, say("row-1-all-zero", "第 1 行全为零的")))


@pytest.mark.category(Category.STABILITY)
def test_custom_eps(harness: Harness) -> None:
    forward_case(harness, Input(randn((2, 12), 93, scale=0.05), "0.05·N(0,1)"), eps=1e-2)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
def test_half_precision(harness: Harness, dtype: torch.dtype, device: str) -> None:
    x = randn((3, 96), 100).to(dtype)
    forward_case(harness, Input(x, "N(0,1)"), weight_key=110)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_large_values_need_float32(harness: Harness, device: str) -> None:
    x = (300 * (1 + 0.1 * randn((3, 48), 120))).to(torch.float16)
    forward_case(harness, Input(x, say("near-300 (300² overflows fp16)", "接近 300（300² 在 fp16 中溢出）")))


# -- the guard itself --------------------------------------------------------------------------


@pytest.mark.category(Category.INTEGRITY)
def test_bounds_guard(harness: Harness) -> None:
    """The guard checked itself on a known-bad kernel in the worker: say plainly if it could not run."""
    _skip_cpu_on_gpu(harness.device)
    try:
        got = launch(harness, randn((1, 4), 130), torch.ones(4), 1e-5)
    except LearnerError:
        pytest.skip(say("your launcher raised: the other cases say why", "你的启动函数抛出了异常：其他用例会说明原因"))
    skip_unless_guarded(got[0])


# -- speed on a GPU (reported, never scored) ---------------------------------------------------

#: Share of a memory copy's bandwidth, lowest first: a tier per range.
SPEED_TIERS = [
    (
        50.0,
        (
            "below 50%: a loop, a second pass or a bad layout moves extra bytes",
            "低于 50%：循环、第二遍或不好的布局搬运了多余的字节",
        ),
    ),
    (80.0, ("50-80%: good", "50-80%：不错")),
    (math.inf, ("above 80%: close to the memory's limit", "高于 80%：接近内存带宽的上限")),
]


@pytest.mark.category(Category.CUDA)
@pytest.mark.parametrize("device", ["cuda"])
def test_speed(harness: Harness, device: str) -> None:
    """Correct on an fp16 input, then timed on a (16384, 8192) one made on the GPU against a memory
    copy of the same bytes: reported as a skip, never a fail."""
    from normkata.grading.messages import TIMED_SHAPE, compiles_on_gpu

    if not compiles_on_gpu():
        pytest.skip(
            say(
                "speed: not measured, the kernels ran under the interpreter (compiling runs ptxas, which the "
                "sandbox forbids: NORMKATA_SANDBOX=off on a GPU times them compiled)",
                "速度：未测量，内核在解释器下运行（编译需要运行 ptxas，而沙箱禁止这样做："
                "在 GPU 上设置 NORMKATA_SANDBOX=off 可按编译后的内核计时）",
            )
        )
    n, d = 64, 4096
    x = randn((n, d), 140).to(torch.float16)
    weight = random_weight(d, 141).to(torch.float16)
    got = launch(harness, x, weight, 1e-5, timed=True)[0]
    call, on = f"{LAUNCHER}(x, weight, eps=1e-05)", Input(x, "N(0,1)").describe(device) + under_config(got)
    check_findings(harness, got, call, on, d, no_mask=NO_MASK, off_by_one=OFF_BY_ONE, output_names=OUTPUTS)
    expected_y, _ = reference(x, weight, 1e-5)
    harness.assert_close(got.outputs[0], expected_y, tol=tolerance_for(x.dtype), call=call, on=on, what="y")
    if got.timing is None:
        pytest.skip(say("speed: not measured", "速度：未测量"))
    kernel, copy, eager = got.timing.launcher_ms, got.timing.copy_ms, got.timing.eager_ms
    share = 100 * copy / kernel if kernel > 0 else 0.0
    tier = next(words for limit, words in SPEED_TIERS if share < limit)
    pytest.skip(
        say(
            "speed (not scored): {share:.0f}% of a memory copy's bandwidth, {tier} ({k:.3f} ms; copy "
            "{c:.3f} ms; torch eager {e:.3f} ms) on ({n}, {d}) fp16",
            "速度（不计分）：达到内存拷贝带宽的 {share:.0f}%，{tier_zh}（{k:.3f} ms；拷贝 {c:.3f} ms；"
            "torch eager {e:.3f} ms），输入 ({n}, {d}) fp16",
            share=share,
            tier=tier[0],
            tier_zh=tier[1],
            k=kernel,
            c=copy,
            e=eager,
            n=TIMED_SHAPE[0],
            d=TIMED_SHAPE[1],
        )
    )
