"""Hidden suite for the LayerNorm kata (run by `normkata grade`, never copied to the workspace)."""

from __future__ import annotations

import pytest
import torch

from normkata.grading.checks import (
    Harness,
    Input,
    Misconception,
    expect_attr,
    expect_keys,
    expect_parameters,
    randn,
)

DEVICES = ["cpu", "cuda"]

UNBIASED = Misconception(
    "ln-unbiased-variance",
    "unbiased variance (divide by n - 1)",
    "用了无偏方差（除以 n - 1）",
    "LayerNorm divides by n: use x.var(dims, unbiased=False) or ((x - mean) ** 2).mean(dims).",
    "LayerNorm 除以 n：用 x.var(dims, unbiased=False) 或 ((x - mean) ** 2).mean(dims)。",
)
EPS_OUTSIDE = Misconception(
    "ln-eps-outside-sqrt",
    "eps added outside the square root",
    "eps 加在了平方根外面",
    "Divide by sqrt(var + eps), not sqrt(var) + eps.",
    "应除以 sqrt(var + eps)，而不是 sqrt(var) + eps。",
)
LAST_DIM_ONLY = Misconception(
    "ln-last-dim-only",
    "only the last dimension is normalized for a tuple normalized_shape",
    "元组形式的 normalized_shape 只归一化了最后一维",
    "Reduce over all len(normalized_shape) trailing dims, e.g. dims = tuple(range(-len(shape), 0)).",
    "要在末尾 len(normalized_shape) 个维度上归约，例如 dims = tuple(range(-len(shape), 0))。",
)
ONE_PASS = Misconception(
    "ln-one-pass-variance",
    "one-pass variance E[x²] - E[x]², which cancels out when the mean is large",
    "单遍方差 E[x²] - E[x]²，均值很大时发生相消",
    "Subtract the mean first, then average the squares: ((x - mean) ** 2).mean(dims).",
    "先减去均值，再对平方求均值：((x - mean) ** 2).mean(dims)。",
)
NO_AFFINE = Misconception(
    "ln-ignores-affine",
    "weight and bias are not applied",
    "没有应用 weight 和 bias",
    "Finish with y * weight + bias (when they are not None).",
    "最后计算 y * weight + bias（它们不为 None 时）。",
)
BATCH_AXIS = Misconception(
    "ln-batch-axis",
    "statistics over the batch dimension (that is BatchNorm)",
    "在 batch 维度上求统计量（那是 BatchNorm）",
    "Each sample is normalized over its own features: reduce over the trailing dims, not dim 0.",
    "每个样本在自身特征上归一化：在末尾维度上归约，而不是 dim 0。",
)


def _dims(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(range(-len(shape), 0))


def reference_output(
    x: torch.Tensor, state: dict[str, torch.Tensor], shape: tuple[int, ...], eps: float
) -> torch.Tensor:
    from normkata_reference_layernorm import LayerNorm  # type: ignore[import-not-found]

    module = LayerNorm(shape, eps=eps, bias="bias" in state, elementwise_affine=bool(state), dtype=torch.float64)
    if state:
        module.load_state_dict({k: v.double() for k, v in state.items()})
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
    return found


def random_affine(shape: tuple[int, ...], seed: int, *, bias: bool = True) -> dict[str, torch.Tensor]:
    state = {"weight": randn(shape, seed, scale=0.5, shift=1.0)}
    if bias:
        state["bias"] = randn(shape, seed + 1, scale=0.5)
    return state


def check_forward(
    harness: Harness,
    x: Input,
    shape: tuple[int, ...] | int,
    *,
    eps: float = 1e-5,
    dtype: torch.dtype | None = None,
    seed: int = 100,
    kwargs: dict | None = None,
    atol: float | None = None,
) -> None:
    tuple_shape = (shape,) if isinstance(shape, int) else tuple(shape)
    kwargs = {"eps": eps, **(kwargs or {})}
    affine = kwargs.get("elementwise_affine", True)
    state = random_affine(tuple_shape, seed, bias=kwargs.get("bias", True)) if affine else None
    arg = shape if isinstance(shape, int) else list(shape)
    harness.forward_case(
        "LayerNorm",
        [arg],
        kwargs,
        x,
        state=state,
        dtype=dtype,
        atol=atol,
        expected=lambda x, st: reference_output(x, st, tuple_shape, eps),
        suspects=lambda x, st: suspects(x, st, tuple_shape, eps),
    )


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category("module state")
def test_parameters_and_attributes(harness: Harness) -> None:
    info = harness.inspect("LayerNorm", [6], attrs=["normalized_shape", "eps", "elementwise_affine"])
    call = "LayerNorm(6)"
    expect_parameters(call, info, {"weight": torch.ones(6), "bias": torch.zeros(6)})
    expect_keys(call, "state_dict keys", info["state_dict"], ["weight", "bias"])
    expect_attr(call, info, "normalized_shape", (6,))
    expect_attr(call, info, "eps", 1e-5)
    expect_attr(call, info, "elementwise_affine", True)


@pytest.mark.category("module state")
def test_tuple_normalized_shape(harness: Harness) -> None:
    info = harness.inspect("LayerNorm", [[4, 5]], attrs=["normalized_shape"])
    expect_parameters("LayerNorm((4, 5))", info, {"weight": torch.ones(4, 5), "bias": torch.zeros(4, 5)})
    expect_attr("LayerNorm((4, 5))", info, "normalized_shape", (4, 5))


@pytest.mark.category("module state")
def test_without_affine(harness: Harness) -> None:
    call = "LayerNorm(6, elementwise_affine=False)"
    info = harness.inspect("LayerNorm", [6], {"elementwise_affine": False}, attrs=["weight", "bias"])
    expect_parameters(call, info, {})
    expect_keys(call, "state_dict keys", info["state_dict"], [])
    expect_attr(call, info, "weight", None)
    expect_attr(call, info, "bias", None)


@pytest.mark.category("module state")
def test_without_bias(harness: Harness) -> None:
    call = "LayerNorm(6, bias=False)"
    info = harness.inspect("LayerNorm", [6], {"bias": False}, attrs=["bias"])
    expect_parameters(call, info, {"weight": torch.ones(6)})
    expect_keys(call, "state_dict keys", info["state_dict"], ["weight"])
    expect_attr(call, info, "bias", None)


@pytest.mark.category("module state")
def test_loads_torch_layernorm_state_dict(harness: Harness) -> None:
    torch_module = torch.nn.LayerNorm(8)
    torch_module.load_state_dict(random_affine((8,), 5))
    x = randn((3, 8), 6, scale=2.0)
    got = harness.run(
        harness.program("LayerNorm", [8], state=dict(torch_module.state_dict()), steps=[{"inputs": [x]}])
    )["steps"][0]["output"]
    expected = torch.nn.functional.layer_norm(
        x.double(), (8,), torch_module.weight.double(), torch_module.bias.double(), 1e-5
    )
    harness.assert_close(
        got,
        expected,
        tol=1e-5,
        call="load_state_dict(nn.LayerNorm(8).state_dict()) then forward",
        on=Input(x, "2·N(0,1)").describe(),
    )


@pytest.mark.category("module state")
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, dtype: str) -> None:
    expected = {
        "weight": torch.ones(4, dtype=getattr(torch, dtype)),
        "bias": torch.zeros(4, dtype=getattr(torch, dtype)),
    }
    expect_parameters(f"LayerNorm(4, dtype={dtype})", harness.inspect("LayerNorm", [4], {"dtype": dtype}), expected)
    moved = harness.run(harness.program("LayerNorm", [4], dtype=getattr(torch, dtype), inspect=True))["inspect"]
    expect_parameters(f"LayerNorm(4).to({dtype})", moved, expected)


# -- forward in fp32 ---------------------------------------------------------------------------

SHAPES = [(2, 5, 8), (3, 16), (4, 1, 7), (6, 5), (2, 2, 3, 9), (8,), (3, 2), (5, 33)]


@pytest.mark.category("forward fp32")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("seed", [0, 1])
def test_forward(harness: Harness, shape: tuple[int, ...], seed: int, device: str) -> None:
    x = Input(randn(shape, seed, scale=2.0, shift=0.5), "2·N(0,1)+0.5")
    check_forward(harness, x, shape[-1], seed=seed + 50)


@pytest.mark.category("forward fp32")
@pytest.mark.parametrize("kwargs", [{"bias": False}, {"elementwise_affine": False}], ids=["no-bias", "no-affine"])
def test_forward_flags(harness: Harness, kwargs: dict) -> None:
    check_forward(harness, Input(randn((4, 10), 3, scale=3.0, shift=-1.0), "3·N(0,1)-1"), 10, kwargs=kwargs)


@pytest.mark.category("shapes")
@pytest.mark.parametrize(
    ("shape", "normalized"),
    [((2, 3, 4, 5), (4, 5)), ((3, 2, 6), (2, 6)), ((2, 3, 4), (2, 3, 4)), ((4, 6), (6,))],
    ids=["2x3x4x5-over-4x5", "3x2x6-over-2x6", "2x3x4-over-all", "4x6-over-(6,)"],
)
def test_tuple_shapes(harness: Harness, shape: tuple[int, ...], normalized: tuple[int, ...]) -> None:
    check_forward(harness, Input(randn(shape, 9, scale=2.0, shift=1.0), "2·N(0,1)+1"), normalized)


@pytest.mark.category("shapes")
@pytest.mark.parametrize("d", range(1, 9))
def test_small_feature_sizes(harness: Harness, d: int) -> None:
    check_forward(harness, Input(randn((3, d), d), "N(0,1)"), d)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category("numerical stability")
@pytest.mark.parametrize("device", DEVICES)
def test_large_offset(harness: Harness, device: str) -> None:
    x = Input(randn((4, 64), 11, shift=1e3), "mean 1000, std 1 (N(0,1)+1e3)")
    check_forward(harness, x, 64, atol=1e-3)


@pytest.mark.category("numerical stability")
def test_constant_rows(harness: Harness) -> None:
    x = randn((3, 12), 12)
    x[0] = 7.0
    x[2] = -0.5
    check_forward(harness, Input(x, "rows 0 and 2 constant"), 12)


@pytest.mark.category("numerical stability")
def test_small_variance(harness: Harness) -> None:
    check_forward(harness, Input(randn((4, 32), 13, scale=1e-3), "small-variance (1e-3·N(0,1))"), 32)


@pytest.mark.category("numerical stability")
@pytest.mark.parametrize("eps", [1e-2, 1e-7])
def test_custom_eps(harness: Harness, eps: float) -> None:
    check_forward(harness, Input(randn((4, 12), 14, scale=0.05), "0.05·N(0,1)"), 12, eps=eps)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category("low precision")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("seed", [0, 1])
def test_half_precision(harness: Harness, dtype: torch.dtype, seed: int, device: str) -> None:
    x = randn((4, 6, 64), 20 + seed, scale=2.0, shift=1.0).to(dtype)
    check_forward(harness, Input(x, "2·N(0,1)+1"), 64, dtype=dtype, seed=30 + seed)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category("gradients")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("shape", "normalized"), [((2, 5, 8), (8,)), ((3, 4, 6), (4, 6))], ids=["2x5x8-over-8", "3x4x6-over-4x6"]
)
def test_gradients(harness: Harness, shape: tuple[int, ...], normalized: tuple[int, ...], device: str) -> None:
    from normkata_reference_layernorm import LayerNorm  # type: ignore[import-not-found]

    harness.gradient_case(
        "LayerNorm",
        [list(normalized)],
        {},
        Input(randn(shape, 40, scale=1.5), "1.5·N(0,1)"),
        reference=LayerNorm(normalized),
        state=random_affine(normalized, 41),
    )


@pytest.mark.category("gradients")
def test_gradients_through_a_constant_row(harness: Harness) -> None:
    from normkata_reference_layernorm import LayerNorm  # type: ignore[import-not-found]

    x = randn((3, 8), 43)
    x[1] = 2.0
    harness.gradient_case(
        "LayerNorm", [8], {}, Input(x, "row 1 constant"), reference=LayerNorm(8), state=random_affine((8,), 44)
    )
