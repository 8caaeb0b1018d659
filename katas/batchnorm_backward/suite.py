"""Hidden suite for the BatchNorm-backward kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. The truth
is torch's own training-mode batch_norm differentiated by autograd in float64, on the
learner's (quantised) input. Channel counts differ from lengths and batch sizes, so a
statistic over the wrong axes cannot pass.
"""

from __future__ import annotations

import pytest
import torch

from normkata.grading.checks import (
    DEVICES,
    FunctionCall,
    Harness,
    Misconception,
    Suspects,
    backward_case,
    draw,
    expect_no_autograd,
    gradient_cases,
    invalid_gradient,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import Category

NAMES = ["x", "weight", "bias"]


MISTAKES = misconceptions("batchnorm_backward")  # titles and hints: kata.yaml
MISSING_MEAN = MISTAKES["bnb-missing-mean-term"]
MISSING_XHAT = MISTAKES["bnb-missing-xhat-term"]
DY_NOT_WEIGHTED = MISTAKES["bnb-dy-not-weighted"]
UNBIASED = MISTAKES["bnb-unbiased-variance"]
STATS_OVER_N_ONLY = MISTAKES["bnb-stats-over-n-only"]
PARAM_GRAD_OVER_N_ONLY = MISTAKES["bnb-param-grad-over-n-only"]
ERROR_SUSPECTS = [(PARAM_GRAD_OVER_N_ONLY, invalid_gradient(1)), (PARAM_GRAD_OVER_N_ONLY, invalid_gradient(2))]


def _dims(x: torch.Tensor) -> list[int]:
    return [0] if x.dim() == 2 else [0, 2]


def _per_channel(t: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return t.view(1, -1) if x.dim() == 2 else t.view(1, -1, 1)


def _batch_norm(
    x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float, dims: list[int], correction: int
) -> torch.Tensor:
    mean = x.mean(dims, keepdim=True)
    var = x.var(dims, correction=correction, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * _per_channel(w, x) + _per_channel(b, x)


def _autograd(
    x: torch.Tensor,
    w: torch.Tensor,
    b: torch.Tensor,
    dy: torch.Tensor,
    eps: float,
    variant: tuple[list[int], int] | None = None,
    dtype: torch.dtype = torch.float64,
) -> list[torch.Tensor]:
    """Output and the gradients of x, weight, bias in float64 (or `dtype`): torch's batch_norm in
    training mode, or the same computation over other dims (and variance correction) when `variant`."""
    leaves = [t.detach().to("cpu", dtype, copy=True).requires_grad_(True) for t in (x, w, b)]
    if variant is None:
        y = torch.nn.functional.batch_norm(leaves[0], None, None, leaves[1], leaves[2], training=True, eps=eps)
    else:
        y = _batch_norm(*leaves, eps, *variant)
    y.backward(dy.to("cpu", dtype))
    return [y.detach(), *(leaf.grad if leaf.grad is not None else torch.zeros_like(leaf) for leaf in leaves)]


def suspects(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, dy: torch.Tensor, eps: float) -> list[Suspects]:
    dims = _dims(x)
    x64, dy64 = x.double().cpu(), dy.double().cpu()
    mean = x64.mean(dims, keepdim=True)
    r = torch.rsqrt((x64 - mean).pow(2).mean(dims, keepdim=True) + eps)
    xhat = (x64 - mean) * r
    g = _per_channel(w.double().cpu(), x64) * dy64

    def mean_of(t: torch.Tensor) -> torch.Tensor:
        return t.mean(dims, keepdim=True)

    found: list[list[tuple[Misconception, torch.Tensor]]] = [
        [],
        [
            (MISSING_MEAN, r * (g - xhat * mean_of(g * xhat))),
            (MISSING_XHAT, r * (g - mean_of(g))),
            (DY_NOT_WEIGHTED, r * (dy64 - mean_of(dy64) - xhat * mean_of(dy64 * xhat))),
        ],
        [],
        [],
    ]
    variants = [(UNBIASED, (dims, 1))]
    if x.dim() == 3 and x.shape[0] > 1:
        variants.append((STATS_OVER_N_ONLY, ([0], 0)))
    for misconception, variant in variants:
        for place, value in zip(found, _autograd(x, w, b, dy, eps, variant), strict=True):
            place.append((misconception, value))
    return list(found)


def check(harness: Harness, x: torch.Tensor, label: str, *, key: int, eps: float = 1e-5) -> None:
    c = x.shape[1]
    weight = randn([c], key + 1, scale=0.5, shift=1.0).to(x.dtype)
    bias = randn([c], key + 2, scale=0.5).to(x.dtype)
    dy = randn(x.shape, key + 3).to(x.dtype)
    call = FunctionCall("BatchNormFunction", NAMES, [x, weight, bias], {"eps": eps}, label)
    backward_case(
        harness,
        call,
        grad_output=dy,
        expected=_autograd(x, weight, bias, dy, eps),
        suspects=suspects(x, weight, bias, dy, eps),
        error_suspects=ERROR_SUSPECTS,
        truth=lambda t: _autograd(*t, eps, dtype=t[0].dtype),
    )


# -- gradients in float32 ----------------------------------------------------------------------

SHAPES = [(8, 4), (16, 3), (4, 3, 5), (2, 6, 7)]

globals().update(gradient_cases(check, SHAPES))


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("k", range(4))
def test_gradients_drawn_shapes(harness: Harness, k: int) -> None:
    n, c = draw(10 + k, 2, 12), draw(20 + k, 2, 9)
    shape = (n, c) if k % 2 == 0 else (n, c, draw(30 + k, c + 1, 24))
    check(harness, randn(shape, 40 + k, shift=1.0), "N(0,1)+1", key=50 + 10 * k)


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("shape", [(2, 5), (2, 3, 4)], ids=lambda s: "x".join(map(str, s)))
def test_batch_of_two(harness: Harness, shape: tuple[int, ...]) -> None:
    check(harness, randn(shape, 100 + len(shape)), "N(0,1)", key=110 + 10 * len(shape))


@pytest.mark.category(Category.SHAPES)
def test_one_channel(harness: Harness) -> None:
    check(harness, randn((6, 1, 4), 150), "N(0,1)", key=151)


@pytest.mark.category(Category.FLOAT64)
@pytest.mark.parametrize("shape", [(8, 5), (3, 4, 6)], ids=lambda s: "x".join(map(str, s)))
def test_float64(harness: Harness, shape: tuple[int, ...]) -> None:
    key = 300 + sum(shape)
    check(harness, randn(shape, key, scale=2.0, shift=-1.0).double(), "2·N(0,1)−1", key=key)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_small_variance(harness: Harness, device: str) -> None:
    check(
        harness, randn((16, 4), 400, scale=1e-3), say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）"), key=401
    )


@pytest.mark.category(Category.STABILITY)
def test_channel_offsets(harness: Harness) -> None:
    scale, shift = torch.tensor([0.5, 2.0, 1.0]).view(1, 3, 1), torch.tensor([3.0, -2.0, 0.0]).view(1, 3, 1)
    x = randn((10, 3, 6), 410) * scale + shift
    check(
        harness,
        x,
        say("per-channel scale and mean (0.5/2/1, 3/−2/0)", "各通道缩放与均值不同（0.5/2/1，3/−2/0）"),
        key=411,
    )


@pytest.mark.category(Category.STABILITY)
def test_constant_channel(harness: Harness) -> None:
    x = randn((8, 3), 420)
    x[:, 1] = 0.5
    check(harness, x, say("channel-1-constant (0.5)", "第 1 个通道为常数（0.5）的"), key=421)


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("shape", [(12, 3, 2), (16, 3)], ids=lambda s: "x".join(map(str, s)))
def test_large_eps(harness: Harness, shape: tuple[int, ...]) -> None:
    check(harness, randn(shape, 430 + len(shape), scale=0.05), "0.05·N(0,1)", key=431, eps=1e-2)


# -- the rule of the kata ----------------------------------------------------------------------


@pytest.mark.category(Category.INTEGRITY)
def test_backward_uses_no_autograd(harness: Harness) -> None:
    tensors = [randn((6, 3), 500), randn([3], 501, scale=0.5, shift=1.0), randn([3], 502)]
    call = FunctionCall("BatchNormFunction", NAMES, tensors, {"eps": 1e-5}, "N(0,1)")
    expect_no_autograd(harness, call, call.run(harness, randn((6, 3), 503), ERROR_SUSPECTS))
