"""Hidden suite for the QK-norm attention kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
and weights are drawn from the run's seed; the integer passed to `randn` / `seeded` only tells
them apart. The norms' gains are random too: with gains at one, a k normalized with q_norm's
weight would pass.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch
from torch import nn

from normkata.grading.checks import (
    DEVICES,
    STATEFUL,
    Harness,
    Input,
    Misconception,
    call_text,
    draw,
    expect_contains,
    expect_keys,
    fail,
    misconceptions,
    randn,
    say,
    seeded,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance
from normkata.grading.messages import Step

D_MODEL, N_HEADS = 16, 4
TOLERANCE_NAMES = {torch.float32: "block float32", torch.bfloat16: "block bfloat16", torch.float16: "block float16"}
CHILDREN = ["q_proj", "k_proj", "v_proj", "o_proj", "q_norm", "k_norm"]


MISTAKES = misconceptions("qknorm_attention")  # titles and hints: kata.yaml
OVER_D_MODEL = MISTAKES["qk-norm-over-d-model"]
NORM_ON_V = MISTAKES["qk-norm-on-v"]
NO_CAUSAL_MASK = MISTAKES["qk-no-causal-mask"]
SCALE_D_MODEL = MISTAKES["qk-scale-d-model"]
SCALE_BEFORE_NORM = MISTAKES["qk-scale-before-norm"]
SHARED_NORM = MISTAKES["qk-shared-norm"]


def _reference() -> Any:
    import normkata_reference_qknorm_attention as reference  # type: ignore[import-not-found]

    return reference


def reference_module(d_model: int, n_heads: int, eps: float = 1e-5) -> nn.Module:
    module: nn.Module = _reference().QKNormAttention(d_model, n_heads, eps)
    return module


def random_state(d_model: int, n_heads: int, key: int) -> dict[str, torch.Tensor]:
    """Random weights everywhere, the norms' gains included, drawn from the run's seed."""
    generator = seeded(key)
    state = {}
    for name, value in reference_module(d_model, n_heads).state_dict().items():
        noise = torch.randn(value.shape, generator=generator)
        state[name] = 1.0 + 0.5 * noise if "norm" in name else 0.4 * noise
    return state


def build(d_model: int, n_heads: int, eps: float, state: dict[str, torch.Tensor]) -> nn.Module:
    """The reference in float64 with `state` (already quantised to the case's dtype) loaded."""
    module = reference_module(d_model, n_heads, eps)
    module.load_state_dict(state)
    return module.double()


def attention(
    state: dict[str, torch.Tensor],
    x: torch.Tensor,
    n_heads: int,
    eps: float,
    *,
    over_d_model: bool = False,
    norm_v: bool = False,
    causal: bool = True,
    scale_d_model: bool = False,
    scale_before_norm: bool = False,
    shared_norm: bool = False,
) -> torch.Tensor:
    """The layer in float64 with one mistake switched on (all off: the reference)."""
    s = {k: v.double() for k, v in state.items()}
    x = x.double().cpu()
    B, T, C = x.shape
    hd = C // n_heads
    scale = 1 / math.sqrt(C if scale_d_model else hd)

    def norm(t: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:  # t: (B, T, C)
        heads = t.view(B, T, n_heads, hd)
        ms = t.pow(2).mean(-1, keepdim=True).unsqueeze(-1) if over_d_model else heads.pow(2).mean(-1, keepdim=True)
        return heads * torch.rsqrt(ms + eps) * gain

    q, k, v = x @ s["q_proj.weight"].T, x @ s["k_proj.weight"].T, x @ s["v_proj.weight"].T
    if scale_before_norm:
        q, scale = q * scale, 1.0
    q = norm(q, s["q_norm.weight"])
    k = norm(k, s["q_norm.weight"] if shared_norm else s["k_norm.weight"])
    v = norm(v, s["k_norm.weight"]) if norm_v else v.view(B, T, n_heads, hd)
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    scores = q @ k.transpose(-2, -1) * scale
    if causal:
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C)
    return y @ s["o_proj.weight"].T


def variants(
    state: dict[str, torch.Tensor], x: torch.Tensor, n_heads: int, eps: float
) -> list[tuple[Misconception, torch.Tensor]]:
    t = x.shape[1]
    mistakes: dict[Misconception, dict[str, bool]] = {
        NORM_ON_V: {"norm_v": True},
        SCALE_BEFORE_NORM: {"scale_before_norm": True},
        SHARED_NORM: {"shared_norm": True},
    }
    if n_heads > 1:  # with one head, head_dim is d_model
        mistakes[OVER_D_MODEL] = {"over_d_model": True}
        mistakes[SCALE_D_MODEL] = {"scale_d_model": True}
    if t > 1:
        mistakes[NO_CAUSAL_MASK] = {"causal": False}
    with torch.no_grad():
        return [(m, attention(state, x, n_heads, eps, **switches)) for m, switches in mistakes.items()]


def check(
    harness: Harness,
    x: Input,
    *,
    key: int,
    d_model: int = D_MODEL,
    n_heads: int = N_HEADS,
    eps: float = 1e-5,
    dtype: torch.dtype = torch.float32,
) -> None:
    args, kwargs = [d_model, n_heads], ({"eps": eps} if eps != 1e-5 else {})
    state = random_state(d_model, n_heads, key)

    def expected(x_in: torch.Tensor, quantised: dict[str, torch.Tensor]) -> torch.Tensor:
        with torch.no_grad():
            return build(d_model, n_heads, eps, quantised)(x_in.double().cpu())

    tol = TOLERANCES[TOLERANCE_NAMES[dtype]]
    if dtype != torch.float32:
        # Matmuls and softmax round at every step in half precision: never hold the learner to
        # more than the reference itself achieves in that dtype (twice its own error).
        quantised = {k: v.to(dtype) for k, v in state.items()}
        low = reference_module(d_model, n_heads, eps)
        low.load_state_dict(quantised)
        with torch.no_grad():
            own_error = (low.to(dtype)(x.tensor).double() - expected(x.tensor, quantised)).abs().max().item()
        tol = tol.at_least(Tolerance(tol.rtol, 2 * own_error))
    harness.forward_case(
        "QKNormAttention",
        args,
        kwargs,
        x,
        state=state,
        tol=tol,
        expected=expected,
        dtype=None if dtype == torch.float32 else dtype,
        suspects=lambda x_in, quantised: variants(quantised, x_in, n_heads, eps),
    )


def tokens(batch: int, time: int, key: int, d_model: int = D_MODEL, *, scale: float = 1.0) -> Input:
    return Input(randn((batch, time, d_model), key, scale=scale), f"{scale:g}·N(0,1)")


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize(("d_model", "n_heads"), [(16, 4), (12, 2)], ids=["d16-h4", "d12-h2"])
def test_submodules_and_state_dict(harness: Harness, d_model: int, n_heads: int) -> None:
    call = call_text("QKNormAttention", [d_model, n_heads], None, None)
    reply = harness.run(
        harness.program("QKNormAttention", [d_model, n_heads], state=random_state(d_model, n_heads, 1), inspect=True)
    )
    assert reply.inspect is not None
    expect_contains(call, say("submodules", "子模块"), list(reply.inspect.children), CHILDREN)
    expected = list(reference_module(d_model, n_heads).state_dict())
    expect_keys(call, "state_dict", reply.inspect.state_dict, expected)
    if reply.state_load.mismatched:
        fail(
            say(
                "{call}: the reference's weights do not fit {names} (different shapes). Fix: q_proj, k_proj, v_proj "
                "and o_proj are nn.Linear(d_model, d_model, bias=False); q_norm.weight and k_norm.weight have shape "
                "(head_dim,) = ({hd},).",
                "{call}：参考实现的权重放不进 {names}（形状不同）。修改：q_proj、k_proj、v_proj 和 o_proj 都是 "
                "nn.Linear(d_model, d_model, bias=False)；q_norm.weight 和 k_norm.weight 的形状是 "
                "(head_dim,) = ({hd},)。",
                call=call,
                names=", ".join(f"`{n}`" for n in reply.state_load.mismatched),
                hd=d_model // n_heads,
            ),
            call=call,
        )


@pytest.mark.category(Category.STATE)
def test_norm_gains_start_at_one(harness: Harness) -> None:
    call = call_text("QKNormAttention", [D_MODEL, N_HEADS], None, None)
    info = harness.inspect("QKNormAttention", [D_MODEL, N_HEADS])
    head_dim = D_MODEL // N_HEADS
    for name in ("q_norm.weight", "k_norm.weight"):
        got = info.parameters.get(name)
        if got is None or got.shape != [head_dim] or not got.is_parameter or not got.requires_grad:
            fail(
                say(
                    "{call}.{name} should be an nn.Parameter of shape ({hd},) (head_dim), got {got}",
                    "{call}.{name} 应为形状 ({hd},)（head_dim）的 nn.Parameter，实际为 {got}",
                    call=call,
                    name=name,
                    hd=head_dim,
                    got=got.shape if got else "-",
                )
            )
        if not bool((got.value == 1).all()):
            fail(say("{call}.{name} should start as ones", "{call}.{name} 的初始值应为全 1", call=call, name=name))


# -- forward -----------------------------------------------------------------------------------


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5), (1, 9), (3, 1)], ids=["B2xT5", "B1xT9", "B3xT1"])
def test_forward(harness: Harness, shape: tuple[int, int], device: str) -> None:
    check(harness, tokens(*shape, 10 + shape[1], scale=1.5), key=20 + shape[1])


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize(("d_model", "n_heads"), [(12, 2), (12, 1), (24, 8)], ids=["d12-h2", "d12-h1", "d24-h8"])
def test_forward_other_head_counts(harness: Harness, d_model: int, n_heads: int) -> None:
    check(harness, tokens(2, 6, 30 + n_heads, d_model), key=31 + n_heads, d_model=d_model, n_heads=n_heads)


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("k", range(2))
def test_forward_drawn_shapes(harness: Harness, k: int) -> None:
    n_heads, head_dim = draw(40 + k, 1, 4), draw(42 + k, 2, 8)
    x = tokens(draw(44 + k, 1, 3), draw(46 + k, 2, 12), 48 + k, n_heads * head_dim)
    check(harness, x, key=50 + k, d_model=n_heads * head_dim, n_heads=n_heads)


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    state = random_state(D_MODEL, N_HEADS, 60)
    model = build(D_MODEL, N_HEADS, 1e-5, state)
    inputs = [tokens(2, 5, 61), tokens(1, 3, 62, scale=0.5), tokens(2, 5, 63, scale=2.0)]
    inputs.append(inputs[0])  # same shape, other values, other shape, the first again
    args = [D_MODEL, N_HEADS]
    for x in inputs[:3]:  # each right on a fresh module first: a wrong computation is not called stateful
        check(harness, x, key=60)
    steps = [Step([x.tensor]) for x in inputs]
    replies = harness.run(harness.program("QKNormAttention", args, state=state, steps=steps)).steps
    for number, (x, reply) in enumerate(zip(inputs, replies, strict=True), start=1):
        call = say(
            "{call} (call {n} of {total} on the same module)",
            "{call}（同一模块的第 {n}/{total} 次调用）",
            call=call_text("QKNormAttention", args),
            n=number,
            total=len(inputs),
        )
        with torch.no_grad():
            expected = model(x.tensor.double())
        harness.assert_close(
            reply.output,
            expected,
            tol=TOLERANCES["block float32"],
            call=call,
            on=x.describe(harness.device),
            cause=STATEFUL if number > 1 else None,
        )


@pytest.mark.category(Category.FORWARD)
def test_future_tokens_do_not_leak(harness: Harness) -> None:
    state = random_state(D_MODEL, N_HEADS, 70)
    first = randn((1, 8, D_MODEL), 71)
    second = first.clone()
    second[:, 4:] = randn((1, 4, D_MODEL), 72, scale=3.0)  # the same first 4 tokens, a different future
    replies = harness.run(
        harness.program("QKNormAttention", [D_MODEL, N_HEADS], state=state, steps=[Step([first]), Step([second])])
    ).steps
    call = say(
        "{call} on two sequences that share their first 4 tokens",
        "{call}，作用于前 4 个 token 相同的两个序列",
        call=call_text("QKNormAttention", [D_MODEL, N_HEADS]),
    )
    on = Input(second, say("the second", "第二个")).describe(harness.device)
    harness.assert_close(
        replies[1].output[:, :4],
        replies[0].output[:, :4],
        tol=TOLERANCES["block float32"],
        call=call,
        on=on,
        what=say("output at positions 0-3", "位置 0-3 的输出"),
        cause=NO_CAUSAL_MASK,
    )


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_large_activations(harness: Harness, device: str) -> None:
    x = Input(
        randn((2, 6, D_MODEL), 80, scale=100.0),
        say(
            "large (100·N(0,1)): without QK-norm the logits explode",
            "大数值（100·N(0,1)）：没有 QK-norm 时 logit 会爆炸",
        ),
    )
    check(harness, x, key=81)


@pytest.mark.category(Category.STABILITY)
def test_custom_eps(harness: Harness) -> None:
    x = Input(
        randn((2, 5, D_MODEL), 82, scale=0.02),
        say("small (0.02·N(0,1)), where eps matters", "小数值（0.02·N(0,1)，eps 有影响）"),
    )
    check(harness, x, key=83, eps=1e-2)


# -- low precision -----------------------------------------------------------------------------


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
def test_half_precision(harness: Harness, dtype: torch.dtype, device: str) -> None:
    x = Input(randn((2, 5, D_MODEL), 90).to(dtype), "N(0,1)")
    check(harness, x, key=91, dtype=dtype)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
def test_gradients(harness: Harness, device: str) -> None:
    harness.gradient_case(
        "QKNormAttention",
        [D_MODEL, N_HEADS],
        {},
        tokens(2, 5, 100),
        reference=reference_module(D_MODEL, N_HEADS),
        state=random_state(D_MODEL, N_HEADS, 101),
    )
