"""Hidden suite for the adaLN-Zero (DiT block) kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
and weights are drawn from the run's seed; the integer passed to `randn` / `seeded` only tells
them apart. forward takes two tensors, x (N, T, D) and the condition c (N, D); every weight,
the modulation Linear's included, is random in the forward cases (zero, it would hide every
mistake behind a gate of 0), and a fresh module's own zero start is graded on its own.
The block is facebookresearch/DiT's DiTBlock (models.py): x = x + gate · branch(modulate(norm(x))).
"""

from __future__ import annotations

from collections.abc import Callable
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
    block_reference,
    call_text,
    expect_contains,
    expect_keys,
    fail,
    float64_reference,
    is_broadcast_error,
    misconceptions,
    own_errors,
    randn,
    random_block_state,
    say,
)
from normkata.grading.contract import TOLERANCES, Category, Tolerance
from normkata.grading.messages import Step

HIDDEN, HEADS = 16, 4
ARGS = [HIDDEN, HEADS]
CHILDREN = ["norm1", "attn", "norm2", "mlp", "adaLN_modulation"]
MODULATION = ("adaLN_modulation.1.weight", "adaLN_modulation.1.bias")
TOLERANCE_NAMES = {torch.float32: "block float32", torch.bfloat16: "block bfloat16", torch.float16: "block float16"}

MISTAKES = misconceptions("adaln_zero")  # titles and hints: kata.yaml
AFFINE_ON = MISTAKES["adaln-affine-on"]
NOT_ZERO_INIT = MISTAKES["adaln-not-zero-init"]
NO_ONE_PLUS = MISTAKES["adaln-no-one-plus"]
GATE_WRONG_BRANCH = MISTAKES["adaln-gate-wrong-branch"]
BROADCAST_AXIS = MISTAKES["adaln-broadcast-axis"]
CHUNK_ORDER = MISTAKES["adaln-chunk-order"]
EPS = MISTAKES["adaln-eps"]
NO_SILU = MISTAKES["adaln-no-silu"]

reference_module = block_reference("adaln_zero")
random_state = random_block_state(lambda name: False)  # no gains: every weight near 0, none zero
Variant = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def build(kwargs: dict[str, Any], state: dict[str, torch.Tensor]) -> nn.Module:
    return float64_reference(reference_module, "DiTBlock", ARGS, kwargs, state)


def template(kwargs: dict[str, Any]) -> nn.Module:
    return reference_module("DiTBlock", ARGS, kwargs)


def variants(block: nn.Module) -> list[tuple[Misconception, Variant]]:
    """The block's output as each mistake computes it (same weights, one thing wrong)."""
    norm1, norm2, attn, mlp = block.norm1, block.norm2, block.attn, block.mlp
    linear = block.adaLN_modulation[-1]

    def run(
        *,
        order: tuple[int, ...] = (0, 1, 2, 3, 4, 5),
        one_plus: bool = True,
        gate: str = "branch",
        spread: Callable[[torch.Tensor], torch.Tensor] = lambda t: t.unsqueeze(1),
        eps: float | None = None,
        silu: bool = True,
    ) -> Variant:
        def forward(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
            chunks = linear(nn.functional.silu(c) if silu else c).chunk(6, dim=1)
            sh1, sc1, g1, sh2, sc2, g2 = (spread(chunks[i]) for i in order)
            if gate == "swapped":
                g1, g2 = g2, g1

            def norm(module: nn.Module, t: torch.Tensor) -> torch.Tensor:
                return module(t) if eps is None else nn.functional.layer_norm(t, t.shape[-1:], eps=eps)

            def step(
                t: torch.Tensor, n: nn.Module, f: nn.Module, sh: torch.Tensor, sc: torch.Tensor, g: torch.Tensor
            ) -> torch.Tensor:
                branch = f(norm(n, t) * ((1 + sc) if one_plus else sc) + sh)
                if gate == "sum":
                    return g * (t + branch)
                if gate == "skip":
                    return g * t + branch
                return t + g * branch

            return step(step(x, norm1, attn, sh1, sc1, g1), norm2, mlp, sh2, sc2, g2)

        return forward

    return [
        (NO_ONE_PLUS, run(one_plus=False)),
        (GATE_WRONG_BRANCH, run(gate="swapped")),
        (GATE_WRONG_BRANCH, run(gate="sum")),
        (GATE_WRONG_BRANCH, run(gate="skip")),
        (BROADCAST_AXIS, run(spread=lambda t: t.unsqueeze(0))),  # (N, D) read as (1, T=N, D)
        (CHUNK_ORDER, run(order=(1, 0, 2, 4, 3, 5))),  # scale and shift swapped
        (CHUNK_ORDER, run(order=(0, 3, 1, 4, 2, 5))),  # grouped by kind: shifts, scales, gates
        (CHUNK_ORDER, run(order=(3, 4, 5, 0, 1, 2))),  # the MLP's three first
        (CHUNK_ORDER, run(order=(2, 0, 1, 5, 3, 4))),  # gate first
        (EPS, run(eps=1e-5)),  # nn.LayerNorm's default
        (EPS, run(eps=0.0)),
        (NO_SILU, run(silu=False)),
    ]


def suspects_for(block: nn.Module, x: torch.Tensor, c: torch.Tensor) -> list[tuple[Misconception, torch.Tensor]]:
    """Each mistake's output on (x, c); a mistake that cannot run on these shapes (a modulation
    spread over the tokens when N != T) raises in the learner's code instead, and is named there."""
    found = []
    with torch.no_grad():
        for mistake, fn in variants(block):
            try:
                found.append((mistake, fn(x, c)))
            except RuntimeError:
                continue
    return found


ERROR_SUSPECTS = [(BROADCAST_AXIS, is_broadcast_error)]


def describe(harness: Harness, x: Input, c: Input) -> str:
    return say(
        "x: {x}; c: {c}",
        "x：{x}；c：{c}",
        x=x.describe(harness.device),
        c=c.describe(harness.device),
    )


def check(
    harness: Harness,
    x: Input,
    c: Input,
    *,
    key: int,
    kwargs: dict[str, Any] | None = None,
    dtype: torch.dtype = torch.float32,
    silent_attention: bool = False,
) -> None:
    """forward(x, c) with random weights against the float64 reference, each mistake named by its output.
    `silent_attention`: gate_msa's rows of the modulation zeroed, so norm2 reads x itself."""
    kwargs = kwargs or {}
    state = random_state(template(kwargs), key)
    if silent_attention:
        for name in MODULATION:
            state[name][2 * HIDDEN : 3 * HIDDEN] = 0.0
    quantised = {k: v.to(dtype) for k, v in state.items()}
    program = harness.program(
        "DiTBlock",
        ARGS,
        kwargs,
        state=state,
        dtype=None if dtype == torch.float32 else dtype,
        steps=[Step([x.tensor, c.tensor])],
    )
    harness.begin(program)  # the worker runs the learner's code while the truth is computed here
    block = build(kwargs, quantised)
    with torch.no_grad():
        want = block(x.tensor.double(), c.tensor.double())
    got = harness.run(program, ERROR_SUSPECTS, sent=True).steps[0].output
    call, on = call_text("DiTBlock", ARGS, kwargs), describe(harness, x, c)
    tol = TOLERANCES[TOLERANCE_NAMES[dtype]]
    if dtype != torch.float32:
        harness.assert_dtype(got, dtype, call=call, on=on)
        # Matmuls and softmax round at every step in half precision: never hold the learner to
        # more than the reference itself achieves in that dtype (twice its own error).
        low = reference_module("DiTBlock", ARGS, kwargs)
        low.load_state_dict(quantised)
        with torch.no_grad():
            own = (low.to(dtype)(x.tensor, c.tensor).double() - want).abs().max().item()
        tol = tol.at_least(Tolerance(tol.rtol, 2 * own))

    def error() -> float:
        with torch.no_grad():
            return own_errors(lambda moved: [block(moved[0], moved[1])], [x.tensor, c.tensor], [want])[0]

    harness.assert_close(
        got,
        want,
        tol=tol,
        own_error=error,
        call=call,
        on=on,
        suspects=lambda: suspects_for(block, x.tensor.double(), c.tensor.double()),
    )


def inputs(n: int, t: int, key: int, *, scale: float = 1.0) -> tuple[Input, Input]:
    x = Input(randn((n, t, HIDDEN), key, scale=scale, shift=0.2), say("{s}·N(0,1)+0.2", "{s}·N(0,1)+0.2", s=scale))
    c = Input(randn((n, HIDDEN), key + 1, scale=1.5), "1.5·N(0,1)")
    return x, c


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_block_submodules_and_state_dict(harness: Harness) -> None:
    call = call_text("DiTBlock", ARGS, {}, None)
    reference = template({})
    reply = harness.run(harness.program("DiTBlock", ARGS, {}, state=random_state(reference, 1), inspect=True))
    info = reply.inspect
    assert info is not None
    expect_contains(call, say("submodules", "子模块"), list(info.children), CHILDREN)
    affine = [k for k in info.state_dict if k.split(".")[0] in ("norm1", "norm2")]
    if affine:
        fail(
            say(
                "{call}: state_dict: unexpected {names}: the norms have no parameters in DiT. {diagnosis}",
                "{call}：state_dict：多出了 {names}：DiT 的归一化没有参数。{diagnosis}",
                call=call,
                names=", ".join(f"`{k}`" for k in affine),
                diagnosis=harness.diagnose(AFFINE_ON),
            ),
            call=call,
        )
    if "adaLN_modulation.0.weight" in info.state_dict and "adaLN_modulation.1.weight" not in info.state_dict:
        fail(
            say(
                "{call}: state_dict: the modulation Linear is adaLN_modulation.0, expected adaLN_modulation.1 "
                "(after the SiLU). {diagnosis}",
                "{call}：state_dict：调制 Linear 是 adaLN_modulation.0，"
                "应为 adaLN_modulation.1（在 SiLU 之后）。{diagnosis}",
                call=call,
                diagnosis=harness.diagnose(NO_SILU),
            ),
            call=call,
        )
    expect_keys(call, "state_dict", info.state_dict, list(reference.state_dict()))
    if reply.state_load.mismatched:
        fail(
            say(
                "{call}: the reference's weights do not fit {names} (different shapes). Fix: keep the given "
                "Attention and Mlp as they are, give the MLP int(hidden_size * mlp_ratio) hidden features and "
                "the modulation Linear 6 * hidden_size outputs.",
                "{call}：参考实现的权重放不进 {names}（形状不同）。修改：保持提供的 Attention 和 Mlp 不变，"
                "MLP 的隐藏维度为 int(hidden_size * mlp_ratio)，调制 Linear 的输出为 6 * hidden_size。",
                call=call,
                names=", ".join(f"`{n}`" for n in reply.state_load.mismatched),
            ),
            call=call,
        )


@pytest.mark.category(Category.STATE)
def test_modulation_starts_at_zero(harness: Harness) -> None:
    call = call_text("DiTBlock", ARGS, {}, None)
    info = harness.inspect("DiTBlock", ARGS, {})
    for name in MODULATION:
        value = info.state.get(name)
        if value is None:
            fail(
                say(
                    "{call}: no `{name}` (the modulation Linear's, after the SiLU)",
                    "{call}：没有 `{name}`（调制 Linear 的参数，位于 SiLU 之后）",
                    call=call,
                    name=name,
                ),
                call=call,
            )
        if bool((value != 0).any()):
            fail(
                say(
                    "{call}.{name} should start as zeros: {n} of {total} value(s) are not 0. {diagnosis}",
                    "{call}.{name} 的初始值应为全 0：{total} 个值中有 {n} 个不是 0。{diagnosis}",
                    call=call,
                    name=name,
                    n=int((value != 0).sum()),
                    total=value.numel(),
                    diagnosis=harness.diagnose(NOT_ZERO_INIT),
                ),
                call=call,
            )


# -- forward -----------------------------------------------------------------------------------


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
def test_fresh_block_is_the_identity(harness: Harness, device: str) -> None:
    x, c = inputs(2, 5, 5)
    reply = harness.run(harness.program("DiTBlock", ARGS, {}, steps=[Step([x.tensor, c.tensor])]), ERROR_SUSPECTS)
    got = reply.steps[0].output
    call = say("{call}, freshly built", "{call}，新建的模块", call=call_text("DiTBlock", ARGS, {}))
    harness.assert_close(
        got,
        x.tensor,
        tol=TOLERANCES["float32"],
        call=call,
        on=describe(harness, x, c),
        what=say("output (it must equal x: every gate starts at 0)", "输出（必须等于 x：每个 gate 都从 0 开始）"),
        suspects=[(GATE_WRONG_BRANCH, torch.zeros_like(x.tensor))],
    )


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5), (1, 7), (3, 3)], ids=["N2xT5", "N1xT7", "N3xT3"])
def test_block_forward(harness: Harness, shape: tuple[int, int], device: str) -> None:
    x, c = inputs(*shape, 10 + shape[1])
    check(harness, x, c, key=20 + shape[1])


@pytest.mark.category(Category.FORWARD)
def test_one_condition_per_sample(harness: Harness) -> None:
    # More samples than one and tokens of another number: a modulation spread over the tokens
    # instead of the samples cannot broadcast here; with N = T (test_block_forward) it would run.
    x, c = inputs(4, 6, 30)
    check(harness, x, c, key=32)


@pytest.mark.category(Category.FORWARD)
def test_mlp_ratio_is_used(harness: Harness) -> None:
    x, c = inputs(2, 4, 35)
    check(harness, x, c, key=37, kwargs={"mlp_ratio": 2.0})


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    state = random_state(template({}), 40)
    block = build({}, state)
    pairs = [inputs(2, 5, 41), inputs(3, 2, 43), inputs(2, 5, 45)]
    pairs.append(pairs[0])
    steps = [Step([x.tensor, c.tensor]) for x, c in pairs]
    replies = harness.run(harness.program("DiTBlock", ARGS, {}, state=state, steps=steps), ERROR_SUSPECTS).steps
    for number, ((x, c), reply) in enumerate(zip(pairs, replies, strict=True), start=1):
        call = say(
            "{call} (call {n} of {total} on the same module)",
            "{call}（同一模块的第 {n}/{total} 次调用）",
            call=call_text("DiTBlock", ARGS, {}),
            n=number,
            total=len(pairs),
        )
        with torch.no_grad():
            want = block(x.tensor.double(), c.tensor.double())
        harness.assert_close(
            reply.output,
            want,
            tol=TOLERANCES["block float32"],
            call=call,
            on=describe(harness, x, c),
            suspects=lambda x=x, c=c: suspects_for(block, x.tensor.double(), c.tensor.double()),
            cause=STATEFUL if number > 1 else None,
        )


@pytest.mark.category(Category.STABILITY)
def test_small_variance(harness: Harness) -> None:
    # Tokens with a variance near 1e-5, where eps = 1e-5 instead of 1e-6 changes the output; then
    # with the attention's gate held at 0, so that norm2 too reads tokens that small.
    x, c = inputs(2, 5, 50, scale=0.003)
    check(harness, x, c, key=52)
    check(harness, x, c, key=54, silent_attention=True)


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
def test_block_half_precision(harness: Harness, dtype: torch.dtype, device: str) -> None:
    x, c = inputs(2, 5, 60)
    check(harness, Input(x.tensor.to(dtype), x.label), Input(c.tensor.to(dtype), c.label), key=62, dtype=dtype)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
def test_gradients(harness: Harness, device: str) -> None:
    x, c = inputs(2, 5, 70)
    state = random_state(template({}), 72)
    grad_output = randn(x.tensor.shape, 73)
    step = Step([x.tensor, c.tensor], input_grad=True, grad_output=grad_output)
    program = harness.program("DiTBlock", ARGS, {}, state=state, steps=[step])
    harness.begin(program)
    names = list(dict(template({}).named_parameters()))

    def truth(dtype: torch.dtype) -> list[torch.Tensor]:
        """The gradients of x, c and each parameter, by the reference's autograd in `dtype`."""
        block = build({}, state).to(dtype)
        leaves = [t.detach().to(dtype).requires_grad_(True) for t in (x.tensor, c.tensor)]
        block(*leaves).backward(grad_output.to(dtype))
        params = dict(block.named_parameters())
        return [leaves[0].grad, leaves[1].grad, *(params[n].grad for n in names)]

    want = truth(torch.float64)
    single = truth(torch.float32)
    got = harness.run(program, ERROR_SUSPECTS, sent=True).steps[0]
    call, on = call_text("DiTBlock", ARGS, {}, method="backward"), describe(harness, x, c)
    learner = [*(got.input_grads + [None, None])[:2], *(got.param_grads.get(n) for n in names)]
    labels = [say("gradient of x", "x 的梯度"), say("gradient of c", "c 的梯度")]
    labels += [say("gradient of {name}", "{name} 的梯度", name=n) for n in names]
    for index, (value, truth_value, label) in enumerate(zip(learner, want, labels, strict=True)):
        if value is None:
            fail(
                say(
                    "{call} on {on}: no {what} came back (is the graph cut by .detach(), .data or no_grad?)",
                    "{call}，{on}：没有得到{what}（计算图是否被 .detach()、.data 或 no_grad 切断了？）",
                    call=call,
                    on=on,
                    what=label,
                ),
                call=call,
            )
        harness.assert_close(
            value,
            truth_value,
            tol=TOLERANCES["gradient"],
            own_error=lambda i=index: (single[i].double() - want[i]).abs().max().item(),
            call=call,
            on=on,
            what=label,
        )
