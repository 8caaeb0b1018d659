"""Kata: RMSNorm's backward by hand. Run `normkata grade` to check it."""

from __future__ import annotations

import torch


class RMSNormFunction(torch.autograd.Function):
    """RMSNorm over the last dimension, with a hand-written backward.

    Forward: y = x / sqrt(mean(x**2, last dim) + eps) * weight.
    Use: y = RMSNormFunction.apply(x, weight, eps)
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        """x: (..., d), weight: (d,) -> y of x's shape and dtype. Save what backward needs on ctx."""
        raise NotImplementedError("compute y and save what backward needs")

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        """grad_output: dL/dy, x's shape -> (dL/dx, dL/dweight, None), with no autograd."""
        raise NotImplementedError("return the gradients of x and weight, and None for eps")
