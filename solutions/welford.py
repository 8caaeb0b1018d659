"""Reference RunningStats: per-feature count, mean and variance of a stream, by Chan's merge."""

from __future__ import annotations

import torch


class RunningStats:
    def __init__(self, num_features: int, dtype: torch.dtype = torch.float32, device=None):
        self.count = 0
        self._mean = torch.zeros(num_features, dtype=dtype, device=device)
        self._m2 = torch.zeros(num_features, dtype=dtype, device=device)  # Σ (x - mean)², never E[x²]

    @property
    def mean(self) -> torch.Tensor:
        return self._mean.clone()

    def var(self, unbiased: bool = False) -> torch.Tensor:
        return self._m2 / (self.count - 1 if unbiased else self.count)  # count 1, unbiased: 0/0 = nan

    def update(self, batch: torch.Tensor) -> None:
        """Fold in a (n, num_features) batch: its own mean and M2, then one merge."""
        mean = batch.mean(0)
        self._combine(batch.shape[0], mean, (batch - mean).pow(2).sum(0))  # deviations are small: no cancellation

    def merge(self, other: RunningStats) -> None:
        self._combine(other.count, other._mean, other._m2)

    def _combine(self, n_b: int, mean_b: torch.Tensor, m2_b: torch.Tensor) -> None:
        """Chan et al.: the means are weighted by count, and M2 gains the between-group term."""
        if n_b == 0:
            return
        n = self.count + n_b
        delta = mean_b - self._mean
        self._mean = self._mean + delta * (n_b / n)
        self._m2 = self._m2 + m2_b + delta.pow(2) * (self.count * n_b / n)
        self.count = n
