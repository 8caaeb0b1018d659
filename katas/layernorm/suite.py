"""Hidden suite for the LayerNorm kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
are drawn from the run's seed; the integer passed to `randn` / `draw` only tells inputs apart.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    Harness,
    Input,
    draw,
    drawn_forward_cases,
    expect_keys,
    expect_parameters,
    fail,
    forward_cases,
    load_fix,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance
from normkata.grading.messages import Step

MISTAKES = misconceptions("layernorm")  # titles and hints: kata.yaml
UNBIASED = MISTAKES["ln-unbiased-variance"]
EPS_OUTSIDE = MISTAKES["ln-eps-outside-sqrt"]
LAST_DIM_ONLY = MISTAKES["ln-last-dim-only"]
ONE_PASS = MISTAKES["ln-one-pass-variance"]
NO_AFFINE = MISTAKES["ln-ignores-affine"]
NO_UPCAST = MISTAKES["ln-no-fp32-upcast"]
BATCH_AXIS = MISTAKES["ln-batch-axis"]


def _dims(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(range(-len(shape), 0))


def reference_output(
    x: torch.Tensor, state: dict[str, torch.Tensor], shape: tuple[int, ...], eps: float
) -> torch.Tensor:
    from normkata_reference_layernorm import LayerNorm  # type: ignore[import-not-found]

    module = LayerNorm(shape, eps=eps, bias="bias" in state, elementwise_affine=bool(state), dtype=torch.float64)
    if state:
        module.load_state_dict({k: v.double() for k, v in state.items()})
    with torch.no_grad():
        return module(x.double().cpu())


def suspects(x: torch.Tensor, state: dict[str, torch.Tensor], shape: tuple[int, ...], eps: float) -> list:
    x64 = x.double().cpu()
    weight = state["weight"].double() if "weight" in state else torch.ones(shape, dtype=torch.float64)
    bias = state["bias"].double() if "bias" in state else torch.zeros(shape, dtype=torch.float64)
    dims = _dims(shape)

    def finish(mean: torch.Tensor, var: torch.Tensor, *, outside: bool = False, affine: bool = True) -> torch.Tensor:
        y = (x64 - mean) / (var.sqrt() + eps if outside else torch.sqrt(var + eps))
        return y * weight + bias if affine else y

    mean = x64.mean(dims, keepdim=True)
    var = x64.var(dims, unbiased=False, keepdim=True)
    found = [
        (UNBIASED, finish(mean, x64.var(dims, unbiased=True, keepdim=True))),
        (EPS_OUTSIDE, finish(mean, var, outside=True)),
        (NO_AFFINE, finish(mean, var, affine=False)),
    ]
    if len(shape) > 1:
        last_mean, last_var = x64.mean(-1, keepdim=True), x64.var(-1, unbiased=False, keepdim=True)
        found.append((LAST_DIM_ONLY, (x64 - last_mean) / torch.sqrt(last_var + eps) * weight + bias))
    if x.dim() > len(shape) and x.shape[0] > 1:
        batch_mean, batch_var = x64.mean(0, keepdim=True), x64.var(0, unbiased=False, keepdim=True)
        found.append((BATCH_AXIS, (x64 - batch_mean) / torch.sqrt(batch_var + eps) * weight + bias))
    x32 = x.float().cpu()
    one_pass_mean = x32.mean(dims, keepdim=True)
    one_pass_var = x32.pow(2).mean(dims, keepdim=True) - one_pass_mean.pow(2)
    one_pass = (x32 - one_pass_mean) / torch.sqrt(one_pass_var + eps) * weight.float() + bias.float()
    found.append((ONE_PASS, one_pass.double()))
    if x.dtype in (torch.float16, torch.bfloat16):
        xh = x.cpu()
        half_mean = xh.mean(dims, keepdim=True)
        half_var = (xh - half_mean).pow(2).mean(dims, keepdim=True)
        naive = (xh - half_mean) / torch.sqrt(half_var + eps) * weight.to(x.dtype) + bias.to(x.dtype)
        found.append((NO_UPCAST, naive.double()))
    return found


def random_affine(shape: tuple[int, ...], key: int, *, bias: bool = True) -> dict[str, torch.Tensor]:
    state = {"weight": randn(shape, key, scale=0.5, shift=1.0)}
    if bias:
        state["bias"] = randn(shape, key + 1, scale=0.5)
    return state


def check_forward(
    harness: Harness,
    x: Input,
    shape: tuple[int, ...] | int,
    *,
    eps: float = 1e-5,
    dtype: torch.dtype | None = None,
    key: int = 100,
    kwargs: dict[str, Any] | None = None,
    tol: Tolerance | None = None,
) -> None:
    tuple_shape = (shape,) if isinstance(shape, int) else tuple(shape)
    kwargs = {"eps": eps, **(kwargs or {})}
    affine = kwargs.get("elementwise_affine", True)
    state = random_affine(tuple_shape, key, bias=kwargs.get("bias", True)) if affine else None
    arg = shape if isinstance(shape, int) else list(shape)
    harness.forward_case(
        "LayerNorm",
        [arg],
        kwargs,
        x,
        state=state,
        dtype=dtype,
        tol=tol,
        expected=lambda x, st: reference_output(x, st, tuple_shape, eps),
        # torch's own kernel in the input's dtype: what that precision delivers on this input
        in_dtype=lambda x, st: torch.nn.functional.layer_norm(x, tuple_shape, st.get("weight"), st.get("bias"), eps),
        suspects=lambda x, st: suspects(x, st, tuple_shape, eps),
    )


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_parameters_and_state_dict(harness: Harness) -> None:
    info = harness.inspect("LayerNorm", [6])
    expect_parameters("LayerNorm(6)", info, {"weight": torch.ones(6), "bias": torch.zeros(6)})
    expect_keys("LayerNorm(6)", "state_dict", info.state_dict, ["weight", "bias"])


@pytest.mark.category(Category.STATE)
def test_tuple_normalized_shape(harness: Harness) -> None:
    info = harness.inspect("LayerNorm", [(4, 5)])
    expect_parameters("LayerNorm((4, 5))", info, {"weight": torch.ones(4, 5), "bias": torch.zeros(4, 5)})


@pytest.mark.category(Category.STATE)
def test_without_affine(harness: Harness) -> None:
    call = "LayerNorm(6, elementwise_affine=False)"
    info = harness.inspect("LayerNorm", [6], {"elementwise_affine": False})
    expect_parameters(call, info, {})
    expect_keys(call, "state_dict", info.state_dict, [])


@pytest.mark.category(Category.STATE)
def test_without_bias(harness: Harness) -> None:
    call = "LayerNorm(6, bias=False)"
    info = harness.inspect("LayerNorm", [6], {"bias": False})
    expect_parameters(call, info, {"weight": torch.ones(6)})
    expect_keys(call, "state_dict", info.state_dict, ["weight"])


@pytest.mark.category(Category.STATE)
def test_loads_torch_layernorm_state_dict(harness: Harness) -> None:
    torch_module = torch.nn.LayerNorm(8)
    torch_module.load_state_dict(random_affine((8,), 5))
    x = randn((3, 8), 6, scale=2.0)
    reply = harness.run(
        harness.program("LayerNorm", [8], state=dict(torch_module.state_dict()), steps=[Step([x])], inspect=True)
    )
    if not reply.state_load.clean:
        fix = load_fix(
            reply.state_load,
            say(
                "Fix: name the parameters `weight` and `bias`, of shape normalized_shape.",
                "修改：参数命名为 `weight` 和 `bias`，形状为 normalized_shape。",
            ),
        )
        fail(
            say(
                "LayerNorm(8).load_state_dict(nn.LayerNorm(8).state_dict()) would fail: missing {missing}, "
                "unexpected {unexpected}. {fix}",
                "LayerNorm(8).load_state_dict(nn.LayerNorm(8).state_dict()) 会失败："
                "缺少 {missing}，多出 {unexpected}。{fix}",
                missing=reply.state_load.missing or "-",
                unexpected=reply.state_load.unexpected or "-",
                fix=fix,
            ),
            call="LayerNorm(8).load_state_dict(nn.LayerNorm(8).state_dict())",
        )
    expected = torch.nn.functional.layer_norm(
        x.double(), (8,), torch_module.weight.double(), torch_module.bias.double(), 1e-5
    )
    harness.assert_close(
        reply.steps[0].output,
        expected,
        tol=TOLERANCES["float32"],
        call=say(
            "load_state_dict(nn.LayerNorm(8).state_dict()) then forward",
            "load_state_dict(nn.LayerNorm(8).state_dict()) 后 forward",
        ),
        on=Input(x, "2·N(0,1)").describe(),
        suspects=suspects(x, dict(torch_module.state_dict()), (8,), 1e-5),
    )


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, dtype: str) -> None:
    expected = {
        "weight": torch.ones(4, dtype=getattr(torch, dtype)),
        "bias": torch.zeros(4, dtype=getattr(torch, dtype)),
    }
    expect_parameters(f"LayerNorm(4, dtype={dtype})", harness.inspect("LayerNorm", [4], {"dtype": dtype}), expected)
    moved = harness.inspect("LayerNorm", [4], dtype=getattr(torch, dtype))
    expect_parameters(f"LayerNorm(4).to({dtype})", moved, expected)


# -- forward in fp32 ---------------------------------------------------------------------------

SHAPES = [(2, 5, 8), (3, 16), (4, 1, 7), (6, 5), (2, 2, 3, 9), (8,), (3, 2), (5, 33)]

globals().update(forward_cases(check_forward, SHAPES))


globals().update(drawn_forward_cases(check_forward, min_d=2))


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("kwargs", [{"bias": False}, {"elementwise_affine": False}], ids=["no-bias", "no-affine"])
def test_forward_flags(harness: Harness, kwargs: dict[str, Any]) -> None:
    check_forward(harness, Input(randn((4, 10), 3, scale=3.0, shift=-1.0), "3·N(0,1)-1"), 10, kwargs=kwargs)


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    d = draw(60, 3, 33)
    state = random_affine((d,), 61)
    inputs = [
        Input(randn((4, d), 62, scale=2.0, shift=1.0), "2·N(0,1)+1"),
        Input(randn((4, d), 64, scale=3.0), "3·N(0,1)"),
        Input(randn((2, 3, d), 63, scale=0.1), "0.1·N(0,1)"),
    ]
    inputs.append(inputs[0])  # same shape, other values, other shape, the first again
    harness.repeated_calls_case(
        "LayerNorm",
        [d],
        {"eps": 1e-5},
        inputs,
        state=state,
        expected=lambda x: reference_output(x, state, (d,), 1e-5),
        suspects=lambda x: suspects(x, state, (d,), 1e-5),
    )


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize(
    ("shape", "normalized"),
    [((2, 3, 4, 5), (4, 5)), ((3, 2, 6), (2, 6)), ((2, 3, 4), (2, 3, 4)), ((4, 6), (6,))],
    ids=["2x3x4x5-over-4x5", "3x2x6-over-2x6", "2x3x4-over-all", "4x6-over-(6,)"],
)
def test_tuple_shapes(harness: Harness, shape: tuple[int, ...], normalized: tuple[int, ...]) -> None:
    check_forward(harness, Input(randn(shape, 9, scale=2.0, shift=1.0), "2·N(0,1)+1"), normalized)


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("d", range(1, 9))
def test_small_feature_sizes(harness: Harness, d: int) -> None:
    check_forward(harness, Input(randn((3, d), 70 + d), "N(0,1)"), d)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_large_offset(harness: Harness, device: str) -> None:
    x = Input(randn((4, 64), 11, shift=1e3), say("mean-1000 (N(0,1)+1e3)", "均值 1000（N(0,1)+1e3）"))
    check_forward(harness, x, 64, tol=TOLERANCES["large offset"])


@pytest.mark.category(Category.STABILITY)
def test_constant_rows(harness: Harness) -> None:
    x = randn((3, 12), 12)
    x[0] = 7.0
    x[2] = -0.5
    check_forward(harness, Input(x, say("rows-0-and-2-constant", "第 0、2 行为常数的")), 12)


@pytest.mark.category(Category.STABILITY)
def test_small_variance(harness: Harness) -> None:
    check_forward(
        harness, Input(randn((4, 32), 13, scale=1e-3), say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）")), 32
    )


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("eps", [1e-1, 1e-7])
def test_custom_eps(harness: Harness, eps: float) -> None:
    check_forward(harness, Input(randn((4, 12), 14, scale=0.05), "0.05·N(0,1)"), 12, eps=eps)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("k", [0, 1])
def test_half_precision(harness: Harness, dtype: torch.dtype, k: int, device: str) -> None:
    x = randn((4, 6, 64), 20 + k, scale=2.0, shift=1.0).to(dtype)
    check_forward(harness, Input(x, "2·N(0,1)+1"), 64, dtype=dtype, key=30 + k)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_large_activations(harness: Harness, device: str) -> None:
    x = randn((3, 64), 35, scale=300.0).to(torch.float16)
    label = say(
        "std-300 (300·N(0,1): squared deviations overflow fp16)", "标准差 300（300·N(0,1)：偏差的平方在 fp16 中溢出）"
    )
    check_forward(harness, Input(x, label), 64, dtype=torch.float16, key=36)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("shape", "normalized"), [((2, 5, 8), (8,)), ((3, 4, 6), (4, 6))], ids=["2x5x8-over-8", "3x4x6-over-4x6"]
)
def test_gradients(harness: Harness, shape: tuple[int, ...], normalized: tuple[int, ...], device: str) -> None:
    from normkata_reference_layernorm import LayerNorm  # type: ignore[import-not-found]

    harness.gradient_case(
        "LayerNorm",
        [normalized],
        {},
        Input(randn(shape, 40, scale=1.5), "1.5·N(0,1)"),
        reference=LayerNorm(normalized),
        state=random_affine(normalized, 41),
        suspects=lambda x, state: suspects(x, state, normalized, 1e-5),
    )


@pytest.mark.category(Category.GRADIENTS)
def test_gradients_through_a_constant_row(harness: Harness) -> None:
    from normkata_reference_layernorm import LayerNorm  # type: ignore[import-not-found]

    x = randn((3, 8), 43)
    x[1] = 2.0
    harness.gradient_case(
        "LayerNorm",
        [8],
        {},
        Input(x, say("row-1-constant", "第 1 行为常数的")),
        reference=LayerNorm(8),
        state=random_affine((8,), 44),
        suspects=lambda x, state: suspects(x, state, (8,), 1e-5),
    )
