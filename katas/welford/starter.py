"""Kata: a running mean and variance that stays exact in float32. Run `normkata grade` to check it."""

from __future__ import annotations

import torch


class RunningStats:
    """Per-feature count, mean and variance of rows that arrive in batches.

    Args:
        num_features: size of each row (the statistics have this shape).
        dtype: dtype of the statistics, and of the batches passed to `update`.
        device: where the statistics live.
    """

    def __init__(self, num_features: int, dtype: torch.dtype = torch.float32, device=None):
        raise NotImplementedError("set count to 0 and create the per-feature state")

    @property
    def mean(self) -> torch.Tensor:
        """The mean of every row folded in so far, shape (num_features,)."""
        raise NotImplementedError("return the mean")

    def var(self, unbiased: bool = False) -> torch.Tensor:
        """Their variance: divided by count, or by count - 1 when unbiased."""
        raise NotImplementedError("return the variance")

    def update(self, batch: torch.Tensor) -> None:
        """Fold in a batch of shape (n, num_features)."""
        raise NotImplementedError("fold in the batch")

    def merge(self, other: RunningStats) -> None:
        """Fold another RunningStats into this one, in place."""
        raise NotImplementedError("fold in the other statistics")
