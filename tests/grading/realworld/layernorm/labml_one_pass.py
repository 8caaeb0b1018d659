# expect: fail diagnosis=ln-one-pass-variance
# style: labml.ai annotated LayerNorm: torch.Size normalized_shape, dims list, var = mean(x**2) - mean**2 (one pass), gain/bias renamed weight/bias for the contract
# shows on: mean-1000 input (N(0,1)+1e3, (4,64)): cancellation in fp32, max abs err 0.21 against atol 1e-3 (bit-identical to the fp32 one-pass suspect); all other inputs match
from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = torch.Size([normalized_shape])
        elif isinstance(normalized_shape, (list, tuple)):
            normalized_shape = torch.Size(normalized_shape)
        assert isinstance(normalized_shape, torch.Size)
        self.normalized_shape = normalized_shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = nn.Parameter(torch.ones(normalized_shape, device=device, dtype=dtype))
            self.bias = nn.Parameter(torch.zeros(normalized_shape, device=device, dtype=dtype)) if bias else None
        else:
            self.weight = None
            self.bias = None

    def forward(self, x: torch.Tensor):
        assert self.normalized_shape == x.shape[-len(self.normalized_shape):]
        dims = [-(i + 1) for i in range(len(self.normalized_shape))]
        h = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        mean = h.mean(dim=dims, keepdim=True)
        mean_x2 = (h**2).mean(dim=dims, keepdim=True)
        var = mean_x2 - mean**2
        x_norm = (h - mean) / torch.sqrt(var + self.eps)
        if self.weight is not None:
            x_norm = self.weight * x_norm
        if self.bias is not None:
            x_norm = x_norm + self.bias
        return x_norm.to(x.dtype)
