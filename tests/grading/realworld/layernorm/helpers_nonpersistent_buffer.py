# expect: pass
# style: helper methods (`_stats`, `_affine`, `_reduce_dims`) and a NON-persistent int64 buffer holding the reduction dims (moves with .to(device), absent from state_dict, untouched by .to(dtype))
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.register_buffer("_dims", torch.arange(-len(shape), 0, device=device), persistent=False)
        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(shape, device=device, dtype=dtype))
            self.bias = nn.Parameter(torch.zeros(shape, device=device, dtype=dtype)) if bias else None
        else:
            self.weight, self.bias = None, None

    def _reduce_dims(self) -> tuple[int, ...]:
        return tuple(int(d) for d in self._dims.tolist())

    def _stats(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        dims = self._reduce_dims()
        mean = h.mean(dims, keepdim=True)
        var = (h - mean).square().mean(dims, keepdim=True)
        return mean, var

    def _affine(self, y: torch.Tensor) -> torch.Tensor:
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y

    def forward(self, x):
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        mean, var = self._stats(h)
        return self._affine((h - mean) * torch.rsqrt(var + self.eps)).to(x.dtype)
