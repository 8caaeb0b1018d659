"""Hidden suite for the LayerNorm-backward kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. The truth
is torch's own LayerNorm differentiated by autograd in float64, on the learner's (quantised) input.
"""

from __future__ import annotations

import pytest
import torch

from normkata.grading.checks import (
    FunctionCall,
    Harness,
    Misconception,
    Suspects,
    backward_case,
    draw,
    expect_no_autograd,
    randn,
    say,
)
from normkata.grading.contract import Category

DEVICES = ["cpu", "cuda"]
NAMES = ["x", "weight", "bias"]

CASE_NAMES_ZH = {
    "gradients": "梯度",
    "gradients_drawn_shapes": "随机形状的梯度",
    "small_hidden_sizes": "很小的隐藏维度",
    "four_dimensional_input": "四维输入",
    "float64": "float64 输入",
    "small_variance_rows": "小方差的行",
    "constant_row": "常数行",
    "large_eps": "较大的 eps",
    "large_values": "大数值",
    "backward_uses_no_autograd": "backward 不使用 autograd",
}

MISSING_MEAN = Misconception(
    "lnb-missing-mean-term",
    "the term that flows through the mean is missing (no − mean(g))",
    "漏掉了经过均值传回的那一项（缺少 − mean(g)）",
    "μ depends on every x of the row: its path subtracts the row's mean of g = weight · grad_output.",
    "μ 依赖这一行的每个 x：经过它的路径要减去 g = weight · grad_output 在这一行上的均值。",
)
MISSING_XHAT = Misconception(
    "lnb-missing-xhat-term",
    "the term that flows through the variance is missing (no − x̂·mean(g·x̂))",
    "漏掉了经过方差传回的那一项（缺少 − x̂·mean(g·x̂)）",
    "σ depends on every x of the row too: its path subtracts x̂ times the row's mean of g·x̂.",
    "σ 同样依赖这一行的每个 x：经过它的路径要减去 x̂ 乘以 g·x̂ 在这一行上的均值。",
)
DY_NOT_WEIGHTED = Misconception(
    "lnb-dy-not-weighted",
    "grad_output used where weight · grad_output is needed",
    "在需要 weight · grad_output 的地方直接用了 grad_output",
    "y = x̂·weight + bias: the gradient that reaches x̂ is grad_output · weight; start the input's gradient from it.",
    "y = x̂·weight + bias：传到 x̂ 的梯度是 grad_output · weight；输入的梯度要从它开始算。",
)
UNBIASED = Misconception(
    "lnb-unbiased-variance",
    "unbiased variance (divided by d − 1) instead of the biased one",
    "用了无偏方差（除以 d − 1），而不是有偏方差",
    "LayerNorm divides by d: x.var(-1, unbiased=False, keepdim=True), or ((x − μ)²).mean(-1, keepdim=True).",
    "LayerNorm 除以 d：x.var(-1, unbiased=False, keepdim=True)，或 ((x − μ)²).mean(-1, keepdim=True)。",
)
DW_USES_X = Misconception(
    "lnb-dweight-uses-x",
    "the weight's gradient uses x instead of x̂",
    "weight 的梯度用了 x，而不是 x̂",
    "weight multiplies x̂, so its gradient is the sum of grad_output · x̂ over every dimension but the last.",
    "weight 乘的是 x̂，所以它的梯度是 grad_output · x̂ 在除最后一维外所有维度上的和。",
)


def _layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float, correction: int) -> torch.Tensor:
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, correction=correction, keepdim=True) + eps) * w + b


def _autograd(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, dy: torch.Tensor, eps: float,
              correction: int | None, dtype: torch.dtype = torch.float64) -> list[torch.Tensor]:  # fmt: skip
    """Output and the gradients of x, weight, bias in float64 (or `dtype`): torch's LayerNorm
    (correction None) or the same computation with another variance correction."""
    leaves = [t.detach().to("cpu", dtype, copy=True).requires_grad_(True) for t in (x, w, b)]
    if correction is None:
        y = torch.nn.functional.layer_norm(leaves[0], (x.shape[-1],), leaves[1], leaves[2], eps)
    else:
        y = _layer_norm(*leaves, eps, correction)
    y.backward(dy.to("cpu", dtype))
    return [y.detach(), *(leaf.grad if leaf.grad is not None else torch.zeros_like(leaf) for leaf in leaves)]


def suspects(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, dy: torch.Tensor, eps: float) -> list[Suspects]:
    d = x.shape[-1]
    x, w, dy = x.double().cpu(), w.double().cpu(), dy.double().cpu()
    mean = x.mean(-1, keepdim=True)
    r = torch.rsqrt((x - mean).pow(2).mean(-1, keepdim=True) + eps)
    xhat = (x - mean) * r
    g = w * dy

    def mean_of(t: torch.Tensor) -> torch.Tensor:
        return t.mean(-1, keepdim=True)

    dx = [
        (MISSING_MEAN, r * (g - xhat * mean_of(g * xhat))),
        (MISSING_XHAT, r * (g - mean_of(g))),
        (DY_NOT_WEIGHTED, r * (dy - mean_of(dy) - xhat * mean_of(dy * xhat))),
    ]
    found: list[list[tuple[Misconception, torch.Tensor]]] = [[], dx, [(DW_USES_X, (dy * x).reshape(-1, d).sum(0))], []]
    if d > 1:
        for place, value in zip(found, _autograd(x, w, b, dy, eps, 1), strict=True):
            place.append((UNBIASED, value))
    return list(found)


def check(harness: Harness, x: torch.Tensor, label: str, *, key: int, eps: float = 1e-5) -> None:
    d = x.shape[-1]
    weight = randn([d], key + 1, scale=0.5, shift=1.0).to(x.dtype)
    bias = randn([d], key + 2, scale=0.5).to(x.dtype)
    dy = randn(x.shape, key + 3).to(x.dtype)
    call = FunctionCall("LayerNormFunction", NAMES, [x, weight, bias], {"eps": eps}, label)
    backward_case(harness, call, grad_output=dy, expected=_autograd(x, weight, bias, dy, eps, None),
                  suspects=suspects(x, weight, bias, dy, eps),
                  truth=lambda t: _autograd(*t, eps, None, dtype=t[0].dtype))  # fmt: skip


# -- gradients in float32 ----------------------------------------------------------------------

SHAPES = [(4, 16), (2, 5, 8), (3, 7)]


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_gradients(harness: Harness, shape: tuple[int, ...], device: str) -> None:
    key = 1000 + sum(shape) * 7 + len(shape)
    check(harness, randn(shape, key, scale=1.5, shift=0.3), "1.5·N(0,1)+0.3", key=key)


@pytest.mark.category(Category.GRADIENTS)
@pytest.mark.parametrize("k", range(4))
def test_gradients_drawn_shapes(harness: Harness, k: int) -> None:
    shape = (draw(10 + k, 1, 5), draw(20 + k, 1, 6), draw(30 + k, 2, 64))
    check(harness, randn(shape, 40 + k, shift=1.0), "N(0,1)+1", key=50 + 10 * k)


@pytest.mark.category(Category.SHAPES)
@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_small_hidden_sizes(harness: Harness, d: int) -> None:
    check(harness, randn((4, d), 100 + d), "N(0,1)", key=110 + 10 * d)


@pytest.mark.category(Category.SHAPES)
def test_four_dimensional_input(harness: Harness) -> None:
    check(harness, randn((2, 2, 3, 9), 200), "N(0,1)", key=201)


@pytest.mark.category(Category.FLOAT64)
@pytest.mark.parametrize("shape", [(3, 17), (2, 4, 6)], ids=lambda s: "x".join(map(str, s)))
def test_float64(harness: Harness, shape: tuple[int, ...]) -> None:
    key = 300 + sum(shape)
    check(harness, randn(shape, key, scale=2.0, shift=-1.0).double(), "2·N(0,1)−1", key=key)


# -- numerical stability -----------------------------------------------------------------------


@pytest.mark.category(Category.STABILITY)
@pytest.mark.parametrize("device", DEVICES)
def test_small_variance_rows(harness: Harness, device: str) -> None:
    check(harness, randn((4, 32), 400, scale=1e-3), say("small-variance (1e-3·N(0,1))", "小方差（1e-3·N(0,1)）"),
          key=401)  # fmt: skip


@pytest.mark.category(Category.STABILITY)
def test_constant_row(harness: Harness) -> None:
    x = randn((3, 12), 410)
    x[1] = 0.5
    check(harness, x, say("row-1-constant (0.5)", "第 1 行为常数（0.5）的"), key=411)


@pytest.mark.category(Category.STABILITY)
def test_large_eps(harness: Harness) -> None:
    check(harness, randn((5, 9), 420, scale=0.05), "0.05·N(0,1)", key=421, eps=1e-2)


@pytest.mark.category(Category.STABILITY)
def test_large_values(harness: Harness) -> None:
    check(harness, randn((3, 24), 430, scale=1e3), say("large (1e3·N(0,1))", "大数值（1e3·N(0,1)）"), key=431)


# -- the rule of the kata ----------------------------------------------------------------------


@pytest.mark.category(Category.INTEGRITY)
def test_backward_uses_no_autograd(harness: Harness) -> None:
    tensors = [randn((3, 8), 500), randn([8], 501, scale=0.5, shift=1.0), randn([8], 502)]
    call = FunctionCall("LayerNormFunction", NAMES, tensors, {"eps": 1e-5}, "N(0,1)")
    expect_no_autograd(harness, call, call.run(harness, randn((3, 8), 503)))
