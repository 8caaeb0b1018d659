# expect: pass
# style: nanoGPT LayerNorm ("LayerNorm but with an optional bias"): bias created only `if bias`, the normalized shape read back from `self.weight.shape`; nanoGPT calls F.layer_norm, which the kata forbids, so the same structure computes by hand
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    """LayerNorm but with an optional bias. PyTorch used to lack bias=False."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        ndim = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = ndim
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = nn.Parameter(torch.ones(ndim, device=device, dtype=dtype))
            self.bias = nn.Parameter(torch.zeros(ndim, device=device, dtype=dtype)) if bias else None
        else:
            self.weight = None
            self.bias = None

    def forward(self, input):
        dims = tuple(range(-len(self.normalized_shape), 0))
        h = input.float() if input.dtype in (torch.float16, torch.bfloat16) else input
        h = h - h.mean(dims, keepdim=True)
        h = h / torch.sqrt(h.pow(2).mean(dims, keepdim=True) + self.eps)
        if self.weight is not None:
            h = h * self.weight
        if self.bias is not None:
            h = h + self.bias
        return h.to(input.dtype)
