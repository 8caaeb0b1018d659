"""Reference BatchNorm1d, matching torch.nn.BatchNorm1d for (N, C) and (N, C, L) inputs."""

from __future__ import annotations

import torch
from torch import nn


class BatchNorm1d(nn.Module):
    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,  # weight of the new batch; None = cumulative average
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(num_features, **factory)) if affine else None
        self.bias = nn.Parameter(torch.zeros(num_features, **factory)) if affine else None
        if track_running_stats:  # buffers: saved in state_dict, moved by .to(), never trained
            self.register_buffer("running_mean", torch.zeros(num_features, **factory))
            self.register_buffer("running_var", torch.ones(num_features, **factory))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {x.dim()}D input)")
        dims = (0,) if x.dim() == 2 else (0, 2)  # everything but the channel dim
        shape = (1, -1) if x.dim() == 2 else (1, -1, 1)  # to broadcast per channel
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.training or not self.track_running_stats:
            n = x.numel() // x.shape[1]
            if self.training and n <= 1:
                raise ValueError(f"Expected more than 1 value per channel when training, got input size {x.size()}")
            mean, var = h.mean(dims), h.var(dims, unbiased=False)  # the output uses the biased variance
            if self.training and self.track_running_stats:
                self._update_running_stats(mean, var * n / (n - 1))  # the estimate uses the unbiased one
        else:
            mean, var = self.running_mean.to(h.dtype), self.running_var.to(h.dtype)
        y = (h - mean.view(shape)) * torch.rsqrt(var.view(shape) + self.eps)
        if self.affine:
            y = y * self.weight.view(shape) + self.bias.view(shape)
        return y.to(x.dtype)

    @torch.no_grad()
    def _update_running_stats(self, mean: torch.Tensor, unbiased_var: torch.Tensor) -> None:
        self.num_batches_tracked += 1
        factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        self.running_mean.mul_(1 - factor).add_(factor * mean.to(self.running_mean.dtype))
        self.running_var.mul_(1 - factor).add_(factor * unbiased_var.to(self.running_var.dtype))

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"track_running_stats={self.track_running_stats}"
        )
