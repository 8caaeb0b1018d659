"""Hidden suite for the Pre-Norm kata (run by `normkata grade`, never copied to the workspace)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from torch import nn

from normkata.grading.checks import Harness, Input, Misconception, expect_keys, fail, randn

DEVICES = ["cpu", "cuda"]
D_MODEL, N_HEADS, D_FF = 16, 4, 32
#: Pre-norm block tolerances from GRADING.md: fp32 / bf16 / fp16.
BLOCK_TOLERANCE = {torch.float32: 1e-4, torch.bfloat16: 3e-2, torch.float16: 4e-3}

POST_NORM = Misconception(
    "pn-post-norm",
    "Post-Norm wiring: the norm is applied after the residual addition",
    "接成了 Post-Norm：归一化放在了残差相加之后",
    "Pre-Norm is x = x + attn(norm1(x)); x = x + ffn(norm2(x)): normalize the sublayer's input, not the sum.",
    "Pre-Norm 是 x = x + attn(norm1(x))；x = x + ffn(norm2(x))：归一化子层的输入，而不是相加后的和。",
)
NORMALIZED_RESIDUAL = Misconception(
    "pn-normalized-residual",
    "the residual adds the normalized x instead of x",
    "残差加的是归一化后的 x 而不是 x",
    "Keep the stream clean: h = norm1(x) feeds attn only; add attn's output to the original x.",
    "保持残差流干净：norm1(x) 只送进 attn；把 attn 的输出加到原始的 x 上。",
)
SHARED_NORM = Misconception(
    "pn-shared-norm",
    "the same norm is used before both sublayers",
    "两个子层前用了同一个归一化层",
    "Use norm1 before attention and norm2 before the feed-forward network: they have different weights.",
    "注意力之前用 norm1，前馈网络之前用 norm2：它们的权重不同。",
)
NO_FINAL_NORM = Misconception(
    "pn-no-final-norm",
    "the final norm after the last block is missing",
    "缺少最后一个 block 之后的最终归一化",
    "Apply self.final_norm after the loop over self.blocks.",
    "在遍历 self.blocks 之后应用 self.final_norm。",
)
EPS_NOT_PASSED = Misconception(
    "pn-eps-not-passed",
    "eps is not passed to the norms",
    "eps 没有传给归一化层",
    "Create the norms with eps=eps: nn.RMSNorm's own default is the dtype's machine epsilon, not 1e-5.",
    "创建归一化层时传入 eps=eps：nn.RMSNorm 自己的默认值是该数据类型的机器精度，而不是 1e-5。",
)


def _reference():  # type: ignore[no-untyped-def]
    import normkata_reference_prenorm as reference  # type: ignore[import-not-found]

    return reference


def random_state(module: nn.Module, seed: int) -> dict[str, torch.Tensor]:
    """Random weights everywhere, norms included: with norm weights at one, wiring bugs can hide."""
    generator = torch.Generator().manual_seed(seed)
    state = {}
    for name, value in module.state_dict().items():
        if name.endswith(("norm1.weight", "norm2.weight", "final_norm.weight")):
            state[name] = 1.0 + 0.5 * torch.randn(value.shape, generator=generator)
        else:
            state[name] = 0.3 * torch.randn(value.shape, generator=generator)
    return state


def build(cls: str, args: list, kwargs: dict, state: dict[str, torch.Tensor], dtype: torch.dtype) -> nn.Module:
    module = getattr(_reference(), cls)(*args, **kwargs)
    module.load_state_dict({k: v.to(dtype) for k, v in state.items()})
    return module.double()


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
    def each_block(variant_of: Callable[[nn.Module], Callable[[torch.Tensor], torch.Tensor]]):  # type: ignore[no-untyped-def]
        def run(x: torch.Tensor) -> torch.Tensor:
            for block in model.blocks:
                x = variant_of(block)(x)
            return model.final_norm(x)

        return run

    def no_final(x: torch.Tensor) -> torch.Tensor:
        for block in model.blocks:
            x = block(x)
        return x

    variants = {
        m: each_block(lambda b, m=m: block_variants(b)[m]) for m in (POST_NORM, NORMALIZED_RESIDUAL, SHARED_NORM)
    }
    variants[NO_FINAL_NORM] = no_final
    return variants


def check(
    harness: Harness,
    cls: str,
    args: list,
    kwargs: dict,
    x: Input,
    *,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
    extra_suspects: Callable[[dict[str, torch.Tensor]], list] | None = None,
) -> None:
    state = random_state(getattr(_reference(), cls)(*args, **kwargs), seed)

    def expected(x_in: torch.Tensor, quantised: dict[str, torch.Tensor]) -> torch.Tensor:
        with torch.no_grad():
            return build(cls, args, kwargs, state, dtype)(x_in.double().cpu())

    def suspects(x_in: torch.Tensor, quantised: dict[str, torch.Tensor]) -> list:
        module = build(cls, args, kwargs, state, dtype)
        variants = block_variants(module) if cls == "PreNormBlock" else stack_variants(module)
        with torch.no_grad():
            found = [(m, fn(x_in.double().cpu())) for m, fn in variants.items()]
        return found + (extra_suspects(state) if extra_suspects else [])

    tol = BLOCK_TOLERANCE[dtype]
    atol = tol
    if dtype != torch.float32:
        # Matmuls and softmax round at every step in half precision: never hold the learner to
        # more than the reference itself achieves in that dtype (twice its own error).
        low = getattr(_reference(), cls)(*args, **kwargs)
        low.load_state_dict({k: v.to(dtype) for k, v in state.items()})
        with torch.no_grad():
            own_error = (low.to(dtype)(x.tensor).double() - expected(x.tensor, {})).abs().max().item()
        atol = max(tol, 2 * own_error)
    harness.forward_case(
        cls,
        args,
        kwargs,
        x,
        state=state,
        dtype=None if dtype == torch.float32 else dtype,
        tol=tol,
        atol=atol,
        expected=expected,
        suspects=suspects,
    )


# -- module state ------------------------------------------------------------------------------


@pytest.mark.category("module state")
@pytest.mark.parametrize(("norm", "norm_type"), [("rmsnorm", "RMSNorm"), ("layernorm", "LayerNorm")])
def test_block_submodules(harness: Harness, norm: str, norm_type: str) -> None:
    call = f"PreNormBlock({D_MODEL}, {N_HEADS}, {D_FF}, norm={norm!r})"
    info = harness.inspect("PreNormBlock", [D_MODEL, N_HEADS, D_FF], {"norm": norm})
    children = info["children"]
    expect_keys(call, "submodules", list(children), ["norm1", "attn", "norm2", "ffn"])
    for name in ("norm1", "norm2"):
        if norm_type not in children[name]:
            fail(f"{call}.{name} is a {children[name]}, expected a {norm_type} for norm={norm!r}")
    if children["attn"] != "CausalSelfAttention" or children["ffn"] != "FeedForward":
        fail(f"{call}: attn and ffn must be the provided CausalSelfAttention and FeedForward")
    reference_keys = list(_reference().PreNormBlock(D_MODEL, N_HEADS, D_FF, norm=norm).state_dict())
    expect_keys(call, "state_dict keys", info["state_dict"], reference_keys)


@pytest.mark.category("module state")
def test_stack_submodules(harness: Harness) -> None:
    call = f"PreNormTransformer(3, {D_MODEL}, {N_HEADS}, {D_FF})"
    info = harness.inspect("PreNormTransformer", [3, D_MODEL, N_HEADS, D_FF])
    expect_keys(call, "submodules", list(info["children"]), ["blocks", "final_norm"])
    if info["children"]["blocks"] != "ModuleList":
        fail(f"{call}.blocks is a {info['children']['blocks']}, expected an nn.ModuleList")
    reference_keys = list(_reference().PreNormTransformer(3, D_MODEL, N_HEADS, D_FF).state_dict())
    expect_keys(call, "state_dict keys", info["state_dict"], reference_keys)


# -- forward -----------------------------------------------------------------------------------


@pytest.mark.category("forward fp32")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
@pytest.mark.parametrize("shape", [(2, 5), (1, 9), (3, 1)], ids=["B2xT5", "B1xT9", "B3xT1"])
def test_block_forward(harness: Harness, norm: str, shape: tuple[int, int], device: str) -> None:
    x = Input(randn((*shape, D_MODEL), 1, scale=1.5, shift=0.3), "1.5·N(0,1)+0.3")
    check(harness, "PreNormBlock", [D_MODEL, N_HEADS, D_FF], {"norm": norm}, x, seed=len(norm) + shape[1])


@pytest.mark.category("forward fp32")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_stack_forward(harness: Harness, norm: str, device: str) -> None:
    x = Input(randn((2, 6, D_MODEL), 2, scale=1.5), "1.5·N(0,1)")
    check(harness, "PreNormTransformer", [3, D_MODEL, N_HEADS, D_FF], {"norm": norm}, x, seed=7)


@pytest.mark.category("numerical stability")
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_eps_is_passed_to_the_norms(harness: Harness, norm: str) -> None:
    eps = 1e-2
    x = Input(randn((2, 4, D_MODEL), 3, scale=0.02), "small (0.02·N(0,1)), where eps matters")

    def default_eps(state: dict[str, torch.Tensor]) -> list:
        module = build("PreNormBlock", [D_MODEL, N_HEADS, D_FF], {"norm": norm}, state, torch.float32)
        for name in ("norm1", "norm2"):
            getattr(module, name).eps = torch.finfo(torch.float32).eps if norm == "rmsnorm" else 1e-5
        with torch.no_grad():
            return [(EPS_NOT_PASSED, module(x.tensor.double()))]

    check(harness, "PreNormBlock", [D_MODEL, N_HEADS, D_FF], {"norm": norm, "eps": eps}, x, seed=11,
          extra_suspects=default_eps)  # fmt: skip


@pytest.mark.category("low precision")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_block_half_precision(harness: Harness, dtype: torch.dtype, norm: str, device: str) -> None:
    x = Input(randn((2, 5, D_MODEL), 4).to(dtype), "N(0,1)")
    check(harness, "PreNormBlock", [D_MODEL, N_HEADS, D_FF], {"norm": norm}, x, dtype=dtype, seed=13)


# -- gradients ---------------------------------------------------------------------------------


@pytest.mark.category("gradients")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
def test_gradients(harness: Harness, norm: str, device: str) -> None:
    reference = _reference().PreNormTransformer(2, D_MODEL, N_HEADS, D_FF, norm=norm)
    harness.gradient_case(
        "PreNormTransformer",
        [2, D_MODEL, N_HEADS, D_FF],
        {"norm": norm},
        Input(randn((2, 5, D_MODEL), 5), "N(0,1)"),
        reference=reference,
        state=random_state(reference, 17),
    )
