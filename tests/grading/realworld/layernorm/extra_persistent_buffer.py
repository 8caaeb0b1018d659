# expect: fail
# style: correct math, but eps is also registered as a PERSISTENT buffer (`eps_t`) and used in forward: state_dict gains a key, so torch's state_dict no longer loads with strict=True
# shows on: state_dict keys ['weight', 'bias', 'eps_t'] vs ['weight', 'bias']; load_state_dict(nn.LayerNorm(8).state_dict(), strict=True) raises "Missing key(s): eps_t"; outputs match torch
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.register_buffer("eps_t", torch.tensor(eps, dtype=torch.float64, device=device))
        kw = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.ones(self.normalized_shape, **kw)) if elementwise_affine else None
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape, **kw)) if elementwise_affine and bias else None

    def forward(self, x):
        dims = tuple(range(-len(self.normalized_shape), 0))
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        mean = h.mean(dims, keepdim=True)
        var = (h - mean).pow(2).mean(dims, keepdim=True)
        y = (h - mean) * torch.rsqrt(var + self.eps_t.item())
        if self.weight is not None:
            y = y * self.weight
        if self.bias is not None:
            y = y + self.bias
        return y.to(x.dtype)
