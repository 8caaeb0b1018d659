"""Hidden suite for the fused add + RMSNorm kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
are drawn from the run's seed; the integer passed to `randn` / `draw` only tells inputs apart.
forward returns two tensors (StepReply.outputs): both are compared, the normalized sum and the
new residual, each with the misconceptions that explain it.

x and residual share a dtype, as in the engines (vLLM's and SGLang's PyTorch paths, FlashInfer's
test reference): the new residual comes back in that dtype. Normalizing the half-precision sum
instead of the float32 one (as vLLM's CUDA kernel does) changes 20-25% of bf16 outputs by one
bf16 step (docs/sources.md): an error of bf16's own rounding size, well inside the bf16
tolerance, so no tolerance can tell them apart there: that rule is graded where it changes
results, with fp16 sums beyond 65504.
"""

from __future__ import annotations

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    STATEFUL,
    Harness,
    Input,
    Misconception,
    call_on,
    call_text,
    draw,
    expect_keys,
    expect_parameters,
    fail,
    load_fix,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance, dtype_name, tolerance_for
from normkata.grading.messages import Step, StepReply

MISTAKES = misconceptions("fused_add_rmsnorm")  # titles and hints: kata.yaml
OLD_RESIDUAL = MISTAKES["far-returns-old-residual"]
NORMALIZES_X = MISTAKES["far-normalizes-x"]
SWAPPED = MISTAKES["far-swapped-outputs"]
ROUNDED_SUM = MISTAKES["far-rounded-sum"]
NO_UPCAST = MISTAKES["far-no-fp32-upcast"]
EPS_OUTSIDE = MISTAKES["far-eps-outside-sqrt"]


def _rms(s: torch.Tensor, eps: float, *, outside: bool = False) -> torch.Tensor:
    ms = s.pow(2).mean(-1, keepdim=True)
    return s / (ms.sqrt() + eps) if outside else s * torch.rsqrt(ms + eps)


def reference(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """The reference module in float64 on the (already quantised) inputs: (normed, sum in the residual's dtype).

    The sum is exact in float64; returning it in the residual's dtype rounds it once, as the contract says.
    """
    from normkata_reference_fused_add_rmsnorm import AddRMSNorm  # type: ignore[import-not-found]

    module = AddRMSNorm(x.shape[-1], eps=eps, dtype=torch.float64)
    module.weight.data.copy_(weight.double())
    with torch.no_grad():
        normed, total = module(x.double().cpu(), residual.double().cpu())
    return normed, total.to(residual.dtype)


def variants(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> dict[Misconception, tuple[torch.Tensor, torch.Tensor]]:
    """(normed, new residual) as each mistake computes them."""
    x64, r64, w = x.double().cpu(), residual.double().cpu(), weight.double().cpu()
    s = x64 + r64
    right = _rms(s, eps) * w
    found = {
        OLD_RESIDUAL: (right, r64),
        NORMALIZES_X: (_rms(x64, eps) * w, s),
        SWAPPED: (s, right),
        EPS_OUTSIDE: (_rms(s, eps, outside=True) * w, s),
    }
    if x.dtype in (torch.float16, torch.bfloat16):
        rounded = (x.cpu() + residual.cpu().to(x.dtype)).double()  # the sum as the input's dtype holds it
        found[ROUNDED_SUM] = (_rms(rounded, eps) * w, rounded)
        half = x.cpu() + residual.cpu().to(x.dtype)
        naive = half * torch.rsqrt(half.pow(2).mean(-1, keepdim=True) + eps) * weight.to(x.dtype)
        found[NO_UPCAST] = (naive.double(), half.double())
    return found


def _same(got: torch.Tensor, variant: torch.Tensor, tol: Tolerance) -> bool:
    """got matches a mistaken variant, inf and NaN where the variant has them too."""
    near = tol.at_least(TOLERANCES["misconception"])
    return tuple(got.shape) == tuple(variant.shape) and bool(
        torch.isclose(got.double(), variant.double(), rtol=near.rtol, atol=near.atol, equal_nan=True).all()
    )


def random_weight(d: int, key: int) -> torch.Tensor:
    return randn([d], key, scale=0.5, shift=1.0)


def describe_pair(harness: Harness, x: Input, residual: Input) -> str:
    return say(
        "x: {x}; residual: {r}",
        "x：{x}；residual：{r}",
        x=x.describe(harness.device),
        r=residual.describe(harness.device),
    )


def check_outputs(
    harness: Harness,
    reply: StepReply,
    x: Input,
    residual: Input,
    weight: torch.Tensor,
    *,
    eps: float,
    call: str,
    tol: Tolerance | None = None,
    cause: Misconception | None = None,
) -> None:
    """Both outputs of one forward against the reference, each mistake named by the output it explains."""
    on = describe_pair(harness, x, residual)
    if len(reply.outputs) != 2:
        fail(
            say(
                "{call} on {on}: returned {n} tensor(s), expected a tuple (normed, new_residual)",
                "{call}，{on}：返回了 {n} 个张量，应返回元组 (normed, new_residual)",
                call=call,
                on=on,
                n=len(reply.outputs),
            ),
            call=call_on(call, on),
        )
    normed, total = reply.outputs
    xt, rt = x.tensor, residual.tensor
    quantised = weight.to(xt.dtype) if xt.dtype in (torch.float16, torch.bfloat16) else weight
    want_normed, want_total = reference(xt, rt, quantised, eps)
    found = variants(xt, rt, quantised, eps)
    normed_tol = tol or tolerance_for(xt.dtype)
    total_tol = tol or tolerance_for(rt.dtype)
    matching = [m for m, (n, t) in found.items() if _same(normed, n, normed_tol) and _same(total, t, total_tol)]
    named = cause or (matching[0] if matching else None)
    if xt.dtype in (torch.float16, torch.bfloat16) and normed.dtype != xt.dtype:
        fail(
            say(
                "{call} on {on}: normed is {got}, expected {want} (the input's dtype, which the weight shares)",
                "{call}，{on}：normed 的数据类型是 {got}，应为 {want}（输入的数据类型，weight 也是该类型）",
                call=call,
                on=on,
                got=dtype_name(normed.dtype),
                want=dtype_name(xt.dtype),
            ),
            call=call_on(call, on),
        )
    if total.dtype != rt.dtype:
        fail(
            say(
                "{call} on {on}: the new residual is {got}, expected {want} (the input's dtype, which x and the "
                "residual share)",
                "{call}，{on}：新的残差是 {got}，应为 {want}（输入的数据类型，x 与 residual 相同）",
                call=call,
                on=on,
                got=dtype_name(total.dtype),
                want=dtype_name(rt.dtype),
            ),
            call=call_on(call, on),
        )
    harness.assert_close(
        normed, want_normed, tol=normed_tol, call=call, on=on, what=say("normed", "normed"), cause=named
    )
    harness.assert_close(
        total, want_total, tol=total_tol, call=call, on=on, what=say("the new residual", "新的残差"), cause=named
    )


def check(
    harness: Harness,
    x: Input,
    residual: Input,
    *,
    eps: float = 1e-5,
    key: int = 100,
    dtype: torch.dtype | None = None,
    tol: Tolerance | None = None,
) -> None:
    d = x.tensor.shape[-1]
    weight = random_weight(d, key)
    program = harness.program(
        "AddRMSNorm",
        [d],
        {"eps": eps},
        state={"weight": weight},
        dtype=dtype,
        steps=[Step([x.tensor, residual.tensor])],
    )
    reply = harness.run(program).steps[0]
    check_outputs(
        harness, reply, x, residual, weight, eps=eps, tol=tol, call=call_text("AddRMSNorm", [d], {"eps": eps})
    )


def pair(
    shape: tuple[int, ...],
    key: int,
    *,
    scale: float = 1.0,
    residual_scale: float = 3.0,
    dtype: torch.dtype | None = None,
) -> tuple[Input, Input]:
    """x as a sublayer's output and a larger residual stream, as between two blocks."""
    x, r = randn(shape, key, scale=scale), randn(shape, key + 1, scale=residual_scale, shift=0.5)
    if dtype is not None:
        x, r = x.to(dtype), r.to(dtype)
    return Input(x, f"{scale:g}·N(0,1)"), Input(r, f"{residual_scale:g}·N(0,1)+0.5")


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_weight_parameter_and_state_dict(harness: Harness) -> None:
    info = harness.inspect("AddRMSNorm", [6])
    expect_parameters("AddRMSNorm(6)", info, {"weight": torch.ones(6)})
    expect_keys("AddRMSNorm(6)", "state_dict", info.state_dict, ["weight"])


@pytest.mark.category(Category.STATE)
def test_loads_torch_rmsnorm_state_dict(harness: Harness) -> None:
    torch_module = torch.nn.RMSNorm(8, eps=1e-5)
    torch_module.weight.data = randn([8], 5)
    x, r = pair((3, 8), 6)
    steps = [Step([x.tensor, r.tensor])]
    reply = harness.run(
        harness.program("AddRMSNorm", [8], state=dict(torch_module.state_dict()), steps=steps, inspect=True)
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
                "AddRMSNorm(8).load_state_dict(nn.RMSNorm(8).state_dict()) would fail: missing {missing}, unexpected "
                "{unexpected}. {fix}",
                "AddRMSNorm(8).load_state_dict(nn.RMSNorm(8).state_dict()) 会失败：缺少 {missing}，"
                "多出 {unexpected}。{fix}",
                missing=reply.state_load.missing or "-",
                unexpected=reply.state_load.unexpected or "-",
                fix=fix,
            ),
            call="AddRMSNorm(8).load_state_dict(nn.RMSNorm(8).state_dict())",
        )
    call = say(
        "load_state_dict(nn.RMSNorm(8).state_dict()) then forward",
        "load_state_dict(nn.RMSNorm(8).state_dict()) 后 forward",
    )
    check_outputs(harness, reply.steps[0], x, r, torch_module.weight.detach(), eps=1e-5, call=call)


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dtype_argument_and_to(harness: Harness, dtype: str) -> None:
    expected = {"weight": torch.ones(4, dtype=getattr(torch, dtype))}
    expect_parameters(f"AddRMSNorm(4, dtype={dtype})", harness.inspect("AddRMSNorm", [4], {"dtype": dtype}), expected)
    moved = harness.inspect("AddRMSNorm", [4], dtype=getattr(torch, dtype))
    expect_parameters(f"AddRMSNorm(4).to({dtype})", moved, expected)


# -- forward in fp32 ---------------------------------------------------------------------------

SHAPES = [(2, 5, 8), (3, 16), (4, 1, 7), (8,)]


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_forward(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    key = 1000 + sum(shape) * 7 + len(shape)
    check(harness, *pair(shape, key), key=key + 2)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(2))
def test_forward_drawn_shapes(harness: Harness, k: int) -> None:
    shape = (draw(10 + k, 1, 4), draw(20 + k, 1, 6), draw(30 + k, 2, 97))
    check(harness, *pair(shape, 40 + 3 * k, scale=1.5), key=50 + k)


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    d = draw(60, 3, 33)
    weight = random_weight(d, 61)
    pairs = [pair((4, d), 62), pair((4, d), 64, scale=2.0), pair((2, 3, d), 66, scale=0.1, residual_scale=0.2)]
    pairs.append(pairs[0])  # same shape, other values, other shape, the first again
    args, kwargs = [d], {"eps": 1e-5}
    for x, r in pairs[:3]:  # each right on a fresh module first: a wrong computation is not called stateful
        reply = harness.run(
            harness.program("AddRMSNorm", args, kwargs, state={"weight": weight}, steps=[Step([x.tensor, r.tensor])])
        ).steps[0]
        check_outputs(harness, reply, x, r, weight, eps=1e-5, call=call_text("AddRMSNorm", args, kwargs))
    steps = [Step([x.tensor, r.tensor]) for x, r in pairs]
    replies = harness.run(harness.program("AddRMSNorm", args, kwargs, state={"weight": weight}, steps=steps)).steps
    for number, ((x, r), reply) in enumerate(zip(pairs, replies, strict=True), start=1):
        call = say(
            "{call} (call {n} of {total} on the same module)",
            "{call}（同一模块的第 {n}/{total} 次调用）",
            call=call_text("AddRMSNorm", args, kwargs),
            n=number,
            total=len(pairs),
        )
        check_outputs(harness, reply, x, r, weight, eps=1e-5, call=call, cause=STATEFUL if number > 1 else None)


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("shape", [(5, 3), (4, 4)], ids=lambda s: "x".join(map(str, s)))
def test_normalizes_the_last_dimension(harness: Harness, shape: tuple[int, ...]) -> None:
    check(harness, *pair(shape, 70 + shape[0]), key=75)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
def test_sum_cancels_out(harness: Harness) -> None:
    r = randn((4, 16), 80, scale=3.0)
    x = -r.clone()
    x[0] += randn((16,), 81, scale=1e-3)  # rows 1 and 3 add up to exactly zero
    x[2] += 0.5
    label = say(
        "x = -residual (+1e-3·N(0,1) in row 0, +0.5 in row 2)", "x = -residual（第 0 行加 1e-3·N(0,1)，第 2 行加 0.5）"
    )
    check(harness, Input(x, label), Input(r, "3·N(0,1)"))


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_small_variance(harness: Harness, device: str) -> None:
    small = say("small-variance ({s}·N(0,1))", "小方差（{s}·N(0,1)）", s="1e-3")
    x, r = randn((4, 32), 82, scale=1e-3), randn((4, 32), 83, scale=1e-3)
    check(harness, Input(x, small), Input(r, small))


@pytest.mark.category(Category.STABILITY)
def test_large_residual_stream(harness: Harness) -> None:
    x, r = randn((3, 24), 84), randn((3, 24), 85, scale=1e3, shift=1e3)
    check(harness, Input(x, "N(0,1)"), Input(r, say("large (1e3·N(0,1)+1e3)", "大数值（1e3·N(0,1)+1e3）")))


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("eps", [1e-2, 1e-6])
def test_custom_eps(harness: Harness, eps: float) -> None:
    check(harness, *pair((4, 12), 86, scale=0.05, residual_scale=0.05), eps=eps)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("k", [0, 1])
def test_half_precision(harness: Harness, dtype: torch.dtype, k: int, device: str) -> None:
    check(harness, *pair((4, 6, 64), 100 + 2 * k, dtype=dtype), key=110 + k, dtype=dtype)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_sum_near_300(harness: Harness, device: str) -> None:
    x = randn((3, 64), 120, scale=30.0).to(torch.float16)
    r = (300 * (1 + 0.1 * randn((3, 64), 121))).to(torch.float16)
    label = say("near-300 (300² overflows fp16)", "接近 300（300² 在 fp16 中溢出）")
    check(harness, Input(x, "30·N(0,1)"), Input(r, label), dtype=torch.float16)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
def test_fp16_sum_beyond_65504(harness: Harness, device: str) -> None:
    x = randn((4, 32), 122, scale=2.0)
    r = randn((4, 32), 123, scale=2.0)
    x[0] += 40000.0  # rows 0 and 1: sums near 70000, beyond fp16's largest value 65504
    r[0] += 30000.0
    x[1, ::2] += 36000.0
    r[1, ::2] += 34000.0
    x[2] += 500.0  # row 2: a sum near 1000 that fp16 holds, but not its square
    r[2] += 500.0
    x, r = x.to(torch.float16), r.to(torch.float16)
    label = say("rows-0-and-1-summing-past-65504 (row 2 near 1000)", "第 0、1 行之和超过 65504（第 2 行接近 1000）的")
    check(harness, Input(x, label), Input(r, label), dtype=torch.float16)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5, 8), (7, 3)], ids=lambda s: "x".join(map(str, s)))
def test_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    from normkata_reference_fused_add_rmsnorm import AddRMSNorm  # type: ignore[import-not-found]

    d = shape[-1]
    x, r = pair(shape, 130 + d)
    weight, grad_output = random_weight(d, 132 + d), randn(shape, 134 + d)
    step = Step([x.tensor, r.tensor], input_grad=True, grad_output=grad_output)
    got = harness.run(harness.program("AddRMSNorm", [d], state={"weight": weight}, steps=[step])).steps[0]
    module = AddRMSNorm(d, dtype=torch.float64)
    module.weight.data.copy_(weight.double())
    x64, r64 = x.tensor.double().requires_grad_(True), r.tensor.double().requires_grad_(True)
    module(x64, r64)[0].backward(grad_output.double())
    call = say(
        "{call} (gradients of normed)",
        "{call}（normed 的梯度）",
        call=call_text("AddRMSNorm", [d], {}, method="backward"),
    )
    on = describe_pair(harness, x, r)
    tol = TOLERANCES["gradient"]
    expected = {say("gradient of x", "x 的梯度"): x64.grad, say("gradient of residual", "residual 的梯度"): r64.grad}
    grads = [*got.input_grads, None, None]  # None: the learner's forward left that input out of the graph
    for index, (what, want) in enumerate(expected.items()):
        grad = grads[index]
        if grad is None:
            fail(
                say(
                    "{call} on {on}: no {what} (is the graph cut by .detach(), .data or no_grad?)",
                    "{call}，{on}：没有得到{what}（计算图是否被 .detach()、.data 或 no_grad 切断了？）",
                    call=call,
                    on=on,
                    what=what,
                ),
                call=call_on(call, on),
            )
        assert want is not None
        harness.assert_close(grad, want, tol=tol, call=call, on=on, what=what)
    weight_grad = got.param_grads.get("weight")
    if weight_grad is None:
        fail(
            say("{call} on {on}: `weight` got no gradient", "{call}，{on}：`weight` 没有得到梯度", call=call, on=on),
            call=call_on(call, on),
        )
    assert module.weight.grad is not None
    harness.assert_close(
        weight_grad, module.weight.grad, tol=tol, call=call, on=on, what=say("gradient of weight", "weight 的梯度")
    )
