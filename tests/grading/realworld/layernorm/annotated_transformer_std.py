# expect: fail diagnosis=ln-unbiased-variance
# style: The Annotated Transformer LayerNorm: a_2 * (x - mean) / (std + eps) + b_2 with x.std(-1) (UNBIASED by default) and eps outside the root; parameters renamed weight/bias for the contract
# shows on: every fp32 forward (max abs err 0.21 at (2,5,8), NaN for d=1); on 2·N(0,1)+0.5 rows it matches the unbiased-variance suspect within 15-51% of the fp32 allowance (eps outside the root is invisible there), so that is the mistake to name; small-variance 1e-3·N rows match neither suspect
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    "Construct a layernorm module (See citation for details)."

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
        std = h.std(dims, keepdim=True)
        y = (h - mean) / (std + self.eps)
        if self.weight is not None:
            y = self.weight * y
        if self.bias is not None:
            y = y + self.bias
        return y.to(x.dtype)
