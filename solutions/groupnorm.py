"""Reference GroupNorm: (N, C, *) seen as (N, G, C/G · prod(*)), normalized per group, affine per channel."""

from __future__ import annotations

import torch
from torch import nn


class GroupNorm(nn.Module):
    def __init__(
        self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None, dtype=None
    ):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:  # one scale and shift per channel, not per group
            self.weight = nn.Parameter(torch.ones(num_channels, device=device, dtype=dtype))
            self.bias = nn.Parameter(torch.zeros(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        in_dtype = x.dtype
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x  # statistics in fp32 at least
        groups = h.reshape(x.shape[0], self.num_groups, -1)  # (N, G, C/G · spatial): channels stay in order
        mean = groups.mean(-1, keepdim=True)
        var = (groups - mean).pow(2).mean(-1, keepdim=True)  # biased, as in torch
        h = ((groups - mean) * torch.rsqrt(var + self.eps)).reshape(x.shape)
        if self.weight is not None:
            per_channel = (1, -1) + (1,) * (x.dim() - 2)  # (1, C, 1, ...): broadcast along dim 1
            h = h * self.weight.view(per_channel) + self.bias.view(per_channel)
        return h.to(in_dtype)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"
