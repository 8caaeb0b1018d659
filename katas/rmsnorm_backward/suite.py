"""Hidden suite for the RMSNorm-backward kata (run by `normkata grade`, never copied to the workspace).

Every requirement checked here is stated in instructions.en.md / instructions.zh.md. The truth
is torch's own RMSNorm differentiated by autograd in float64, on the learner's (quantised) input.
"""

from __future__ import annotations

import pytest
import torch

from normkata.grading.checks import (
    FunctionCall,
    Harness,
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

MISTAKES = misconceptions("rmsnorm_backward")  # titles and hints: kata.yaml
RSTD_CONSTANT = MISTAKES["rmsb-rstd-as-constant"]
SUM_NOT_MEAN = MISTAKES["rmsb-sum-not-mean"]
DY_NOT_WEIGHTED = MISTAKES["rmsb-dy-not-weighted"]
EPS_DROPPED = MISTAKES["rmsb-eps-dropped"]
DW_NOT_NORMALIZED = MISTAKES["rmsb-dweight-uses-x"]


def truth(
    x: torch.Tensor, weight: torch.Tensor, dy: torch.Tensor, eps: float, dtype: torch.dtype = torch.float64
) -> list[torch.Tensor]:
    """Output, then the gradients of x and weight: torch's RMSNorm through autograd, in float64
    (or `dtype`)."""
    x64 = x.detach().to("cpu", dtype, copy=True).requires_grad_(True)
    w64 = weight.detach().to("cpu", dtype, copy=True).requires_grad_(True)
    y = torch.nn.functional.rms_norm(x64, (x.shape[-1],), w64, eps)
    y.backward(dy.to("cpu", dtype))
    assert x64.grad is not None and w64.grad is not None
    return [y.detach(), x64.grad, w64.grad]


def suspects(x: torch.Tensor, weight: torch.Tensor, dy: torch.Tensor, eps: float) -> list[Suspects]:
    x, w, dy = x.double().cpu(), weight.double().cpu(), dy.double().cpu()
    ms = x.pow(2).mean(-1, keepdim=True)
    r, bare = torch.rsqrt(ms + eps), torch.rsqrt(ms)
    g = w * dy
    d = x.shape[-1]
    dx = [
        (RSTD_CONSTANT, r * g),
        (SUM_NOT_MEAN, r * g - x * r.pow(3) * (x * g).sum(-1, keepdim=True)),
        (DY_NOT_WEIGHTED, r * dy - x * r.pow(3) * (x * dy).mean(-1, keepdim=True)),
        (EPS_DROPPED, bare * g - x * bare.pow(3) * (x * g).mean(-1, keepdim=True)),
    ]
    dw = [(DW_NOT_NORMALIZED, (dy * x).reshape(-1, d).sum(0))]
    return [[], dx, dw]


def check(harness: Harness, x: torch.Tensor, label: str, *, key: int, eps: float = 1e-5) -> None:
    weight = randn([x.shape[-1]], key + 1, scale=0.5, shift=1.0).to(x.dtype)
    dy = randn(x.shape, key + 2).to(x.dtype)
    call = FunctionCall("RMSNormFunction", ["x", "weight"], [x, weight], {"eps": eps}, label)
    backward_case(
        harness,
        call,
        grad_output=dy,
        expected=truth(x, weight, dy, eps),
        suspects=suspects(x, weight, dy, eps),
        truth=lambda t: truth(*t, eps, dtype=t[0].dtype),
    )


# -- gradients, shapes, float64, small variance: the last-dimension backward battery ---------

globals().update(last_dim_backward_cases(check, drawn=Noise("N(0,1)"), float64=Noise("2·N(0,1)", scale=2.0)))


@pytest.mark.category(Category.STABILITY)
def test_all_zero_row(harness: Harness) -> None:
    x = randn((3, 12), 410)
    x[1] = 0.0
    check(harness, x, say("row-1-all-zero", "第 1 行全为零的"), key=411)


globals().update(large_input_cases(check))


# -- the rule of the kata ----------------------------------------------------------------------


@pytest.mark.category(Category.INTEGRITY)
def test_backward_uses_no_autograd(harness: Harness) -> None:
    x = randn((3, 8), 500)
    call = FunctionCall(
        "RMSNormFunction", ["x", "weight"], [x, randn([8], 501, scale=0.5, shift=1.0)], {"eps": 1e-5}, "N(0,1)"
    )
    expect_no_autograd(harness, call, call.run(harness, randn((3, 8), 502)))
