# expect: pass
# style: BertLayerNorm-style eps kept ONLY as `variance_epsilon` (math right, fp32 upcast): the contract observes eps through outputs, so the name is the learner's business
# shows on: nothing: every output matches torch, including eps 0.1 and 1e-7
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.variance_epsilon = eps
        self.elementwise_affine = elementwise_affine
        kw = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(self.normalized_shape, **kw)) if elementwise_affine else None
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape, **kw)) if elementwise_affine and bias else None

    def forward(self, x):
        dims = tuple(range(-len(self.normalized_shape), 0))
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        u = h.mean(dims, keepdim=True)
        s = (h - u).pow(2).mean(dims, keepdim=True)
        h = (h - u) / torch.sqrt(s + self.variance_epsilon)
        if self.weight is not None:
            h = self.weight * h
        if self.bias is not None:
            h = h + self.bias
        return h.to(x.dtype)
