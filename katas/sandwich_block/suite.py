"""Hidden suite for the sandwich (Peri-LN) block kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. Inputs
and weights are drawn from the run's seed; the integer passed to `randn` / `seeded` only tells
them apart. Every norm gain is random: with gains at one, a misplaced norm can hide.
The placement is Gemma 2's and Gemma 3's (Hugging Face Gemma2DecoderLayer / Gemma3DecoderLayer):
h = x + post_attention_layernorm(self_attn(input_layernorm(x))),
out = h + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(h))).
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
NORMS = ("input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm")


MISTAKES = misconceptions("sandwich_block")  # titles and hints: kata.yaml
NORM_AFTER_ADD = MISTAKES["sw-norm-after-add"]
NO_OUTPUT_NORMS = MISTAKES["sw-no-output-norms"]
NO_INPUT_NORMS = MISTAKES["sw-no-input-norms"]
PRE_FF_NOT_CALLED = MISTAKES["sw-pre-ff-not-called"]
SWAPPED_NORMS = MISTAKES["sw-swapped-norms"]
NORMALIZED_RESIDUAL = MISTAKES["sw-normalized-residual"]
NO_FINAL_NORM = MISTAKES["sw-no-final-norm"]
EPS_NOT_PASSED = MISTAKES["sw-eps-not-passed"]


reference_module = block_reference("sandwich_block")
random_state = random_block_state(lambda name: name.endswith("layernorm.weight") or name == "norm.weight")


def build(cls: str, args: list[Any], kwargs: dict[str, Any], state: dict[str, torch.Tensor]) -> nn.Module:
    return float64_reference(reference_module, cls, args, kwargs, state)


def with_eps(module: nn.Module, blocks_eps: float | None, final_eps: float | None) -> nn.Module:
    """The module with its norms' eps replaced (None: leave it)."""
    for name, norm in module.named_modules():
        if isinstance(norm, nn.RMSNorm):
            eps = final_eps if name == "norm" else blocks_eps
            if eps is not None:
                norm.eps = eps
    return module


def block_variants(block: nn.Module) -> dict[Misconception, list[Callable[[torch.Tensor], torch.Tensor]]]:
    n_in, n_pa, n_pf, n_po = (getattr(block, n) for n in NORMS)
    attn, mlp = block.self_attn, block.mlp

    def after_add(x: torch.Tensor) -> torch.Tensor:
        h = n_pa(x + attn(n_in(x)))
        return n_po(h + mlp(n_pf(h)))

    def pre_only(x: torch.Tensor) -> torch.Tensor:
        h = x + attn(n_in(x))
        return h + mlp(n_pf(h))

    def output_only(x: torch.Tensor) -> torch.Tensor:
        h = x + n_pa(attn(x))
        return h + n_po(mlp(h))

    def pre_ff_missing(x: torch.Tensor) -> torch.Tensor:
        h = x + n_pa(attn(n_in(x)))
        return h + n_po(mlp(h))

    def swapped(attn_pair: bool, ff_pair: bool) -> Callable[[torch.Tensor], torch.Tensor]:
        a_in, a_out = (n_pa, n_in) if attn_pair else (n_in, n_pa)
        f_in, f_out = (n_po, n_pf) if ff_pair else (n_pf, n_po)

        def run(x: torch.Tensor) -> torch.Tensor:
            h = x + a_out(attn(a_in(x)))
            return h + f_out(mlp(f_in(h)))

        return run

    def normalized_residual(x: torch.Tensor) -> torch.Tensor:
        h = n_in(x)
        h = h + n_pa(attn(h))
        g = n_pf(h)
        return g + n_po(mlp(g))

    return {
        NORM_AFTER_ADD: [after_add],
        NO_OUTPUT_NORMS: [pre_only],
        NO_INPUT_NORMS: [output_only],
        PRE_FF_NOT_CALLED: [pre_ff_missing],
        SWAPPED_NORMS: [swapped(True, False), swapped(False, True), swapped(True, True)],
        NORMALIZED_RESIDUAL: [normalized_residual],
    }


def stack_variants(model: nn.Module) -> list[tuple[Misconception, Callable[[torch.Tensor], torch.Tensor]]]:
    def each_layer(mistake: Misconception, index: int) -> Callable[[torch.Tensor], torch.Tensor]:
        def run(x: torch.Tensor) -> torch.Tensor:
            for layer in model.layers:
                x = block_variants(layer)[mistake][index](x)
            return model.norm(x)

        return run

    def no_final(x: torch.Tensor) -> torch.Tensor:
        for layer in model.layers:
            x = layer(x)
        return x

    found = [(m, each_layer(m, i)) for m, fns in block_variants(model.layers[0]).items() for i in range(len(fns))]
    return [*found, (NO_FINAL_NORM, no_final)]


def variants_of(cls: str, module: nn.Module) -> list[tuple[Misconception, Callable[[torch.Tensor], torch.Tensor]]]:
    if cls == "SandwichBlock":
        return [(m, fn) for m, fns in block_variants(module).items() for fn in fns]
    return stack_variants(module)


BLOCKS = BlockKata(
    block="SandwichBlock",
    stack="SandwichTransformer",
    block_args=BLOCK_ARGS,
    stack_prefix="layers.",
    final_prefix="norm",
    default_eps=1e-6,
    eps_not_passed=EPS_NOT_PASSED,
    reference_module=reference_module,
    random_state=random_state,
    build=build,
    with_eps=with_eps,
    variants=variants_of,
)
check, check_structure = BLOCKS.check, BLOCKS.check_structure


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category(Category.STATE)
def test_block_submodules_and_state_dict(harness: Harness) -> None:
    check_structure(harness, "SandwichBlock", BLOCK_ARGS, {}, [*NORMS, "self_attn", "mlp"])


@pytest.mark.category(Category.STATE)
def test_stack_submodules_and_state_dict(harness: Harness) -> None:
    check_structure(harness, "SandwichTransformer", STACK_ARGS, {}, ["layers", "norm"])


# -- forward -----------------------------------------------------------------------------------


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(2, 5), (1, 9), (3, 1)], ids=["B2xT5", "B1xT9", "B3xT1"])
def test_block_forward(harness: Harness, shape: tuple[int, int], device: str) -> None:
    x = Input(randn((*shape, D_MODEL), 10 + shape[1], scale=1.5, shift=0.3), "1.5·N(0,1)+0.3")
    check(harness, "SandwichBlock", BLOCK_ARGS, {}, x, key=20 + shape[1])


@pytest.mark.category(Category.FORWARD)
@pytest.mark.parametrize("device", DEVICES)
def test_stack_forward(harness: Harness, device: str) -> None:
    x = Input(randn((2, 6, D_MODEL), 30, scale=1.5), "1.5·N(0,1)")
    check(harness, "SandwichTransformer", STACK_ARGS, {}, x, key=31)


@pytest.mark.category(Category.FORWARD)
def test_called_several_times(harness: Harness) -> None:
    state = random_state(reference_module("SandwichTransformer", STACK_ARGS, {}), 40)
    model = build("SandwichTransformer", STACK_ARGS, {}, state)
    inputs = [
        Input(randn((2, 5, D_MODEL), 41, scale=1.5), "1.5·N(0,1)"),
        Input(randn((1, 3, D_MODEL), 42, scale=0.5, shift=1.0), "0.5·N(0,1)+1"),
    ]
    inputs += [Input(randn((2, 5, D_MODEL), 43, scale=1.5), "1.5·N(0,1)"), inputs[0]]  # same shape, new values
    steps = [Step([x.tensor]) for x in inputs]
    replies = harness.run(harness.program("SandwichTransformer", STACK_ARGS, {}, state=state, steps=steps)).steps
    for number, (x, reply) in enumerate(zip(inputs, replies, strict=False), start=1):
        call = say(
            "{call} (call {n} of {total} on the same module)",
            "{call}（同一模块的第 {n}/{total} 次调用）",
            call=call_text("SandwichTransformer", STACK_ARGS, {}),
            n=number,
            total=len(inputs),
        )
        with torch.no_grad():
            expected = model(x.tensor.double())
            suspects = [(m, fn(x.tensor.double())) for m, fn in stack_variants(model)]
        harness.assert_close(
            reply.output,
            expected,
            tol=TOLERANCES["block float32"],
            call=call,
            on=x.describe(harness.device),
            suspects=suspects,
            cause=STATEFUL if number > 1 else None,
        )


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("cls", ["SandwichBlock", "SandwichTransformer"])
def test_eps_reaches_every_norm(harness: Harness, cls: str) -> None:
    x = Input(
        randn((2, 4, D_MODEL), 50, scale=0.02),
        say("small (0.02·N(0,1)), where eps matters", "小数值（0.02·N(0,1)，eps 有影响）"),
    )
    args = BLOCK_ARGS if cls == "SandwichBlock" else STACK_ARGS
    check(harness, cls, args, {"eps": 1e-2}, x, key=51 + len(cls))


@pytest.mark.category(Category.LOW_PRECISION)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
def test_block_half_precision(harness: Harness, dtype: torch.dtype, device: str) -> None:
    x = Input(randn((2, 5, D_MODEL), 60).to(dtype), "N(0,1)")
    check(harness, "SandwichBlock", BLOCK_ARGS, {}, x, dtype=dtype, key=61)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
def test_gradients(harness: Harness, device: str) -> None:
    reference = reference_module("SandwichTransformer", [2, D_MODEL, N_HEADS, D_FF], {})
    harness.gradient_case(
        "SandwichTransformer",
        [2, D_MODEL, N_HEADS, D_FF],
        {},
        Input(randn((2, 5, D_MODEL), 70), "N(0,1)"),
        reference=reference,
        state=random_state(reference, 71),
    )
