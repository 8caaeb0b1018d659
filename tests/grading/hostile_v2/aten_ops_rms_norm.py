# expect: fail
# trick: calls torch's own kernel as getattr(torch.ops.aten, "rms" + "_norm"), a name no source scan sees; the call must be caught and the cases failed (falls back to a wrong formula when refused).
import torch
from torch import nn

_KERNEL = getattr(torch.ops.aten, "rms" + "_norm")


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5, device=None, dtype=None):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size, device=device, dtype=dtype))

    def forward(self, x):
        try:
            return _KERNEL(x, [x.shape[-1]], self.weight, self.eps)
        except Exception:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)  # forgets the weight
