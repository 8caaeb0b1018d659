"""Hidden suite for the RMSNorm kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
are drawn from the run's seed; the integer passed to `randn` / `draw` only tells inputs apart.
"""

from __future__ import annotations

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    Harness,
    Input,
    Misconception,
    draw,
    expect_keys,
    expect_parameters,
    fail,
    is_broadcast_error,
    load_fix,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category
from normkata.grading.messages import Step

MISTAKES = misconceptions("rmsnorm")  # titles and hints: kata.yaml
EPS_OUTSIDE = MISTAKES["rms-eps-outside-sqrt"]
CENTRED = MISTAKES["rms-subtracts-mean"]
SUM_NOT_MEAN = MISTAKES["rms-sum-not-mean"]
WRONG_AXIS = MISTAKES["rms-wrong-axis"]
NO_WEIGHT = MISTAKES["rms-ignores-weight"]
NO_UPCAST = MISTAKES["rms-no-fp32-upcast"]
ONE_PLUS_WEIGHT = MISTAKES["rms-one-plus-weight"]
NO_EPS = MISTAKES["rms-no-eps"]
MISSING_KEEPDIM = MISTAKES["rms-missing-keepdim"]
ERROR_SUSPECTS = [(MISSING_KEEPDIM, is_broadcast_error)]


def reference_output(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """The reference module in float64 on the (already quantised) input."""
    from normkata_reference_rmsnorm import RMSNorm  # type: ignore[import-not-found]

    module = RMSNorm(x.shape[-1], eps=eps, dtype=torch.float64)
    module.weight.data.copy_(weight.double())
    with torch.no_grad():
        return module(x.double().cpu())


def suspects(x: torch.Tensor, weight: torch.Tensor, eps: float) -> list[tuple[Misconception, torch.Tensor]]:
    x64, w = x.double().cpu(), weight.double()
    ms = x64.pow(2).mean(-1, keepdim=True)
    found = [
        (EPS_OUTSIDE, x64 / (ms.sqrt() + eps) * w),
        (CENTRED, torch.nn.functional.layer_norm(x64, (x.shape[-1],), eps=eps) * w),
        (SUM_NOT_MEAN, x64 * torch.rsqrt(x64.pow(2).sum(-1, keepdim=True) + eps) * w),
        (NO_WEIGHT, x64 * torch.rsqrt(ms + eps)),
        (ONE_PLUS_WEIGHT, x64 * torch.rsqrt(ms + eps) * (1 + w)),
        (NO_EPS, x64 * torch.rsqrt(ms) * w),
    ]
    if x.dim() >= 2 and x.shape[0] != x.shape[-1]:
        found.append((WRONG_AXIS, x64 * torch.rsqrt(x64.pow(2).mean(0, keepdim=True) + eps) * w))
    if x.dim() == 2 and x.shape[0] == x.shape[-1]:  # without keepdim, (n,) broadcasts along the rows
        found.append((MISSING_KEEPDIM, x64 * torch.rsqrt(x64.pow(2).mean(-1) + eps) * w))
    if x.dtype in (torch.float16, torch.bfloat16):
        naive = x.cpu() * torch.rsqrt(x.cpu().pow(2).mean(-1, keepdim=True) + eps) * weight.to(x.dtype)
        found.append((NO_UPCAST, naive.double()))
    return found


def random_weight(d: int, key: int) -> torch.Tensor:
    return randn([d], key, scale=0.5, shift=1.0)


def check_forward(
    harness: Harness,
    x: Input,
    *,
    eps: float = 1e-5,
    dtype: torch.dtype | None = None,
    weight_key: int = 100,
    tol_name: str | None = None,
) -> None:
    d = x.tensor.shape[-1]
    harness.forward_case(
        "RMSNorm",
        [d],
        {"eps": eps},
        x,
        state={"weight": random_weight(d, weight_key)},
        dtype=dtype,
        tol=TOLERANCES[tol_name] if tol_name else None,
        expected=lambda x, state: reference_output(x, state["weight"], eps),
        # torch's own kernel in the input's dtype: what that precision delivers on this input
        in_dtype=lambda x, state: torch.nn.functional.rms_norm(x, (d,), state["weight"], eps),
        suspects=lambda x, state: suspects(x, state["weight"], eps),
        error_suspects=ERROR_SUSPECTS,
    )


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_weight_parameter_and_state_dict(harness: Harness) -> None:
    info = harness.inspect("RMSNorm", [6])
    expect_parameters("RMSNorm(6)", info, {"weight": torch.ones(6)})
    expect_keys("RMSNorm(6)", "state_dict", info.state_dict, ["weight"])


@pytest.mark.category(Category.STATE)
def test_loads_torch_rmsnorm_state_dict(harness: Harness) -> None:
    torch_module = torch.nn.RMSNorm(8, eps=1e-5)
    torch_module.weight.data = randn([8], 5)
    x = randn([3, 8], 6)
    reply = harness.run(
        harness.program("RMSNorm", [8], state=dict(torch_module.state_dict()), steps=[Step([x])], inspect=True)
    )
    if not reply.state_load.clean:
        fix = load_fix(
            reply.state_load,
            say(
                "Fix: name the gain `weight`, a Parameter of shape (hidden_size,).",
                "修改：把增益命名为 `weight`，形状为 (hidden_size,) 的 Parameter。",
            ),
        )
        fail(
            say(
                "RMSNorm(8).load_state_dict(nn.RMSNorm(8).state_dict()) would fail: missing {missing}, unexpected "
                "{unexpected}. {fix}",
                "RMSNorm(8).load_state_dict(nn.RMSNorm(8).state_dict()) 会失败：缺少 {missing}，"
                "多出 {unexpected}。{fix}",
                missing=reply.state_load.missing or "-",
                unexpected=reply.state_load.unexpected or "-",
                fix=fix,
            ),
            call="RMSNorm(8).load_state_dict(nn.RMSNorm(8).state_dict())",
        )
    expected = torch.nn.functional.rms_norm(x.double(), (8,), weight=torch_module.weight.double(), eps=1e-5)
    harness.assert_close(
        reply.steps[0].output,
        expected,
        tol=TOLERANCES["float32"],
        call=say(
            "load_state_dict(nn.RMSNorm(8).state_dict()) then forward",
            "load_state_dict(nn.RMSNorm(8).state_dict()) 后 forward",
        ),
        on=Input(x, "N(0,1)").describe(),
    )


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, dtype: str) -> None:
    made = harness.inspect("RMSNorm", [4], {"dtype": dtype})
    got = made.parameters["weight"].dtype if "weight" in made.parameters else "-"
    if got != dtype:
        fail(
            say(
                "RMSNorm(4, dtype={dtype}).weight is {got}, expected {dtype}",
                "RMSNorm(4, dtype={dtype}).weight 是 {got}，应为 {dtype}",
                dtype=dtype,
                got=got,
            )
        )
    moved = harness.inspect("RMSNorm", [4], dtype=getattr(torch, dtype))
    got = moved.parameters["weight"].dtype if "weight" in moved.parameters else "-"
    if got != dtype:
        fail(
            say(
                "RMSNorm(4).to({dtype}) left weight as {got}: is it an nn.Parameter?",
                "RMSNorm(4).to({dtype}) 之后 weight 仍是 {got}：它是 nn.Parameter 吗？",
                dtype=dtype,
                got=got,
            )
        )


# -- forward in fp32 ---------------------------------------------------------------------------

FP32_SHAPES = [(2, 5, 8), (3, 16), (4, 1, 7), (1, 1), (2, 3, 1), (6, 5), (2, 2, 3, 9), (8,), (3, 64)]


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", FP32_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_forward(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    key = 1000 + sum(shape) * 7 + len(shape)
    check_forward(harness, Input(randn(shape, key, scale=2.0, shift=0.5), "2·N(0,1)+0.5"), weight_key=key + 1)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(4))
def test_forward_drawn_shapes(harness: Harness, k: int) -> None:
    shape = (draw(10 + k, 1, 5), draw(20 + k, 1, 7), draw(30 + k, 1, 97))
    check_forward(harness, Input(randn(shape, 40 + k, scale=1.5), "1.5·N(0,1)"), weight_key=50 + k)


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    d = draw(60, 3, 33)
    weight = random_weight(d, 61)
    inputs = [
        Input(randn((4, d), 62, scale=2.0), "2·N(0,1)"),
        Input(randn((4, d), 64, scale=3.0), "3·N(0,1)"),
        Input(randn((2, 3, d), 63, scale=0.1), "0.1·N(0,1)"),
    ]
    inputs.append(inputs[0])  # same shape, other values, other shape, the first again
    harness.repeated_calls_case(
        "RMSNorm",
        [d],
        {"eps": 1e-5},
        inputs,
        state={"weight": weight},
        expected=lambda x: reference_output(x, weight, 1e-5),
        suspects=lambda x: suspects(x, weight, 1e-5),
    )


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)], ids=lambda s: "x".join(map(str, s)))
def test_normalizes_the_last_dimension(harness: Harness, shape: tuple[int, ...]) -> None:
    check_forward(harness, Input(randn(shape, 70 + shape[0], scale=3.0), "3·N(0,1)"))


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("d", range(1, 9))
def test_small_hidden_sizes(harness: Harness, d: int) -> None:
    check_forward(harness, Input(randn((3, d), 80 + d), "N(0,1)"))


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_small_variance_rows(harness: Harness, device: str) -> None:
    check_forward(
        harness, Input(randn((4, 32), 90, scale=1e-3), say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）"))
    )


@pytest.mark.category(Category.STABILITY)
def test_all_zero_rows_stay_finite(harness: Harness) -> None:
    x = randn((4, 16), 91)
    x[1] = 0.0
    x[3] = 0.0
    check_forward(harness, Input(x, say("rows-1-and-3-all-zero", "第 1、3 行全为零的")))


@pytest.mark.category(Category.STABILITY)
def test_constant_rows(harness: Harness) -> None:
    x = torch.full((3, 10), 4.0)
    x[1] = -0.02
    check_forward(harness, Input(x, say("constant-row (4.0 and -0.02)", "常数行（4.0 与 -0.02）")))


@pytest.mark.category(Category.STABILITY)
def test_large_values(harness: Harness) -> None:
    check_forward(
        harness,
        Input(randn((3, 24), 92, scale=1e3, shift=1e3), say("large (1e3·N(0,1)+1e3)", "大数值（1e3·N(0,1)+1e3）")),
    )


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("eps", [1e-2, 1e-6])
def test_custom_eps(harness: Harness, eps: float) -> None:
    check_forward(harness, Input(randn((4, 12), 93, scale=0.05), "0.05·N(0,1)"), eps=eps)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_half_precision(harness: Harness, dtype: torch.dtype, k: int, device: str) -> None:
    x = randn((4, 6, 64), 100 + k).to(dtype)
    check_forward(harness, Input(x, "N(0,1)"), dtype=dtype, weight_key=110 + k)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_activations_near_300(harness: Harness, device: str) -> None:
    x = (300 * (1 + 0.1 * randn((3, 64), 120))).to(torch.float16)
    check_forward(
        harness, Input(x, say("near-300 (300² overflows fp16)", "接近 300（300² 在 fp16 中溢出）")), dtype=torch.float16
    )


@pytest.mark.category(Category.LOW_PRECISION)
def test_bf16_large_values(harness: Harness) -> None:
    x = randn((3, 128), 121, scale=500.0).to(torch.bfloat16)
    check_forward(harness, Input(x, say("large (500·N(0,1))", "大数值（500·N(0,1)）")), dtype=torch.bfloat16)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5, 8), (7, 3)], ids=lambda s: "x".join(map(str, s)))
def test_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    from normkata_reference_rmsnorm import RMSNorm  # type: ignore[import-not-found]

    d = shape[-1]
    harness.gradient_case(
        "RMSNorm",
        [d],
        {},
        Input(randn(shape, 130 + d), "N(0,1)"),
        reference=RMSNorm(d),
        state={"weight": random_weight(d, 131 + d)},
        suspects=lambda x, state: suspects(x, state["weight"], 1e-5),
    )
