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
    Noise,
    Suspects,
    backward_case,
    expect_no_autograd,
    large_input_cases,
    last_dim_backward_cases,
    misconceptions,
    randn,
    say,
)
from normkata.grading.contract import Category

NAMES = ["x", "weight", "bias"]


MISTAKES = misconceptions("layernorm_backward")  # titles and hints: kata.yaml
MISSING_MEAN = MISTAKES["lnb-missing-mean-term"]
MISSING_XHAT = MISTAKES["lnb-missing-xhat-term"]
DY_NOT_WEIGHTED = MISTAKES["lnb-dy-not-weighted"]
UNBIASED = MISTAKES["lnb-unbiased-variance"]
DW_USES_X = MISTAKES["lnb-dweight-uses-x"]


def _layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float, correction: int) -> torch.Tensor:
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, correction=correction, keepdim=True) + eps) * w + b


def _autograd(
    x: torch.Tensor,
    w: torch.Tensor,
    b: torch.Tensor,
    dy: torch.Tensor,
    eps: float,
    correction: int | None,
    dtype: torch.dtype = torch.float64,
) -> list[torch.Tensor]:
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
    backward_case(
        harness,
        call,
        grad_output=dy,
        expected=_autograd(x, weight, bias, dy, eps, None),
        suspects=suspects(x, weight, bias, dy, eps),
        truth=lambda t: _autograd(*t, eps, None, dtype=t[0].dtype),
    )


# -- gradients, shapes, float64, small variance: the last-dimension backward battery ---------

globals().update(
    last_dim_backward_cases(
        check, drawn=Noise("N(0,1)+1", shift=1.0), float64=Noise("2·N(0,1)−1", scale=2.0, shift=-1.0)
    )
)


@pytest.mark.category(Category.STABILITY)
def test_constant_row(harness: Harness) -> None:
    x = randn((3, 12), 410)
    x[1] = 0.5
    check(harness, x, say("row-1-constant (0.5)", "第 1 行为常数（0.5）的"), key=411)


globals().update(large_input_cases(check))


# -- the rule of the kata ----------------------------------------------------------------------


@pytest.mark.category(Category.INTEGRITY)
def test_backward_uses_no_autograd(harness: Harness) -> None:
    tensors = [randn((3, 8), 500), randn([8], 501, scale=0.5, shift=1.0), randn([8], 502)]
    call = FunctionCall("LayerNormFunction", NAMES, tensors, {"eps": 1e-5}, "N(0,1)")
    expect_no_autograd(harness, call, call.run(harness, randn((3, 8), 503)))
