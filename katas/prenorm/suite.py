"""Hidden suite for the Pre-Norm kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
and weights are drawn from the run's seed; the integer passed to `randn` / `seeded` only tells
them apart. Every norm weight is random too: with norm weights at one, wiring bugs can hide.
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
    call_text,
    case_names_zh,
    expect_contains,
    expect_keys,
    fail,
    misconceptions,
    randn,
    say,
    seeded,
)
from normkata.grading.contract import TOLERANCES, Category, Step, Tolerance

D_MODEL, N_HEADS, D_FF, N_LAYERS = 16, 4, 32, 3
BLOCK_ARGS = [D_MODEL, N_HEADS, D_FF]
STACK_ARGS = [N_LAYERS, D_MODEL, N_HEADS, D_FF]
TOLERANCE_NAMES = {torch.float32: "block float32", torch.bfloat16: "block bfloat16", torch.float16: "block float16"}
#: eps values a norm ends up with when the given eps does not reach it: a hard-coded 1e-5 or
#: 1e-6, or nn.RMSNorm's own default (float32's machine epsilon; nn.LayerNorm's is 1e-5).
NOT_PASSED_EPS = (1e-5, 1e-6, torch.finfo(torch.float32).eps)

CASE_NAMES_ZH = case_names_zh({})  # every name is the glossary's

MISTAKES = misconceptions("prenorm")  # titles and hints: kata.yaml
POST_NORM = MISTAKES["pn-post-norm"]
NORMALIZED_RESIDUAL = MISTAKES["pn-normalized-residual"]
SHARED_NORM = MISTAKES["pn-shared-norm"]
NO_FINAL_NORM = MISTAKES["pn-no-final-norm"]
EPS_NOT_PASSED = MISTAKES["pn-eps-not-passed"]


def _reference() -> Any:
    import normkata_reference_prenorm as reference  # type: ignore[import-not-found]

    return reference


def reference_module(cls: str, args: list[Any], kwargs: dict[str, Any]) -> nn.Module:
    return getattr(_reference(), cls)(*args, **kwargs)


def random_state(module: nn.Module, key: int) -> dict[str, torch.Tensor]:
    """Random weights everywhere, norms included, drawn from the run's seed."""
    generator = seeded(key)
    state = {}
    for name, value in module.state_dict().items():
        noise = torch.randn(value.shape, generator=generator)
        is_gain = name.endswith(("norm1.weight", "norm2.weight", "final_norm.weight"))
        state[name] = 1.0 + 0.5 * noise if is_gain else 0.3 * noise
    return state


def build(cls: str, args: list[Any], kwargs: dict[str, Any], state: dict[str, torch.Tensor]) -> nn.Module:
    """The reference in float64 with `state` (already quantised to the case's dtype) loaded."""
    module = reference_module(cls, args, kwargs)
    module.load_state_dict(state)
    return module.double()


def _norms(module: nn.Module) -> list[tuple[str, nn.Module]]:
    return [(name, m) for name, m in module.named_modules() if name.rsplit(".", 1)[-1] in ("norm1", "norm2",
                                                                                           "final_norm")]  # fmt: skip


def with_eps(module: nn.Module, blocks_eps: float | None, final_eps: float | None) -> nn.Module:
    """The module with its norms' eps replaced (None: leave it)."""
    for name, norm in _norms(module):
        eps = final_eps if name == "final_norm" else blocks_eps
        if eps is not None:
            norm.eps = eps  # type: ignore[assignment]
    return module


def block_variants(block: nn.Module) -> dict[Misconception, Callable[[torch.Tensor], torch.Tensor]]:
    def post(x: torch.Tensor) -> torch.Tensor:
        x = block.norm1(x + block.attn(x))
        return block.norm2(x + block.ffn(x))

    def normalized_residual(x: torch.Tensor) -> torch.Tensor:
        h = block.norm1(x)
        h = h + block.attn(h)
        g = block.norm2(h)
        return g + block.ffn(g)

    def shared(x: torch.Tensor) -> torch.Tensor:
        x = x + block.attn(block.norm1(x))
        return x + block.ffn(block.norm1(x))

    return {POST_NORM: post, NORMALIZED_RESIDUAL: normalized_residual, SHARED_NORM: shared}


def stack_variants(model: nn.Module) -> dict[Misconception, Callable[[torch.Tensor], torch.Tensor]]:
    def each_block(mistake: Misconception) -> Callable[[torch.Tensor], torch.Tensor]:
        def run(x: torch.Tensor) -> torch.Tensor:
            for block in model.blocks:
                x = block_variants(block)[mistake](x)
            return model.final_norm(x)

        return run

    def no_final(x: torch.Tensor) -> torch.Tensor:
        for block in model.blocks:
            x = block(x)
        return x

    variants = {m: each_block(m) for m in (POST_NORM, NORMALIZED_RESIDUAL, SHARED_NORM)}
    variants[NO_FINAL_NORM] = no_final
    return variants


def eps_variants(cls: str, args: list[Any], kwargs: dict[str, Any], state: dict[str, torch.Tensor],
                 x: torch.Tensor) -> list[tuple[Misconception, torch.Tensor]]:  # fmt: skip
    """The output when the given eps misses the blocks' norms, the final norm, or both."""
    given = kwargs.get("eps", 1e-5)
    choices: list[float | None] = [None, *(e for e in NOT_PASSED_EPS if e != given)]
    found = []
    for blocks_eps in choices:
        for final_eps in choices if cls == "PreNormTransformer" else [None]:
            if blocks_eps is None and final_eps is None:
                continue
            module = with_eps(build(cls, args, kwargs, state), blocks_eps, final_eps)
            with torch.no_grad():
                found.append((EPS_NOT_PASSED, module(x.double().cpu())))
    return found


def check(harness: Harness, cls: str, args: list[Any], kwargs: dict[str, Any], x: Input, *, key: int,
          dtype: torch.dtype = torch.float32) -> None:  # fmt: skip
    state = random_state(reference_module(cls, args, kwargs), key)

    def expected(x_in: torch.Tensor, quantised: dict[str, torch.Tensor]) -> torch.Tensor:
        with torch.no_grad():
            return build(cls, args, kwargs, quantised)(x_in.double().cpu())

    def suspects(x_in: torch.Tensor, quantised: dict[str, torch.Tensor]) -> list[tuple[Misconception, torch.Tensor]]:
        module = build(cls, args, kwargs, quantised)
        variants = block_variants(module) if cls == "PreNormBlock" else stack_variants(module)
        with torch.no_grad():
            found = [(m, fn(x_in.double().cpu())) for m, fn in variants.items()]
        return found + eps_variants(cls, args, kwargs, quantised, x_in)

    tol = TOLERANCES[TOLERANCE_NAMES[dtype]]
    if dtype != torch.float32:
        # Matmuls and softmax round at every step in half precision: never hold the learner to
        # more than the reference itself achieves in that dtype (twice its own error).
        low = reference_module(cls, args, kwargs)
        low.load_state_dict({k: v.to(dtype) for k, v in state.items()})
        quantised = {k: v.to(dtype) for k, v in state.items()}
        with torch.no_grad():
            own_error = (low.to(dtype)(x.tensor).double() - expected(x.tensor, quantised)).abs().max().item()
        tol = tol.at_least(Tolerance(tol.rtol, 2 * own_error))
    harness.forward_case(cls, args, kwargs, x, state=state, dtype=None if dtype == torch.float32 else dtype, tol=tol,
                         expected=expected, suspects=suspects)  # fmt: skip


def structure(harness: Harness, cls: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, list[str]]:
    """The learner's module with the reference's weights loaded where they fit: (inspection, mismatched names)."""
    reference = reference_module(cls, args, kwargs)
    reply = harness.run(harness.program(cls, args, kwargs, state=random_state(reference, 1), inspect=True))
    assert reply.inspect is not None
    return reply.inspect, reply.state_load.mismatched


def check_structure(harness: Harness, cls: str, args: list[Any], kwargs: dict[str, Any], children: list[str]) -> None:
    """Named submodules present (extra ones are the learner's business), state_dict names fixed.

    The stack is judged on what is its own (how many blocks, under which names, final_norm): a
    naming or shape problem inside PreNormBlock is the block case's finding, reported once.
    """
    call = call_text(cls, args, kwargs, None)
    info, mismatched = structure(harness, cls, args, kwargs)
    expect_contains(call, say("submodules", "子模块"), list(info.children), children)
    expected = list(reference_module(cls, args, kwargs).state_dict())
    if cls == "PreNormTransformer":
        block, block_mismatched = structure(harness, "PreNormBlock", BLOCK_ARGS, kwargs)
        n_layers = args[0]
        own = [k for k in expected if not k.startswith("blocks.")]
        expected = [f"blocks.{i}.{k}" for i in range(n_layers) for k in block.state_dict] + own
        mismatched = [k for k in mismatched if k.split(".", 2)[-1] not in block_mismatched or k.startswith("final")]
    expect_keys(call, "state_dict", info.state_dict, expected)
    if mismatched:
        fail(say("{call}: the reference's weights do not fit {names} (different shapes). Fix: keep the given "
                 "CausalSelfAttention and FeedForward as they are, pass d_model, n_heads and d_ff through unchanged "
                 "and give each norm d_model features.",
                 "{call}：参考实现的权重放不进 {names}（形状不同）。修改：保持提供的 CausalSelfAttention 和 "
                 "FeedForward 不变，原样传递 d_model、n_heads 和 d_ff，每个归一化层的大小都是 d_model。",
                 call=call, names=", ".join(f"`{n}`" for n in mismatched)))  # fmt: skip


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_block_submodules_and_state_dict(harness: Harness, norm: str) -> None:
    check_structure(harness, "PreNormBlock", BLOCK_ARGS, {"norm": norm}, ["norm1", "attn", "norm2", "ffn"])


@pytest.mark.category(Category.STATE)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_stack_submodules_and_state_dict(harness: Harness, norm: str) -> None:
    check_structure(harness, "PreNormTransformer", STACK_ARGS, {"norm": norm}, ["blocks", "final_norm"])


# -- forward -----------------------------------------------------------------------------------


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
@pytest.mark.parametrize("shape", [(2, 5), (1, 9), (3, 1)], ids=["B2xT5", "B1xT9", "B3xT1"])
def test_block_forward(harness: Harness, norm: str, shape: tuple[int, int], device: str) -> None:
    x = Input(randn((*shape, D_MODEL), 10 + shape[1], scale=1.5, shift=0.3), "1.5·N(0,1)+0.3")
    check(harness, "PreNormBlock", BLOCK_ARGS, {"norm": norm}, x, key=20 + len(norm) + shape[1])


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_stack_forward(harness: Harness, norm: str, device: str) -> None:
    x = Input(randn((2, 6, D_MODEL), 30, scale=1.5), "1.5·N(0,1)")
    check(harness, "PreNormTransformer", STACK_ARGS, {"norm": norm}, x, key=31 + len(norm))


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_called_several_times(harness: Harness, norm: str) -> None:
    kwargs = {"norm": norm}
    state = random_state(reference_module("PreNormTransformer", STACK_ARGS, kwargs), 40)
    model = build("PreNormTransformer", STACK_ARGS, kwargs, state)
    inputs = [Input(randn((2, 5, D_MODEL), 41, scale=1.5), "1.5·N(0,1)"),
              Input(randn((1, 3, D_MODEL), 42, scale=0.5, shift=1.0), "0.5·N(0,1)+1")]  # fmt: skip
    inputs += [Input(randn((2, 5, D_MODEL), 43, scale=1.5), "1.5·N(0,1)"), inputs[0]]  # same shape, new values
    steps = [Step([x.tensor]) for x in inputs]
    replies = harness.run(harness.program("PreNormTransformer", STACK_ARGS, kwargs, state=state, steps=steps)).steps
    for number, (x, reply) in enumerate(zip(inputs, replies, strict=False), start=1):
        call = say("{call} (call {n} of {total} on the same module)", "{call}（同一模块的第 {n}/{total} 次调用）",
                   call=call_text("PreNormTransformer", STACK_ARGS, kwargs), n=number, total=len(inputs))  # fmt: skip
        with torch.no_grad():
            expected = model(x.tensor.double())
            suspects = [(m, fn(x.tensor.double())) for m, fn in stack_variants(model).items()]
        harness.assert_close(reply.output, expected, tol=TOLERANCES["block float32"], call=call,
                             on=x.describe(harness.device),
                             suspects=suspects, cause=STATEFUL if number > 1 else None)  # fmt: skip


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("cls", ["PreNormBlock", "PreNormTransformer"])
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_eps_reaches_every_norm(harness: Harness, cls: str, norm: str) -> None:
    x = Input(randn((2, 4, D_MODEL), 50, scale=0.02), say("small (0.02·N(0,1)), where eps matters",
                                                          "小数值（0.02·N(0,1)，eps 有影响）"))  # fmt: skip
    args = BLOCK_ARGS if cls == "PreNormBlock" else STACK_ARGS
    check(harness, cls, args, {"norm": norm, "eps": 1e-2}, x, key=51 + len(cls) + len(norm))


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_block_half_precision(harness: Harness, dtype: torch.dtype, norm: str, device: str) -> None:
    x = Input(randn((2, 5, D_MODEL), 60).to(dtype), "N(0,1)")
    check(harness, "PreNormBlock", BLOCK_ARGS, {"norm": norm}, x, dtype=dtype, key=61 + len(norm))


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_gradients(harness: Harness, norm: str, device: str) -> None:
    reference = reference_module("PreNormTransformer", [2, D_MODEL, N_HEADS, D_FF], {"norm": norm})
    harness.gradient_case(
        "PreNormTransformer",
        [2, D_MODEL, N_HEADS, D_FF],
        {"norm": norm},
        Input(randn((2, 5, D_MODEL), 70), "N(0,1)"),
        reference=reference,
        state=random_state(reference, 71),
    )
