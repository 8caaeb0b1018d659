"""Kata: GroupNorm like torch.nn.GroupNorm. Run `normkata grade` to check it."""

from __future__ import annotations

import torch
from torch import nn


class GroupNorm(nn.Module):
    """Group normalization of (N, C, *) input: the C channels are split into num_groups groups of
    consecutive channels, and each sample's group is normalized over its channels and all positions.

    y = (x - mean_group) / sqrt(var_group + eps) * weight[c] + bias[c]   (biased variance)

    Args:
        num_groups: how many groups the channels are split into (must divide num_channels).
        num_channels: C, the size of dim 1.
        eps: added to the variance inside the square root.
        affine: whether to learn a per-channel weight and bias (else both are None).
        device, dtype: where and in what dtype to create the parameters.
    """

    def __init__(
        self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None, dtype=None
    ):
        super().__init__()
        raise NotImplementedError("check the group count, store eps, create weight and bias")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (N, C, *) -> same shape; same dtype as x for bf16/fp16 input."""
        raise NotImplementedError("normalize each group")
