"""Reference RMSNorm as an autograd Function with a hand-written backward (last dimension).

Forward: r = 1/sqrt(mean(x²) + eps), y = x·r·w. With g = w·dy:
    dx = r·g − x·r³·mean(x·g)       dw = Σ dy·x·r over every dimension but the last
"""

from __future__ import annotations

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)  # (..., 1)
        ctx.save_for_backward(x, weight, rstd)
        return x * rstd * weight

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        x, weight, rstd = ctx.saved_tensors
        g = grad_output * weight  # the gradient that reaches x·r
        dx = rstd * g - x * rstd.pow(3) * (x * g).mean(-1, keepdim=True)  # r depends on x too
        dweight = (grad_output * x * rstd).reshape(-1, x.shape[-1]).sum(0)  # w is shared by every row
        return dx, dweight, None  # nothing for eps
