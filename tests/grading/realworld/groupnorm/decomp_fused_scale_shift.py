# expect: pass
# style: torch/_decomp `native_group_norm` with the scale and shift fused per (sample, channel), as torch's CPU kernel computes them: y = x·(w·rstd) + (b − μ·w·rstd). On a constant group rstd = 1/sqrt(eps) ≈ 316 amplifies the rounding of x·scale against μ·scale (errors up to 2.4e-4 in float32, as nn.GroupNorm's own): a correct file that a fixed 1e-5 tolerance failed
from __future__ import annotations

import torch
from torch import nn


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    computation_dtype = torch.float32 if input.dtype in (torch.float16, torch.bfloat16) else input.dtype
    x = input.to(computation_dtype)
    grouped = x.reshape(N, group, -1)
    var, mean = torch.var_mean(grouped, dim=-1, correction=0, keepdim=True)
    rstd = torch.rsqrt(var + eps)
    rstd_c = rstd.repeat_interleave(C // group, dim=1).reshape(N, C)
    mean_c = mean.repeat_interleave(C // group, dim=1).reshape(N, C)
    scale = rstd_c if weight is None else rstd_c * weight.to(computation_dtype).reshape(1, C)
    shift = -mean_c * scale
    if bias is not None:
        shift = shift + bias.to(computation_dtype).reshape(1, C)
    shape = (N, C) + (1,) * (input.dim() - 2)
    return (x * scale.reshape(shape) + shift.reshape(shape)).to(input.dtype)


class GroupNorm(nn.Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = nn.Parameter(torch.ones(num_channels, device=device, dtype=dtype))
            self.bias = nn.Parameter(torch.zeros(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        hxw = x[0, 0].numel() if x.dim() > 2 else 1
        return native_group_norm(x, self.weight, self.bias, x.shape[0], self.num_channels, hxw, self.num_groups,
                                 self.eps)
