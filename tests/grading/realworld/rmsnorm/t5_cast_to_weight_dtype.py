# expect: pass
# style: Hugging Face T5LayerNorm: variance from x.to(float32), eps as `variance_epsilon`, hidden cast to the WEIGHT's dtype only when the weight is fp16/bf16, then `weight * hidden`
from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        """Scale-only layer norm as in T5: no bias and no mean subtraction."""
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        # Mean square in fp32 so half-precision activations cannot overflow when squared.
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)

        # convert into half-precision if necessary
        if self.weight.dtype in [torch.float16, torch.bfloat16]:
            hidden_states = hidden_states.to(self.weight.dtype)

        return self.weight * hidden_states
