"""Hidden suite for the Dynamic Tanh kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. The
contract follows the authors' DynamicTanh (jiachenzhu/DyT, dynamic_tanh.py): parameters alpha
(1,), weight and bias (normalized_shape), initialised to alpha_init, ones and zeros. Inputs and
parameters are drawn from the run's seed; alpha, weight and bias are random in the forward
cases (with weight at one and bias at zero, several mistakes give the same output).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    Harness,
    Input,
    call_text,
    draw,
    drawn_forward_cases,
    expect_keys,
    expect_parameters,
    fail,
    forward_cases,
    misconceptions,
    randn,
    say,
    seeded,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance, tolerance_for
from normkata.grading.messages import Inspection, Step

MISTAKES = misconceptions("dyt")  # titles and hints: kata.yaml
BIAS_AT_ONES = MISTAKES["dyt-bias-at-ones"]
WEIGHT_INSIDE = MISTAKES["dyt-weight-inside-tanh"]
BIAS_INSIDE = MISTAKES["dyt-bias-inside-tanh"]
NO_ALPHA = MISTAKES["dyt-no-alpha"]
ALPHA_FIXED = MISTAKES["dyt-alpha-not-learnable"]
ALPHA_PER_CHANNEL = MISTAKES["dyt-alpha-per-channel"]
ALPHA_INIT_IGNORED = MISTAKES["dyt-alpha-init-ignored"]
ALPHA_ZERO_DIM = MISTAKES["dyt-alpha-zero-dim"]


def _shape(normalized_shape: int | tuple[int, ...]) -> tuple[int, ...]:
    return (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)


def reference_output(x: torch.Tensor, state: dict[str, torch.Tensor], shape: tuple[int, ...]) -> torch.Tensor:
    from normkata_reference_dyt import DyT  # type: ignore[import-not-found]

    module = DyT(shape, bias="bias" in state, dtype=torch.float64)
    module.load_state_dict({k: v.double() for k, v in state.items()})
    with torch.no_grad():
        return module(x.double().cpu())


def suspects(x: torch.Tensor, state: dict[str, torch.Tensor], alpha_init: float = 0.5) -> list:
    x64 = x.double().cpu()
    alpha, weight = state["alpha"].double(), state["weight"].double()
    bias = state["bias"].double() if "bias" in state else torch.zeros_like(weight)
    found = [
        (WEIGHT_INSIDE, torch.tanh(alpha * x64 * weight) + bias),
        (BIAS_INSIDE, torch.tanh(alpha * x64 + bias) * weight),
        (NO_ALPHA, torch.tanh(x64) * weight + bias),
        (BIAS_AT_ONES, torch.tanh(alpha * x64) * weight + bias + 1),
    ]
    if float(alpha) != alpha_init:  # a constant alpha keeps its initial value whatever is loaded
        found.append((ALPHA_FIXED, torch.tanh(alpha_init * x64) * weight + bias))
    return found


def random_state(shape: tuple[int, ...], key: int, *, bias: bool = True) -> dict[str, torch.Tensor]:
    """alpha in [0.3, 1.3) (not 0.5: a constant alpha must show), weight around 1, bias around 0."""
    alpha = 0.3 + torch.rand((1,), generator=seeded(key))
    state = {"alpha": alpha, "weight": randn(shape, key + 1, scale=0.5, shift=1.0)}
    if bias:
        state["bias"] = randn(shape, key + 2, scale=0.5)
    return state


def check_forward(
    harness: Harness,
    x: Input,
    normalized_shape: int | tuple[int, ...],
    *,
    key: int,
    bias: bool = True,
    dtype: torch.dtype | None = None,
    tol: Tolerance | None = None,
) -> None:
    shape = _shape(normalized_shape)
    state = random_state(shape, key, bias=bias)
    arg = normalized_shape if isinstance(normalized_shape, int) else list(normalized_shape)
    kwargs: dict[str, Any] = {} if bias else {"bias": False}
    harness.forward_case(
        "DyT",
        [arg],
        kwargs,
        x,
        state=state,
        dtype=dtype,
        tol=tol,
        expected=lambda t, st: reference_output(t, st, shape),
        suspects=lambda t, st: suspects(t, st),
    )


def shape_text(shape: list[int]) -> str:
    """A shape as the learner writes it: (), (1,), (4, 5)."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def check_alpha_shape(harness: Harness, call: str, info: Inspection) -> None:
    """alpha, when a parameter, has shape (1,): a shape finding is stated as shapes, and named
    (one per channel, or 0-dim) only when the shape shows which mistake it is."""
    alpha = info.parameters.get("alpha")
    if alpha is None or alpha.shape == [1]:
        return
    message = say(
        "{call}.alpha has shape {shape}, expected (1,).",
        "{call}.alpha 的形状是 {shape}，应为 (1,)。",
        call=call,
        shape=shape_text(alpha.shape),
    )
    if alpha.shape == []:
        message += " " + harness.diagnose(ALPHA_ZERO_DIM)
    elif math.prod(alpha.shape) > 1:
        message += " " + harness.diagnose(ALPHA_PER_CHANNEL)
    fail(message)


def expect_dyt_parameters(
    harness: Harness, call: str, args: list[Any], kwargs: dict[str, Any], expected: dict[str, torch.Tensor]
) -> None:
    """Exactly these parameters, naming the known mistakes before the generic message."""
    info = harness.inspect("DyT", args, kwargs)
    alpha = info.parameters.get("alpha")
    others = [name for name in info.parameters if name not in ("weight", "bias")]
    if alpha is None and ("alpha" in info.buffers or not others):  # a buffer, or a plain float
        fail(
            say("{call}: `alpha` is not a parameter.", "{call}：`alpha` 不是参数。", call=call)
            + " "
            + harness.diagnose(ALPHA_FIXED),
            call=call,
        )
    check_alpha_shape(harness, call, info)
    if alpha is not None and "alpha" in expected and not torch.equal(alpha.value.double(), expected["alpha"].double()):
        if abs(float(alpha.value.double().flatten()[0]) - 0.5) < 1e-6:
            want = float(expected["alpha"][0])
            fail(
                say(
                    "{call}.alpha starts at 0.5, expected {want}.",
                    "{call}.alpha 从 0.5 开始，应为 {want}。",
                    call=call,
                    want=want,
                )
                + " "
                + harness.diagnose(ALPHA_INIT_IGNORED)
            )
    bias = info.parameters.get("bias")
    if bias is not None and "bias" in expected and bool((bias.value == 1).all()):
        fail(
            say("{call}.bias starts at ones, expected zeros.", "{call}.bias 从全 1 开始，应为全 0。", call=call)
            + " "
            + harness.diagnose(BIAS_AT_ONES)
        )
    expect_parameters(call, info, expected)
    expect_keys(call, "state_dict", info.state_dict, list(expected))


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_parameters_and_state_dict(harness: Harness) -> None:
    expected = {"alpha": torch.full((1,), 0.5), "weight": torch.ones(6), "bias": torch.zeros(6)}
    expect_dyt_parameters(harness, "DyT(6)", [6], {}, expected)


@pytest.mark.category(Category.STATE)
def test_alpha_init_argument(harness: Harness) -> None:
    expected = {"alpha": torch.full((1,), 0.8), "weight": torch.ones(5), "bias": torch.zeros(5)}
    expect_dyt_parameters(harness, "DyT(5, alpha_init=0.8)", [5], {"alpha_init": 0.8}, expected)


@pytest.mark.category(Category.STATE)
def test_tuple_normalized_shape(harness: Harness) -> None:
    expected = {"alpha": torch.full((1,), 0.5), "weight": torch.ones(4, 5), "bias": torch.zeros(4, 5)}
    expect_dyt_parameters(harness, "DyT((4, 5))", [(4, 5)], {}, expected)


@pytest.mark.category(Category.STATE)
def test_without_bias(harness: Harness) -> None:
    call = "DyT(6, bias=False)"
    info = harness.inspect("DyT", [6], {"bias": False})
    check_alpha_shape(harness, call, info)
    expect_parameters(call, info, {"alpha": torch.full((1,), 0.5), "weight": torch.ones(6)})
    expect_keys(call, "state_dict", info.state_dict, ["alpha", "weight"])


@pytest.mark.category(Category.STATE)
def test_loads_dynamic_tanh_state_dict(harness: Harness) -> None:
    # What the authors' DynamicTanh(8, channels_last=True) saves, with trained-looking values.
    state = random_state((8,), 5)
    x = randn((3, 8), 6, scale=2.0)
    reply = harness.run(harness.program("DyT", [8], state=state, steps=[Step([x])], inspect=True))
    if not reply.state_load.clean:
        message = say(
            "DyT(8).load_state_dict(DynamicTanh(8, True).state_dict()) would fail: missing {missing}, "
            "unexpected {unexpected}, wrong shape {mismatched}. Fix: parameters `alpha` (1,), `weight` and "
            "`bias` (normalized_shape).",
            "DyT(8).load_state_dict(DynamicTanh(8, True).state_dict()) 会失败：缺少 {missing}，多出 "
            "{unexpected}，形状不对 {mismatched}。修改：参数为 `alpha` (1,)、`weight` 和 `bias`"
            "（normalized_shape）。",
            missing=reply.state_load.missing or "-",
            unexpected=reply.state_load.unexpected or "-",
            mismatched=reply.state_load.mismatched or "-",
        )
        if "alpha" in reply.state_load.mismatched:
            message += " " + harness.diagnose(ALPHA_PER_CHANNEL)
        elif "alpha" in reply.state_load.unexpected:
            message += " " + harness.diagnose(ALPHA_FIXED)
        fail(message, call="DyT(8).load_state_dict(DynamicTanh(8, True).state_dict())")
    harness.assert_close(
        reply.steps[0].output,
        reference_output(x, state, (8,)),
        tol=TOLERANCES["float32"],
        call=say(
            "load_state_dict(DynamicTanh(8, True).state_dict()) then forward",
            "load_state_dict(DynamicTanh(8, True).state_dict()) 后 forward",
        ),
        on=Input(x, "2·N(0,1)").describe(),
        suspects=suspects(x, state),
    )


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, dtype: str) -> None:
    torch_dtype = getattr(torch, dtype)
    expected = {
        "alpha": torch.full((1,), 0.5, dtype=torch_dtype),
        "weight": torch.ones(4, dtype=torch_dtype),
        "bias": torch.zeros(4, dtype=torch_dtype),
    }
    for call, info in (
        (f"DyT(4, dtype={dtype})", harness.inspect("DyT", [4], {"dtype": dtype})),
        (f"DyT(4).to({dtype})", harness.inspect("DyT", [4], dtype=torch_dtype)),
    ):
        check_alpha_shape(harness, call, info)
        expect_parameters(call, info, expected)


# -- forward in fp32 ---------------------------------------------------------------------------


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("alpha_init", [0.5, 0.8])
def test_fresh_module_output(harness: Harness, alpha_init: float) -> None:
    """No state loaded: the module's own initialization is what the output shows."""
    d = 12
    x = Input(randn((4, d), 80, scale=2.0), "2·N(0,1)")
    initial = {"alpha": torch.full((1,), alpha_init), "weight": torch.ones(d), "bias": torch.zeros(d)}
    kwargs = {"alpha_init": alpha_init}
    reply = harness.run(harness.program("DyT", [d], kwargs, steps=[Step([x.tensor])]))
    found = suspects(x.tensor, initial, alpha_init)
    if alpha_init != 0.5:
        found.append((ALPHA_INIT_IGNORED, torch.tanh(0.5 * x.tensor.double())))
    harness.assert_close(
        reply.steps[0].output,
        reference_output(x.tensor, initial, (d,)),
        tol=TOLERANCES["float32"],
        call=call_text("DyT", [d], kwargs) + say(" (freshly built)", "（新建）"),
        on=x.describe(harness.device),
        suspects=found,
    )


SHAPES = [(2, 5, 8), (3, 16), (4, 1, 7), (8,), (5, 33), (2, 3, 1)]

globals().update(forward_cases(check_forward, SHAPES))


globals().update(drawn_forward_cases(check_forward, min_d=1))


@pytest.mark.category(Category.FORWARD)
def test_forward_without_bias(harness: Harness) -> None:
    check_forward(harness, Input(randn((4, 10), 3, scale=3.0, shift=-1.0), "3·N(0,1)-1"), 10, key=4, bias=False)


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    d = draw(60, 3, 33)
    state = random_state((d,), 61)
    inputs = [
        Input(randn((4, d), 62, scale=2.0, shift=1.0), "2·N(0,1)+1"),
        Input(randn((4, d), 64, scale=3.0), "3·N(0,1)"),
        Input(randn((2, 3, d), 63, scale=0.1), "0.1·N(0,1)"),
    ]
    inputs.append(inputs[0])
    harness.repeated_calls_case(
        "DyT", [d], {}, inputs, state=state, expected=lambda x: reference_output(x, state, (d,))
    )


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize(
    ("shape", "normalized"),
    [((2, 3, 4, 5), (4, 5)), ((3, 2, 6), (2, 6)), ((4, 6), (6,))],
    ids=["2x3x4x5-over-4x5", "3x2x6-over-2x6", "4x6-over-(6,)"],
)
def test_tuple_shapes(harness: Harness, shape: tuple[int, ...], normalized: tuple[int, ...]) -> None:
    check_forward(harness, Input(randn(shape, 9, scale=2.0, shift=1.0), "2·N(0,1)+1"), normalized, key=90)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_large_activations(harness: Harness, device: str) -> None:
    """tanh written by hand as (e^2z - 1) / (e^2z + 1) overflows to inf / inf = NaN here."""
    x = Input(
        randn((4, 64), 11, scale=100.0),
        say("large (100·N(0,1)), where tanh saturates", "大数值（100·N(0,1)，tanh 饱和）"),
    )
    check_forward(harness, x, 64, key=12)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("k", [0, 1])
def test_half_precision(harness: Harness, dtype: torch.dtype, k: int, device: str) -> None:
    shape = (4, 6, 64)
    x = randn(shape, 20 + k, scale=2.0, shift=0.5).to(dtype)
    state = random_state((64,), 30 + k)
    # Never hold the learner to more than the reference achieves in that dtype (twice its error).
    from normkata_reference_dyt import DyT  # type: ignore[import-not-found]

    low = DyT(64, dtype=dtype)
    low.load_state_dict({k_: v.to(dtype) for k_, v in state.items()})
    quantised = {k_: v.to(dtype) for k_, v in state.items()}
    with torch.no_grad():
        own_error = (low(x).double() - reference_output(x, quantised, (64,))).abs().max().item()
    tol = tolerance_for(dtype).at_least(Tolerance(tolerance_for(dtype).rtol, 2 * own_error))
    harness.forward_case(
        "DyT",
        [64],
        {},
        Input(x, "2·N(0,1)+0.5"),
        state=state,
        dtype=dtype,
        tol=tol,
        expected=lambda t, st: reference_output(t, st, (64,)),
        suspects=lambda t, st: suspects(t, st),
    )


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("shape", "normalized"), [((2, 5, 8), (8,)), ((3, 4, 6), (4, 6))], ids=["2x5x8-over-8", "3x4x6-over-4x6"]
)
def test_gradients(harness: Harness, shape: tuple[int, ...], normalized: tuple[int, ...], device: str) -> None:
    from normkata_reference_dyt import DyT  # type: ignore[import-not-found]

    harness.gradient_case(
        "DyT",
        [list(normalized) if len(normalized) > 1 else normalized[0]],
        {},
        Input(randn(shape, 40, scale=1.5), "1.5·N(0,1)"),
        reference=DyT(normalized),
        state=random_state(normalized, 41),
    )
