"""Kata: LayerNorm like torch.nn.LayerNorm. Run `normkata grade` to check it."""

from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    """Layer normalization over the trailing `normalized_shape` dimensions.

    y = (x - mean) / sqrt(var + eps) * weight + bias   (biased variance)

    Args:
        normalized_shape: int or tuple, the trailing dims to normalize over.
        eps: added to the variance inside the square root.
        elementwise_affine: whether to learn weight and bias (else both are None).
        bias: whether to learn a bias (ignored when elementwise_affine is False).
        device, dtype: where and in what dtype to create the parameters.
    """

    def __init__(
        self,
        normalized_shape: int | tuple[int, ...],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        raise NotImplementedError("store normalized_shape (a tuple), eps, elementwise_affine; create weight and bias")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., *normalized_shape) -> same shape and dtype."""
        raise NotImplementedError("normalize x")
