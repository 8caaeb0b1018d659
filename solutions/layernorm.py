"""Reference LayerNorm, matching torch.nn.LayerNorm: biased variance over the trailing dims."""

from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
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
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype))  # gamma
            self.bias = nn.Parameter(torch.zeros(shape, device=device, dtype=dtype)) if bias else None  # beta
        else:
            self.weight = None
            self.bias = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dims = tuple(range(-len(self.normalized_shape), 0))  # the trailing dims to normalize over
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        mean = h.mean(dims, keepdim=True)
        centred = h - mean
        var = centred.pow(2).mean(dims, keepdim=True)  # biased (divide by n), two-pass: stable
        y = centred * torch.rsqrt(var + self.eps)
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y.to(x.dtype)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
