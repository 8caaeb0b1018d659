# expect: pass
# style: OLMo / torchtune / Meta-Llama: a `_norm` helper, autocast switched off around the fp32 compute, `type_as(x)` before the weight multiply, `normalized_shape` kept as a tuple attribute
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    """Root mean square layer norm (Zhang & Sennrich, 2019), as in OLMo's RMSLayerNorm."""

    def __init__(self, hidden_size: int, eps: float = 1e-5, device=None, dtype=None) -> None:
        super().__init__()
        self.normalized_shape = (hidden_size,)
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(self.normalized_shape, device=device, dtype=dtype))

    def _norm(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast(enabled=False, device_type=x.device.type):
            x_normed = self._norm(x.float()).type_as(x)
        return x_normed * self.weight

    def reset_parameters(self) -> None:
        nn.init.ones_(self.weight)
