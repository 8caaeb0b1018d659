# expect: pass
# style: torch/_refs `native_layer_norm` written out: a `_normalize(a, norm_dims, eps)` helper returning (out, mean, rstd) via var_mean(unbiased=False) in the computation dtype, then weight/bias, then cast to the input dtype
from __future__ import annotations

import torch
from torch import nn


def _normalize(a, norm_dims, eps):
    computation_dtype = torch.float32 if a.dtype in (torch.float16, torch.bfloat16) else a.dtype
    a_acc = a.to(computation_dtype)
    biased_var, mean = torch.var_mean(a_acc, dim=norm_dims, unbiased=False, keepdim=True)
    rstd = torch.rsqrt(biased_var + eps)
    out = (a_acc - mean) * rstd
    return out, mean, rstd


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    axis = input.ndim - len(normalized_shape)
    reduction_dims = list(range(axis, input.ndim))
    out, mean, rstd = _normalize(input, reduction_dims, eps)
    if weight is None and bias is not None:
        raise ValueError("weight is None but bias is not")
    if weight is not None and bias is None:
        out = out * weight
    elif weight is not None and bias is not None:
        out = out * weight + bias
    return out.to(input.dtype), mean, rstd


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        factory_kwargs = {"device": device, "dtype": dtype}
        if self.elementwise_affine:
            self.weight = nn.Parameter(torch.empty(self.normalized_shape, **factory_kwargs))
            self.bias = nn.Parameter(torch.empty(self.normalized_shape, **factory_kwargs)) if bias else None
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, input):
        return native_layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)[0]
