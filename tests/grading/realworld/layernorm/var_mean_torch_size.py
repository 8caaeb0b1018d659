# expect: pass
# style: labml-style constructor (normalized_shape turned into a torch.Size, a tuple subclass; lists accepted) with torch.var_mean(correction=0) and an fp32 accumulator
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
            if bias:
                self.bias = nn.Parameter(torch.zeros(normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x: torch.Tensor):
        assert self.normalized_shape == x.shape[-len(self.normalized_shape):]
        dims = [-(i + 1) for i in range(len(self.normalized_shape))]
        acc = x.to(torch.float32) if x.dtype in (torch.float16, torch.bfloat16) else x
        var, mean = torch.var_mean(acc, dim=dims, correction=0, keepdim=True)
        x_norm = (acc - mean) / torch.sqrt(var + self.eps)
        if self.weight is not None:
            x_norm = self.weight * x_norm
        if self.bias is not None:
            x_norm = x_norm + self.bias
        return x_norm.to(x.dtype)
