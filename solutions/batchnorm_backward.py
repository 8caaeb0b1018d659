"""Reference training-mode BatchNorm as an autograd Function with a hand-written backward.

x is (N, C) or (N, C, L); each channel c is normalized over its n = N (or N·L) values:
μ, σ² (biased), r = 1/sqrt(σ² + eps), x̂ = (x − μ)·r, y = x̂·w + b. With g = w·dy:
    dx = r·(g − mean(g) − x̂·mean(g·x̂))      dw = Σ dy·x̂      db = Σ dy   (per channel)
"""

from __future__ import annotations

import torch


def _shape(x: torch.Tensor) -> tuple[list[int], tuple[int, ...]]:
    """The dims a channel's statistics reduce over, and how a (C,) vector broadcasts onto x."""
    return ([0] if x.dim() == 2 else [0, 2]), ((1, -1) if x.dim() == 2 else (1, -1, 1))


class BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
        dims, view = _shape(x)
        mean = x.mean(dims, keepdim=True)
        var = (x - mean).pow(2).mean(dims, keepdim=True)  # biased: the batch's own variance
        rstd = torch.rsqrt(var + eps)
        xhat = (x - mean) * rstd
        ctx.save_for_backward(xhat, weight, rstd)
        return xhat * weight.view(view) + bias.view(view)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        xhat, weight, rstd = ctx.saved_tensors
        dims, view = _shape(xhat)
        g = grad_output * weight.view(view)
        # Every x of a channel moves its μ and σ: the two means remove what flows through them.
        dx = rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))
        dweight = (grad_output * xhat).sum(dims)
        dbias = grad_output.sum(dims)
        return dx, dweight, dbias, None
