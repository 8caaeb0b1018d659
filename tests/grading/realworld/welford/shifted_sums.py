# expect: pass
"""The shifted-data method: sums of x - K and (x - K)² with K a value from the stream itself
(here the first row), so the sums stay near the data's spread. A merge re-expresses the other
object's sums about this object's K. Written by us in the style of textbook streaming code."""

import torch


class RunningStats:
    def __init__(self, num_features, dtype=torch.float32, device=None):
        self.count = 0
        self.shift = None
        self.s1 = torch.zeros(num_features, dtype=dtype, device=device)
        self.s2 = torch.zeros(num_features, dtype=dtype, device=device)

    def update(self, batch):
        if self.shift is None:
            self.shift = batch[0].clone()
        d = batch - self.shift
        self.count += batch.shape[0]
        self.s1 = self.s1 + d.sum(0)
        self.s2 = self.s2 + (d * d).sum(0)

    def merge(self, other):
        if other.count == 0:
            return
        if self.shift is None:
            self.shift, self.count, self.s1, self.s2 = other.shift.clone(), other.count, other.s1.clone(), other.s2.clone()
            return
        k = other.shift - self.shift
        self.s2 = self.s2 + other.s2 + 2 * k * other.s1 + other.count * k * k
        self.s1 = self.s1 + other.s1 + other.count * k
        self.count += other.count

    @property
    def mean(self):
        return self.shift + self.s1 / self.count

    def var(self, unbiased=False):
        m2 = (self.s2 - self.s1 * self.s1 / self.count).clamp_min(0)
        return m2 / (self.count - 1 if unbiased else self.count)
