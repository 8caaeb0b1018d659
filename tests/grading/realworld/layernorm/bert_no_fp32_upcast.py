# expect: fail diagnosis=ln-no-fp32-upcast
# style: old pytorch-pretrained-bert BertLayerNorm ("TF style", u/s two-pass, eps inside the root) computing in the INPUT dtype: no fp32 upcast for half input
# shows on: fp16 input 300·N(0,1): (x-u)² overflows to inf, s = inf, the normalized part is 0 and the output is exactly the bias (err 4.1); fp32, bf16 and fp16 2·N(0,1)+1 cases all match (the current layernorm suite's only half-precision input cannot catch it)
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
        u = x.mean(dims, keepdim=True)
        s = (x - u).pow(2).mean(dims, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        if self.weight is not None:
            x = self.weight * x
        if self.bias is not None:
            x = x + self.bias
        return x
