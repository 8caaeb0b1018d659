"""Kata: LayerNorm's backward by hand. Run `normkata grade` to check it."""

from __future__ import annotations

import torch


class LayerNormFunction(torch.autograd.Function):
    """LayerNorm over the last dimension, with a hand-written backward.

    Forward: y = (x - mean) / sqrt(var + eps) * weight + bias, mean and biased var over the last dim.
    Use: y = LayerNormFunction.apply(x, weight, bias, eps)
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
        """x: (..., d), weight and bias: (d,) -> y of x's shape and dtype. Save what backward needs on ctx."""
        raise NotImplementedError("compute y and save what backward needs")

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        """grad_output: dL/dy, x's shape -> (dL/dx, dL/dweight, dL/dbias, None), with no autograd."""
        raise NotImplementedError("return the gradients of x, weight and bias, and None for eps")
