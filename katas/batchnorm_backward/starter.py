"""Kata: training-mode BatchNorm's backward by hand. Run `normkata grade` to check it."""

from __future__ import annotations

import torch


class BatchNormFunction(torch.autograd.Function):
    """Training-mode BatchNorm over the batch, per channel, with a hand-written backward.

    x is (N, C) or (N, C, L). Each channel is normalized with the mean and biased variance of its
    values over N (and L): y = (x - mean) / sqrt(var + eps) * weight[c] + bias[c].
    Use: y = BatchNormFunction.apply(x, weight, bias, eps)
    """

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
        """x: (N, C) or (N, C, L), weight and bias: (C,) -> y of x's shape and dtype."""
        raise NotImplementedError("compute y and save what backward needs")

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        """grad_output: dL/dy, x's shape -> (dL/dx, dL/dweight, dL/dbias, None), with no autograd."""
        raise NotImplementedError("return the gradients of x, weight and bias, and None for eps")
