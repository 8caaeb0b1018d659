# expect: pass
# style: torch/_decomp `_fused_rms_norm` written out: dims_to_reduce list built from normalized_shape, a "computation dtype" helper, rsqrt(pow(2).mean + eps), multiply by weight in the computation dtype, then type_as(input)
from __future__ import annotations

import torch
from torch import nn


def _computation_dtype(dtype: torch.dtype) -> torch.dtype:
    # half and bfloat16 are computed in float32; everything else in itself
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def rms_norm_decomposed(input, normalized_shape, weight, eps):
    dims_to_reduce = [input.dim() - i - 1 for i in range(len(normalized_shape))]
    upcasted_input = input.to(_computation_dtype(input.dtype))
    rstd = torch.rsqrt(torch.pow(upcasted_input, 2).mean(dim=dims_to_reduce, keepdim=True) + eps)
    upcasted_result = upcasted_input.mul(rstd)
    if weight is not None:
        upcasted_result = upcasted_result.mul(weight)
    return upcasted_result.type_as(input), rstd


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = [hidden_size]
        self.eps = eps
        self.weight = nn.Parameter(torch.empty(hidden_size, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.ones_(self.weight)

    def forward(self, x):
        out, _ = rms_norm_decomposed(x, self.normalized_shape, self.weight, self.eps)
        return out
