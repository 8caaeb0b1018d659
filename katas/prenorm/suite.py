"""Hidden suite for the Pre-Norm kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
and weights are drawn from the run's seed; the integer passed to `randn` / `seeded` only tells
them apart. Every norm weight is random too: with norm weights at one, wiring bugs can hide.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
import torch
from torch import nn

from normkata.grading.checks import (
    DEVICES,
    STATEFUL,
    BlockKata,
    Harness,
    Input,
    Misconception,
    block_reference,
    call_text,
    float64_reference,
    misconceptions,
    randn,
    random_block_state,
    say,
)
from normkata.grading.contract import TOLERANCES, Category
from normkata.grading.messages import Step

D_MODEL, N_HEADS, D_FF, N_LAYERS = 16, 4, 32, 3
BLOCK_ARGS = [D_MODEL, N_HEADS, D_FF]
STACK_ARGS = [N_LAYERS, D_MODEL, N_HEADS, D_FF]


MISTAKES = misconceptions("prenorm")  # titles and hints: kata.yaml
POST_NORM = MISTAKES["pn-post-norm"]
NORMALIZED_RESIDUAL = MISTAKES["pn-normalized-residual"]
SHARED_NORM = MISTAKES["pn-shared-norm"]
NO_FINAL_NORM = MISTAKES["pn-no-final-norm"]
EPS_NOT_PASSED = MISTAKES["pn-eps-not-passed"]


reference_module = block_reference("prenorm")
random_state = random_block_state(lambda name: name.endswith(("norm1.weight", "norm2.weight", "final_norm.weight")))


def build(cls: str, args: list[Any], kwargs: dict[str, Any], state: dict[str, torch.Tensor]) -> nn.Module:
    return float64_reference(reference_module, cls, args, kwargs, state)


def _norms(module: nn.Module) -> list[tuple[str, nn.Module]]:
    return [
        (name, m) for name, m in module.named_modules() if name.rsplit(".", 1)[-1] in ("norm1", "norm2", "final_norm")
    ]


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


BLOCKS = BlockKata(
    block="PreNormBlock",
    stack="PreNormTransformer",
    block_args=BLOCK_ARGS,
    stack_prefix="blocks.",
    final_prefix="final",
    default_eps=1e-5,
    eps_not_passed=EPS_NOT_PASSED,
    reference_module=reference_module,
    random_state=random_state,
    build=build,
    with_eps=with_eps,
    variants=lambda cls, module: (block_variants(module) if cls == "PreNormBlock" else stack_variants(module)).items(),
)
check, check_structure = BLOCKS.check, BLOCKS.check_structure


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
    inputs = [
        Input(randn((2, 5, D_MODEL), 41, scale=1.5), "1.5·N(0,1)"),
        Input(randn((1, 3, D_MODEL), 42, scale=0.5, shift=1.0), "0.5·N(0,1)+1"),
    ]
    inputs += [Input(randn((2, 5, D_MODEL), 43, scale=1.5), "1.5·N(0,1)"), inputs[0]]  # same shape, new values
    steps = [Step([x.tensor]) for x in inputs]
    program = harness.program("PreNormTransformer", STACK_ARGS, kwargs, state=state, steps=steps)
    harness.begin(program)  # the truth is computed while the learner's stack runs
    model = build("PreNormTransformer", STACK_ARGS, kwargs, state)
    with torch.no_grad():
        expected = [model(x.tensor.double()) for x in inputs]
    replies = harness.run(program, sent=True).steps
    for number, (x, want, reply) in enumerate(zip(inputs, expected, replies, strict=False), start=1):
        call = say(
            "{call} (call {n} of {total} on the same module)",
            "{call}（同一模块的第 {n}/{total} 次调用）",
            call=call_text("PreNormTransformer", STACK_ARGS, kwargs),
            n=number,
            total=len(inputs),
        )
        harness.assert_close(
            reply.output,
            want,
            tol=TOLERANCES["block float32"],
            call=call,
            on=x.describe(harness.device),
            suspects=partial(_stack_suspects, model, x.tensor),
            cause=STATEFUL if number > 1 else None,
        )


def _stack_suspects(model: torch.nn.Module, x: torch.Tensor) -> list[tuple[Misconception, torch.Tensor]]:
    """The stack's mistaken variants on `x`, worked out when its output is wrong."""
    with torch.no_grad():
        return [(m, fn(x.double())) for m, fn in stack_variants(model).items()]


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("cls", ["PreNormBlock", "PreNormTransformer"])
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_eps_reaches_every_norm(harness: Harness, cls: str, norm: str) -> None:
    x = Input(
        randn((2, 4, D_MODEL), 50, scale=0.02),
        say("small (0.02·N(0,1)), where eps matters", "小数值（0.02·N(0,1)，eps 有影响）"),
    )
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
