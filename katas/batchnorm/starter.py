"""Kata: BatchNorm1d with running statistics. Run `normkata grade` to check it."""

from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    """Batch normalization per channel for (N, C) or (N, C, L) input.

    Training: y = (x - batch_mean) / sqrt(batch_var + eps) * weight + bias, and the running
    statistics move toward the batch's. Eval: the running statistics are used instead.

    Args:
        num_features: C, the number of channels.
        eps: added to the variance inside the square root.
        momentum: weight of the new batch in the running averages; None = cumulative average.
        affine: whether to learn weight and bias (else both are None).
        track_running_stats: whether to keep running_mean, running_var, num_batches_tracked.
        device, dtype: where and in what dtype to create parameters and buffers.
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        raise NotImplementedError("store the settings; create weight, bias and the running buffers")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (N, C) or (N, C, L) -> same shape and dtype."""
        raise NotImplementedError("normalize x; in training, update the running statistics")
