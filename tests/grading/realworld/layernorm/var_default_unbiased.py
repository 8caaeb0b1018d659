# expect: fail diagnosis=ln-unbiased-variance
# style: everything right (fp32 upcast, eps inside rsqrt, tuple dims) except `x.var(dims, keepdim=True)`, whose default is the UNBIASED (n-1) variance
# shows on: every fp32 forward (d=8: output too small by sqrt(7/8)); the d=1 case gives NaN (var of one value with n-1 = 0)
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kw = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(self.normalized_shape, **kw)) if elementwise_affine else None
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape, **kw)) if elementwise_affine and bias else None

    def forward(self, x):
        dims = tuple(range(-len(self.normalized_shape), 0))
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        mean = h.mean(dims, keepdim=True)
        var = h.var(dims, keepdim=True)
        y = (h - mean) * torch.rsqrt(var + self.eps)
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y.to(x.dtype)
