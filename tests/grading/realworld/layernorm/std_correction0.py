# expect: pass
# style: std-based LayerNorm done right: std(correction=0) then sqrt(std**2 + eps) (GRADING.md: a constant row gives finite gradients in torch 2.13), fp32 upcast
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kw = dict(device=device, dtype=dtype)
        self.weight = nn.Parameter(torch.ones(self.normalized_shape, **kw)) if elementwise_affine else None
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape, **kw)) if (elementwise_affine and bias) else None

    def forward(self, x):
        dims = tuple(range(x.dim() - len(self.normalized_shape), x.dim()))
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        mean = h.mean(dim=dims, keepdim=True)
        std = h.std(dim=dims, keepdim=True, correction=0)
        y = (h - mean) / torch.sqrt(std**2 + self.eps)
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y.to(x.dtype)
