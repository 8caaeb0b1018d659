"""Reference LayerNorm as an autograd Function with a hand-written backward (last dimension).

Forward: μ, σ² (biased) over the last dim, r = 1/sqrt(σ² + eps), x̂ = (x − μ)·r, y = x̂·w + b.
With g = w·dy, over the d values of a row:
    dx = r·(g − mean(g) − x̂·mean(g·x̂))      dw = Σ dy·x̂      db = Σ dy   (Σ over all but the last dim)
"""

from __future__ import annotations

import torch


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = (x - mean).pow(2).mean(-1, keepdim=True)  # biased: divide by d, as nn.LayerNorm does
        rstd = torch.rsqrt(var + eps)
        xhat = (x - mean) * rstd
        ctx.save_for_backward(xhat, weight, rstd)
        return xhat * weight + bias

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        xhat, weight, rstd = ctx.saved_tensors
        g = grad_output * weight
        # μ and σ depend on every x of the row: the two means remove what flows through them.
        dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
        d = xhat.shape[-1]
        dweight = (grad_output * xhat).reshape(-1, d).sum(0)
        dbias = grad_output.reshape(-1, d).sum(0)
        return dx, dweight, dbias, None
